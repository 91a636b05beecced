//! DCE, CSE and the pipeline's shape (each pass's own cases are in `tests/golden/`).

use rynamo_graph::{Op, parse, verify};

use crate::{PassCx, eliminate_common_subexpressions, eliminate_dead_code, pipeline};

#[test]
fn dce_removes_unused_pure_nodes_only() {
    let mut g = parse(
        "graph(%x: f32[3]):
  %a: f32[3] = neg(%x)
  %b: f32[3] = exp(%a)
  %r: f32[3] = rand([3], dtype=None)
  %c: f32[3] = add_(%x, 1.0, alpha=1)
  %d: f32[3] = sin(%x)
  return (%d)
",
    )
    .unwrap();
    eliminate_dead_code(&mut g, &PassCx::default());
    verify(&g).unwrap();
    let ops: Vec<Op> = g.nodes().iter().map(|n| n.op).collect();
    assert_eq!(ops, vec![Op::Rand, Op::Add_, Op::Sin]);
    assert_eq!(g.values().len(), 4);
}

#[test]
fn cse_merges_duplicates_but_not_across_mutation() {
    let mut g = parse(
        "graph(%x: f32[3]):
  %a: f32[3] = mul(%x, 2.0)
  %b: f32[3] = mul(%x, 2.0)
  %c: f32[3] = mul(%x, 2)
  %s: f32[3] = add(%a, %b, alpha=1)
  %m: f32[3] = mul_(%x, 3.0)
  %e: f32[3] = mul(%x, 2.0)
  %r1: f32[3] = rand([3], dtype=None)
  %r2: f32[3] = rand([3], dtype=None)
  return (%s, %c, %e, %r1, %r2)
",
    )
    .unwrap();
    let mut cx = PassCx {
        verify: true,
        ..PassCx::default()
    };
    for &(name, pass) in pipeline::CLEANUP {
        cx.run(&mut g, name, pass).unwrap();
    }
    let text = g.to_string();
    assert!(text.contains("add(%a, %a, alpha=1)"), "{text}");
    // `mul(%x, 2)` (int scalar) differs from `mul(%x, 2.0)`, the post-mutation mul stays, and
    // random ops are never merged.
    assert_eq!(g.nodes().iter().filter(|n| n.op == Op::Mul).count(), 3);
    assert_eq!(g.nodes().iter().filter(|n| n.op == Op::Rand).count(), 2);
    assert_eq!(cx.timings.len(), 2);
    eliminate_common_subexpressions(&mut g, &cx);
    verify(&g).unwrap();
}

#[test]
fn pipeline_lists_the_passes_in_order() {
    assert_eq!(
        pipeline::names(&[("fuse bias", |_, _| {})]),
        vec![
            "functionalize",
            "decompose",
            "fold constants",
            "fuse bias",
            "eliminate common subexpressions",
            "eliminate dead code"
        ]
    );
}
