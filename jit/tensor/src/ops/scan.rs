//! Scans along one dim: `cumsum`, `cumprod`.
//!
//! The input is viewed as `[outer, n, inner]` around the scanned dim; each outer slab carries one
//! accumulator per inner position, so the inner loop runs over contiguous memory (vectorisable) and
//! slabs run in parallel.

use rayon::prelude::*;

use crate::iter::PAR_THRESHOLD;
use crate::layout::{Shaped, numel, wrap_dim};
use crate::{DType, Element, Result, Tensor, TensorMeta, dispatch_all};

/// Which scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanOp {
    /// Running sum.
    Sum,
    /// Running product.
    Prod,
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

/// `cumsum(x, dim)` / `cumprod(x, dim)`. Floats accumulate in f64, integers in i64 (wrapping).
pub fn scan(op: ScanOp, x: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    let meta = scan_meta(x, dim, dtype)?;
    let d = wrap_dim(dim, x.ndim())?;
    let (outer, n, inner) = if x.ndim() == 0 {
        (1, 1, 1)
    } else {
        (
            numel(&x.shape()[..d]),
            x.shape()[d],
            numel(&x.shape()[d + 1..]),
        )
    };
    let src = x.to_dtype(meta.dtype).contiguous();
    let out = Tensor::empty(&meta.shape, meta.dtype);
    if meta.shape.contains(&0) {
        return Ok(out);
    }
    if meta.dtype.is_floating_point() {
        dispatch_all!(meta.dtype, T => scan_typed::<T, f64>(op, &src, &out, outer, n, inner,
            |v| v.to_f64(), T::from_f64))
    } else {
        dispatch_all!(meta.dtype, T => scan_typed::<T, i64>(op, &src, &out, outer, n, inner,
            |v| v.to_i64(), T::from_i64))
    }
    Ok(out)
}

/// An accumulator type: f64 for floats, i64 (wrapping) for integers.
trait Acc: Copy + Send + Sync {
    fn zero() -> Self;
    fn one() -> Self;
    fn add(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
}

impl Acc for f64 {
    fn zero() -> Self {
        0.0
    }
    fn one() -> Self {
        1.0
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        self + o
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        self * o
    }
}

impl Acc for i64 {
    fn zero() -> Self {
        0
    }
    fn one() -> Self {
        1
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        self.wrapping_add(o)
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        self.wrapping_mul(o)
    }
}

#[allow(
    clippy::too_many_arguments,
    reason = "a kernel over one explicit geometry"
)]
fn scan_typed<T: Element, A: Acc>(
    op: ScanOp,
    src: &Tensor,
    out: &Tensor,
    outer: usize,
    n: usize,
    inner: usize,
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
    let slab = n * inner;
    let run = |(x, o): (&[T], &mut [T])| {
        let mut acc = vec![
            if op == ScanOp::Sum {
                A::zero()
            } else {
                A::one()
            };
            inner
        ];
        for (xr, or) in x.chunks_exact(inner).zip(o.chunks_exact_mut(inner)) {
            for ((a, &v), o) in acc.iter_mut().zip(xr).zip(or) {
                *a = if op == ScanOp::Sum {
                    a.add(to(v))
                } else {
                    a.mul(to(v))
                };
                *o = from(*a);
            }
        }
    };
    if total >= PAR_THRESHOLD && outer > 1 {
        xs.par_chunks(slab)
            .zip(os.par_chunks_mut(slab))
            .with_min_len((PAR_THRESHOLD / slab).max(1))
            .for_each(run);
    } else {
        xs.chunks(slab).zip(os.chunks_mut(slab)).for_each(run);
    }
}
