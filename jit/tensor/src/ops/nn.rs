//! Neural-network ops that are not plain pointwise/reduction ops: softmax, log_softmax, layer_norm.

use crate::error::bail;
use crate::iter::SendPtr;
use crate::kernels::copy::copy_cast;
use crate::kernels::math::Flt;
use crate::kernels::simd::with_wide;
use crate::layout::{Shaped, wrap_dim};
use crate::ops::reduce::sum_f64;
use crate::parallel::{parallel_for, usable_threads};
use crate::views::{dims_to_end, permute};
use crate::{DType, Element, Error, Result, Tensor, TensorMeta};

/// Shape/dtype rule of `softmax`/`log_softmax(x, dim, dtype)`.
pub fn softmax_meta(
    x: &impl Shaped,
    dim: i64,
    dtype: Option<DType>,
    name: &str,
) -> Result<TensorMeta> {
    let d = wrap_dim(dim, x.ndim())?;
    let dt = dtype.unwrap_or(x.dtype());
    // A complex input or result, or a non-float result, has no kernel. ATen picks its kernel by
    // dim before dispatching on the dtype, so the error's kernel name says which.
    let refused = if x.dtype().is_complex() && !dt.is_complex() {
        Some(x.dtype())
    } else {
        (!dt.is_floating_point() || dt.is_complex()).then_some(dt)
    };
    if let Some(c) = refused {
        let kernel = if d + 1 >= x.ndim() {
            format!("{name}_lastdim_kernel_impl")
        } else {
            format!("{name}_kernel_impl")
        };
        return Err(crate::ops::complex::refuse(&kernel, c));
    }
    Ok(TensorMeta::contiguous(dt, x.shape()))
}

/// Elements from which [`rows_wide`] splits its rows across the threads. A softmax row
/// costs about five times an `add` per element (the exp), so this is well below the pointwise
/// [`crate::iter::PAR_THRESHOLD`]: ViT's attention softmax (4x4x65x65, 68K elements) ran on one
/// thread at 2.4 times PyTorch's time.
const ROW_PAR_ELEMENTS: usize = 32 * 1024;

/// Runs `f(row_in, row_out)` over every 1-D row of `x` along `dim`; returns a contiguous result of
/// `x`'s shape and dtype F.
fn row_transform<F: Flt>(x: &Tensor, dim: usize, f: impl Fn(&[F], &mut [F]) + Sync) -> Tensor {
    let nd = x.ndim();
    let perm = dims_to_end(nd, &[dim]);
    let xp = x.with_layout(permute(x, &perm).expect("invariant: valid permutation"));
    let xc = xp.contiguous();
    let out_p = Tensor::empty(xc.shape(), F::DTYPE);
    let n = xc.numel();
    let row = if nd == 0 { 1 } else { x.shape()[dim] };
    if n > 0 && row > 0 {
        // SAFETY: `xc` and `out_p` are distinct contiguous tensors with `n` elements of F.
        let (src, dst) = unsafe {
            (
                std::slice::from_raw_parts(xc.data_ptr::<F>(), n),
                std::slice::from_raw_parts_mut(out_p.data_ptr::<F>(), n),
            )
        };
        rows_wide(src, dst, row, f);
    }
    if nd == 0 || dim == nd - 1 {
        return out_p;
    }
    let mut inv = vec![0i64; nd];
    for (i, &p) in perm.iter().enumerate() {
        inv[p as usize] = i as i64;
    }
    let back = out_p.with_layout(permute(&out_p, &inv).expect("invariant: valid permutation"));
    let out = Tensor::empty(x.shape(), F::DTYPE);
    copy_cast(&out, &back);
    out
}

/// Runs `f(row_in, row_out)` over the consecutive `row`-element rows of `src` and `dst` (of equal
/// length): blocks of rows per [`with_wide`] call (its AVX-512 code reaches only what is inlined
/// into it, hence `#[inline(always)]` down to `f`), split across the threads (the caller too)
/// from [`ROW_PAR_ELEMENTS`].
#[inline(always)]
fn rows_wide<F: Flt>(src: &[F], dst: &mut [F], row: usize, f: impl Fn(&[F], &mut [F]) + Sync) {
    let rows = src.len() / row;
    let (ps, pd) = (SendPtr(src.as_ptr().cast_mut()), SendPtr(dst.as_mut_ptr()));
    let block = |r: std::ops::Range<usize>| {
        // SAFETY: rows `r` of the two distinct buffers; blocks are disjoint.
        let (a, b) = unsafe {
            (
                std::slice::from_raw_parts(ps.at((r.start * row) as isize), r.len() * row),
                std::slice::from_raw_parts_mut(pd.at((r.start * row) as isize), r.len() * row),
            )
        };
        with_wide(
            #[inline(always)]
            || {
                for (ra, rb) in a.chunks_exact(row).zip(b.chunks_exact_mut(row)) {
                    f(ra, rb);
                }
            },
        )
    };
    if src.len() >= ROW_PAR_ELEMENTS && rows > 1 {
        // A few blocks per thread, so one thread's late start evens out.
        let per = rows.div_ceil(4 * usable_threads()).max(1);
        parallel_for(rows.div_ceil(per), |t| {
            block(t * per..((t + 1) * per).min(rows))
        });
    } else {
        block(0..rows);
    }
}

/// The NaN-propagating maximum of a row, over 8 independent lanes (vectorisable).
#[inline(always)]
fn row_max<F: Flt>(a: &[F]) -> F {
    let pick = |m: F, v: F| if (v > m) | v.is_nan() { v } else { m };
    let mut acc = [F::neg_infinity(); 8];
    let chunks = a.chunks_exact(8);
    let tail = chunks.remainder();
    for c in chunks {
        for k in 0..8 {
            acc[k] = pick(acc[k], c[k]);
        }
    }
    acc.iter()
        .chain(tail)
        .fold(F::neg_infinity(), |m, &v| pick(m, v))
}

#[inline(always)]
fn softmax_row<F: Flt>(a: &[F], b: &mut [F], log: bool) {
    let m = row_max(a);
    // Two passes (exp, then a lane-wise sum) so the exp loop has no carried dependency.
    for (o, &v) in b.iter_mut().zip(a.iter()) {
        *o = (v - m).exp_v();
    }
    let s = F::c(sum_f64(b));
    if log {
        let ls = s.ln();
        for (o, &v) in b.iter_mut().zip(a) {
            *o = v - m - ls;
        }
    } else {
        let inv = F::one() / s;
        for o in b.iter_mut() {
            *o = *o * inv;
        }
    }
}

/// `softmax(x, dim)` (`log` = false) or `log_softmax(x, dim)`, optionally casting first to `dtype`.
pub fn softmax(x: &Tensor, dim: i64, dtype: Option<DType>, log: bool) -> Result<Tensor> {
    let name = if log { "log_softmax" } else { "softmax" };
    let meta = softmax_meta(x, dim, dtype, name)?;
    if x.ndim() == 0 {
        // One element along the only (virtual) dim.
        let one = softmax(&x.reshape(&[1])?, 0, dtype, log)?;
        return one.reshape(&[]);
    }
    let d = wrap_dim(dim, x.ndim())?;
    let c = meta.dtype.compute_dtype();
    let xc = x.to_dtype(c);
    let r = match c {
        // `#[inline(always)]` down to the row loops: `row_transform` runs `f` inside
        // `with_wide`, whose AVX-512 code reaches only what is inlined into it (an out-of-line
        // closure was compiled for SSE: a 32-wide softmax ran at a quarter of PyTorch's speed).
        DType::Float32 => row_transform::<f32>(
            &xc,
            d,
            #[inline(always)]
            |a, b| softmax_row(a, b, log),
        ),
        DType::Float64 => row_transform::<f64>(
            &xc,
            d,
            #[inline(always)]
            |a, b| softmax_row(a, b, log),
        ),
        _ => unreachable!("invariant: float compute dtype"),
    };
    Ok(r.to_dtype(meta.dtype))
}

/// Shape/dtype rule of `layer_norm`.
pub fn layer_norm_meta<S: Shaped>(
    x: &S,
    normalized_shape: &[i64],
    weight: Option<&S>,
    bias: Option<&S>,
) -> Result<TensorMeta> {
    let k = normalized_shape.len();
    let ns: Vec<usize> = normalized_shape
        .iter()
        .map(|&v| v.max(0) as usize)
        .collect();
    if k == 0 || x.ndim() < k || x.shape()[x.ndim() - k..] != ns[..] {
        bail!(
            Runtime,
            "Given normalized_shape={normalized_shape:?}, expected input with shape [*, {}], but got input of size{:?}",
            ns.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            x.shape()
        );
    }
    for (name, t) in [("weight", weight), ("bias", bias)] {
        if let Some(t) = t
            && t.shape() != ns.as_slice()
        {
            bail!(
                Runtime,
                "Expected {name} to be of same shape as normalized_shape, but got {name} of shape {:?} and normalized_shape = {normalized_shape:?}",
                t.shape()
            );
        }
    }
    if !x.dtype().is_floating_point() {
        return Err(Error::NotImplementedFor {
            op: "LayerNormKernelImpl",
            dtype: x.dtype().aten_name(),
        });
    }
    Ok(TensorMeta::contiguous(x.dtype(), x.shape()))
}

/// `layer_norm(x, normalized_shape, weight, bias, eps)` (biased variance, as PyTorch).
pub fn layer_norm(
    x: &Tensor,
    normalized_shape: &[i64],
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> Result<Tensor> {
    let meta = layer_norm_meta(x, normalized_shape, weight, bias)?;
    let c = meta.dtype.compute_dtype();
    let inner: usize = normalized_shape.iter().product::<i64>() as usize;
    let xc = x.to_dtype(c).contiguous();
    let w = weight.map(|w| w.to_dtype(c).contiguous());
    let b = bias.map(|b| b.to_dtype(c).contiguous());
    let out = match c {
        DType::Float32 => ln_kernel::<f32>(&xc, inner, w.as_ref(), b.as_ref(), eps),
        DType::Float64 => ln_kernel::<f64>(&xc, inner, w.as_ref(), b.as_ref(), eps),
        _ => unreachable!("invariant: float compute dtype"),
    };
    Ok(out.to_dtype(meta.dtype))
}

/// One row of `layer_norm`. `#[inline(always)]` so that it is compiled into the caller's
/// `with_wide` (AVX-512) function, as `softmax_row`; the variance over 8 independent lanes so
/// that it vectorises (a single running sum is a serial chain).
#[inline(always)]
fn ln_row<F: Flt>(a: &[F], o: &mut [F], ws: Option<&[F]>, bs: Option<&[F]>, eps: f64) {
    let inner = a.len();
    let mean = sum_f64(a) / inner as f64;
    let mut lanes = [0f64; 8];
    let chunks = a.chunks_exact(8);
    let tail = chunks.remainder();
    for c in chunks {
        for k in 0..8 {
            lanes[k] += (Element::to_f64(c[k]) - mean).powi(2);
        }
    }
    let tail_sum: f64 = tail
        .iter()
        .map(|v| (Element::to_f64(*v) - mean).powi(2))
        .sum();
    let var = (lanes.iter().sum::<f64>() + tail_sum) / inner as f64;
    let rstd = F::c(1.0 / (var + eps).sqrt());
    let m = F::c(mean);
    for (i, (o, &v)) in o.iter_mut().zip(a).enumerate() {
        let mut y = (v - m) * rstd;
        if let Some(ws) = ws {
            y = y * ws[i];
        }
        if let Some(bs) = bs {
            y += bs[i];
        }
        *o = y;
    }
}

fn ln_kernel<F: Flt>(
    x: &Tensor,
    inner: usize,
    w: Option<&Tensor>,
    b: Option<&Tensor>,
    eps: f64,
) -> Tensor {
    let out = Tensor::empty(x.shape(), F::DTYPE);
    let n = x.numel();
    if n == 0 || inner == 0 {
        return out;
    }
    // SAFETY: all are contiguous tensors of F with the stated lengths; `out` is fresh.
    let (src, dst, ws, bs) = unsafe {
        (
            std::slice::from_raw_parts(x.data_ptr::<F>(), n),
            std::slice::from_raw_parts_mut(out.data_ptr::<F>(), n),
            w.map(|w| std::slice::from_raw_parts(w.data_ptr::<F>(), inner)),
            b.map(|b| std::slice::from_raw_parts(b.data_ptr::<F>(), inner)),
        )
    };
    rows_wide(
        src,
        dst,
        inner,
        #[inline(always)]
        |a, o| ln_row(a, o, ws, bs, eps),
    );
    out
}
