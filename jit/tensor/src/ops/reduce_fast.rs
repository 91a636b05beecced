//! Reduction fast paths that [`super::reduce::rows`] would do poorly: one long row (the whole
//! tensor; split across threads and combined) and leading-dim reductions of a contiguous tensor
//! (`x.sum(0)`: accumulate rows into the inner block instead of copying the input transposed).

use rayon::prelude::*;

use crate::iter::PAR_THRESHOLD;
use crate::kernels::simd::with_wide;
use crate::ops::reduce::{ReduceOp, sum_f64};
use crate::{Element, Tensor, TensorMeta, dispatch_all};

/// Elements per parallel task in these paths.
const TASK: usize = 64 * 1024;

/// NaN-propagating max (`is_max`) or min of two elements.
#[inline(always)]
fn pick<T: Element>(a: T, v: T, is_max: bool) -> T {
    let nan = v.partial_cmp(&v).is_none();
    if nan || (a.partial_cmp(&a).is_some() && ((v > a) == is_max) && v != a) {
        v
    } else {
        a
    }
}

/// The reduction of contiguous `src` over leading dims `ds` (= `0..k`), or `None` when no fast
/// path applies.
pub(crate) fn try_reduce(
    op: ReduceOp,
    src: &Tensor,
    ds: &[usize],
    meta: &TensorMeta,
) -> Option<Tensor> {
    let (sum, ext) = (
        matches!(op, ReduceOp::Sum | ReduceOp::Mean),
        matches!(op, ReduceOp::Amax | ReduceOp::Amin),
    );
    if !(sum || ext) || !src.is_contiguous() || src.numel() == 0 || ds.is_empty() {
        return None;
    }
    if sum && !src.dtype().is_floating_point() {
        return None;
    }
    let k = ds.len();
    if !(0..k).all(|d| ds.contains(&d)) {
        return None;
    }
    let n_red: usize = src.shape()[..k].iter().product();
    let inner: usize = src.shape()[k..].iter().product();
    if n_red == 0 || (inner == 1 && src.numel() < PAR_THRESHOLD) {
        return None;
    }
    let is_max = op == ReduceOp::Amax;
    let out = dispatch_all!(src.dtype(), T => {
        // SAFETY: `src` is contiguous with n_red * inner elements of T, only read here.
        let data = unsafe { std::slice::from_raw_parts(src.data_ptr::<T>(), n_red * inner) };
        if sum {
            let v = if inner == 1 { vec![single_sum(data)] } else { column_sums(data, n_red, inner) };
            let scale = if op == ReduceOp::Mean { 1.0 / n_red as f64 } else { 1.0 };
            let v: Vec<f64> = v.into_iter().map(|s| s * scale).collect();
            Tensor::from_vec(v, &meta.shape).ok()?.to_dtype(meta.dtype)
        } else {
            let v = column_extremes(data, n_red, inner, is_max);
            Tensor::from_vec(v, &meta.shape).ok()?.to_dtype(meta.dtype)
        }
    });
    Some(out)
}

/// The sum of one long row, in parallel partial sums added in chunk order (rayon's `sum` adds
/// them in a scheduling-dependent tree, so two runs could differ in the last bit).
fn single_sum<T: Element>(data: &[T]) -> f64 {
    data.par_chunks(TASK)
        .map(|c| {
            with_wide(
                #[inline(always)]
                || sum_f64(c),
            )
        })
        .collect::<Vec<f64>>()
        .into_iter()
        .sum()
}

/// `out[j] = sum_i data[i * inner + j]`, blocks of columns in parallel.
fn column_sums<T: Element>(data: &[T], n_red: usize, inner: usize) -> Vec<f64> {
    let mut out = vec![0.0f64; inner];
    let work = |(b, acc): (usize, &mut [f64]), block: usize| {
        let j0 = b * block;
        with_wide(
            #[inline(always)]
            || {
                for i in 0..n_red {
                    let row = &data[i * inner + j0..i * inner + j0 + acc.len()];
                    for (a, v) in acc.iter_mut().zip(row) {
                        *a += v.to_f64();
                    }
                }
            },
        );
    };
    if n_red * inner < PAR_THRESHOLD {
        work((0, &mut out), inner);
    } else {
        let block = (TASK / n_red.max(1)).clamp(64, inner.max(64));
        out.par_chunks_mut(block)
            .enumerate()
            .for_each(|c| work(c, block));
    }
    out
}

/// `out[j] = max_i (or min_i) data[i * inner + j]`, NaN-propagating; or of the one row.
fn column_extremes<T: Element>(data: &[T], n_red: usize, inner: usize, is_max: bool) -> Vec<T> {
    if inner == 1 {
        let parts: Vec<T> = data
            .par_chunks(TASK)
            .map(|c| {
                with_wide(
                    #[inline(always)]
                    || c.iter().fold(c[0], |a, &v| pick(a, v, is_max)),
                )
            })
            .collect();
        return vec![parts.iter().fold(parts[0], |a, &v| pick(a, v, is_max))];
    }
    let mut out: Vec<T> = data[..inner].to_vec();
    let work = |(b, acc): (usize, &mut [T]), block: usize| {
        let j0 = b * block;
        with_wide(
            #[inline(always)]
            || {
                for i in 1..n_red {
                    let row = &data[i * inner + j0..i * inner + j0 + acc.len()];
                    for (a, &v) in acc.iter_mut().zip(row) {
                        *a = pick(*a, v, is_max);
                    }
                }
            },
        );
    };
    if n_red * inner < PAR_THRESHOLD {
        work((0, &mut out), inner);
    } else {
        let block = (TASK / n_red.max(1)).clamp(64, inner.max(64));
        out.par_chunks_mut(block)
            .enumerate()
            .for_each(|c| work(c, block));
    }
    out
}
