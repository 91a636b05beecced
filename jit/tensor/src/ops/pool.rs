//! 2-D pooling: `max_pool2d` (with indices), `avg_pool2d`, `adaptive_avg_pool2d`. Planes
//! (`batch x channel`) run in parallel; each window is a direct loop.

use crate::memory_format::suggested;
use std::ops::Range;

use rayon::prelude::*;

use crate::error::bail;
use crate::iter::SendPtr;
use crate::kernels::simd::with_wide;
use crate::layout::Shaped;
use crate::parallel::parallel_for;
use crate::{DType, Element, Error, Result, Tensor, TensorMeta, dispatch_all};

/// Window geometry of a pooling op (shared with the backward kernels, `pool_backward.rs`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Win {
    pub(crate) k: [usize; 2],
    pub(crate) s: [usize; 2],
    pub(crate) p: [usize; 2],
    pub(crate) d: [usize; 2],
    pub(crate) hw: [usize; 2],
    pub(crate) out: [usize; 2],
    pub(crate) planes: usize,
}

fn pair(v: &[i64], op: &str, what: &str) -> Result<[i64; 2]> {
    match v {
        [a] => Ok([*a, *a]),
        [a, b] => Ok([*a, *b]),
        _ => bail!(
            Runtime,
            "{op}: {what} must either be a single int, or a tuple of two ints"
        ),
    }
}

fn check_input(x: &impl Shaped, op: &str) -> Result<()> {
    if !(x.ndim() == 3 || x.ndim() == 4) || x.shape()[x.ndim() - 3..].contains(&0) {
        bail!(
            Runtime,
            "{op}: Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got: {:?}",
            x.shape()
        );
    }
    Ok(())
}

/// Output size of one pooled dim (PyTorch's `pooling_output_shape`).
fn pooled(size: usize, k: usize, p: usize, s: usize, d: usize, ceil: bool) -> i64 {
    let num = size as i64 + 2 * p as i64 - d as i64 * (k as i64 - 1) - 1;
    let s = s as i64;
    let mut out = if ceil {
        (num + s - 1).div_euclid(s)
    } else {
        num.div_euclid(s)
    } + 1;
    // The last window must start inside the input or the left padding.
    if ceil && (out - 1) * s >= size as i64 + p as i64 {
        out -= 1;
    }
    out
}

#[allow(clippy::too_many_arguments, reason = "PyTorch's pooling arguments")]
pub(crate) fn window(
    x: &impl Shaped,
    op: &str,
    kernel: &[i64],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    ceil: bool,
) -> Result<Win> {
    let k = pair(kernel, op, "kernel_size")?;
    let s = if stride.is_empty() {
        k
    } else {
        pair(stride, op, "stride")?
    };
    let p = pair(padding, op, "padding")?;
    let d = pair(dilation, op, "dilation")?;
    if k.iter().any(|&v| v <= 0) {
        bail!(
            Runtime,
            "kernel size should be greater than zero, but got kH: {} kW: {}",
            k[0],
            k[1]
        );
    }
    if s.iter().any(|&v| v <= 0) {
        bail!(
            Runtime,
            "stride should be greater than zero, but got dH: {} dW: {}",
            s[0],
            s[1]
        );
    }
    if d.iter().any(|&v| v <= 0) {
        bail!(
            Runtime,
            "dilation should be greater than zero, but got dilationH: {} dilationW: {}",
            d[0],
            d[1]
        );
    }
    for i in 0..2 {
        let eff = d[i] * (k[i] - 1) + 1;
        if p[i] < 0 || p[i] > eff / 2 {
            bail!(
                Runtime,
                "pad should be at most half of effective kernel size, but got pad={}, kernel_size={} and dilation={}",
                p[i],
                k[i],
                d[i]
            );
        }
    }
    check_input(x, op)?;
    let nd = x.ndim();
    let (c, h, w) = (x.shape()[nd - 3], x.shape()[nd - 2], x.shape()[nd - 1]);
    let u = |a: [i64; 2]| [a[0] as usize, a[1] as usize];
    let (k, s, p, d) = (u(k), u(s), u(p), u(d));
    let oh = pooled(h, k[0], p[0], s[0], d[0], ceil);
    let ow = pooled(w, k[1], p[1], s[1], d[1], ceil);
    if oh < 1 || ow < 1 {
        bail!(
            Runtime,
            "Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). Output size is too small"
        );
    }
    Ok(Win {
        k,
        s,
        p,
        d,
        hw: [h, w],
        out: [oh as usize, ow as usize],
        planes: x.numel() / (h * w),
    })
}

fn out_shape(x: &impl Shaped, out: [usize; 2]) -> Vec<usize> {
    let mut s = x.shape().to_vec();
    let nd = s.len();
    s[nd - 2] = out[0];
    s[nd - 1] = out[1];
    s
}

/// Shape/dtype rule of `max_pool2d`: (values, int64 indices).
#[allow(clippy::too_many_arguments, reason = "PyTorch's pooling arguments")]
pub fn max_pool2d_meta(
    x: &impl Shaped,
    kernel: &[i64],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    ceil: bool,
) -> Result<(TensorMeta, TensorMeta)> {
    let w = window(x, "max_pool2d", kernel, stride, padding, dilation, ceil)?;
    if x.dtype() == DType::Bool {
        return Err(Error::NotImplementedFor {
            op: "max_pool2d",
            dtype: "Bool",
        });
    }
    let s = out_shape(x, w.out);
    // Values and indices both take the input's suggested format, as ATen's CPU kernel.
    let format = suggested(x);
    Ok((
        TensorMeta::contiguous(x.dtype(), &s).in_format(format),
        TensorMeta::contiguous(DType::Int64, &s).in_format(format),
    ))
}

/// `max_pool2d(x, ...)` with the flat `h * w` index of each maximum (the first one; NaN wins).
pub fn max_pool2d(
    x: &Tensor,
    kernel: &[i64],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    ceil: bool,
) -> Result<(Tensor, Tensor)> {
    let (vm, im) = max_pool2d_meta(x, kernel, stride, padding, dilation, ceil)?;
    let w = window(x, "max_pool2d", kernel, stride, padding, dilation, ceil)?;
    let xc = x.contiguous();
    let (vals, idx) = (
        Tensor::empty(&vm.shape, vm.dtype),
        Tensor::empty(&im.shape, im.dtype),
    );
    dispatch_all!(x.dtype(), T => max_kernel::<T, true>(&w, &xc, &vals, Some(&idx)));
    Ok((vals.laid_out_as(&vm), idx.laid_out_as(&im)))
}

/// [`max_pool2d`]'s values alone (the `max_pool2d` op without autograd): the same scan, so the
/// same values, without writing an int64 index per output or reading each tap back through
/// one. 2x2 pooling of 16x64x64 f32 took 36 us with the indices.
pub fn max_pool2d_values(
    x: &Tensor,
    kernel: &[i64],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    ceil: bool,
) -> Result<Tensor> {
    let (vm, _) = max_pool2d_meta(x, kernel, stride, padding, dilation, ceil)?;
    let w = window(x, "max_pool2d", kernel, stride, padding, dilation, ceil)?;
    let xc = x.contiguous();
    let vals = Tensor::empty(&vm.shape, vm.dtype);
    dispatch_all!(x.dtype(), T => max_kernel::<T, false>(&w, &xc, &vals, None));
    Ok(vals.laid_out_as(&vm))
}

/// The taps `lo..hi` of a `k`-tap window (dilation `d`) starting at `start` (may be negative, in
/// the padding) that fall inside `0..size`.
fn valid_taps(start: isize, k: usize, d: usize, size: usize) -> (usize, usize) {
    let d = d as isize;
    let lo = if start < 0 { (-start + d - 1) / d } else { 0 };
    let hi = if start >= size as isize {
        0
    } else {
        (size as isize - start + d - 1) / d
    };
    (lo as usize, (hi as usize).min(k).max(lo as usize))
}

/// The max-pool scan; with `INDICES`, `idx` receives each maximum's flat `h * w` index.
fn max_kernel<T: Element, const INDICES: bool>(
    w: &Win,
    x: &Tensor,
    vals: &Tensor,
    idx: Option<&Tensor>,
) {
    let [h, wd] = w.hw;
    let [oh, ow] = w.out;
    let (px, pv, pi) = (
        SendPtr(x.data_ptr::<T>()),
        SendPtr(vals.data_ptr::<T>()),
        SendPtr(idx.map_or(std::ptr::null_mut(), |t| t.data_ptr::<i64>())),
    );
    // Each output column's first input column and its in-bounds taps, computed once: the
    // per-element work is then only the comparisons (no bounds tests in the loop).
    let cols: Vec<(isize, usize, usize)> = (0..ow)
        .map(|xo| {
            let start = (xo * w.s[1]) as isize - w.p[1] as isize;
            let (lo, hi) = valid_taps(start, w.k[1], w.d[1], wd);
            (start, lo, hi)
        })
        .collect();
    // The columns whose every tap is in bounds form one run (window starts only grow); they
    // are computed tap by tap across the row, which keeps the loop over columns branch-free.
    let full = |&(_, lo, hi): &(isize, usize, usize)| lo == 0 && hi == w.k[1];
    let xa = cols.iter().position(full).unwrap_or(ow);
    let xb = cols.iter().rposition(full).map_or(xa, |i| i + 1);
    let plane = |pl: usize, ix: &mut [i64]| {
        // SAFETY: plane `pl` of the contiguous input and of the values; planes are disjoint.
        let (src, v) = unsafe {
            (
                std::slice::from_raw_parts(px.at((pl * h * wd) as isize), h * wd),
                std::slice::from_raw_parts_mut(pv.at((pl * oh * ow) as isize), oh * ow),
            )
        };
        for y in 0..oh {
            let row0 = (y * w.s[0]) as isize - w.p[0] as isize;
            let (ilo, ihi) = valid_taps(row0, w.k[0], w.d[0], h);
            let vr = &mut v[y * ow..(y + 1) * ow];
            let ir: &mut [i64] = if INDICES {
                &mut ix[y * ow..(y + 1) * ow]
            } else {
                &mut []
            };
            let at =
                |i: usize, col: isize| (row0 + (i * w.d[0]) as isize) as usize * wd + col as usize;
            for xo in (0..xa).chain(xb..ow) {
                let (col0, jlo, jhi) = cols[xo];
                let (mut best, mut bi) = (T::ZERO, -1i64);
                if ilo < ihi && jlo < jhi {
                    // The first in-bounds tap starts the scan.
                    bi = at(ilo, col0 + (jlo * w.d[1]) as isize) as i64;
                    best = src[bi as usize];
                    for i in ilo..ihi {
                        for j in jlo..jhi {
                            let a = at(i, col0 + (j * w.d[1]) as isize);
                            (best, bi) = max_step(best, bi, src[a], a);
                        }
                    }
                }
                vr[xo] = best;
                if INDICES {
                    ir[xo] = bi;
                }
            }
            if xa == xb {
                continue;
            }
            if ilo == ihi {
                vr[xa..xb].fill(T::ZERO);
                if INDICES {
                    ir[xa..xb].fill(-1);
                }
                continue;
            }
            let (vr, n, st) = (&mut vr[xa..xb], xb - xa, w.s[1]);
            let taps = |i: usize, j: usize| {
                let base = at(i, cols[xa].0 + (j * w.d[1]) as isize);
                // Every tap of these columns is in bounds: one check for the whole run.
                (base, &src[base..=base + (n - 1) * st])
            };
            if INDICES {
                max_run_indices(&mut ir[xa..xb], src, st, (ilo..ihi, w.k[1]), taps);
                for (b, &bi) in vr.iter_mut().zip(ir[xa..xb].iter()) {
                    *b = src[bi as usize];
                }
            } else {
                max_run_values(vr, st, (ilo..ihi, w.k[1]), taps);
            }
        }
    };
    // Runs of planes per task: one claim per plane costs more than a small plane's work.
    let per = w.planes.div_ceil(32).max(1);
    parallel_for(w.planes.div_ceil(per), |t| {
        for pl in t * per..((t + 1) * per).min(w.planes) {
            if INDICES {
                // SAFETY: plane `pl` of the contiguous indices; planes are disjoint.
                let ix = unsafe {
                    std::slice::from_raw_parts_mut(pi.at((pl * oh * ow) as isize), oh * ow)
                };
                plane(pl, ix);
            } else {
                plane(pl, &mut []);
            }
        }
    });
}

/// The run of full-window columns with indices: taps in the same (row, column) order as the
/// edge columns, so ties and NaNs resolve alike; the first tap starts the scan. Only the index
/// is carried (a conditional move); the value is read back through it: LLVM compiles a float
/// select to a branch, which random data mispredicts half the time (~20 cycles per tap).
fn max_run_indices<'a, T: Element + 'a>(
    ir: &mut [i64],
    src: &[T],
    st: usize,
    (rows, kw): (Range<usize>, usize),
    taps: impl Fn(usize, usize) -> (usize, &'a [T]),
) {
    let first = rows.start;
    for i in rows {
        for j in 0..kw {
            let (base, taps) = taps(i, j);
            if i == first && j == 0 {
                for (k, bi) in ir.iter_mut().enumerate() {
                    *bi = (base + k * st) as i64;
                }
                continue;
            }
            for (k, bi) in ir.iter_mut().enumerate() {
                let val = taps[k * st];
                #[allow(clippy::eq_op, reason = "NaN test generic over Element")]
                let take = (val > src[*bi as usize]) | (val != val);
                *bi = std::hint::select_unpredictable(take, (base + k * st) as i64, *bi);
            }
        }
    }
}

/// The run of full-window columns, values only: the same scan order and test as
/// [`max_run_indices`], carrying the value, in the wide tier (a stride known at compile time
/// for the usual 1 and 2, so the loads vectorise).
fn max_run_values<'a, T: Element + 'a>(
    vr: &mut [T],
    st: usize,
    (rows, kw): (Range<usize>, usize),
    taps: impl Fn(usize, usize) -> (usize, &'a [T]),
) {
    #[inline(always)]
    fn step<T: Element, const ST: usize>(vr: &mut [T], taps: &[T], st: usize, first: bool) {
        let st = if ST == 0 { st } else { ST };
        for (k, b) in vr.iter_mut().enumerate() {
            let val = taps[k * st];
            #[allow(clippy::eq_op, reason = "NaN test generic over Element")]
            let take = first | (val > *b) | (val != val);
            *b = if take { val } else { *b };
        }
    }
    let first = rows.start;
    with_wide(
        #[inline(always)]
        || {
            for i in rows {
                for j in 0..kw {
                    let (_, t) = taps(i, j);
                    let f = i == first && j == 0;
                    match st {
                        1 => step::<T, 1>(vr, t, st, f),
                        2 => step::<T, 2>(vr, t, st, f),
                        _ => step::<T, 0>(vr, t, st, f),
                    }
                }
            }
        },
    );
}

fn max_step<T: Element>(best: T, bi: i64, val: T, a: usize) -> (T, i64) {
    #[allow(clippy::eq_op, reason = "NaN test generic over Element")]
    let take = (val > best) | (val != val);
    (
        std::hint::select_unpredictable(take, val, best),
        std::hint::select_unpredictable(take, a as i64, bi),
    )
}

/// Shape/dtype rule of `avg_pool2d`.
pub fn avg_pool2d_meta(
    x: &impl Shaped,
    kernel: &[i64],
    stride: &[i64],
    padding: &[i64],
    ceil: bool,
    divisor: Option<i64>,
) -> Result<TensorMeta> {
    let w = window(x, "avg_pool2d", kernel, stride, padding, &[1], ceil)?;
    if divisor == Some(0) {
        bail!(Runtime, "divisor must be not zero");
    }
    if !x.dtype().is_floating_point() && x.dtype() != DType::Int64 {
        return Err(Error::NotImplementedFor {
            op: "avg_pool2d_out_frame",
            dtype: x.dtype().aten_name(),
        });
    }
    Ok(TensorMeta::contiguous(x.dtype(), &out_shape(x, w.out)).in_format(suggested(x)))
}

/// `avg_pool2d(x, ...)`: window sums in f64 divided by the window size (padding counted when
/// `count_include_pad`), or by `divisor`.
#[allow(clippy::too_many_arguments, reason = "PyTorch's pooling arguments")]
pub fn avg_pool2d(
    x: &Tensor,
    kernel: &[i64],
    stride: &[i64],
    padding: &[i64],
    ceil: bool,
    count_include_pad: bool,
    divisor: Option<i64>,
) -> Result<Tensor> {
    let meta = avg_pool2d_meta(x, kernel, stride, padding, ceil, divisor)?;
    let w = window(x, "avg_pool2d", kernel, stride, padding, &[1], ceil)?;
    let wd = w.hw[1];
    Ok(plane_map(x, &meta, w.planes, w.hw, w.out, |src, y, xo| {
        let (hs, he, ws, we, div) = avg_window(&w, y, xo, count_include_pad, divisor);
        let mut s = 0.0;
        for row in src[hs * wd..he * wd].chunks(wd) {
            s += row[ws..we].iter().sum::<f64>();
        }
        s / div
    }))
}

/// The input rows `hs..he` and columns `ws..we` that `avg_pool2d`'s output `(y, x)` averages,
/// and its divisor (the window size, padding counted when `count_include_pad`, or `divisor`).
pub(crate) fn avg_window(
    w: &Win,
    y: usize,
    xo: usize,
    count_include_pad: bool,
    divisor: Option<i64>,
) -> (usize, usize, usize, usize, f64) {
    let [h, wd] = w.hw;
    let hs = (y * w.s[0]) as i64 - w.p[0] as i64;
    let ws = (xo * w.s[1]) as i64 - w.p[1] as i64;
    let he = (hs + w.k[0] as i64).min((h + w.p[0]) as i64);
    let we = (ws + w.k[1] as i64).min((wd + w.p[1]) as i64);
    let pool = (he - hs) * (we - ws);
    let (hs, ws) = (hs.max(0) as usize, ws.max(0) as usize);
    let (he, we) = (he.min(h as i64) as usize, we.min(wd as i64) as usize);
    let div = match divisor {
        Some(d) => d as f64,
        None if count_include_pad => pool as f64,
        None => ((he - hs) * (we - ws)) as f64,
    };
    (hs, he, ws, we, div)
}

/// The input range `[floor(i * n / o), ceil((i + 1) * n / o))` that adaptive pooling's output
/// `i` of `o` covers in a dim of size `n`.
pub(crate) fn adaptive_range(i: usize, o: usize, n: usize) -> (usize, usize) {
    (i * n / o, ((i + 1) * n).div_ceil(o))
}

/// Runs `f(plane as f64, y, x)` for every output position of every plane; returns `meta`.
fn plane_map(
    x: &Tensor,
    meta: &TensorMeta,
    planes: usize,
    [h, w]: [usize; 2],
    [oh, ow]: [usize; 2],
    f: impl Fn(&[f64], usize, usize) -> f64 + Sync,
) -> Tensor {
    let xf = x.to_dtype(DType::Float64).contiguous();
    let out = Tensor::empty(&meta.shape, DType::Float64);
    let (px, po) = (
        SendPtr(xf.data_ptr::<f64>()),
        SendPtr(out.data_ptr::<f64>()),
    );
    (0..planes).into_par_iter().for_each(|pl| {
        // SAFETY: plane `pl` of the contiguous f64 input and output; planes are disjoint.
        let (src, dst) = unsafe {
            (
                std::slice::from_raw_parts(px.at((pl * h * w) as isize), h * w),
                std::slice::from_raw_parts_mut(po.at((pl * oh * ow) as isize), oh * ow),
            )
        };
        for y in 0..oh {
            for xo in 0..ow {
                dst[y * ow + xo] = f(src, y, xo);
            }
        }
    });
    out.to_dtype(meta.dtype).laid_out_as(meta)
}

/// Shape/dtype rule of `adaptive_avg_pool2d(x, output_size)`.
pub fn adaptive_avg_pool2d_meta(x: &impl Shaped, output_size: &[i64]) -> Result<TensorMeta> {
    let o = pair(output_size, "adaptive_avg_pool2d", "output_size")?;
    if o.iter().any(|&v| v < 0) {
        bail!(
            Runtime,
            "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {{{}, {}}}",
            o[0],
            o[1]
        );
    }
    check_input(x, "adaptive_avg_pool2d")?;
    if !x.dtype().is_floating_point() {
        return Err(Error::NotImplementedFor {
            op: "adaptive_avg_pool2d",
            dtype: x.dtype().aten_name(),
        });
    }
    Ok(
        TensorMeta::contiguous(x.dtype(), &out_shape(x, [o[0] as usize, o[1] as usize]))
            .in_format(suggested(x)),
    )
}

/// `adaptive_avg_pool2d(x, output_size)`: output cell `i` averages input rows
/// `[floor(i * h / oh), ceil((i + 1) * h / oh))` (and likewise for columns).
pub fn adaptive_avg_pool2d(x: &Tensor, output_size: &[i64]) -> Result<Tensor> {
    let meta = adaptive_avg_pool2d_meta(x, output_size)?;
    let nd = x.ndim();
    let (h, w) = (x.shape()[nd - 2], x.shape()[nd - 1]);
    let (oh, ow) = (meta.shape[nd - 2], meta.shape[nd - 1]);
    let planes = x.numel() / (h * w);
    Ok(plane_map(
        x,
        &meta,
        planes,
        [h, w],
        [oh, ow],
        |src, y, xo| {
            let (hs, he) = adaptive_range(y, oh, h);
            let (ws, we) = adaptive_range(xo, ow, w);
            let mut s = 0.0;
            for row in src[hs * w..he * w].chunks(w) {
                s += row[ws..we].iter().sum::<f64>();
            }
            s / ((he - hs) * (we - ws)) as f64
        },
    ))
}
