//! Extra gradcheck calls for the nn, loss, conv/pool, indexing, scan and rearranging formulas
//! (configurations the samples miss: strides, padding, groups, dilation, ceil_mode, weights,
//! ignore_index, reductions, ...), the arguments that stay constant, the calls PyTorch refuses
//! to differentiate, second-order checks (`gradgradcheck`) and dropout's saved mask.

use rynamo_tensor::random::{self, Generator};
use rynamo_tensor::{DType, Tensor};

use super::gradcheck_nn_cases as tables;
use crate::autograd::{self, BackwardOptions, GradModeGuard};
use crate::{IValue, Op, Value, registry};

/// A call: op, positional and keyword arguments.
pub(super) type Call = (Op, Vec<IValue>, Vec<(String, IValue)>);

pub(super) fn f64s(shape: &[usize], seed: u64) -> Tensor {
    random::randn(shape, Some(DType::Float64), Some(&Generator::new(seed))).unwrap()
}

pub(super) fn map(x: &Tensor, f: impl Fn(f64) -> f64) -> Tensor {
    let v: Vec<f64> = x.to_vec::<f64>().into_iter().map(f).collect();
    Tensor::from_vec(v, x.shape()).unwrap()
}

pub(super) fn longs(v: &[i64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(v.to_vec(), shape).unwrap()
}

pub(super) fn t(x: &Tensor) -> IValue {
    Value::Tensor(x.clone())
}

pub(super) fn i(v: i64) -> IValue {
    Value::Int(v)
}

pub(super) fn ints(v: &[i64]) -> IValue {
    Value::IntList(v.to_vec())
}

pub(super) fn fl(v: f64) -> IValue {
    Value::Float(v)
}

pub(super) fn s(v: &str) -> IValue {
    Value::Str(v.into())
}

pub(super) fn kw(pairs: &[(&str, IValue)]) -> Vec<(String, IValue)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

/// Schema positions of float arguments that are not differentiated (class weights, running
/// statistics): they stay constants in the finite differences.
pub(super) fn frozen(op: Op) -> Vec<usize> {
    match op {
        Op::CrossEntropy | Op::NllLoss => vec![2],
        Op::BatchNorm => vec![1, 2],
        Op::NativeBatchNorm => vec![3, 4],
        _ => vec![],
    }
}

/// The error PyTorch raises when differentiating this call, if it refuses to.
pub(super) fn refused(op: Op, args: &[IValue]) -> Option<&'static str> {
    let reduce = matches!(args.get(4), Some(Value::Str(_)));
    match op {
        Op::ScatterValue | Op::ScatterValue_ | Op::Scatter | Op::Scatter_ if reduce => {
            Some("derivative for aten::scatter is not implemented")
        }
        _ => None,
    }
}

/// Checks that backward through the call fails with `msg`.
pub(super) fn expect_refusal(op: Op, args: &[IValue], msg: &str) -> Result<(), String> {
    let args: Vec<IValue> = args
        .iter()
        .map(|a| {
            a.try_map(|x| {
                if x.dtype().is_floating_point() {
                    Ok::<_, ()>(leaf(&x.to_dtype(DType::Float64)))
                } else {
                    Ok(x.clone())
                }
            })
            .unwrap()
        })
        .collect();
    let inputs: Vec<Tensor> = args
        .iter()
        .flat_map(|a| a.tensors().into_iter().cloned())
        .filter(Tensor::needs_grad)
        .collect();
    // in-place ops write a recorded copy, not the leaves
    let args: Vec<IValue> = args
        .iter()
        .map(|a| {
            a.try_map(|x| {
                Ok::<_, ()>(if x.needs_grad() {
                    call(Op::Clone, vec![t(x)])
                } else {
                    x.clone()
                })
            })
            .unwrap()
        })
        .collect();
    let out = registry::call(op, &args).map_err(|e| format!("forward failed: {e}"))?;
    let y = sum_all(&out[0]);
    match autograd::grad(&[y], &[None], &inputs, opts(false), true, true) {
        Ok(_) => Err(format!("backward succeeded; PyTorch raises \"{msg}\"")),
        Err(e) if e.to_string().contains(msg) => Ok(()),
        Err(e) => Err(format!("backward raised \"{e}\"; PyTorch raises \"{msg}\"")),
    }
}

fn leaf(x: &Tensor) -> Tensor {
    let mut l = x.deep_clone().with_autograd(None);
    l.ensure_autograd().update(|s| s.requires_grad = true);
    l
}

/// Binds Python-style positional arguments and runs `op`; its first output.
fn call(op: Op, p: Vec<IValue>) -> Tensor {
    let args = registry::bind(op, p, vec![]).unwrap();
    registry::call(op, &args).unwrap().remove(0)
}

fn sum_all(x: &Tensor) -> Tensor {
    call(Op::Sum, vec![t(x)])
}

fn opts(create_graph: bool) -> BackwardOptions {
    BackwardOptions {
        retain_graph: create_graph,
        create_graph,
    }
}

/// Every extra call, with its constant argument positions.
pub(super) fn cases() -> Vec<(Call, Vec<usize>)> {
    let mut v: Vec<Call> = Vec::new();
    v.extend(tables::rearrange_cases());
    v.extend(tables::indexing_cases());
    v.extend(tables::order_cases());
    v.extend(tables::einsum_cases());
    v.extend(tables::nn_cases());
    v.extend(tables::loss_cases());
    v.extend(tables::attention_cases());
    v.extend(tables::pool_cases());
    v.extend(tables::conv_cases());
    v.extend(tables::norm_cases());
    v.into_iter()
        .map(|c| {
            let f = frozen(c.0);
            (c, f)
        })
        .collect()
}

/// `gradgradcheck`: `G(x, v) = grad_x <v, f(x)>` is differentiated again (through the formulas
/// run with `create_graph=True`) with respect to the inputs and `v`, against central
/// differences of the first-order gradient (run without it); the two first-order forms must
/// agree too.
fn gradgrad(op: Op, p: Vec<IValue>, k: Vec<(String, IValue)>) -> Result<(), String> {
    let args = op.schema().bind(p, k).map_err(|e| e.to_string())?;
    let frozen = frozen(op);
    let is_var = |pos: usize, x: &Tensor| !frozen.contains(&pos) && x.dtype() == DType::Float64;
    let mut vals: Vec<Tensor> = Vec::new();
    for (pos, a) in args.iter().enumerate() {
        vals.extend(a.tensors().into_iter().filter(|x| is_var(pos, x)).cloned());
    }
    let n_in = vals.len();
    let out_shape = {
        let _g = GradModeGuard::new(false);
        registry::call(op, &args).map_err(|e| e.to_string())?[0]
            .shape()
            .to_vec()
    };
    vals.push(f64s(&out_shape, 500));
    // G for the values `vals` (inputs, then v); the leaves and the gradients.
    let grads = |vals: &[Tensor], create: bool| -> crate::Result<(Vec<Tensor>, Vec<Tensor>)> {
        let leaves: Vec<Tensor> = vals.iter().map(leaf).collect();
        let mut next = 0;
        let a: Vec<IValue> = args
            .iter()
            .enumerate()
            .map(|(pos, a)| {
                a.try_map(|x| {
                    Ok::<_, ()>(if is_var(pos, x) {
                        next += 1;
                        leaves[next - 1].clone()
                    } else {
                        x.clone()
                    })
                })
                .unwrap()
            })
            .collect();
        let out = registry::call(op, &a)?.remove(0);
        let ins = &leaves[..n_in];
        let g = autograd::grad(
            &[out],
            &[Some(leaves[n_in].clone())],
            ins,
            opts(create),
            true,
            true,
        )?;
        Ok((leaves, g.into_iter().map(Option::unwrap).collect()))
    };
    let us: Vec<Tensor> = vals[..n_in]
        .iter()
        .enumerate()
        .map(|(j, x)| f64s(x.shape(), 600 + j as u64))
        .collect();
    let dot = |a: &Tensor, b: &Tensor| -> f64 {
        a.to_vec::<f64>()
            .iter()
            .zip(b.to_vec::<f64>())
            .map(|(x, y)| x * y)
            .sum()
    };
    let first = |vals: &[Tensor]| -> f64 {
        let (_, g) = grads(vals, false).unwrap();
        g.iter().zip(&us).map(|(g, u)| dot(g, u)).sum()
    };
    let (leaves, g) = grads(&vals, true).map_err(|e| format!("backward failed: {e}"))?;
    let (_, plain) = grads(&vals, false).map_err(|e| format!("backward failed: {e}"))?;
    for (a, b) in g.iter().zip(&plain) {
        for (x, y) in a.to_vec::<f64>().iter().zip(b.to_vec::<f64>()) {
            if (x - y).abs() > 1e-9 + 1e-7 * y.abs() {
                return Err(format!(
                    "create_graph gradient {x} differs from the plain one {y}"
                ));
            }
        }
    }
    let total = g
        .iter()
        .zip(&us)
        .map(|(g, u)| sum_all(&call(Op::Mul, vec![t(g), t(u)])))
        .reduce(|a, b| call(Op::Add, vec![t(&a), t(&b)]))
        .ok_or("no inputs")?;
    let ana = autograd::grad(&[total], &[None], &leaves, opts(false), true, true)
        .map_err(|e| format!("double backward failed: {e}"))?;
    const EPS: f64 = 1e-6;
    for (li, a) in ana.iter().enumerate() {
        // `None`: the first gradient does not depend on this value (a linear op's input)
        let a = a
            .as_ref()
            .map_or_else(|| vec![0.0; vals[li].numel()], |a| a.to_vec::<f64>());
        for (el, an) in a.iter().enumerate() {
            let bump = |d: f64| {
                let mut v = vals.clone();
                let mut data = v[li].to_vec::<f64>();
                data[el] += d;
                v[li] = Tensor::from_vec(data, v[li].shape()).unwrap();
                first(&v)
            };
            let num = (bump(EPS) - bump(-EPS)) / (2.0 * EPS);
            if (an - num).abs() > 1e-5 + 1e-3 * num.abs() {
                let what = if li == n_in {
                    "grad_output".to_string()
                } else {
                    format!("input {li}")
                };
                return Err(format!(
                    "second derivative of {what} element {el}: analytical {an}, numerical {num}"
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn double_backward_matches_finite_differences() {
    let x = f64s(&[2, 3, 4], 701);
    let w = f64s(&[4], 702);
    let b = f64s(&[4], 703);
    let img = f64s(&[2, 4, 3, 3], 704);
    let logits = f64s(&[3, 4], 705);
    let target = longs(&[1, 3, 0], &[3]);
    let cases: Vec<Call> = vec![
        (Op::LayerNorm, vec![t(&x), ints(&[4]), t(&w), t(&b)], vec![]),
        (Op::GroupNorm, vec![t(&img), i(2), t(&w), t(&b)], vec![]),
        (
            Op::CrossEntropy,
            vec![t(&logits), t(&target)],
            kw(&[("label_smoothing", fl(0.1))]),
        ),
        (
            Op::MseLoss,
            vec![t(&logits), t(&f64s(&[3, 4], 706))],
            vec![],
        ),
        (Op::Cumprod, vec![t(&logits), i(1)], vec![]),
        (Op::Logcumsumexp, vec![t(&logits), i(0)], vec![]),
        (
            Op::ScaledDotProductAttention,
            vec![
                t(&f64s(&[2, 3], 707)),
                t(&f64s(&[4, 3], 708)),
                t(&f64s(&[4, 2], 709)),
            ],
            kw(&[("is_causal", Value::Bool(true))]),
        ),
        (
            Op::Einsum,
            vec![
                s("ij,jk->ik"),
                Value::TensorList(vec![f64s(&[2, 3], 710), f64s(&[3, 2], 711)]),
            ],
            vec![],
        ),
        (
            Op::Pad,
            vec![t(&x), ints(&[1, 2])],
            kw(&[("mode", s("reflect"))]),
        ),
    ];
    let mut failures = Vec::new();
    for (op, p, k) in cases {
        if let Err(e) = gradgrad(op, p, k) {
            failures.push(format!("{op}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every extra first-order case of these families differentiated twice: PyTorch double
/// differentiates all of them. Left out: dropout (a fresh mask per call, so no finite
/// differences), in-place ops (they would write the leaves), refusals, and calls whose output
/// is not float64 (a float32 cumsum: the finite differences would see its rounding).
#[test]
fn double_backward_of_every_case_matches_finite_differences() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for ((op, p, k), _) in cases() {
        if op == Op::Dropout || op.functional_twin().is_some() || refused(op, &p).is_some() {
            continue;
        }
        if k.iter().any(|(name, _)| name == "dtype") {
            continue;
        }
        checked += 1;
        if let Err(e) = gradgrad(op, p, k) {
            failures.push(format!("{op}: {e}"));
        }
    }
    assert!(checked > 80, "only {checked} cases checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Dropout saves its mask: the gradient is `grad * out / x` exactly (x has no zeros), however
/// the generator moves afterwards, and only kept elements get one.
#[test]
fn dropout_gradient_uses_the_saved_mask() {
    for dt in [DType::Float32, DType::Float64] {
        let x0 = map(&f64s(&[64, 33], 801), |v| v.abs() + 0.25).to_dtype(dt);
        let x = leaf(&x0);
        let y = registry::call(Op::Dropout, &[t(&x), fl(0.4), Value::Bool(true)])
            .unwrap()
            .remove(0);
        assert_eq!(
            crate::autograd::grad_fn_of(&y).unwrap().0.name(),
            "MulBackward0"
        );
        // the generator moves on: a recomputed mask would differ
        random::randn(&[1000], None, None).unwrap();
        let g = f64s(y.shape(), 802).to_dtype(dt);
        let gx = autograd::grad(
            std::slice::from_ref(&y),
            &[Some(g.clone())],
            std::slice::from_ref(&x),
            opts(false),
            false,
            false,
        )
        .unwrap()
        .remove(0)
        .unwrap();
        let (xv, yv, gv, dv) = (
            x0.to_vec::<f64>(),
            y.to_vec::<f64>(),
            g.to_vec::<f64>(),
            gx.to_vec::<f64>(),
        );
        let mut kept = 0;
        for j in 0..xv.len() {
            let want = gv[j] * (yv[j] / xv[j]);
            let tol = if dt == DType::Float32 { 1e-5 } else { 1e-12 };
            assert!(
                (dv[j] - want).abs() <= tol * (1.0 + want.abs()),
                "{dt}: element {j}: {} vs {want}",
                dv[j]
            );
            kept += usize::from(yv[j] != 0.0);
        }
        assert!(
            kept > 0 && kept < xv.len(),
            "{dt}: mask kept {kept} of {}",
            xv.len()
        );
    }
    // evaluation mode and p = 0 are the identity
    let x = leaf(&f64s(&[3, 4], 803));
    for (p, training) in [(0.5, false), (0.0, true)] {
        let y = registry::call(Op::Dropout, &[t(&x), fl(p), Value::Bool(training)])
            .unwrap()
            .remove(0);
        let g = f64s(&[3, 4], 804);
        let gx = autograd::grad(
            &[y],
            &[Some(g.clone())],
            std::slice::from_ref(&x),
            opts(false),
            false,
            false,
        )
        .unwrap()
        .remove(0)
        .unwrap();
        assert_eq!(gx.to_vec::<f64>(), g.to_vec::<f64>());
    }
}

/// padding_idx: the rows read at it get no gradient (the forward still reads them, so finite
/// differences cannot check this); the other rows get what they get without it.
#[test]
fn embedding_padding_rows_get_no_gradient() {
    let table = f64s(&[5, 3], 901);
    let idx = longs(&[0, 2, 4, 2, 1, 2, 4], &[7]);
    let g = f64s(&[7, 3], 902);
    let grad_of = |pad: Option<i64>| {
        let w = leaf(&table);
        let mut p = vec![t(&idx), t(&w)];
        if let Some(pad) = pad {
            p.push(i(pad));
        }
        let y = call(Op::Embedding, p);
        autograd::grad(&[y], &[Some(g.clone())], &[w], opts(false), false, false)
            .unwrap()
            .remove(0)
            .unwrap()
            .to_vec::<f64>()
    };
    let full = grad_of(None);
    for (pad, row) in [(2, 2usize), (-1, 4)] {
        let got = grad_of(Some(pad));
        for r in 0..5 {
            for c in 0..3 {
                let want = if r == row { 0.0 } else { full[r * 3 + c] };
                assert_eq!(got[r * 3 + c], want, "padding_idx {pad}: row {r}");
            }
        }
    }
}
