//! Differential tests: JIT against the eager interpreter.

use super::common::*;

#[test]
fn smoke_pointwise_chain() {
    let x = randn(&[1000], 1);
    let src = "graph(%x: f32[1000]):\n  %0: f32[1000] = mul(%x, 2.0)\n  %1: f32[1000] = add(%0, 1.0, alpha=1)\n  %2: f32[1000] = relu(%1)\n  return (%2)\n";
    let exe = check(src, &[x], 0.0, 0.0);
    assert_eq!(exe.step_counts(), (1, 0));
}

#[test]
fn smoke_softmax() {
    let x = randn(&[33, 37], 2);
    let src = "graph(%x: f32[33, 37]):\n  %0: f32[33, 37] = softmax(%x, -1, None)\n  return (%0)\n";
    let exe = check(src, &[x], 1e-6, 1e-7);
    assert_eq!(exe.step_counts(), (1, 0), "{}", exe.dump());
}

#[test]
fn debug_plan() {
    let g = rynamo_graph::parse(
        "graph(%x: f32[33, 37]):\n  %0: f32[33, 37] = softmax(%x, -1, None)\n  return (%0)\n",
    )
    .unwrap();
    let g = crate::pipeline::optimize(&g).unwrap();
    eprintln!("{g}");
    let p = crate::fuse::plan(&g);
    eprintln!("{:?}\n{:?}", p.classes, p.steps);
}

fn unary_src(op: &str, n: usize) -> String {
    format!("graph(%x: f32[{n}]):\n  %0: f32[{n}] = {op}(%x)\n  return (%0)\n")
}

#[test]
fn dbg_exp() {
    let x = randn(&[37], 3);
    check(&unary_src("exp", 37), &[x], 1e-6, 0.0);
}

#[test]
fn dbg_amax() {
    let x = randn(&[5, 37], 3);
    check(
        "graph(%x: f32[5, 37]):\n  %0: f32[5, 1] = amax(%x, [-1], True)\n  return (%0)\n",
        &[x],
        0.0,
        0.0,
    );
}

#[test]
fn dbg_sum() {
    let x = randn(&[5, 37], 3);
    check(
        "graph(%x: f32[5, 37]):\n  %0: f32[5, 1] = sum(%x, [-1], True, dtype=None)\n  return (%0)\n",
        &[x],
        1e-7,
        0.0,
    );
}

#[test]
fn dbg_sub_max() {
    let x = randn(&[5, 37], 3);
    check(
        "graph(%x: f32[5, 37]):\n  %0: f32[5, 1] = amax(%x, [-1], True)\n  %1: f32[5, 37] = sub(%x, %0, alpha=1)\n  return (%1)\n",
        &[x],
        0.0,
        0.0,
    );
}

#[test]
fn dbg_sum_exp_sub_max() {
    let x = randn(&[5, 37], 3);
    check(
        "graph(%x: f32[5, 37]):\n  %0: f32[5, 1] = amax(%x, [-1], True)\n  %1: f32[5, 37] = sub(%x, %0, alpha=1)\n  %2: f32[5, 37] = exp(%1)\n  %3: f32[5, 1] = sum(%2, [-1], True, dtype=None)\n  return (%3)\n",
        &[x],
        1e-6,
        0.0,
    );
}
