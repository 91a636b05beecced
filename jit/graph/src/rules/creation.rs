//! Creation and random ops. Each op's `out` is its output meta from its typed arguments, shared by
//! the meta rule and the kernel (which allocates from it); constant-filled ones declare their
//! fill value (the JIT inlines it, constant folding evaluates through it).

use rynamo_tensor::creation as cr;
use rynamo_tensor::ops::complex as cx;
use rynamo_tensor::{
    DEFAULT_FLOAT, DType, Scalar, Shaped, Tensor, TensorMeta, TensorOrScalar, random,
};

use super::preserving;
use crate::def::{Sample, op};
use crate::samples::{fx, pos_args, t, with_kw};
use crate::{Result, Value};

/// One creation op: `|a| out_meta` and `|a, m| tensor` (contiguous, `m`'s dtype and shape).
macro_rules! creation {
    ($name:ident = $schema:literal, [$($flag:ident)*], |$a:ident| $out:expr,
        |$ka:ident, $m:ident| $make:expr $(, with $($with:tt)*)?) => {
        op! {
            $name = $schema, Creation, [$($flag)*];
            items {
                /// The output meta.
                #[allow(clippy::redundant_closure_call, reason = "the meta is written inline")]
                fn out<T: Shaped>($a: &Args<'_, T>) -> Result<TensorMeta> {
                    Ok($out)
                }
            }
            meta(_, a) { Ok(vec![out(&a)?]) }
            eager(_, $ka) {
                let $m = out(&$ka)?;
                let t: Tensor = $make;
                // The contiguous result's values, in memory order, under the meta's dense strides
                // (a `*_like` of a permuted tensor); a no-op for every other creation op.
                Ok(vec![t.with_dense_strides(&$m.strides)])
            }
            $(with $($with)*)?
        }
    };
}

/// `*_like`: the input's shape and memory order (`preserve_format`), `dtype` or the input's.
fn like<T: Shaped>(x: &T, dtype: Option<DType>) -> TensorMeta {
    preserving(x, dtype.unwrap_or(x.dtype()))
}

/// `new_*`: contiguous `size`, `dtype` or the input's.
fn new_of<T: Shaped>(x: &T, size: &[i64], dtype: Option<DType>) -> Result<TensorMeta> {
    Ok(TensorMeta::contiguous(
        dtype.unwrap_or(x.dtype()),
        &cr::sizes(size)?,
    ))
}

/// Contiguous `size` of `dtype` or the default float dtype.
fn sized(size: &[i64], dtype: Option<DType>) -> Result<TensorMeta> {
    Ok(TensorMeta::contiguous(
        dtype.unwrap_or(DEFAULT_FLOAT),
        &cr::sizes(size)?,
    ))
}

/// The dtype `full` gives a fill value when no `dtype=` is passed: a Python number's own
/// (`Scalar::dtype`); a complex value's, the default complex dtype (complex64 here; the shims
/// widen it to complex128 under a float64 default, as `torch.set_default_dtype` does); a real
/// 0-dim tensor is read as the number it holds, as PyTorch's argument parser reads it.
fn fill_dtype<T: Shaped>(v: &TensorOrScalar<&T>) -> DType {
    match v {
        TensorOrScalar::Scalar(s) => s.dtype(),
        TensorOrScalar::Tensor(t) => match t.dtype() {
            d if d.is_complex() => DEFAULT_FLOAT.to_complex().unwrap_or(DType::Complex64),
            DType::Bool => DType::Bool,
            d if d.is_floating_point() => DEFAULT_FLOAT,
            _ => DType::Int64,
        },
    }
}

/// `m`'s shape and dtype filled with `v`; a complex value (`torch.full((2,), 1+2j)`, which the
/// shims pass as a 0-dim complex tensor because `Scalar` is real) through
/// `ops::complex::fill_any`, with PyTorch's error for a real dtype that cannot hold it.
fn filled(m: &TensorMeta, v: TensorOrScalar<&Tensor>) -> Result<Tensor> {
    Ok(match v {
        TensorOrScalar::Scalar(s) => Tensor::full(&m.shape, s, m.dtype),
        TensorOrScalar::Tensor(t) if t.dtype().is_complex() => {
            let (re, im) = cx::item(t)?;
            let out = Tensor::empty(&m.shape, m.dtype);
            cx::fill_any(&out, re, im)?;
            out
        }
        TensorOrScalar::Tensor(t) => Tensor::full(&m.shape, t.item()?, m.dtype),
    })
}

/// The constant a `full` call fills with, when it is a number (the JIT inlines it).
fn fill_constant<T>(v: TensorOrScalar<T>) -> Option<Scalar> {
    match v {
        TensorOrScalar::Scalar(s) => Some(s),
        TensorOrScalar::Tensor(_) => None,
    }
}

fn two_by_three() -> Sample {
    pos_args(vec![Value::Int(2), Value::Int(3)])
}

fn new_4_by_2() -> Sample {
    pos_args(vec![t(fx::x()), Value::Int(4), Value::Int(2)])
}

const ZERO: Option<Scalar> = Some(Scalar::Int(0));
const ONE: Option<Scalar> = Some(Scalar::Int(1));

creation!(
    zeros = "zeros(int[] size, *, ScalarType? dtype=None) -> Tensor",
    [FUNCTION],
    |a| sized(a.size, a.dtype)?,
    |a, m| Tensor::zeros(&m.shape, m.dtype),
    with.complex().fill(|_| ZERO).sample(two_by_three)
);
creation!(
    ones = "ones(int[] size, *, ScalarType? dtype=None) -> Tensor",
    [FUNCTION],
    |a| sized(a.size, a.dtype)?,
    |a, m| Tensor::ones(&m.shape, m.dtype),
    with.complex().fill(|_| ONE).sample(two_by_three)
);
creation!(
    empty = "empty(int[] size, *, ScalarType? dtype=None) -> Tensor",
    [FUNCTION],
    |a| sized(a.size, a.dtype)?,
    |a, m| Tensor::empty(&m.shape, m.dtype),
    with.complex().fill(|_| ZERO).sample(two_by_three)
);
creation!(
    full = "full(int[] size, Tensor|Scalar fill_value, *, ScalarType? dtype=None) -> Tensor",
    [FUNCTION],
    |a| TensorMeta::contiguous(
        a.dtype.unwrap_or(fill_dtype(&a.fill_value)),
        &cr::sizes(a.size)?
    ),
    |a, m| filled(&m, a.fill_value)?,
    with.complex()
        .not_differentiable()
        .fill(|args| Args::read(args)
            .ok()
            .and_then(|a| fill_constant(a.fill_value)))
        .sample(|| pos_args(vec![Value::IntList(vec![2]), Value::Int(7)]))
);
creation!(
    zeros_like = "zeros_like(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    [FUNCTION],
    |a| like(a.self_, a.dtype),
    |a, m| Tensor::zeros(&m.shape, m.dtype),
    with.complex().not_differentiable().fill(|_| ZERO)
);
creation!(
    ones_like = "ones_like(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    [FUNCTION],
    |a| like(a.self_, a.dtype),
    |a, m| Tensor::ones(&m.shape, m.dtype),
    with.complex().not_differentiable().fill(|_| ONE)
);
creation!(
    empty_like = "empty_like(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    [FUNCTION],
    |a| like(a.self_, a.dtype),
    |a, m| Tensor::empty(&m.shape, m.dtype),
    with.complex().not_differentiable().fill(|_| ZERO)
);
creation!(
    full_like =
        "full_like(Tensor self, Tensor|Scalar fill_value, *, ScalarType? dtype=None) -> Tensor",
    [FUNCTION],
    |a| like(a.self_, a.dtype),
    |a, m| filled(&m, a.fill_value)?,
    with.complex()
        .not_differentiable()
        .fill(|args| Args::read(args)
            .ok()
            .and_then(|a| fill_constant(a.fill_value)))
        .sample(|| pos_args(vec![t(fx::x()), Value::Bool(true)]))
);
creation!(
    new_zeros = "new_zeros(Tensor self, int[] size, *, ScalarType? dtype=None) -> Tensor",
    [METHOD],
    |a| new_of(a.self_, a.size, a.dtype)?,
    |a, m| Tensor::zeros(&m.shape, m.dtype),
    with.complex()
        .not_differentiable()
        .fill(|_| ZERO)
        .sample(new_4_by_2)
);
creation!(
    new_ones = "new_ones(Tensor self, int[] size, *, ScalarType? dtype=None) -> Tensor",
    [METHOD],
    |a| new_of(a.self_, a.size, a.dtype)?,
    |a, m| Tensor::ones(&m.shape, m.dtype),
    with.complex()
        .not_differentiable()
        .fill(|_| ONE)
        .sample(new_4_by_2)
);
creation!(
    new_empty = "new_empty(Tensor self, int[] size, *, ScalarType? dtype=None) -> Tensor",
    [METHOD],
    |a| new_of(a.self_, a.size, a.dtype)?,
    |a, m| Tensor::empty(&m.shape, m.dtype),
    with.complex()
        .not_differentiable()
        .fill(|_| ZERO)
        .sample(new_4_by_2)
);
creation!(
    new_full = "new_full(Tensor self, int[] size, Tensor|Scalar fill_value, *, ScalarType? dtype=None) -> Tensor",
    [METHOD],
    |a| new_of(a.self_, a.size, a.dtype)?,
    |a, m| filled(&m, a.fill_value)?,
    with.complex()
        .not_differentiable()
        .fill(|args| Args::read(args)
            .ok()
            .and_then(|a| fill_constant(a.fill_value)))
        .sample(|| pos_args(vec![t(fx::x()), Value::IntList(vec![3]), Value::Float(1.5)]))
);
creation!(
    scalar_tensor = "scalar_tensor(Scalar s, *, ScalarType? dtype=None) -> Tensor",
    [FUNCTION],
    |a| TensorMeta::contiguous(a.dtype.unwrap_or(DEFAULT_FLOAT), &[]),
    |a, m| Tensor::from_scalar(a.s, m.dtype),
    with.fill(|args| Args::read(args).ok().map(|a| a.s))
        .sample(|| pos_args(vec![Value::Float(2.5)]))
);
creation!(
    arange = "arange(Scalar start, Scalar? end=None, Scalar step=1, *, ScalarType? dtype=None) -> Tensor",
    [FUNCTION],
    |a| cr::arange_meta(a.start, a.end, a.step, a.dtype)?,
    |a, m| cr::arange(a.start, a.end, a.step, Some(m.dtype))?,
    with.sample(|| pos_args(vec![Value::Int(1), Value::Float(2.0), Value::Float(0.25)]))
);
creation!(
    linspace = "linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None) -> Tensor",
    [FUNCTION],
    |a| cr::linspace_meta(a.steps, a.dtype)?,
    |a, m| cr::linspace(a.start, a.end, a.steps, Some(m.dtype))?,
    with.sample(|| pos_args(vec![Value::Int(0), Value::Int(1), Value::Int(5)]))
);
creation!(
    eye = "eye(int n, int? m=None, *, ScalarType? dtype=None) -> Tensor",
    [FUNCTION],
    |a| cr::eye_meta(a.n, a.m, a.dtype)?,
    |a, meta| cr::eye(a.n, a.m, Some(meta.dtype))?,
    with.sample(|| with_kw(vec![Value::Int(3)], "dtype", Value::DType(DType::Int32)))
);
creation!(rand = "rand(int[] size, *, ScalarType? dtype=None) -> Tensor", [FUNCTION RANDOM],
    |a| random::rand_meta(&cr::sizes(a.size)?, a.dtype, "check_uniform_bounds")?,
    |a, m| random::rand(&m.shape, Some(m.dtype), None)?,
    with .complex().sample(two_by_three));
creation!(randn = "randn(int[] size, *, ScalarType? dtype=None) -> Tensor", [FUNCTION RANDOM],
    |a| random::rand_meta(&cr::sizes(a.size)?, a.dtype, "normal_kernel_cpu")?,
    |a, m| random::randn(&m.shape, Some(m.dtype), None)?,
    with .complex().sample(two_by_three));
creation!(rand_like = "rand_like(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    [FUNCTION RANDOM],
    |a| {
        let m = like(a.self_, a.dtype);
        random::rand_meta(&m.shape, Some(m.dtype), "check_uniform_bounds")?;
        m
    },
    |a, m| random::rand(&m.shape, Some(m.dtype), None)?,
    with .not_differentiable());
creation!(randn_like = "randn_like(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    [FUNCTION RANDOM],
    |a| {
        let m = like(a.self_, a.dtype);
        random::rand_meta(&m.shape, Some(m.dtype), "normal_kernel_cpu")?;
        m
    },
    |a, m| random::randn(&m.shape, Some(m.dtype), None)?,
    with .not_differentiable());
creation!(randint = "randint(int high, int[] size, *, ScalarType? dtype=None) -> Tensor",
    [FUNCTION RANDOM],
    |a| random::randint_meta(0, a.high, &cr::sizes(a.size)?, a.dtype)?,
    |a, m| random::randint(0, a.high, &m.shape, Some(m.dtype), None)?,
    with .sample(|| pos_args(vec![Value::Int(10), Value::IntList(vec![4])])));
creation!(randint_low =
    "randint.low(int low, int high, int[] size, *, ScalarType? dtype=None) -> Tensor",
    [FUNCTION RANDOM],
    |a| random::randint_meta(a.low, a.high, &cr::sizes(a.size)?, a.dtype)?,
    |a, m| random::randint(a.low, a.high, &m.shape, Some(m.dtype), None)?,
    with .sample(|| pos_args(vec![Value::Int(-5), Value::Int(5), Value::IntList(vec![4])])));
creation!(randperm = "randperm(int n, *, ScalarType? dtype=None) -> Tensor", [FUNCTION RANDOM],
    |a| TensorMeta::contiguous(a.dtype.unwrap_or(DType::Int64), &[a.n.max(0) as usize]),
    |a, m| random::randperm(a.n, Some(m.dtype), None)?,
    with .sample(|| pos_args(vec![Value::Int(6)])));
