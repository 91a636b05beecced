//! Scans along one dim: `cumsum`, `cumprod`, `logcumsumexp`, and the running extrema with their
//! indices, `cummax`, `cummin`.
//!
//! The input is viewed as `[outer, n, inner]` around the scanned dim; each outer slab carries one
//! accumulator per inner position, so the inner loop runs over contiguous memory (vectorisable) and
//! slabs run in parallel.

use rayon::prelude::*;

use crate::iter::PAR_THRESHOLD;
use crate::layout::{Shaped, numel, wrap_dim};
use crate::{DType, Element, Error, Result, Tensor, TensorMeta, dispatch_all};

/// Which scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanOp {
    /// Running sum.
    Sum,
    /// Running product.
    Prod,
}

/// Which running extremum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExtremumOp {
    /// `cummax`.
    Max,
    /// `cummin`.
    Min,
}

/// Shape/dtype rule of `cumsum`/`cumprod(x, dim, dtype)`: integers and bool accumulate in int64.
pub fn scan_meta(x: &impl Shaped, dim: i64, dtype: Option<DType>) -> Result<TensorMeta> {
    wrap_dim(dim, x.ndim())?;
    let dt = dtype.unwrap_or(if x.dtype().is_integral(true) {
        DType::Int64
    } else {
        x.dtype()
    });
    Ok(TensorMeta::contiguous(dt, x.shape()))
}

/// `[outer, n, inner]` around dim `d` (a 0-d tensor is one element).
fn geometry(shape: &[usize], d: usize) -> (usize, usize, usize) {
    if shape.is_empty() {
        return (1, 1, 1);
    }
    (numel(&shape[..d]), shape[d], numel(&shape[d + 1..]))
}

/// `cumsum(x, dim)` / `cumprod(x, dim)`. Floats accumulate in f64, integers in i64 (wrapping),
/// complex values in `Complex<f64>` (`ops::complex::scan`).
pub fn scan(op: ScanOp, x: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    let meta = scan_meta(x, dim, dtype)?;
    let g = geometry(x.shape(), wrap_dim(dim, x.ndim())?);
    let src = x.to_dtype(meta.dtype).contiguous();
    let out = Tensor::empty(&meta.shape, meta.dtype);
    if meta.shape.contains(&0) {
        return Ok(out);
    }
    if meta.dtype.is_complex() {
        return crate::ops::complex::scan(op, &src, g, meta.dtype);
    }
    match (meta.dtype.is_floating_point(), op) {
        (true, ScanOp::Sum) => dispatch_all!(meta.dtype, T => scan_typed::<T, f64>(
            &src, &out, g, 0.0, |a, v| a + v, |v| v.to_f64(), T::from_f64)),
        (true, ScanOp::Prod) => dispatch_all!(meta.dtype, T => scan_typed::<T, f64>(
            &src, &out, g, 1.0, |a, v| a * v, |v| v.to_f64(), T::from_f64)),
        (false, ScanOp::Sum) => dispatch_all!(meta.dtype, T => scan_typed::<T, i64>(
            &src, &out, g, 0, i64::wrapping_add, |v| v.to_i64(), T::from_i64)),
        (false, ScanOp::Prod) => dispatch_all!(meta.dtype, T => scan_typed::<T, i64>(
            &src, &out, g, 1, i64::wrapping_mul, |v| v.to_i64(), T::from_i64)),
    }
    Ok(out)
}

/// Shape/dtype rule of `logcumsumexp(x, dim)`: floating dtypes only (ATen's CPU kernel has no
/// integer variant), the dim checked first.
pub fn logcumsumexp_meta(x: &impl Shaped, dim: i64) -> Result<TensorMeta> {
    wrap_dim(dim, x.ndim())?;
    if !x.dtype().is_floating_point() {
        return Err(Error::NotImplementedFor {
            op: "logcumsumexp_out_cpu",
            dtype: x.dtype().aten_name(),
        });
    }
    Ok(TensorMeta::contiguous(x.dtype(), x.shape()))
}

/// `logcumsumexp(x, dim)`: `log(sum(exp(x[..=i])))` by a running `log(exp(a) + exp(b))` in f64
/// that factors out the larger operand, so no partial sum overflows.
pub fn logcumsumexp(x: &Tensor, dim: i64) -> Result<Tensor> {
    let meta = logcumsumexp_meta(x, dim)?;
    let g = geometry(x.shape(), wrap_dim(dim, x.ndim())?);
    let src = x.contiguous();
    let out = Tensor::empty(&meta.shape, meta.dtype);
    if x.numel() > 0 {
        dispatch_all!(meta.dtype, T => scan_typed::<T, f64>(
            &src, &out, g, f64::NEG_INFINITY, log_add_exp, |v| v.to_f64(), T::from_f64));
    }
    Ok(out)
}

/// `log(exp(acc) + exp(x))` as ATen's `_log_add_exp_helper`: `max + log1p(exp(min - max))`, except
/// that two equal infinities give that infinity (the formula would give NaN from `inf - inf`), and
/// a NaN on either side gives NaN.
#[inline(always)]
fn log_add_exp(acc: f64, x: f64) -> f64 {
    if acc.is_nan() || x.is_nan() {
        return f64::NAN;
    }
    let (lo, hi) = if x < acc { (x, acc) } else { (acc, x) };
    if lo == hi && lo.is_infinite() {
        return x;
    }
    (lo - hi).exp().ln_1p() + hi
}

/// Splits `[outer, n, inner]` data into per-slab calls, in parallel above [`PAR_THRESHOLD`].
macro_rules! for_each_slab {
    ($total:expr, $slab:expr, $outer:expr, $run:expr, $first:expr $(, $rest:expr)*) => {
        if $total >= PAR_THRESHOLD && $outer > 1 {
            $first.par_chunks($slab)$(.zip($rest.par_chunks_mut($slab)))*
                .with_min_len((PAR_THRESHOLD / $slab).max(1))
                .for_each($run);
        } else {
            $first.chunks($slab)$(.zip($rest.chunks_mut($slab)))*.for_each($run);
        }
    };
}

/// One accumulator per inner position: `acc = step(acc, to(x))`, written out through `from`.
fn scan_typed<T: Element, A: Copy + Send + Sync>(
    src: &Tensor,
    out: &Tensor,
    (outer, n, inner): (usize, usize, usize),
    init: A,
    step: impl Fn(A, A) -> A + Sync,
    to: impl Fn(T) -> A + Sync,
    from: impl Fn(A) -> T + Sync,
) {
    let total = outer * n * inner;
    // SAFETY: both are contiguous tensors of `total` elements of T; `out` is fresh, so the
    // mutable slice aliases nothing.
    let (xs, os) = unsafe {
        (
            std::slice::from_raw_parts(src.data_ptr::<T>(), total),
            std::slice::from_raw_parts_mut(out.data_ptr::<T>(), total),
        )
    };
    let run = |(x, o): (&[T], &mut [T])| {
        let mut acc = vec![init; inner];
        for (xr, or) in x.chunks_exact(inner).zip(o.chunks_exact_mut(inner)) {
            for ((a, &v), o) in acc.iter_mut().zip(xr).zip(or) {
                *a = step(*a, to(v));
                *o = from(*a);
            }
        }
    };
    for_each_slab!(total, n * inner, outer, run, xs, os);
}

/// Shape/dtype rule of `cummax`/`cummin(x, dim)`: values in the input dtype, int64 indices. As
/// ATen, `dim` is checked only when `x` has dims and elements (a 0-d or empty input takes any).
pub fn cum_extremum_meta(x: &impl Shaped, dim: i64) -> Result<(TensorMeta, TensorMeta)> {
    if x.ndim() > 0 && numel(x.shape()) > 0 {
        wrap_dim(dim, x.ndim())?;
    }
    Ok((
        TensorMeta::contiguous(x.dtype(), x.shape()),
        TensorMeta::contiguous(DType::Int64, x.shape()),
    ))
}

/// `cummax(x, dim)` / `cummin(x, dim)`: the running extremum and the index where it was taken.
/// As ATen, an element replaces the running value when it is NaN, or when the running value is
/// not NaN and the element compares `>=` (max) / `<=` (min): ties take the later index, and a NaN
/// sticks, each later NaN taking over the index.
pub fn cum_extremum(op: ExtremumOp, x: &Tensor, dim: i64) -> Result<(Tensor, Tensor)> {
    let (vm, im) = cum_extremum_meta(x, dim)?;
    let values = Tensor::empty(&vm.shape, vm.dtype);
    let indices = Tensor::empty(&im.shape, im.dtype);
    if x.numel() == 0 {
        return Ok((values, indices));
    }
    let d = if x.ndim() == 0 {
        0
    } else {
        wrap_dim(dim, x.ndim())?
    };
    let g = geometry(x.shape(), d);
    let src = x.contiguous();
    match op {
        ExtremumOp::Max => {
            dispatch_all!(vm.dtype, T => extremum_typed::<T, true>(&src, &values, &indices, g))
        }
        ExtremumOp::Min => {
            dispatch_all!(vm.dtype, T => extremum_typed::<T, false>(&src, &values, &indices, g))
        }
    }
    Ok((values, indices))
}

fn extremum_typed<T: Element, const MAX: bool>(
    src: &Tensor,
    values: &Tensor,
    indices: &Tensor,
    (outer, n, inner): (usize, usize, usize),
) {
    let total = outer * n * inner;
    // SAFETY: all three are contiguous tensors of `total` elements (T, T, i64); the outputs are
    // fresh, so the mutable slices alias nothing.
    let (xs, vs, is) = unsafe {
        (
            std::slice::from_raw_parts(src.data_ptr::<T>(), total),
            std::slice::from_raw_parts_mut(values.data_ptr::<T>(), total),
            std::slice::from_raw_parts_mut(indices.data_ptr::<i64>(), total),
        )
    };
    #[expect(
        clippy::eq_op,
        reason = "`v != v` is the NaN test for every element type"
    )]
    let run = |((x, v), ix): ((&[T], &mut [T]), &mut [i64])| {
        // Row 0 starts every running extremum (a NaN there sticks like any later one).
        let mut acc = x[..inner].to_vec();
        let mut at = vec![0i64; inner];
        let rows = x.chunks_exact(inner).zip(v.chunks_exact_mut(inner));
        for (i, ((xr, vr), ir)) in rows.zip(ix.chunks_exact_mut(inner)).enumerate() {
            for j in 0..inner {
                let (c, a) = (xr[j], acc[j]);
                let better = if MAX { c >= a } else { c <= a };
                if c != c || (a == a && better) {
                    acc[j] = c;
                    at[j] = i as i64;
                }
                vr[j] = acc[j];
                ir[j] = at[j];
            }
        }
    };
    for_each_slab!(total, n * inner, outer, run, xs, vs, is);
}
