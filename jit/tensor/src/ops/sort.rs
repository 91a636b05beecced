//! Ordering ops along one dim: `sort`, `argsort`, `topk`. NaN orders above every number (last when
//! ascending, first when descending), as PyTorch.

use std::cmp::Ordering;

use rayon::prelude::*;

use crate::error::bail;
use crate::iter::PAR_THRESHOLD;
use crate::layout::{Shaped, wrap_dim};
use crate::views::{dims_to_end, permute};
use crate::{DType, Element, Result, Tensor, TensorMeta, dispatch_all};

/// Total order with NaN greatest (all NaNs equal).
#[inline]
fn cmp_nan_last<T: Element>(a: &T, b: &T) -> Ordering {
    match a.partial_cmp(b) {
        Some(o) => o,
        None => {
            let (an, bn) = (a.partial_cmp(a).is_none(), b.partial_cmp(b).is_none());
            an.cmp(&bn)
        }
    }
}

/// Shape/dtype rule of `sort`: (values, int64 indices), both of `x`'s shape.
pub fn sort_meta(x: &impl Shaped, dim: i64) -> Result<(TensorMeta, TensorMeta)> {
    wrap_dim(dim, x.ndim())?;
    Ok((
        TensorMeta::contiguous(x.dtype(), x.shape()),
        TensorMeta::contiguous(DType::Int64, x.shape()),
    ))
}

/// Shape/dtype rule of `topk(x, k, dim)`.
pub fn topk_meta(x: &impl Shaped, k: i64, dim: i64) -> Result<(TensorMeta, TensorMeta)> {
    let d = wrap_dim(dim, x.ndim())?;
    let size = if x.ndim() == 0 { 1 } else { x.shape()[d] };
    if k < 0 || k as usize > size {
        bail!(Runtime, "selected index k out of range");
    }
    let mut shape = x.shape().to_vec();
    if x.ndim() > 0 {
        shape[d] = k as usize;
    }
    Ok((
        TensorMeta::contiguous(x.dtype(), &shape),
        TensorMeta::contiguous(DType::Int64, &shape),
    ))
}

/// Runs `f(row, out_values, out_indices)` for every row of `x` along `dim` (`k` outputs per row) and
/// returns the results laid out with `dim` back in place.
fn by_rows<T: Element>(
    x: &Tensor,
    dim: usize,
    k: usize,
    f: impl Fn(&[T], &mut [T], &mut [i64]) + Sync,
) -> Result<(Tensor, Tensor)> {
    let nd = x.ndim().max(1);
    let x1 = if x.ndim() == 0 {
        x.reshape(&[1])?
    } else {
        x.clone()
    };
    let perm = dims_to_end(nd, &[dim]);
    let xp = x1.with_layout(permute(&x1, &perm)?).contiguous();
    let n = x1.shape()[dim];
    let rows = xp.numel().checked_div(n).unwrap_or(0);
    let mut pshape = xp.shape().to_vec();
    pshape[nd - 1] = k;
    let vals = Tensor::empty(&pshape, x.dtype());
    let idx = Tensor::empty(&pshape, DType::Int64);
    if rows > 0 && k > 0 {
        // SAFETY: `xp` is contiguous with rows * n elements; `vals`/`idx` are fresh contiguous
        // tensors with rows * k elements each.
        let (src, dv, di) = unsafe {
            (
                std::slice::from_raw_parts(xp.data_ptr::<T>(), rows * n),
                std::slice::from_raw_parts_mut(vals.data_ptr::<T>(), rows * k),
                std::slice::from_raw_parts_mut(idx.data_ptr::<i64>(), rows * k),
            )
        };
        if rows * n >= PAR_THRESHOLD && rows > 1 {
            src.par_chunks(n)
                .zip(dv.par_chunks_mut(k))
                .zip(di.par_chunks_mut(k))
                .for_each(|((r, v), i)| f(r, v, i));
        } else {
            src.chunks(n)
                .zip(dv.chunks_mut(k))
                .zip(di.chunks_mut(k))
                .for_each(|((r, v), i)| f(r, v, i));
        }
    }
    let mut inv = vec![0i64; nd];
    for (i, &p) in perm.iter().enumerate() {
        inv[p as usize] = i as i64;
    }
    let back = |t: &Tensor| -> Result<Tensor> {
        let v = t.permute(&inv)?.contiguous();
        if x.ndim() == 0 { v.reshape(&[]) } else { Ok(v) }
    };
    Ok((back(&vals)?, back(&idx)?))
}

/// The permutation that sorts `row` (stable; NaN last, or first when `descending`).
fn order<T: Element>(row: &[T], descending: bool) -> Vec<usize> {
    let mut ix: Vec<usize> = (0..row.len()).collect();
    if descending {
        ix.sort_by(|&a, &b| cmp_nan_last(&row[b], &row[a]));
    } else {
        ix.sort_by(|&a, &b| cmp_nan_last(&row[a], &row[b]));
    }
    ix
}

/// `sort(x, dim, descending)`: (values, indices). Always stable.
pub fn sort(x: &Tensor, dim: i64, descending: bool) -> Result<(Tensor, Tensor)> {
    sort_meta(x, dim)?;
    let d = wrap_dim(dim, x.ndim())?;
    let n = if x.ndim() == 0 { 1 } else { x.shape()[d] };
    dispatch_all!(x.dtype(), T => by_rows::<T>(x, d, n, |r, v, i| {
        for (k, j) in order(r, descending).into_iter().enumerate() {
            v[k] = r[j];
            i[k] = j as i64;
        }
    }))
}

/// `argsort(x, dim, descending)`.
pub fn argsort(x: &Tensor, dim: i64, descending: bool) -> Result<Tensor> {
    Ok(sort(x, dim, descending)?.1)
}

/// `topk(x, k, dim, largest, sorted)`: the `k` largest (or smallest) along `dim`. The result is
/// always sorted (allowed when `sorted=False`, which leaves the order unspecified).
pub fn topk(x: &Tensor, k: i64, dim: i64, largest: bool) -> Result<(Tensor, Tensor)> {
    topk_meta(x, k, dim)?;
    let d = wrap_dim(dim, x.ndim())?;
    let k = k as usize;
    dispatch_all!(x.dtype(), T => by_rows::<T>(x, d, k, |r, v, i| {
        let mut ix: Vec<usize> = (0..r.len()).collect();
        let cmp = |a: &usize, b: &usize| {
            if largest {
                cmp_nan_last(&r[*b], &r[*a])
            } else {
                cmp_nan_last(&r[*a], &r[*b])
            }
        };
        // Partial selection first: O(n) to find the k best, then sort only those.
        if k < r.len() {
            ix.select_nth_unstable_by(k, cmp);
            ix.truncate(k);
        }
        ix.sort_by(|a, b| cmp(a, b).then(a.cmp(b)));
        for (s, j) in ix.into_iter().enumerate() {
            v[s] = r[j];
            i[s] = j as i64;
        }
    }))
}
