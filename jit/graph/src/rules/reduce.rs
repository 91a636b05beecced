//! Reductions, `max`/`min` overloads, softmax and log_softmax. A reduction's `plan` maps its
//! typed arguments to the kernel-level [`ReduceOp`], dims, keepdim and dtype; the meta rule and
//! the kernel are `rynamo_tensor`'s `reduce_meta` / `reduce` of that plan.

use rynamo_tensor::ops::{nn, reduce};
use rynamo_tensor::{DType, ReduceOp, Scalar};

use crate::autograd::emit::{Emit, f, t as arg};
use crate::autograd::vjp::reduce as vjp;
use crate::def::{Sample, decomposition, op};
use crate::samples::{fx, pos_args, t, with_kw};
use crate::{Error, Op, Result, Value};

/// How a reduction reads its arguments.
pub(crate) struct Plan {
    op: ReduceOp,
    dims: Option<Vec<i64>>,
    keepdim: bool,
    dtype: Option<DType>,
}

fn make_plan(op: ReduceOp, dims: Option<&[i64]>, keepdim: bool, dtype: Option<DType>) -> Plan {
    Plan {
        op,
        dims: dims.map(<[i64]>::to_vec),
        keepdim,
        dtype,
    }
}

/// `var`/`std`'s correction: `correction`, else `unbiased` as 1 or 0, else 1.
fn correction(unbiased: Option<bool>, correction: Option<Scalar>) -> Result<f64> {
    if unbiased.is_some() && correction.is_some() {
        return Err(Error::Tensor(rynamo_tensor::Error::Runtime(
            "Cannot pass both unbiased and correction arguments".into(),
        )));
    }
    Ok(correction
        .map(Scalar::to_f64)
        .or(unbiased.map(|u| if u { 1.0 } else { 0.0 }))
        .unwrap_or(1.0))
}

/// One reduction: `|a| plan` from its typed arguments `a`.
macro_rules! reduction {
    ($name:ident = $schema:literal, |$a:ident| $plan:expr $(, with $($with:tt)*)?) => {
        op! {
            $name = $schema, Reduction, [FUNCTION METHOD];
            items {
                /// The kernel reduction for these arguments.
                pub(crate) fn plan<T>($a: &Args<'_, T>) -> Result<super::Plan> {
                    Ok($plan)
                }
            }
            meta(_, a) {
                let p = plan(&a)?;
                Ok(vec![reduce::reduce_meta(p.op, a.self_, p.dims.as_deref(), p.keepdim, p.dtype)?])
            }
            eager(_, a) {
                let p = plan(&a)?;
                Ok(vec![reduce::reduce(p.op, a.self_, p.dims.as_deref(), p.keepdim, p.dtype)?])
            }
            with .complex() $($($with)*)?
        }
    };
}

/// `op(x, 1)`.
fn along_1() -> Sample {
    pos_args(vec![t(fx::x()), Value::Int(1)])
}

/// `op(x, -1)`.
fn along_last() -> Sample {
    pos_args(vec![t(fx::x()), Value::Int(-1)])
}

/// `op(x, [0, 1], keepdim=True)`.
fn over_all_kept() -> Sample {
    with_kw(
        vec![t(fx::x()), Value::IntList(vec![0, 1])],
        "keepdim",
        Value::Bool(true),
    )
}

/// `op(x, 1, correction=0)`.
fn corrected() -> Sample {
    with_kw(vec![t(fx::x()), Value::Int(1)], "correction", Value::Int(0))
}

/// `op(mask, 0)`.
fn mask_along_0() -> Sample {
    pos_args(vec![t(fx::mask()), Value::Int(0)])
}

reduction!(
    sum = "sum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    |a| make_plan(ReduceOp::Sum, a.dim, a.keepdim, a.dtype),
    with.complex_grad().vjp(&vjp::SUM).sample(over_all_kept)
);
reduction!(
    mean = "mean(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    |a| make_plan(ReduceOp::Mean, a.dim, a.keepdim, a.dtype),
    with.complex_grad().vjp(&vjp::MEAN).sample(over_all_kept)
);
reduction!(
    prod =
        "prod(Tensor self, int? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    |a| make_plan(
        ReduceOp::Prod,
        a.dim.as_ref().map(::std::slice::from_ref),
        a.keepdim,
        a.dtype
    ),
    with.complex_grad().vjp(&vjp::PROD).sample(along_1)
);
reduction!(
    amax = "amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
    |a| make_plan(ReduceOp::Amax, Some(a.dim), a.keepdim, None),
    with.vjp(&vjp::AMAX).sample(along_last)
);
reduction!(
    amin = "amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
    |a| make_plan(ReduceOp::Amin, Some(a.dim), a.keepdim, None),
    with.vjp(&vjp::AMIN).sample(along_last)
);
reduction!(
    argmax = "argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
    |a| make_plan(
        ReduceOp::Argmax,
        a.dim.as_ref().map(::std::slice::from_ref),
        a.keepdim,
        None
    ),
    with.sample(along_1)
);
reduction!(
    argmin = "argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
    |a| make_plan(
        ReduceOp::Argmin,
        a.dim.as_ref().map(::std::slice::from_ref),
        a.keepdim,
        None
    ),
    with.sample(along_1)
);
reduction!(
    var = "var(Tensor self, int[1]? dim=None, bool? unbiased=None, bool keepdim=False, *, Scalar? correction=None) -> Tensor",
    |a| make_plan(
        ReduceOp::Var {
            correction: correction(a.unbiased, a.correction)?
        },
        a.dim,
        a.keepdim,
        None
    ),
    with.vjp(&vjp::VAR)
        .sample(corrected)
        .decompose(decomposition!(super::var_decomposition))
);
reduction!(
    std = "std(Tensor self, int[1]? dim=None, bool? unbiased=None, bool keepdim=False, *, Scalar? correction=None) -> Tensor",
    |a| make_plan(
        ReduceOp::Std {
            correction: correction(a.unbiased, a.correction)?
        },
        a.dim,
        a.keepdim,
        None
    ),
    with.vjp(&vjp::STD)
        .sample(corrected)
        .decompose(decomposition!(super::std_decomposition))
);
reduction!(
    log_sum_exp = "logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor",
    |a| make_plan(ReduceOp::LogSumExp, Some(a.dim), a.keepdim, None),
    with.vjp(&vjp::LSE)
        .sample(along_last)
        .decompose(decomposition!(super::logsumexp_decomposition))
);
reduction!(
    all = "all(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
    |a| make_plan(
        ReduceOp::All,
        a.dim.as_ref().map(::std::slice::from_ref),
        a.keepdim,
        None
    ),
    with.sample(mask_along_0)
);
reduction!(
    any = "any(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
    |a| make_plan(
        ReduceOp::Any,
        a.dim.as_ref().map(::std::slice::from_ref),
        a.keepdim,
        None
    ),
    with.sample(mask_along_0)
);
reduction!(
    norm = "norm(Tensor self, Scalar? p=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    |a| make_plan(
        ReduceOp::Norm {
            p: a.p.map_or(2.0, Scalar::to_f64)
        },
        a.dim,
        a.keepdim,
        a.dtype
    ),
    with.vjp(&vjp::NORM)
        .sample(|| pos_args(vec![t(fx::x()), Value::Float(3.0), Value::Int(1)]))
);
reduction!(
    norm_str = "norm.str(Tensor self, str p, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    |a| {
        let p = match a.p {
            "fro" => 2.0,
            "nuc" => {
                return Err(Error::Tensor(rynamo_tensor::Error::NotImplemented(
                    "norm(): the nuclear norm ('nuc') is not supported".into(),
                )));
            }
            s => {
                return Err(Error::Tensor(rynamo_tensor::Error::Runtime(format!(
                    "linalg.matrix_norm: Order {s} not supported."
                ))));
            }
        };
        make_plan(ReduceOp::Norm { p }, a.dim, a.keepdim, a.dtype)
    },
    with.vjp(&vjp::NORM)
        .sample(|| pos_args(vec![t(fx::x()), Value::Str("fro".into())]))
);
reduction!(
    count_nonzero = "count_nonzero(Tensor self, int[1]? dim=None) -> Tensor",
    |a| make_plan(ReduceOp::CountNonzero, a.dim, false, None),
    with.sample(|| pos_args(vec![t(fx::ints()), Value::Int(0)]))
);

op! {
    max = "max(Tensor self) -> Tensor", Reduction, [FUNCTION METHOD];
    meta(_, a) { Ok(vec![reduce::minmax_all_meta(a.self_, "max")?]) }
    eager(_, a) {
        reduce::minmax_all_meta(a.self_, "max")?;
        Ok(vec![reduce::reduce(ReduceOp::Amax, a.self_, None, false, None)?])
    }
    with .complex_kernel("max_all").vjp(&vjp::MAX)
}

op! {
    min = "min(Tensor self) -> Tensor", Reduction, [FUNCTION METHOD];
    meta(_, a) { Ok(vec![reduce::minmax_all_meta(a.self_, "min")?]) }
    eager(_, a) {
        reduce::minmax_all_meta(a.self_, "min")?;
        Ok(vec![reduce::reduce(ReduceOp::Amin, a.self_, None, false, None)?])
    }
    with .complex_kernel("min_all").vjp(&vjp::MIN)
}

/// `op(x, 1, True)`.
fn along_1_kept() -> Sample {
    pos_args(vec![t(fx::x()), Value::Int(1), Value::Bool(true)])
}

op! {
    max_dim = "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
        Reduction, [FUNCTION METHOD];
    meta(_, a) {
        let (v, i) = reduce::minmax_dim_meta(a.self_, a.dim, a.keepdim)?;
        Ok(vec![v, i])
    }
    eager(_, a) {
        let (v, i) = reduce::minmax_dim(a.self_, a.dim, a.keepdim, true)?;
        Ok(vec![v, i])
    }
    with .vjp(&vjp::MAX_DIM).sample(along_1_kept)
}

op! {
    min_dim = "min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
        Reduction, [FUNCTION METHOD];
    meta(_, a) {
        let (v, i) = reduce::minmax_dim_meta(a.self_, a.dim, a.keepdim)?;
        Ok(vec![v, i])
    }
    eager(_, a) {
        let (v, i) = reduce::minmax_dim(a.self_, a.dim, a.keepdim, false)?;
        Ok(vec![v, i])
    }
    with .vjp(&vjp::MIN_DIM).sample(along_1_kept)
}

op! {
    softmax = "softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", Extern,
        [FUNCTION METHOD NN_FUNCTIONAL];
    meta(_, a) { Ok(vec![nn::softmax_meta(a.self_, a.dim, a.dtype, "softmax")?]) }
    eager(_, a) { Ok(vec![nn::softmax(a.self_, a.dim, a.dtype, false)?]) }
    with .complex().vjp(&vjp::SOFTMAX).sample(along_last)
        .decompose(decomposition!(super::softmax_decomposition))
}

op! {
    log_softmax = "log_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", Extern,
        [FUNCTION METHOD NN_FUNCTIONAL];
    meta(_, a) { Ok(vec![nn::softmax_meta(a.self_, a.dim, a.dtype, "log_softmax")?]) }
    eager(_, a) { Ok(vec![nn::softmax(a.self_, a.dim, a.dtype, true)?]) }
    with .complex().vjp(&vjp::LOG_SOFTMAX).sample(along_last)
        .decompose(decomposition!(super::log_softmax_decomposition))
}

// === Decompositions (the JIT fuses their parts; each keeps the eager kernel's evaluation order) ===

/// Whether a decomposition applies to `x`: floating point and at least one dim.
fn decomposable<E: Emit>(e: &E, x: &E::T) -> bool {
    let m = e.meta(x);
    m.dtype.is_floating_point() && !m.shape.is_empty()
}

/// `x.amax(dims, keepdim=True)`.
fn amax_kept<E: Emit>(e: &mut E, x: &E::T, dims: &[i64]) -> Result<E::T> {
    e.op(
        Op::Amax,
        vec![arg(x), Value::IntList(dims.to_vec()), Value::Bool(true)],
    )
}

/// softmax and log_softmax: `max`, `exp(x - max)`, `sum`, then `e * (1 / s)` (the kernel
/// multiplies by the reciprocal) or `(x - max) - log(s)`.
fn softmax_parts<E: Emit>(
    e: &mut E,
    x: &E::T,
    dim: i64,
    dtype: Option<DType>,
    log: bool,
) -> Result<Option<E::T>> {
    if !decomposable(e, x) {
        return Ok(None);
    }
    let x = match dtype {
        Some(d) => e.to_dtype(x, d)?,
        None => x.clone(),
    };
    let m = amax_kept(e, &x, &[dim])?;
    let shifted = e.sub(&x, &m)?;
    let ex = e.unary(Op::Exp, &shifted)?;
    let s = e.sum_dims(&ex, &[dim], true)?;
    Ok(Some(if log {
        let ls = e.unary(Op::Log, &s)?;
        e.sub(&shifted, &ls)?
    } else {
        let inv = e.unary(Op::Reciprocal, &s)?;
        e.mul(&ex, &inv)?
    }))
}

fn softmax_decomposition<E: Emit>(e: &mut E, args: &[Value<E::T>]) -> Result<Option<E::T>> {
    let a = softmax::Args::read(args)?;
    softmax_parts(e, a.self_, a.dim, a.dtype, false)
}

fn log_softmax_decomposition<E: Emit>(e: &mut E, args: &[Value<E::T>]) -> Result<Option<E::T>> {
    let a = log_softmax::Args::read(args)?;
    softmax_parts(e, a.self_, a.dim, a.dtype, true)
}

/// var and std as two reductions: `sum((x - mean)^2) / max(n - correction, 0)`, then `sqrt`.
fn variance<E: Emit>(
    e: &mut E,
    x: &E::T,
    dim: Option<&[i64]>,
    unbiased: Option<bool>,
    corr: Option<Scalar>,
    keepdim: bool,
    std: bool,
) -> Result<Option<E::T>> {
    if !decomposable(e, x) {
        return Ok(None);
    }
    let shape = e.shape(x);
    let dims: Vec<i64> = match dim {
        None | Some([]) => (0..shape.len() as i64).collect(),
        Some(ds) => ds.to_vec(),
    };
    let Ok(wrapped) = rynamo_tensor::layout::wrap_dims(&dims, shape.len()) else {
        return Ok(None);
    };
    let count: usize = wrapped.iter().map(|&d| shape[d]).product();
    let Ok(c) = correction(unbiased, corr) else {
        return Ok(None);
    };
    let mean = e.op(
        Op::Mean,
        vec![arg(x), Value::IntList(dims.clone()), Value::Bool(true)],
    )?;
    let d = e.sub(x, &mean)?;
    let sq = e.mul(&d, &d)?;
    let ss = e.sum_dims(&sq, &dims, keepdim)?;
    let var = e.div_s(&ss, (count as f64 - c).max(0.0))?;
    Ok(Some(if std { e.unary(Op::Sqrt, &var)? } else { var }))
}

fn var_decomposition<E: Emit>(e: &mut E, args: &[Value<E::T>]) -> Result<Option<E::T>> {
    let a = var::Args::read(args)?;
    variance(
        e,
        a.self_,
        a.dim,
        a.unbiased,
        a.correction,
        a.keepdim,
        false,
    )
}

fn std_decomposition<E: Emit>(e: &mut E, args: &[Value<E::T>]) -> Result<Option<E::T>> {
    let a = std::Args::read(args)?;
    variance(e, a.self_, a.dim, a.unbiased, a.correction, a.keepdim, true)
}

/// f32 `logsumexp` as PyTorch's CPU kernel computes it, in f32 (eager here computes in f64):
/// `m = amax(x)`, shifted to 0 where infinite (so all `-inf` gives `-inf` and a `+inf` gives
/// `+inf`, not NaN), then `log(sum(exp(x - m))) + m`. It differs from eager by the vector exp and
/// log's ulps. f64 keeps eager's kernel: the JIT's f64 exp is a scalar call, and eager's own f64
/// form, fused, measured 2x slower than eager on x[4096, 1024].
fn logsumexp_decomposition<E: Emit>(e: &mut E, args: &[Value<E::T>]) -> Result<Option<E::T>> {
    let a = log_sum_exp::Args::read(args)?;
    let x = a.self_;
    if !decomposable(e, x) || e.dtype(x) != DType::Float32 {
        return Ok(None);
    }
    let m = amax_kept(e, x, a.dim)?;
    let inf = e.unary(Op::IsInf, &m)?;
    let m = e.where_(&inf, f(0.0), arg(&m))?;
    let d = e.sub(x, &m)?;
    let ex = e.unary(Op::Exp, &d)?;
    let s = e.sum_dims(&ex, a.dim, a.keepdim)?;
    let l = e.unary(Op::Log, &s)?;
    let m = if a.keepdim {
        m
    } else if a.dim.is_empty() {
        e.op(Op::Squeeze, vec![arg(&m), Value::None])?
    } else {
        e.op(Op::Squeeze, vec![arg(&m), Value::IntList(a.dim.to_vec())])?
    };
    Ok(Some(e.add(&l, &m)?))
}
