//! Gradients of the ops that read one triangle of a symmetric matrix (`_linalg_cholesky`,
//! `_linalg_eigh`): PyTorch returns a symmetric gradient, defined for symmetric perturbations,
//! so they are checked through `X -> op((X + Xᵀ) / 2)` against central differences in float64.
//! Also `_linalg_svd(full_matrices=True)`, whose columns of `U` (rows of `Vh`) past the `k`-th
//! are any orthonormal completion: only losses that ignore them are differentiable.

use rynamo_tensor::{DType, Tensor};

use crate::autograd::{self, BackwardOptions, GradModeGuard};
use crate::{IValue, Op, Value, registry};

fn t(x: &Tensor) -> IValue {
    Value::Tensor(x.clone())
}

fn call(op: Op, args: Vec<IValue>) -> Vec<Tensor> {
    let bound = op.schema().bind(args, vec![]).unwrap();
    registry::call(op, &bound).unwrap()
}

/// `op((x + xᵀ) / 2, extra...)`'s float outputs.
fn forward(op: Op, x: &Tensor, extra: &[IValue]) -> Vec<Tensor> {
    let xt = call(Op::Transpose, vec![t(x), Value::Int(0), Value::Int(1)]).remove(0);
    let s = call(Op::Add, vec![t(x), t(&xt)]).remove(0);
    let s = call(
        Op::Mul,
        vec![t(&s), Value::Scalar(rynamo_tensor::Scalar::Float(0.5))],
    )
    .remove(0);
    let mut args = vec![t(&s)];
    args.extend(extra.iter().cloned());
    call(op, args)
}

fn weights(shape: &[usize], seed: u64) -> Tensor {
    rynamo_tensor::random::randn(
        shape,
        Some(DType::Float64),
        Some(&rynamo_tensor::random::Generator::new(seed)),
    )
    .unwrap()
}

/// The gradient of `sum(outs[i] * gs[i])` with respect to `leaf`, by the autograd engine.
fn analytic(outs: &[Tensor], gs: &[Tensor], leaf: &Tensor) -> Vec<f64> {
    let ana = autograd::grad(
        outs,
        &gs.iter().cloned().map(Some).collect::<Vec<_>>(),
        std::slice::from_ref(leaf),
        BackwardOptions {
            retain_graph: false,
            create_graph: false,
        },
        true,
        true,
    )
    .unwrap();
    ana[0].as_ref().unwrap().to_vec::<f64>()
}

fn check(op: Op, extra: Vec<IValue>) {
    let base: Vec<f64> = vec![3.0, 0.5, -0.4, 0.7, 2.0, 0.3, -0.2, 0.1, 1.2];
    let x = Tensor::from_vec(base.clone(), &[3, 3]).unwrap();
    let mut leaf = x.with_autograd(None);
    leaf.ensure_autograd().update(|s| s.requires_grad = true);
    let outs = forward(op, &leaf, &extra);
    let gs: Vec<Tensor> = outs
        .iter()
        .enumerate()
        .map(|(i, o)| weights(o.shape(), 50 + i as u64))
        .collect();
    let ana = analytic(&outs, &gs, &leaf);
    let _g = GradModeGuard::new(false);
    let eval = |v: &[f64]| -> f64 {
        let xs = Tensor::from_vec(v.to_vec(), &[3, 3]).unwrap();
        forward(op, &xs, &extra)
            .iter()
            .zip(&gs)
            .map(|(o, g)| {
                o.to_vec::<f64>()
                    .iter()
                    .zip(g.to_vec::<f64>())
                    .map(|(a, b)| a * b)
                    .sum::<f64>()
            })
            .sum()
    };
    for e in 0..9 {
        let (mut p, mut m) = (base.clone(), base.clone());
        p[e] += 1e-6;
        m[e] -= 1e-6;
        let num = (eval(&p) - eval(&m)) / 2e-6;
        assert!(
            (ana[e] - num).abs() <= 1e-5 + 1e-3 * num.abs(),
            "{op}: element {e}: analytical {}, numerical {num}",
            ana[e]
        );
    }
}

#[test]
fn cholesky_gradient_matches_finite_differences() {
    check(Op::LinalgCholesky, vec![Value::Bool(false)]);
    check(Op::LinalgCholesky, vec![Value::Bool(true)]);
}

#[test]
fn eigh_gradient_matches_finite_differences() {
    check(Op::LinalgEigh, vec![Value::Str("L".into())]);
    check(Op::LinalgEigh, vec![Value::Str("U".into())]);
}

/// `svd(x, full_matrices=True)` weighted by `gs`, whose entries on the completion are zero.
/// `sum(outs[i] * gs[i])` of the SVD of `v`, with each singular pair `(u_i, v_i)` signed as in
/// `base_u` (the unperturbed `U`): a singular pair is defined up to a joint sign, which the
/// algorithm may pick differently for a perturbed matrix, and the finite difference must follow
/// one branch.
fn svd_full_loss(v: &[f64], shape: &[usize], gs: &[Tensor], base_u: &[f64]) -> f64 {
    let (m, n) = (shape[0], shape[1]);
    let x = Tensor::from_vec(v.to_vec(), shape).unwrap();
    let outs = call(Op::LinalgSvd, vec![t(&x), Value::Bool(true)]);
    let (mut u, s, mut vh) = (
        outs[0].to_vec::<f64>(),
        outs[1].to_vec::<f64>(),
        outs[2].to_vec::<f64>(),
    );
    for i in 0..m.min(n) {
        let dot: f64 = (0..m).map(|r| u[r * m + i] * base_u[r * m + i]).sum();
        if dot < 0.0 {
            (0..m).for_each(|r| u[r * m + i] = -u[r * m + i]);
            (0..n).for_each(|c| vh[i * n + c] = -vh[i * n + c]);
        }
    }
    [u, s, vh]
        .iter()
        .zip(gs)
        .map(|(o, g)| {
            o.iter()
                .zip(g.to_vec::<f64>())
                .map(|(a, b)| a * b)
                .sum::<f64>()
        })
        .sum()
}

#[test]
fn svd_full_matrices_gradient_matches_finite_differences() {
    for (shape, seed) in [([4usize, 2usize], 60u64), ([2, 5], 61)] {
        let (m, n) = (shape[0], shape[1]);
        let k = m.min(n);
        let base = weights(&shape, seed).to_vec::<f64>();
        let mut leaf = Tensor::from_vec(base.clone(), &shape)
            .unwrap()
            .with_autograd(None);
        leaf.ensure_autograd().update(|s| s.requires_grad = true);
        let outs = call(Op::LinalgSvd, vec![t(&leaf), Value::Bool(true)]);
        // Random weights, zero on U's columns and Vh's rows past k.
        let mask = |rows: usize, cols: usize, keep: &dyn Fn(usize, usize) -> bool| {
            let v = (0..rows * cols)
                .map(|i| f64::from(u8::from(keep(i / cols, i % cols))))
                .collect();
            Tensor::from_vec(v, &[rows, cols]).unwrap()
        };
        let masks = [
            mask(m, m, &|_, c| c < k),
            mask(1, k, &|_, _| true).reshape(&[k as i64]).unwrap(),
            mask(n, n, &|r, _| r < k),
        ];
        let gs: Vec<Tensor> = outs
            .iter()
            .zip(&masks)
            .enumerate()
            .map(|(i, (o, msk))| {
                let w = weights(o.shape(), 70 + i as u64);
                call(Op::Mul, vec![t(&w), t(msk)]).remove(0)
            })
            .collect();
        let ana = analytic(&outs, &gs, &leaf);
        let _g = GradModeGuard::new(false);
        for e in 0..base.len() {
            let (mut p, mut q) = (base.clone(), base.clone());
            p[e] += 1e-6;
            q[e] -= 1e-6;
            let base_u = outs[0].to_vec::<f64>();
            let loss = |v: &[f64]| svd_full_loss(v, &shape, &gs, &base_u);
            let num = (loss(&p) - loss(&q)) / 2e-6;
            assert!(
                (ana[e] - num).abs() <= 1e-5 + 1e-3 * num.abs(),
                "svd {shape:?}: element {e}: analytical {}, numerical {num}",
                ana[e]
            );
        }
    }
}
