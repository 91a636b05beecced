//! Lowering coverage: every registered op's sample call (`rynamo_graph::samples`), its outputs
//! consumed by a pointwise node, compiled on every target, run, and compared with the eager
//! interpreter. How each op runs (inside a JIT kernel, as a GEMM call, as a per-node fallback, or
//! with the whole graph on eager because it writes its inputs) is pinned in
//! `lowered_ops.txt`, the same file for every x86-64 tier and for NEON, so a lowering gained or
//! lost shows in review and the two architectures cannot drift apart. `RYNAMO_BLESS=1` rewrites
//! the file; `--nocapture` prints the per-family counts, and `RYNAMO_COVERAGE_DUMP=<Op>` (the
//! variant name, as in the file) prints that op's graph and kernels.
//!
//! The value check is a sweep, not a precision test: floats are held to `torch.testing`'s default
//! tolerances (f32: rtol 1.3e-6, atol 1e-5; f64: 1e-7, 1e-7), since decompositions such as
//! layer norm round differently from eager's fused kernel near zero; `ulp.rs` and `diff.rs` hold
//! each lowered op to its documented bound over wide ranges. Everything else must be equal.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use rynamo_backend::{Backend, EagerBackend, Executable};
use rynamo_graph::{GraphBuilder, Lowering, Op, OpFlags, Value, samples::sample};
use rynamo_tensor::{Scalar, Tensor};

use super::common::{assert_close, targets};

const PINNED: &str = include_str!("lowered_ops.txt");

/// How the op runs in its graph (see [`op_graph`]).
fn how(exe: &crate::DynasmExecutable, op: Op) -> &'static str {
    if !exe.is_jitted() {
        return "eager-graph";
    }
    match exe.step_counts() {
        (0, 0) => "folded",
        (_, 0) => "kernel",
        _ if op.lowering() == Lowering::MatMul => "gemm-call",
        _ => "fallback",
    }
}

/// `op`'s sample call with a consumer of each output (times a 0-d input), and its inputs; `None`
/// when the op cannot be a graph node (a data-dependent output shape: Dynamo breaks the graph
/// there). The consumer is what shows whether a view folds into a kernel's index arithmetic and
/// a creation op into its constants: returned by itself, either would be a node of its own.
fn op_graph(op: Op) -> Option<(rynamo_graph::Graph, Vec<Tensor>)> {
    let (pos, kws) = sample(op);
    let mut b = GraphBuilder::new();
    let mut inputs = Vec::new();
    let mut arg = |v: &rynamo_graph::IValue| {
        v.try_map(|t| {
            let id = b.input(&format!("in{}", inputs.len()), t.meta());
            inputs.push(t.clone());
            Ok::<_, ()>(id)
        })
        .expect("invariant: mapping tensors cannot fail")
    };
    let pos: Vec<_> = pos.iter().map(&mut arg).collect();
    let kws: Vec<_> = kws.iter().map(|(n, v)| (n.clone(), arg(v))).collect();
    let outs = match b.call_py(op, pos, kws) {
        Ok(outs) => outs,
        Err(e) if op.flags().contains(OpFlags::DATA_DEPENDENT) && e.is_data_dependent() => {
            return None;
        }
        Err(e) => panic!("{op:?}: the sample call does not build a graph: {e}"),
    };
    let mut used = Vec::new();
    for o in outs {
        // Times a 0-d input of its dtype, which constant folding cannot see through.
        let dtype = b.meta(o).dtype;
        let k = Tensor::full(&[], Scalar::Int(3), dtype);
        let kid = b.input(&format!("in{}", inputs.len()), k.meta());
        inputs.push(k);
        let prod = b.call(Op::Mul, vec![Value::Tensor(o), Value::Tensor(kid)]);
        used.push(prod.expect("invariant: mul of any dtype")[0]);
    }
    Some((b.finish(used), inputs))
}

/// The inputs for one run: ops that write into their inputs get copies (same strides), so
/// eager's writes and the JIT's can be compared.
fn fresh(op: Op, inputs: &[Tensor]) -> Vec<Tensor> {
    let f = op.flags();
    if f.contains(OpFlags::INPLACE) || f.contains(OpFlags::MUTATES_ARGS) {
        inputs.iter().map(Tensor::clone_preserving).collect()
    } else {
        inputs.to_vec()
    }
}

fn compare(op: Op, got: &[Tensor], want: &[Tensor], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: number of tensors");
    let values_defined = !op.flags().contains(OpFlags::RANDOM)
        && !matches!(op, Op::Empty | Op::EmptyLike | Op::NewEmpty);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let what = format!("{what}: tensor {i}");
        if values_defined {
            let (rtol, atol) = if w.dtype() == rynamo_tensor::DType::Float64 {
                (1e-7, 1e-7)
            } else {
                (1.3e-6, 1e-5)
            };
            assert_close(g, w, rtol, atol, &what);
        } else {
            assert_eq!((g.dtype(), g.shape()), (w.dtype(), w.shape()), "{what}");
        }
    }
}

#[test]
fn every_op_compiles_runs_and_matches_eager_with_its_lowering_pinned() {
    let mut table = String::new();
    let mut counts: BTreeMap<(String, &str), usize> = BTreeMap::new();
    for &op in Op::ALL {
        let Some((g, inputs)) = op_graph(op) else {
            writeln!(table, "{op:?} data-dependent").unwrap();
            continue;
        };
        let eager_in = fresh(op, &inputs);
        let want = EagerBackend.compile(&g).unwrap().run(&eager_in).unwrap();
        let mut seen: Option<&str> = None;
        for (backend, _) in targets() {
            let exe = backend
                .compile_exe(&g)
                .unwrap_or_else(|e| panic!("{op:?}: the JIT rejected the graph: {e}\n{g}"));
            let jit_in = fresh(op, &inputs);
            let got = exe
                .run(&jit_in)
                .unwrap_or_else(|e| panic!("{op:?} on {}: {e}", backend.target_name()));
            let what = format!("{op:?} on {}\n{g}\n{}", backend.target_name(), exe.dump());
            compare(op, &got, &want, &what);
            // Mutated inputs must match too (in-place ops, index_put_, ...).
            compare(
                op,
                &jit_in,
                &eager_in,
                &format!("{what}\n(inputs after the call)"),
            );
            let h = how(&exe, op);
            if std::env::var("RYNAMO_COVERAGE_DUMP").is_ok_and(|v| v == format!("{op:?}")) {
                println!("{g}\n{}", exe.dump());
            }
            assert!(
                seen.is_none_or(|s| s == h),
                "{op:?}: {} runs it as {h}, another target as {}",
                backend.target_name(),
                seen.unwrap_or_default()
            );
            seen = Some(h);
        }
        let h = seen.expect("invariant: at least one target");
        writeln!(table, "{op:?} {h}").unwrap();
        *counts
            .entry((format!("{:?}", op.lowering()), h))
            .or_default() += 1;
    }
    let mut summary = String::new();
    for ((family, h), n) in &counts {
        writeln!(summary, "  {family:<10} {h:<16} {n}").unwrap();
    }
    println!("lowering of {} ops, by family:\n{summary}", Op::ALL.len());
    if std::env::var_os("RYNAMO_BLESS").is_some() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/tests/lowered_ops.txt");
        std::fs::write(path, &table).unwrap();
        return;
    }
    for (line, (got, want)) in table.lines().zip(PINNED.lines()).enumerate() {
        assert_eq!(
            got,
            want,
            "line {}: how the op runs changed; if intended, RYNAMO_BLESS=1 rewrites lowered_ops.txt",
            line + 1
        );
    }
    assert_eq!(
        table.lines().count(),
        PINNED.lines().count(),
        "ops added or removed; RYNAMO_BLESS=1 rewrites lowered_ops.txt"
    );
}
