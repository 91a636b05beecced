use std::ffi::OsStr;
use std::path::PathBuf;

use rynamo_graph::parse;

use crate::partition::{host_policy, partition};
use crate::*;

const MIXED: &str = "graph(%x: f32[2, 3], %y: f32[2, 3]):
  %a: f32[2, 3] = neg(%x)
  %b: f32[2, 3] = add(%a, %y, alpha=1)
  %c: f32[2, 3] = sin(%b)
  %d: f32[2, 3] = mul(%c, %a)
  %e: f32[2, 3] = exp(%d)
  return (%e, %b)
";

#[test]
fn partition_splits_runs_and_wires_boundaries() {
    let g = parse(MIXED).unwrap();
    let segs = partition(&g, &[true, true, false, true, true]);
    let shape: Vec<_> = segs
        .iter()
        .map(|s| (s.on_plugin, s.nodes.clone()))
        .collect();
    assert_eq!(shape, vec![(true, 0..2), (false, 2..3), (true, 3..5)]);
    let names = |g: &rynamo_graph::Graph, ids: &[rynamo_graph::ValueId]| {
        ids.iter()
            .map(|&v| g.value(v).name.clone())
            .collect::<Vec<_>>()
    };
    // Segment 0 exports %a (read by node 3) and %b (read by node 2 and returned).
    assert_eq!(names(&g, &segs[0].inputs), ["x", "y"]);
    assert_eq!(names(&g, &segs[0].outputs), ["a", "b"]);
    assert_eq!(names(&g, &segs[1].inputs), ["b"]);
    assert_eq!(names(&g, &segs[2].inputs), ["c", "a"]);
    assert_eq!(names(&g, &segs[2].outputs), ["e"]);
    for s in &segs {
        rynamo_graph::verify(&s.graph).unwrap();
    }
    assert_eq!(
        segs[2].graph.to_string(),
        "graph(%c: f32[2, 3], %a: f32[2, 3]):\n  %d: f32[2, 3] = mul(%c, %a)\n  \
         %e: f32[2, 3] = exp(%d)\n  return (%e)\n"
    );
}

#[test]
fn partition_drops_dead_plugin_segments_and_handles_empty_graphs() {
    let g = parse(
        "graph(%x: f32[3]):\n  %a: f32[3] = neg(%x)\n  %b: f32[3] = exp(%x)\n  return (%b)\n",
    )
    .unwrap();
    let segs = partition(&g, &[true, false]);
    assert_eq!(segs.len(), 1);
    assert!(!segs[0].on_plugin);
    let id = parse("graph(%x: f32[3]):\n  return (%x)\n").unwrap();
    assert!(partition(&id, &[]).is_empty());
}

#[test]
fn host_policy_keeps_state_on_the_host() {
    let g = parse(
        "graph(%x: f32[3]):\n  %a: f32[3] = rand_like(%x)\n  %b: f32[3] = add(%a, %x, alpha=1)\n  return (%b)\n",
    )
    .unwrap();
    assert_eq!(host_policy(&g), vec![false, true]);
    let g = parse(
        "graph(%x: f32[3]):\n  %a: f32[3] = neg(%x)\n  %b: f32[3] = mul_(%x, 2)\n  return (%a, %b)\n",
    )
    .unwrap();
    assert_eq!(
        host_policy(&g),
        vec![false, false],
        "a mutating graph stays on the host"
    );
    // What functionalization leaves: pure nodes, then write-backs of inputs.
    let g = parse(
        "graph(%x: f32[3]):\n  %a: f32[3] = neg(%x)\n  %b: f32[3] = mul(%x, 2)\n  \
         %c: f32[3] = copy_(%x, %b)\n  return (%a, %c)\n",
    )
    .unwrap();
    assert_eq!(host_policy(&g), vec![true, true, false]);
}

#[test]
fn plugin_lists_split_like_paths() {
    assert_eq!(
        parse_plugin_list(OsStr::new("a.so:/opt/b.so::")),
        vec![PathBuf::from("a.so"), PathBuf::from("/opt/b.so")]
    );
    assert!(parse_plugin_list(OsStr::new("")).is_empty());
    assert_eq!(PLUGINS_ENV, "RYNAMO_PLUGINS");
}

#[test]
fn load_errors_name_the_path() {
    let e = load("/nonexistent/libnothing.so").unwrap_err();
    assert_eq!(
        e.to_string(),
        "plugin /nonexistent/libnothing.so: no such file"
    );
    let dir = std::env::temp_dir();
    let e = load(&dir).unwrap_err();
    assert!(e.to_string().contains("not a regular file"), "{e}");
}

#[test]
fn plugin_errors_become_backend_errors_with_the_message() {
    let e = Error::Plugin {
        plugin: "x".into(),
        function: "compile",
        code: rynamo_plugin_abi::RYNAMO_ERROR_UNIMPLEMENTED,
        message: "no cos here".into(),
    };
    assert_eq!(
        e.to_string(),
        "plugin `x`: compile failed (UNIMPLEMENTED): no cos here"
    );
    let b = e.into_backend("x");
    assert_eq!(
        b.to_string(),
        "backend `x` failed: plugin `x`: compile failed (UNIMPLEMENTED): no cos here"
    );
}
