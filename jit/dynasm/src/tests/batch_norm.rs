//! Evaluation-mode `batch_norm` decomposed (`passes/decompose.rs`) into pointwise nodes that fuse
//! with their neighbours: bitwise eager over ranks, optional affine parameters, dtypes and
//! awkward sizes; training mode keeps the eager node, which updates the running statistics.

use rynamo_backend::{Backend, EagerBackend, Executable};
use rynamo_graph::parse;
use rynamo_tensor::{DType, Tensor};

use super::common::*;

/// `relu(batch_norm(x, ...)) * 2` over `shape`, weight and bias optional, parameters in `pd`.
fn graph(shape: &[usize], dt: DType, pd: DType, affine: (bool, bool), training: bool) -> String {
    let s = shape
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let (x, p, c) = (dt.short_name(), pd.short_name(), shape[1]);
    let w = if affine.0 { "%w" } else { "None" };
    let b = if affine.1 { "%b" } else { "None" };
    let tr = if training { "True" } else { "False" };
    format!(
        "graph(%x: {x}[{s}], %m: {p}[{c}], %v: {p}[{c}], %w: {p}[{c}], %b: {p}[{c}]):
  %0: {x}[{s}] = batch_norm(%x, %m, %v, {w}, {b}, {tr}, 0.1, 1e-05)
  %1: {x}[{s}] = relu(%0)
  %2: {x}[{s}] = mul(%1, 2)
  return (%2)
"
    )
}

fn params(c: usize, pd: DType) -> Vec<Tensor> {
    let var = randn(&[c], 12)
        .to_vec::<f32>()
        .iter()
        .map(|v| v.abs() + 0.1)
        .collect();
    vec![
        randn(&[c], 11).to_dtype(pd),
        Tensor::from_vec(var, &[c]).unwrap().to_dtype(pd),
        randn(&[c], 13).to_dtype(pd),
        randn(&[c], 14).to_dtype(pd),
    ]
}

#[test]
fn eval_batch_norm_fuses_bitwise() {
    let shapes: [&[usize]; 5] = [
        &[1, 1],
        &[7, 9],
        &[2, 3, 33],
        &[2, 5, 7, 9],
        &[3, 16, 31, 33],
    ];
    for shape in shapes {
        for (dt, pd) in [
            (DType::Float32, DType::Float32),
            (DType::Float64, DType::Float64),
            (DType::Float32, DType::Float64),
        ] {
            for affine in [(true, true), (false, false), (true, false), (false, true)] {
                let src = graph(shape, dt, pd, affine, false);
                let mut inputs = vec![randn(shape, shape.len() as u64).to_dtype(dt)];
                inputs.extend(params(shape[1], pd));
                let exe = check(&src, &inputs, 0.0, 0.0);
                assert_eq!(exe.step_counts().1, 0, "{}", exe.dump());
            }
        }
    }
}

#[test]
fn training_batch_norm_keeps_the_eager_node_and_updates_running_stats() {
    let shape = [4, 3, 5];
    let src = graph(&shape, DType::Float32, DType::Float32, (true, true), true);
    let g = parse(&src).unwrap();
    let fresh = || {
        let mut v = vec![randn(&shape, 1)];
        v.extend(params(3, DType::Float32));
        v
    };
    let want_in = fresh();
    let want = EagerBackend.compile(&g).unwrap().run(&want_in).unwrap();
    for (b, _) in targets() {
        let exe = b.compile_exe(&g).unwrap();
        assert!(exe.step_counts().1 >= 1, "{}", exe.dump());
        let got_in = fresh();
        let got = exe.run(&got_in).unwrap();
        assert_close(&got[0], &want[0], 0.0, 0.0, "training output");
        for i in 1..3 {
            assert_close(&got_in[i], &want_in[i], 0.0, 0.0, "running statistics");
        }
        assert_ne!(
            got_in[1].to_vec::<f32>(),
            fresh()[1].to_vec::<f32>(),
            "updated"
        );
    }
}
