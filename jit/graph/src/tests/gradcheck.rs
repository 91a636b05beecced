//! Every backward formula against central finite differences in float64 (`torch.autograd.
//! gradcheck`'s method and default tolerances), on every op's sample call plus extra calls for
//! forms the samples miss (tensor-tensor division and powers, broadcasting, non-contiguous
//! inputs), and a pin of which ops have a formula (`autograd_coverage.txt`).

use rynamo_tensor::{DType, IndexItem, Scalar, Tensor};

use super::gradcheck_nn as cases_nn;
use crate::autograd::{self, BackwardOptions, GradModeGuard};
use crate::samples::sample;
use crate::{IValue, Op, OpFlags, Value, registry};

const EPS: f64 = 1e-6;
const ATOL: f64 = 1e-5;
const RTOL: f64 = 1e-3;

fn f64s(shape: &[usize], seed: u64) -> Tensor {
    rynamo_tensor::random::randn(
        shape,
        Some(DType::Float64),
        Some(&rynamo_tensor::random::Generator::new(seed)),
    )
    .unwrap()
}

fn pos(shape: &[usize], seed: u64) -> Tensor {
    let v: Vec<f64> = f64s(shape, seed)
        .to_vec::<f64>()
        .iter()
        .map(|x| x.abs() + 0.5)
        .collect();
    Tensor::from_vec(v, shape).unwrap()
}

fn t(x: &Tensor) -> IValue {
    Value::Tensor(x.clone())
}

/// A call: op, positional and keyword arguments.
type Call = (Op, Vec<IValue>, Vec<(String, IValue)>);

/// Calls the samples miss.
fn extra_cases() -> Vec<Call> {
    let x = f64s(&[2, 3], 1);
    let y = f64s(&[3], 2);
    let p = pos(&[2, 3], 3);
    let q = pos(&[3], 4);
    let nc = f64s(&[3, 2], 5).t().unwrap(); // non-contiguous [2, 3]
    let kw = |k: &str, v: IValue| vec![(k.to_string(), v)];
    let s = |v: f64| Value::Scalar(Scalar::Float(v));
    let idx = Tensor::from_vec(vec![0i64, 2, 2, 1, 0, 0], &[2, 3]).unwrap();
    let src = f64s(&[2, 3], 6);
    let reduce = |r: &str| Value::Str(r.into());
    vec![
        (
            Op::ScatterReduce,
            vec![t(&x), Value::Int(1), t(&idx), t(&src), reduce("mean")],
            vec![],
        ),
        (
            Op::ScatterReduce,
            vec![t(&x), Value::Int(1), t(&idx), t(&src), reduce("amin")],
            vec![],
        ),
        (
            Op::ScatterReduce,
            vec![t(&x), Value::Int(1), t(&idx), t(&src), reduce("sum")],
            kw("include_self", Value::Bool(false)),
        ),
        (Op::Div, vec![t(&x), t(&q)], vec![]),
        (Op::Div, vec![s(2.0), t(&p)], vec![]),
        (Op::Mul, vec![t(&nc), t(&y)], vec![]),
        (Op::Sub, vec![t(&y), t(&x)], kw("alpha", s(-1.5))),
        (Op::Pow, vec![t(&p), t(&y)], vec![]),
        (Op::Pow, vec![s(2.0), t(&x)], vec![]),
        (Op::Pow, vec![t(&x), s(2.0)], vec![]),
        (Op::Exp, vec![t(&nc)], vec![]),
        (Op::Sum, vec![t(&x)], vec![]),
        (Op::Sum, vec![t(&nc), Value::IntList(vec![1])], vec![]),
        (Op::Mean, vec![t(&x), Value::IntList(vec![0])], vec![]),
        (Op::Prod, vec![t(&x)], vec![]),
        (Op::Max, vec![t(&x)], vec![]),
        (
            Op::Amax,
            vec![t(&x), Value::IntList(vec![0])],
            kw("keepdim", Value::Bool(true)),
        ),
        (Op::Var, vec![t(&x)], vec![]),
        (Op::Std, vec![t(&x), Value::IntList(vec![0])], vec![]),
        (Op::Matmul, vec![t(&x), t(&f64s(&[3], 6))], vec![]),
        (
            Op::Matmul,
            vec![t(&f64s(&[2], 7)), t(&f64s(&[4, 2, 3], 8))],
            vec![],
        ),
        (
            Op::Matmul,
            vec![t(&f64s(&[2, 1, 2, 3], 9)), t(&f64s(&[4, 3, 2], 10))],
            vec![],
        ),
        (
            Op::Linear,
            vec![t(&f64s(&[2, 2, 3], 11)), t(&f64s(&[4, 3], 12))],
            vec![],
        ),
        (Op::Copy_, vec![t(&x), t(&y)], vec![]),
        (
            Op::Clamp,
            vec![t(&x), t(&f64s(&[3], 13)), Value::None],
            vec![],
        ),
        (Op::Where, vec![t(&x.gt_zero()), t(&x), t(&y)], vec![]),
        (
            Op::Slice,
            vec![
                t(&x),
                Value::Int(1),
                Value::Int(0),
                Value::None,
                Value::Int(2),
            ],
            vec![],
        ),
        (
            Op::GetItem,
            vec![
                t(&x),
                Value::Index(vec![
                    IndexItem::Slice {
                        start: Some(1),
                        stop: None,
                        step: None,
                    },
                    IndexItem::Int(-1),
                ]),
            ],
            vec![],
        ),
        (
            Op::GetItem,
            vec![
                t(&x),
                Value::Index(vec![IndexItem::Tensor(
                    Tensor::from_vec(vec![1i64, 1, 0], &[3]).unwrap(),
                )]),
            ],
            vec![],
        ),
        (Op::Mul_, vec![t(&x), t(&y)], vec![]),
        (Op::Exp_, vec![t(&x)], vec![]),
        (Op::Softmax, vec![t(&nc), Value::Int(0)], vec![]),
        (Op::Log1p, vec![t(&p)], vec![]),
        (Op::Asin, vec![t(&x.scaled(0.3))], vec![]),
        (Op::Acos, vec![t(&x.scaled(0.3))], vec![]),
        (Op::Sub_, vec![t(&x), t(&y)], kw("alpha", s(0.5))),
        (
            Op::Addcmul_,
            vec![t(&x), t(&y), t(&nc)],
            kw("value", s(0.7)),
        ),
        (
            Op::Addcdiv_,
            vec![t(&x), t(&y), t(&p)],
            kw("value", s(-2.0)),
        ),
        (Op::Outer, vec![t(&y), t(&f64s(&[2], 14))], vec![]),
        // The factorizations on every shape class: tall, wide, square, batched (SVD's
        // full_matrices: `linalg_grad.rs`).
        (
            Op::LinalgQr,
            vec![t(&f64s(&[3, 5], 40)), Value::Str("reduced".into())],
            vec![],
        ),
        (
            Op::LinalgQr,
            vec![t(&f64s(&[3, 3], 41)), Value::Str("complete".into())],
            vec![],
        ),
        (
            Op::LinalgQr,
            vec![t(&f64s(&[2, 4, 2], 42)), Value::Str("reduced".into())],
            vec![],
        ),
        (
            Op::LinalgSvd,
            vec![t(&f64s(&[4, 3], 43)), Value::Bool(false)],
            vec![],
        ),
        (
            Op::LinalgSvd,
            vec![t(&f64s(&[2, 3, 3], 46)), Value::Bool(false)],
            vec![],
        ),
    ]
}

trait TestValues {
    fn gt_zero(&self) -> Tensor;
    fn scaled(&self, k: f64) -> Tensor;
}

impl TestValues for Tensor {
    fn gt_zero(&self) -> Tensor {
        let v: Vec<bool> = self.to_vec::<f64>().iter().map(|x| *x > 0.0).collect();
        Tensor::from_vec(v, self.shape()).unwrap()
    }
    fn scaled(&self, k: f64) -> Tensor {
        let v: Vec<f64> = self.to_vec::<f64>().iter().map(|x| x * k).collect();
        Tensor::from_vec(v, self.shape()).unwrap()
    }
}

/// A case with its float tensors as float64 leaves (contiguous copies) and how to rebuild it.
struct Case {
    op: Op,
    args: Vec<IValue>,
    /// The float tensors' values, in slot order.
    leaves: Vec<Tensor>,
    /// Argument positions whose float tensors stay constants (not differentiated).
    frozen: Vec<usize>,
}

fn prepare(op: Op, args: Vec<IValue>, frozen: &[usize]) -> Option<Case> {
    let mut leaves = Vec::new();
    let args: Vec<IValue> = args
        .iter()
        .enumerate()
        .map(|(i, a)| {
            a.try_map(|x| {
                if x.dtype().is_floating_point() {
                    let l = x.to_dtype(DType::Float64).deep_clone().with_autograd(None);
                    if !frozen.contains(&i) {
                        leaves.push(l.clone());
                    }
                    Ok::<_, ()>(l)
                } else {
                    Ok(x.clone())
                }
            })
            .unwrap()
        })
        .collect();
    (!leaves.is_empty()).then_some(Case {
        op,
        args,
        leaves,
        frozen: frozen.to_vec(),
    })
}

/// Runs the case with `leaves` in place of its float tensors (each through a recorded `clone`,
/// so in-place ops write a non-leaf); the float64 outputs.
fn run(c: &Case, leaves: &[Tensor]) -> crate::Result<Vec<Tensor>> {
    let mut i = 0;
    let args: Vec<IValue> = c
        .args
        .iter()
        .enumerate()
        .map(|(pos, a)| {
            a.try_map(|x| {
                if x.dtype() == DType::Float64 && !c.frozen.contains(&pos) {
                    let l = &leaves[i];
                    i += 1;
                    Ok(registry::call(Op::Clone, &[t(l)])?.remove(0))
                } else if x.dtype() == DType::Float64 {
                    // a fresh copy: ops like batch_norm write their running statistics
                    Ok(x.deep_clone())
                } else {
                    Ok::<_, crate::Error>(x.clone())
                }
            })
        })
        .collect::<crate::Result<_>>()?;
    Ok(registry::call(c.op, &args)?
        .into_iter()
        .filter(|o| o.dtype() == DType::Float64)
        .collect())
}

/// The directional derivative `<g, F(x)>` estimated by central differences, per leaf element.
fn numerical(c: &Case, gouts: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let _g = GradModeGuard::new(false);
    let base: Vec<Vec<f64>> = c.leaves.iter().map(|l| l.to_vec::<f64>()).collect();
    let eval = |vals: &[Vec<f64>]| -> f64 {
        let leaves: Vec<Tensor> = vals
            .iter()
            .zip(&c.leaves)
            .map(|(v, l)| Tensor::from_vec(v.clone(), l.shape()).unwrap())
            .collect();
        let outs = run(c, &leaves).unwrap();
        outs.iter()
            .zip(gouts)
            .map(|(o, g)| {
                o.to_vec::<f64>()
                    .iter()
                    .zip(g)
                    .map(|(a, b)| a * b)
                    .sum::<f64>()
            })
            .sum()
    };
    let mut out = Vec::new();
    for li in 0..base.len() {
        let mut col = Vec::with_capacity(base[li].len());
        for e in 0..base[li].len() {
            let mut plus = base.clone();
            plus[li][e] += EPS;
            let mut minus = base.clone();
            minus[li][e] -= EPS;
            col.push((eval(&plus) - eval(&minus)) / (2.0 * EPS));
        }
        out.push(col);
    }
    out
}

fn check(c: &Case, label: &str) -> Result<(), String> {
    let leaves: Vec<Tensor> = c
        .leaves
        .iter()
        .map(|l| {
            let mut l = l.with_autograd(None);
            l.ensure_autograd().update(|s| s.requires_grad = true);
            l
        })
        .collect();
    let outs = run(c, &leaves).map_err(|e| format!("{label}: forward failed: {e}"))?;
    let outs: Vec<Tensor> = outs.into_iter().filter(Tensor::needs_grad).collect();
    if outs.is_empty() {
        return Err(format!("{label}: no output requires grad"));
    }
    let gouts: Vec<Vec<f64>> = outs
        .iter()
        .enumerate()
        .map(|(i, o)| f64s(o.shape(), 100 + i as u64).to_vec::<f64>())
        .collect();
    let gts: Vec<Option<Tensor>> = gouts
        .iter()
        .zip(&outs)
        .map(|(g, o)| Some(Tensor::from_vec(g.clone(), o.shape()).unwrap()))
        .collect();
    let opts = BackwardOptions {
        retain_graph: false,
        create_graph: false,
    };
    let ana = autograd::grad(&outs, &gts, &leaves, opts, true, true)
        .map_err(|e| format!("{label}: backward failed: {e}"))?;
    let num = numerical(c, &gouts);
    for (li, (a, n)) in ana.iter().zip(&num).enumerate() {
        let a = a.as_ref().expect("materialized").to_vec::<f64>();
        for (e, (x, y)) in a.iter().zip(n).enumerate() {
            if (x - y).abs() > ATOL + RTOL * y.abs() || x.is_nan() != y.is_nan() {
                return Err(format!(
                    "{label}: gradient of input {li} element {e}: analytical {x}, numerical {y}"
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn every_backward_formula_matches_finite_differences() {
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut cases: Vec<(Call, Vec<usize>, String)> = Op::ALL
        .iter()
        .filter(|op| !op.flags().contains(OpFlags::RANDOM) && !op.flags().contains(OpFlags::HOST))
        .map(|&op| {
            let (p, k) = sample(op);
            ((op, p, k), cases_nn::frozen(op), format!("{op} (sample)"))
        })
        .collect();
    for (i, call) in extra_cases().into_iter().enumerate() {
        let label = format!("{} (extra case {i})", call.0);
        let frozen = cases_nn::frozen(call.0);
        cases.push((call, frozen, label));
    }
    for (i, (call, frozen)) in cases_nn::cases().into_iter().enumerate() {
        let label = format!("{} (nn case {i})", call.0);
        cases.push((call, frozen, label));
    }
    for ((op, p, k), frozen, label) in cases {
        // Ops reading one triangle of a symmetric input return PyTorch's symmetric gradient,
        // which single-entry differences cannot see: `linalg_grad.rs` checks them.
        if (autograd::vjp::rule(op).is_none() && autograd::vjp::composite(op).is_none())
            || matches!(op, Op::LinalgCholesky | Op::LinalgEigh)
        {
            continue;
        }
        let args = op.schema().bind(p, k).unwrap();
        if let Some(msg) = cases_nn::refused(op, &args) {
            checked += 1;
            if let Err(e) = cases_nn::expect_refusal(op, &args, msg) {
                failures.push(format!("{label}: {e}"));
            }
            continue;
        }
        let Some(c) = prepare(op, args, &frozen) else {
            continue;
        };
        // Precision-changing conversions (to float16) cannot match float64 differences.
        let probe = {
            let _g = GradModeGuard::new(false);
            run(&c, &c.leaves)
        };
        // Points outside the op's domain (NaN results) are not differentiable there.
        let valid = probe.is_ok_and(|o| {
            !o.is_empty()
                && o.iter()
                    .all(|t| t.to_vec::<f64>().iter().all(|v| v.is_finite()))
        });
        if !valid {
            continue;
        }
        checked += 1;
        if let Err(e) = check(&c, &label) {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 100, "only {checked} cases checked");
}

/// Every formula's saved arguments are parameters of each op it serves (they are declared by name:
/// a misspelt or renamed one would silently save nothing).
#[test]
fn saved_arguments_are_parameters_of_their_ops() {
    let mut bad = Vec::new();
    for &op in Op::ALL {
        if let Some(r) = autograd::vjp::rule(op) {
            let fwd = op.functional_twin().unwrap_or(op);
            let unknown = r.saves.unknown_names(fwd);
            if !unknown.is_empty() {
                bad.push(format!("{} ({}): {unknown:?}", fwd.name(), r.name));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "saved names not in the schema:\n{}",
        bad.join("\n")
    );
}

/// Which ops have a backward formula (and its node name), one line per op; `RYNAMO_BLESS=1`
/// rewrites the file.
#[test]
fn coverage_is_pinned() {
    let mut text = String::from(
        "# op -> backward node name, or `none` (recording raises \"the derivative ... is not implemented\");\n\
         # `+composite`: recorded as a decomposition (when it applies); `non-differentiable`: never recorded\n",
    );
    for &op in Op::ALL {
        let name = autograd::vjp::rule(op).map_or("none", |r| r.name);
        let name = if autograd::vjp::non_differentiable(op) {
            "non-differentiable"
        } else {
            name
        };
        let comp = if autograd::vjp::composite(op).is_some() {
            " +composite"
        } else {
            ""
        };
        text.push_str(&format!("{} {name}{comp}\n", op.name()));
    }
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/tests/autograd_coverage.txt"
    );
    if std::env::var_os("RYNAMO_BLESS").is_some() {
        std::fs::write(path, &text).unwrap();
    }
    let pinned = std::fs::read_to_string(path).unwrap_or_default();
    assert_eq!(
        pinned, text,
        "autograd coverage changed; RYNAMO_BLESS=1 to accept"
    );
}
