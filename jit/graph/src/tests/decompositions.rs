//! Every decomposition (`OpDef::decompose`) also runs eagerly: on its op's sample call, and on
//! extra calls where the sample does not apply, its result matches the op's own kernel.

use rynamo_tensor::{DType, Tensor};

use crate::autograd::Eager;
use crate::def::Sample;
use crate::samples::{fx, pos_args, sample, t, with_kw};
use crate::{IValue, Op, Value, registry};

/// Calls the decomposition applies to that the samples do not cover.
fn extra(op: Op) -> Vec<Sample> {
    let f64x = || fx::x().to_dtype(DType::Float64);
    match op {
        // Evaluation mode, with and without weight and bias, f32 and f64 statistics.
        Op::BatchNorm => vec![
            pos_args(vec![
                t(fx::img()),
                t(Tensor::from_vec(vec![0.1f32, -0.2, 0.3, 0.0], &[4]).unwrap()),
                t(Tensor::from_vec(vec![1.5f32, 0.5, 2.0, 1.0], &[4]).unwrap()),
                t(Tensor::from_vec(vec![0.5f32, 2.0, -1.0, 1.0], &[4]).unwrap()),
                t(Tensor::from_vec(vec![0.25f32, 0.0, -0.5, 1.0], &[4]).unwrap()),
            ]),
            pos_args(vec![
                t(fx::img().to_dtype(DType::Float64)),
                t(Tensor::from_vec(vec![0.1f32, -0.2, 0.3, 0.0], &[4]).unwrap()),
                t(Tensor::from_vec(vec![1.5f32, 0.5, 2.0, 1.0], &[4]).unwrap()),
            ]),
        ],
        Op::Softmax | Op::LogSoftmax => vec![
            pos_args(vec![t(f64x()), Value::Int(0)]),
            with_kw(
                vec![t(fx::x()), Value::Int(1)],
                "dtype",
                Value::DType(DType::Float64),
            ),
        ],
        Op::Var | Op::Std => vec![
            pos_args(vec![t(f64x())]),
            with_kw(
                vec![t(fx::x()), Value::Int(0)],
                "keepdim",
                Value::Bool(true),
            ),
        ],
        Op::Lerp => vec![
            pos_args(vec![t(fx::x()), t(fx::y()), Value::Float(0.75)]),
            pos_args(vec![t(fx::x()), t(fx::y()), t(fx::ramp())]),
        ],
        Op::Addcdiv => vec![pos_args(vec![t(f64x()), t(f64x()), t(f64x())])],
        Op::LayerNorm => vec![pos_args(vec![t(f64x()), Value::IntList(vec![2, 3])])],
        _ => vec![],
    }
}

/// The largest distance in units in the last place between two f32 or f64 tensors of one
/// dtype (NaNs must agree).
fn max_ulps(a: &Tensor, b: &Tensor) -> u64 {
    assert_eq!((a.dtype(), a.shape()), (b.dtype(), b.shape()));
    let ordered = |bits: i64| if bits < 0 { i64::MIN - bits } else { bits };
    let pairs: Vec<(i64, i64, bool)> = match a.dtype() {
        DType::Float32 => a
            .contiguous()
            .to_vec::<f32>()
            .iter()
            .zip(b.contiguous().to_vec::<f32>())
            .map(|(x, y)| {
                (
                    x.to_bits() as i32 as i64,
                    y.to_bits() as i32 as i64,
                    x.is_nan() || y.is_nan(),
                )
            })
            .collect(),
        _ => a
            .contiguous()
            .to_vec::<f64>()
            .iter()
            .zip(b.contiguous().to_vec::<f64>())
            .map(|(x, y)| {
                (
                    x.to_bits() as i64,
                    y.to_bits() as i64,
                    x.is_nan() || y.is_nan(),
                )
            })
            .collect(),
    };
    pairs
        .into_iter()
        .map(|(x, y, nan)| {
            if nan {
                assert_eq!(x, y, "NaN in one result only");
                0
            } else {
                ordered(x).abs_diff(ordered(y))
            }
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn decompositions_run_eagerly_and_match_the_kernels() {
    let mut checked: Vec<Op> = Vec::new();
    for &op in Op::ALL {
        let Some(d) = op.def().decompose else {
            continue;
        };
        for (p, k) in std::iter::once(sample(op)).chain(extra(op)) {
            let args: Vec<IValue> = op.schema().bind(p, k).unwrap();
            let Some(got) = (d.eager)(&mut Eager, &args).unwrap() else {
                continue;
            };
            let want = registry::call(op, &args).unwrap().remove(0);
            // Eager computes f32 `var`/`std`/`layer_norm` statistics and the `logsumexp`,
            // `softmax` and `log_softmax` sums in f64; the decompositions (which the JIT fuses)
            // compute in the input dtype.
            let inexact = want.dtype() == DType::Float32
                && matches!(
                    op,
                    Op::Var
                        | Op::Std
                        | Op::LayerNorm
                        | Op::LogSumExp
                        | Op::Softmax
                        | Op::LogSoftmax
                );
            if inexact {
                let f64s = |x: &Tensor| x.to_dtype(DType::Float64).contiguous().to_vec::<f64>();
                let (g, w) = (f64s(&got), f64s(&want));
                let scale = w.iter().fold(1.0f64, |m, v| m.max(v.abs()));
                for (a, b) in g.iter().zip(&w) {
                    assert!((a - b).abs() <= 1e-5 * scale, "{op}: {a} vs {b}");
                }
            } else {
                assert_eq!(
                    max_ulps(&got, &want),
                    0,
                    "{op} {:?}: not bitwise",
                    want.dtype()
                );
            }
            checked.push(op);
        }
    }
    let covered: std::collections::HashSet<Op> = checked.into_iter().collect();
    for &op in Op::ALL {
        if op.def().decompose.is_some() {
            assert!(
                covered.contains(&op),
                "{op}: its decomposition never applied"
            );
        }
    }
}
