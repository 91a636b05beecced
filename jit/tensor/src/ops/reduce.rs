//! Reductions over any set of dims, with keepdim.
//!
//! The reduced dims are permuted innermost (a copy only when that is not already contiguous), so
//! every output element reduces one contiguous row. Rows run in parallel above
//! [`crate::iter::PAR_THRESHOLD`] elements. Float sums accumulate in f64 over 8 independent lanes
//! (vectorisable), with pairwise splitting for long f64 rows: at least as accurate as NumPy's
//! pairwise f32 sum.

use rayon::prelude::*;

use crate::error::bail;
use crate::iter::PAR_THRESHOLD;
use crate::kernels::math::max_nan;
use crate::kernels::simd::with_wide;
use crate::layout::{Shaped, numel, wrap_dim, wrap_dims};
use crate::views::{dims_to_end, permute};
use crate::{DEFAULT_FLOAT, DType, Element, Error, Result, Tensor, TensorMeta, dispatch_all};

/// A reduction.
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(
    missing_docs,
    reason = "each variant is the PyTorch op of the same name"
)]
pub enum ReduceOp {
    Sum,
    Mean,
    Prod,
    Amax,
    Amin,
    All,
    Any,
    /// Variance with `correction` (1 = unbiased).
    Var {
        correction: f64,
    },
    /// Standard deviation with `correction`.
    Std {
        correction: f64,
    },
    LogSumExp,
    Argmax,
    Argmin,
    /// Vector p-norm (`p = inf` is the max magnitude, `p = 0` the non-zero count).
    Norm {
        p: f64,
    },
    /// Number of non-zero elements (int64).
    CountNonzero,
}

impl ReduceOp {
    /// PyTorch's name of the op.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Mean => "mean",
            ReduceOp::Prod => "prod",
            ReduceOp::Amax => "amax",
            ReduceOp::Amin => "amin",
            ReduceOp::All => "all",
            ReduceOp::Any => "any",
            ReduceOp::Var { .. } => "var",
            ReduceOp::Std { .. } => "std",
            ReduceOp::LogSumExp => "logsumexp",
            ReduceOp::Argmax => "argmax",
            ReduceOp::Argmin => "argmin",
            ReduceOp::Norm { .. } => "norm",
            ReduceOp::CountNonzero => "count_nonzero",
        }
    }

    /// Output dtype for input `x` and an optional requested `dtype`.
    pub fn out_dtype(self, x: DType, dtype: Option<DType>) -> Result<DType> {
        let x = dtype.unwrap_or(x);
        match self {
            ReduceOp::Sum | ReduceOp::Prod if dtype.is_none() && x.is_integral(true) => {
                Ok(DType::Int64)
            }
            ReduceOp::Sum | ReduceOp::Prod | ReduceOp::Amax | ReduceOp::Amin => Ok(x),
            ReduceOp::Mean if x.is_floating_point() => Ok(x),
            ReduceOp::Mean => Err(Error::NotImplemented(format!(
                "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {}",
                x.aten_name()
            ))),
            ReduceOp::Var { .. } | ReduceOp::Std { .. } if x.is_floating_point() => Ok(x),
            ReduceOp::Var { .. } | ReduceOp::Std { .. } => Err(Error::Runtime(
                "std and var only support floating point and complex dtypes".into(),
            )),
            ReduceOp::LogSumExp if x.is_floating_point() => Ok(x),
            ReduceOp::LogSumExp => Ok(DEFAULT_FLOAT),
            // uint8 keeps its dtype (a PyTorch legacy that NumPy does not share).
            ReduceOp::All | ReduceOp::Any if x == DType::UInt8 => Ok(DType::UInt8),
            ReduceOp::All | ReduceOp::Any => Ok(DType::Bool),
            ReduceOp::Argmax | ReduceOp::Argmin | ReduceOp::CountNonzero => Ok(DType::Int64),
            ReduceOp::Norm { .. } if x.is_floating_point() => Ok(x),
            ReduceOp::Norm { .. } => Err(Error::Runtime(format!(
                "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}",
                x.aten_name()
            ))),
        }
    }

    fn needs_nonempty(self) -> bool {
        matches!(
            self,
            ReduceOp::Amax | ReduceOp::Amin | ReduceOp::Argmax | ReduceOp::Argmin
        )
    }
}

/// The dims a reduction covers: all when `dims` is `None` or empty (PyTorch's `dim=[]`).
pub fn reduce_dims(ndim: usize, dims: Option<&[i64]>) -> Result<Vec<usize>> {
    match dims {
        None | Some([]) => Ok((0..ndim).collect()),
        // A zero-dim tensor accepts dim 0 / -1 but has no dim to reduce.
        Some(ds) if ndim == 0 => wrap_dims(ds, 0).map(|_| Vec::new()),
        Some(ds) => Ok(wrap_dims(ds, ndim)?.to_vec()),
    }
}

/// The output shape of reducing `dims`.
pub fn reduced_shape(shape: &[usize], dims: &[usize], keepdim: bool) -> Vec<usize> {
    (0..shape.len())
        .filter_map(|d| match (dims.contains(&d), keepdim) {
            (false, _) => Some(shape[d]),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect()
}

/// The result dtype of `sum`/`mean` where the input or the requested `dtype` is complex: the
/// requested one (a complex input into a real `dtype` is PyTorch's error).
fn complex_out(x: DType, dtype: Option<DType>) -> Result<DType> {
    match dtype {
        Some(d) if x.is_complex() && !d.is_complex() => Err(Error::Runtime(format!(
            "Expected the dtype for input and out to match, but got {} for input's dtype and {} for out's dtype.",
            x.aten_name(),
            d.aten_name()
        ))),
        Some(d) => Ok(d),
        None => Ok(x),
    }
}

/// Shape/dtype rule of a reduction.
pub fn reduce_meta(
    op: ReduceOp,
    x: &impl Shaped,
    dims: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<TensorMeta> {
    let ds = reduce_dims(x.ndim(), dims)?;
    if op.needs_nonempty() {
        for &d in &ds {
            if x.shape()[d] == 0 {
                bail!(
                    Index,
                    "{}(): Expected reduction dim {d} to have non-zero size.",
                    op.name()
                );
            }
        }
        if x.numel() == 0 && ds.is_empty() {
            bail!(
                Runtime,
                "{}(): Expected reduction dim to be specified for input.numel() == 0.",
                op.name()
            );
        }
    }
    if let ReduceOp::Norm { p } = op
        && p.is_infinite()
        && (ds.iter().any(|&d| x.shape()[d] == 0) || (ds.is_empty() && x.numel() == 0))
    {
        bail!(
            Runtime,
            "linalg.vector_norm cannot compute the {} norm on an empty tensor because the operation does not have an identity",
            if p > 0.0 { "inf" } else { "-inf" }
        );
    }
    let dt = if x.dtype().is_complex() || dtype.is_some_and(DType::is_complex) {
        if let Some(e) = super::complex::reduce_refusal(op, x.dtype()) {
            return Err(e);
        }
        complex_out(x.dtype(), dtype)?
    } else {
        op.out_dtype(x.dtype(), dtype)?
    };
    Ok(TensorMeta::contiguous(
        dt,
        &reduced_shape(x.shape(), &ds, keepdim),
    ))
}

/// Applies `f` to each row of `x` with `dims` innermost; returns one result per output element.
pub fn rows<T: Element, R: Send>(
    x: &Tensor,
    dims: &[usize],
    f: impl Fn(&[T]) -> R + Sync,
) -> Vec<R> {
    let perm = dims_to_end(x.ndim(), dims);
    let xp = x.with_layout(permute(x, &perm).expect("invariant: a permutation of x's dims"));
    let xc = xp.contiguous();
    let n_red: usize = dims.iter().map(|&d| x.shape()[d]).product();
    let n_out = numel(&reduced_shape(x.shape(), dims, false));
    if n_red == 0 {
        return (0..n_out).map(|_| f(&[])).collect();
    }
    // SAFETY: `xc` is contiguous with n_out * n_red elements of type T, only read here.
    let data = unsafe { std::slice::from_raw_parts(xc.data_ptr::<T>(), n_out * n_red) };
    let f = |r: &[T]| {
        with_wide(
            #[inline(always)]
            || f(r),
        )
    };
    if n_out * n_red >= PAR_THRESHOLD && n_out > 1 {
        data.par_chunks(n_red)
            .with_min_len(PAR_THRESHOLD / n_red + 1)
            .map(f)
            .collect()
    } else {
        data.chunks(n_red).map(f).collect()
    }
}

/// Sum of a row in f64 over 8 lanes (the compiler vectorises independent lanes).
///
/// `#[inline(always)]` (and the split below kept out of line) so that the block loop is
/// compiled into the caller's [`with_wide`] function rather than as a baseline (SSE2) copy.
#[inline(always)]
pub fn sum_f64<T: Element>(xs: &[T]) -> f64 {
    if xs.len() > SUM_BLOCK {
        return sum_split(xs);
    }
    sum_block(xs)
}

/// Longest run [`sum_f64`] sums in one block.
const SUM_BLOCK: usize = 4096;

/// Long rows: blocks of [`SUM_BLOCK`] summed pairwise, which bounds the error growth.
fn sum_split<T: Element>(xs: &[T]) -> f64 {
    let mid = (xs.len() / 2) & !7;
    let half = |h: &[T]| {
        if h.len() > SUM_BLOCK {
            sum_split(h)
        } else {
            with_wide(
                #[inline(always)]
                || sum_block(h),
            )
        }
    };
    half(&xs[..mid]) + half(&xs[mid..])
}

#[inline(always)]
fn sum_block<T: Element>(xs: &[T]) -> f64 {
    let mut acc = [0f64; 8];
    let chunks = xs.chunks_exact(8);
    let tail = chunks.remainder();
    for c in chunks {
        for k in 0..8 {
            acc[k] += c[k].to_f64();
        }
    }
    let mut s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for v in tail {
        s += v.to_f64();
    }
    s
}

/// Max (or min) of a non-empty row, NaN if any element is NaN. Eight independent lanes with
/// branch-free selects, and NaN tracked separately, so the loop vectorises.
#[inline(always)]
fn extreme<T: Element>(xs: &[T], max: bool) -> T {
    let mut acc = [xs[0]; 8];
    let mut nan = false;
    let chunks = xs.chunks_exact(8);
    let tail = chunks.remainder();
    let pick = |a: T, v: T| if (v > a) == max && v != a { v } else { a };
    for c in chunks {
        for k in 0..8 {
            nan |= c[k].partial_cmp(&c[k]).is_none();
            acc[k] = pick(acc[k], c[k]);
        }
    }
    let mut best = acc[0];
    for &v in acc[1..].iter().chain(tail) {
        nan |= v.partial_cmp(&v).is_none();
        best = pick(best, v);
    }
    if nan {
        // The first NaN, as PyTorch returns (any NaN payload would do).
        *xs.iter()
            .find(|v| v.partial_cmp(v).is_none())
            .expect("invariant: a NaN was seen")
    } else {
        best
    }
}

fn moments<T: Element>(xs: &[T], correction: f64) -> f64 {
    let n = xs.len() as f64;
    let mean = sum_f64(xs) / n;
    let ss: f64 = xs.iter().map(|v| (v.to_f64() - mean).powi(2)).sum();
    ss / (n - correction).max(0.0)
}

fn arg_best<T: Element>(xs: &[T], max: bool) -> i64 {
    let mut best = 0usize;
    for (i, &v) in xs.iter().enumerate().skip(1) {
        let b = xs[best];
        if b.partial_cmp(&b).is_none() {
            break; // NaN wins and stays.
        }
        let better = v.partial_cmp(&v).is_none() || if max { v > b } else { v < b };
        if better {
            best = i;
        }
    }
    best as i64
}

/// The p-norm of a row, in f64.
fn vector_norm<T: Element>(xs: &[T], p: f64) -> f64 {
    let abs = xs.iter().map(|v| v.to_f64().abs());
    if p == 2.0 {
        abs.map(|a| a * a).sum::<f64>().sqrt()
    } else if p == 1.0 {
        abs.sum()
    } else if p == f64::INFINITY {
        abs.fold(
            f64::NEG_INFINITY,
            |m, a| if (a > m) | a.is_nan() { a } else { m },
        )
    } else if p == f64::NEG_INFINITY {
        abs.fold(
            f64::INFINITY,
            |m, a| if (a < m) | a.is_nan() { a } else { m },
        )
    } else if p == 0.0 {
        abs.map(|a| if a != 0.0 { 1.0 } else { 0.0 }).sum()
    } else {
        abs.map(|a| a.powf(p)).sum::<f64>().powf(1.0 / p)
    }
}

fn finish(vals: Vec<f64>, meta: &TensorMeta) -> Tensor {
    Tensor::from_vec(vals, &meta.shape)
        .expect("invariant: one value per output element")
        .to_dtype(meta.dtype)
}

/// A reduction over `dims` (all when `None`).
pub fn reduce(
    op: ReduceOp,
    x: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let meta = reduce_meta(op, x, dims, keepdim, dtype)?;
    if meta.dtype.is_complex() {
        return super::complex::reduce(op, x, dims, keepdim, meta.dtype);
    }
    let ds = reduce_dims(x.ndim(), dims)?;
    let src = match dtype {
        Some(d) => x.to_dtype(d),
        None => x.clone(),
    };
    let int_sum = matches!(op, ReduceOp::Sum | ReduceOp::Prod) && meta.dtype.is_integral(true);
    if int_sum {
        let vals: Vec<i64> = dispatch_all!(src.dtype(), T => rows::<T, i64>(&src, &ds, |r| {
            if op == ReduceOp::Sum {
                r.iter().fold(0i64, |a, v| a.wrapping_add(v.to_i64()))
            } else {
                r.iter().fold(1i64, |a, v| a.wrapping_mul(v.to_i64()))
            }
        }));
        return Ok(Tensor::from_vec(vals, &meta.shape)?.to_dtype(meta.dtype));
    }
    if let Some(t) = super::reduce_fast::try_reduce(op, &src, &ds, &meta) {
        return Ok(t);
    }
    let out = dispatch_all!(src.dtype(), T => {
        match op {
            ReduceOp::Argmax | ReduceOp::Argmin => {
                let v = rows::<T, i64>(&src, &ds, |r| arg_best(r, op == ReduceOp::Argmax));
                Tensor::from_vec(v, &meta.shape)?
            }
            ReduceOp::CountNonzero => {
                let v = rows::<T, i64>(&src, &ds, |r| r.iter().filter(|v| v.to_bool()).count() as i64);
                Tensor::from_vec(v, &meta.shape)?
            }
            ReduceOp::All | ReduceOp::Any => {
                let v = rows::<T, bool>(&src, &ds, |r| {
                    if op == ReduceOp::All { r.iter().all(|v| v.to_bool()) } else { r.iter().any(|v| v.to_bool()) }
                });
                Tensor::from_vec(v, &meta.shape)?.to_dtype(meta.dtype)
            }
            ReduceOp::Amax | ReduceOp::Amin => {
                // Kept in T: exact for every dtype, including int64 beyond 2^53.
                let max = op == ReduceOp::Amax;
                let v = rows::<T, T>(&src, &ds, #[inline(always)] |r| extreme(r, max));
                Tensor::from_vec(v, &meta.shape)?.to_dtype(meta.dtype)
            }
            // Sum and mean get kernels of their own, inlined into `rows`' wide loop.
            ReduceOp::Sum => finish(rows::<T, f64>(&src, &ds, sum_f64::<T>), &meta),
            ReduceOp::Mean => {
                let v = rows::<T, f64>(&src, &ds, #[inline(always)] |r| sum_f64(r) / r.len() as f64);
                finish(v, &meta)
            }
            _ => {
                let v = rows::<T, f64>(&src, &ds, |r| match op {
                    ReduceOp::Sum | ReduceOp::Mean => unreachable!("invariant: handled above"),
                    ReduceOp::Prod => r.iter().fold(1.0, |a, v| a * v.to_f64()),
                    ReduceOp::Var { correction } => moments(r, correction),
                    ReduceOp::Std { correction } => moments(r, correction).sqrt(),
                    ReduceOp::Norm { p } => vector_norm(r, p),
                    ReduceOp::LogSumExp => {
                        // NaN propagates (ATen's amax), so an all-NaN row gives NaN, not -inf.
                        let m = r.iter().fold(f64::NEG_INFINITY, |a, v| max_nan(a, v.to_f64()));
                        if m.is_infinite() {
                            m
                        } else {
                            m + r.iter().map(|v| (v.to_f64() - m).exp()).sum::<f64>().ln()
                        }
                    }
                    _ => unreachable!("invariant: handled above"),
                });
                finish(v, &meta)
            }
        }
    });
    Ok(out)
}

/// Shape/dtype rule of `max(dim)` / `min(dim)`: (values, int64 indices).
pub fn minmax_dim_meta(
    x: &impl Shaped,
    dim: i64,
    keepdim: bool,
) -> Result<(TensorMeta, TensorMeta)> {
    let d = wrap_dim(dim, x.ndim())?;
    let v = reduce_meta(ReduceOp::Amax, x, Some(&[d as i64]), keepdim, None)?;
    let i = TensorMeta::contiguous(DType::Int64, &v.shape);
    Ok((v, i))
}

/// `max(dim)` (`is_max`) or `min(dim)`: values and the index of the first extreme (NaN counts as
/// the extreme).
pub fn minmax_dim(x: &Tensor, dim: i64, keepdim: bool, is_max: bool) -> Result<(Tensor, Tensor)> {
    let (vm, im) = minmax_dim_meta(x, dim, keepdim)?;
    let d = wrap_dim(dim, x.ndim())?;
    let ds = if x.ndim() == 0 { vec![] } else { vec![d] };
    let (vals, idx) = dispatch_all!(x.dtype(), T => {
        let r = rows::<T, (T, i64)>(x, &ds, |r| {
            let i = arg_best(r, is_max);
            (r[i as usize], i)
        });
        let (v, i): (Vec<T>, Vec<i64>) = r.into_iter().unzip();
        (Tensor::from_vec(v, &vm.shape)?, Tensor::from_vec(i, &im.shape)?)
    });
    Ok((vals, idx))
}

/// Shape rule for the dim-less `max()`/`min()`: a zero-dim tensor; empty input is an error.
pub fn minmax_all_meta(x: &impl Shaped, name: &str) -> Result<TensorMeta> {
    if x.numel() == 0 {
        bail!(
            Runtime,
            "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
        );
    }
    Ok(TensorMeta::contiguous(x.dtype(), &[]))
}
