//! Backward formulas of the reductions, softmax and log_softmax.

use rynamo_tensor::layout::wrap_dims;

use super::pointwise::grad_or_return;
use super::{Grads, Saves, VjpCtx, VjpRule, args, put, vjp_rule};
use crate::autograd::emit::{Emit, f, t};
use crate::{Op, Result, Value};

/// The reduced dims (wrapped, ascending) of a `dim` argument; `None` or `[]` means all dims.
fn dims_of(dims: Option<&[i64]>, ndim: usize) -> Result<Vec<usize>> {
    Ok(match dims {
        None | Some([]) => (0..ndim).collect(),
        Some(d) => {
            let mut v = wrap_dims(d, ndim)?.to_vec();
            v.sort_unstable();
            v
        }
    })
}

/// `g` (reduced over `dims`) brought back to `shape`: size-1 dims re-inserted when the
/// reduction dropped them, then expanded.
fn unreduce<E: Emit>(
    e: &mut E,
    g: &E::T,
    shape: &[usize],
    dims: &[usize],
    keepdim: bool,
) -> Result<E::T> {
    let mut g = g.clone();
    if !keepdim && !shape.is_empty() {
        for &d in dims {
            g = e.unsqueeze(&g, d as i64)?;
        }
    }
    e.expand(&g, shape)
}

/// A reduction's result brought back to the input's rank (keepdim form), for formulas that
/// combine it with the input.
fn keep<E: Emit>(e: &mut E, r: &E::T, ndim: usize, dims: &[usize], keepdim: bool) -> Result<E::T> {
    let mut r = r.clone();
    if !keepdim && ndim > 0 {
        for &d in dims {
            r = e.unsqueeze(&r, d as i64)?;
        }
    }
    Ok(r)
}

fn sum<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let (x, dim, keepdim) = args!(c, |a| (a.self_, a.dim, a.keepdim),
        Sum => reduce::sum, Mean => reduce::mean);
    if c.wants(x) {
        let shape = c.meta(x)?.shape.clone();
        let dims = dims_of(dim, shape.len())?;
        let mut d = unreduce(e, &g, &shape, &dims, keepdim)?;
        if c.op == Op::Mean {
            let n: usize = dims.iter().map(|&i| shape[i]).product();
            d = e.div_s(&d, n as f64)?;
        }
        put(&mut out, x, d)?;
    }
    Ok(out)
}

/// amax / amin / max() / min(): the gradient is shared evenly among the elements equal to the
/// result (PyTorch's `evenly_distribute_backward` / `amaxamin` rule).
fn amax_amin<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    // max() / min() reduce over all dims (`dim = []`) and keep none.
    let (xs, dim, keepdim) = match c.op {
        Op::Max | Op::Min => {
            let x = args!(c, |a| a.self_, Max => reduce::max, Min => reduce::min);
            (x, &[][..], false)
        }
        _ => args!(c, |a| (a.self_, a.dim, a.keepdim), Amax => reduce::amax, Amin => reduce::amin),
    };
    if c.wants(xs) {
        let x = c.saved(xs)?;
        let shape = c.meta(xs)?.shape.clone();
        let dims = dims_of(Some(dim), shape.len())?;
        let r = keep(e, &c.output(0)?, shape.len(), &dims, keepdim)?;
        let hit = e.cmp(Op::Eq, &x, &r)?;
        let hitf = e.to_dtype(&hit, e.dtype(&g))?;
        let dl: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        let count = e.sum_dims(&hitf, &dl, true)?;
        let gk = keep(e, &g, shape.len(), &dims, keepdim)?;
        let share = e.div(&gk, &count)?;
        let d = e.mul(&hitf, &share)?;
        put(&mut out, xs, d)?;
    }
    Ok(out)
}

/// max.dim / min.dim: the values' gradient goes to the selected indices.
fn max_min_dim<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let (x, dim, keepdim) = args!(c, |a| (a.self_, a.dim, a.keepdim),
        MaxDim => reduce::max_dim, MinDim => reduce::min_dim);
    if c.wants(x) {
        let shape = c.meta(x)?.shape.clone();
        let idx = c.output(1)?;
        let d = scatter_back(e, &g, &idx, &shape, dim, keepdim)?;
        put(&mut out, x, d)?;
    }
    Ok(out)
}

/// Zeros of `shape` with `g` written at `idx` along `dim` (`value_selecting_reduction_backward`).
pub(super) fn scatter_back<E: Emit>(
    e: &mut E,
    g: &E::T,
    idx: &E::T,
    shape: &[usize],
    dim: i64,
    keepdim: bool,
) -> Result<E::T> {
    let (g, idx) = if keepdim || shape.is_empty() {
        (g.clone(), idx.clone())
    } else {
        (e.unsqueeze(g, dim)?, e.unsqueeze(idx, dim)?)
    };
    let z = e.zeros(shape, e.dtype(&g))?;
    e.op(Op::Scatter, vec![t(&z), Value::Int(dim), t(&idx), t(&g)])
}

fn var_std<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let (xs, dim, unbiased, keepdim, correction) = args!(c,
        |a| (a.self_, a.dim, a.unbiased, a.keepdim, a.correction),
        Var => reduce::var, Std => reduce::std);
    if !c.wants(xs) {
        return Ok(out);
    }
    let x = c.saved(xs)?;
    let shape = c.meta(xs)?.shape.clone();
    let dims = dims_of(dim, shape.len())?;
    let correction = match (unbiased, correction) {
        (_, Some(s)) => s.to_f64(),
        (Some(u), None) => f64::from(u8::from(u)),
        (None, None) => 1.0,
    };
    let n: usize = dims.iter().map(|&i| shape[i]).product();
    let dl: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    let mean = e.op(Op::Mean, vec![t(&x), Value::IntList(dl), Value::Bool(true)])?;
    let centered = e.sub(&x, &mean)?;
    let gk = keep(e, &g, shape.len(), &dims, keepdim)?;
    let denom = (n as f64 - correction).max(0.0);
    let d = if c.op == Op::Var {
        // grad * 2 (x - mean) / (N - correction)
        let s = e.mul_s(&centered, 2.0 / denom)?;
        e.mul(&gk, &s)?
    } else {
        // grad * (x - mean) / ((N - correction) * std)
        let sd = keep(e, &c.output(0)?, shape.len(), &dims, keepdim)?;
        let s = e.div(&centered, &sd)?;
        let s = e.div_s(&s, denom)?;
        e.mul(&gk, &s)?
    };
    put(&mut out, xs, d)?;
    Ok(out)
}

fn logsumexp<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let a = args!(c, LogSumExp => reduce::log_sum_exp);
    if c.wants(a.self_) {
        // grad * exp(x - result)
        let x = c.saved(a.self_)?;
        let shape = c.meta(a.self_)?.shape.clone();
        let dims = dims_of(Some(a.dim), shape.len())?;
        let keepdim = a.keepdim;
        let r = keep(e, &c.output(0)?, shape.len(), &dims, keepdim)?;
        let gk = keep(e, &g, shape.len(), &dims, keepdim)?;
        let z = e.sub(&x, &r)?;
        let p = e.unary(Op::Exp, &z)?;
        let d = e.mul(&gk, &p)?;
        put(&mut out, a.self_, d)?;
    }
    Ok(out)
}

fn softmax<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let (x, dim) = args!(c, |a| (a.self_, a.dim),
        Softmax => reduce::softmax, LogSoftmax => reduce::log_softmax);
    if c.wants(x) {
        let y = c.output(0)?;
        let d = if c.op == Op::Softmax {
            // y * (g - sum(g * y, dim))
            let gy = e.mul(&g, &y)?;
            let s = e.sum_dims(&gy, &[dim], true)?;
            let diff = e.sub(&g, &s)?;
            e.mul(&y, &diff)?
        } else {
            // g - exp(y) * sum(g, dim)
            let s = e.sum_dims(&g, &[dim], true)?;
            let p = e.unary(Op::Exp, &y)?;
            let ps = e.mul(&p, &s)?;
            e.sub(&g, &ps)?
        };
        put(&mut out, x, d)?;
    }
    Ok(out)
}

/// prod (all, or along one dim): each element's gradient is the product of the others, computed
/// with exclusive cumulative products from both ends so zeros are handled exactly.
fn prod<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let a = args!(c, Prod => reduce::prod);
    if !c.wants(a.self_) {
        return Ok(out);
    }
    let x = c.saved(a.self_)?;
    let shape = c.meta(a.self_)?.shape.clone();
    let (xd, dim, keepdim) = match a.dim {
        Some(d) => (x.clone(), d, a.keepdim),
        None => {
            let n = shape.iter().product::<usize>();
            (e.reshape(&x, &[n])?, 0, false)
        }
    };
    if shape.is_empty() || e.shape(&xd).is_empty() {
        put(&mut out, a.self_, g)?;
        return Ok(out);
    }
    let others = exclusive_products(e, &xd, dim)?;
    // Complex inputs (PyTorch's convention): `grad * conj(product of the others)`.
    let others = super::order::conj_if_complex(e, &others)?;
    let gk = if a.dim.is_some() {
        let dims = dims_of(Some(&[dim]), shape.len())?;
        keep(e, &g, shape.len(), &dims, keepdim)?
    } else {
        g
    };
    let d = e.mul(&others, &gk)?;
    let d = e.reshape(&d, &shape)?;
    put(&mut out, a.self_, d)?;
    Ok(out)
}

/// For each position along `dim`, the product of every other element along it.
fn exclusive_products<E: Emit>(e: &mut E, x: &E::T, dim: i64) -> Result<E::T> {
    let shape = e.shape(x);
    let d = rynamo_tensor::layout::wrap_dim(dim, shape.len())?;
    let n = shape[d];
    let mut one_shape = shape.clone();
    one_shape[d] = 1;
    let ones = e.zeros(&one_shape, e.dtype(x))?;
    let ones = e.add_s(&ones, 1.0)?;
    let shift = |e: &mut E, v: &E::T| -> Result<E::T> {
        // [1, v[0], ..., v[n-2]]
        let head = e.op(
            Op::Narrow,
            vec![
                t(v),
                Value::Int(d as i64),
                Value::Int(0),
                Value::Int(n as i64 - 1),
            ],
        )?;
        e.op(
            Op::Cat,
            vec![
                Value::TensorList(vec![ones.clone(), head]),
                Value::Int(d as i64),
            ],
        )
    };
    let left = e.op(Op::Cumprod, vec![t(x), Value::Int(d as i64)])?;
    let left = shift(e, &left)?;
    let flip = |e: &mut E, v: &E::T| e.op(Op::Flip, vec![t(v), Value::IntList(vec![d as i64])]);
    let xr = flip(e, x)?;
    let right = e.op(Op::Cumprod, vec![t(&xr), Value::Int(d as i64)])?;
    let right = shift(e, &right)?;
    let right = flip(e, &right)?;
    e.mul(&left, &right)
}

fn norm<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let (xs, p, dim, keepdim) = match c.op {
        Op::NormStr => {
            let a = args!(c, NormStr => reduce::norm_str);
            if a.p != "fro" {
                return Err(crate::Error::Tensor(rynamo_tensor::Error::NotImplemented(
                    "the derivative of norm with this p is not implemented".into(),
                )));
            }
            (a.self_, 2.0, a.dim, a.keepdim)
        }
        _ => {
            let a = args!(c, Norm => reduce::norm);
            (a.self_, a.p.map_or(2.0, |p| p.to_f64()), a.dim, a.keepdim)
        }
    };
    if !c.wants(xs) {
        return Ok(out);
    }
    let x = c.saved(xs)?;
    let shape = c.meta(xs)?.shape.clone();
    let dims = dims_of(dim, shape.len())?;
    let r = keep(e, &c.output(0)?, shape.len(), &dims, keepdim)?;
    let gk = keep(e, &g, shape.len(), &dims, keepdim)?;
    let d = if p == 0.0 {
        e.zeros_like(&x)?
    } else if p == 1.0 {
        let s = e.unary(Op::Sign, &x)?;
        e.mul(&s, &gk)?
    } else if p.is_infinite() {
        // the gradient is shared evenly among the elements whose |x| equals the norm
        let ax = e.unary(Op::Abs, &x)?;
        let hit = e.cmp(Op::Eq, &ax, &r)?;
        let hitf = e.to_dtype(&hit, e.dtype(&g))?;
        let dl: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        let count = e.sum_dims(&hitf, &dl, true)?;
        let s = e.unary(Op::Sign, &x)?;
        let share = e.div(&gk, &count)?;
        let d = e.mul(&hitf, &share)?;
        e.mul(&d, &s)?
    } else {
        // x * |x|^(p-2) * grad / norm^(p-1), 0 where the norm is 0
        let ax = e.unary(Op::Abs, &x)?;
        let ap = e.pow_s(&ax, p - 2.0)?;
        let num = e.mul(&x, &ap)?;
        let den = e.pow_s(&r, p - 1.0)?;
        let q = e.div(&num, &den)?;
        let zero = e.cmp_s(Op::Eq, &r, 0.0)?;
        let q = e.where_(&zero, f(0.0), t(&q))?;
        e.mul(&q, &gk)?
    };
    put(&mut out, xs, d)?;
    Ok(out)
}

pub(crate) static SUM: VjpRule = vjp_rule!("SumBackward1", Saves::NONE, sum);
pub(crate) static MEAN: VjpRule = vjp_rule!("MeanBackward1", Saves::NONE, sum);
pub(crate) static AMAX: VjpRule = vjp_rule!(
    "AmaxBackward0",
    Saves::args_and_output(&["self"]),
    amax_amin
);
pub(crate) static AMIN: VjpRule = vjp_rule!(
    "AminBackward0",
    Saves::args_and_output(&["self"]),
    amax_amin
);
pub(crate) static MAX: VjpRule =
    vjp_rule!("MaxBackward1", Saves::args_and_output(&["self"]), amax_amin);
pub(crate) static MIN: VjpRule =
    vjp_rule!("MinBackward1", Saves::args_and_output(&["self"]), amax_amin);
pub(crate) static MAX_DIM: VjpRule = vjp_rule!("MaxBackward0", Saves::OUTPUT, max_min_dim);
pub(crate) static MIN_DIM: VjpRule = vjp_rule!("MinBackward0", Saves::OUTPUT, max_min_dim);
pub(crate) static VAR: VjpRule = vjp_rule!("VarBackward0", Saves::args(&["self"]), var_std);
pub(crate) static STD: VjpRule =
    vjp_rule!("StdBackward0", Saves::args_and_output(&["self"]), var_std);
pub(crate) static LSE: VjpRule = vjp_rule!(
    "LogsumexpBackward0",
    Saves::args_and_output(&["self"]),
    logsumexp
);
pub(crate) static SOFTMAX: VjpRule = vjp_rule!("SoftmaxBackward0", Saves::OUTPUT, softmax);
pub(crate) static LOG_SOFTMAX: VjpRule = vjp_rule!("LogSoftmaxBackward0", Saves::OUTPUT, softmax);
pub(crate) static PROD: VjpRule = vjp_rule!("ProdBackward0", Saves::args(&["self"]), prod);
pub(crate) static NORM: VjpRule =
    vjp_rule!("NormBackward1", Saves::args_and_output(&["self"]), norm);
