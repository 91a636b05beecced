//! `upsample_bilinear2d` and `upsample_linear1d`: `F.interpolate(mode="bilinear"/"linear")`
//! without antialiasing, as ATen's CPU kernels compute it (backward ops in `upsample_backward.rs`,
//! `upsample_trilinear3d` in `upsample3d.rs`).
//!
//! Why a kernel: the Python decomposition (per dim, taps from ~10 tiny tensor ops, then two
//! `index_select`s, two products and a sum) took 130-235 us where PyTorch takes 23-65 us at the
//! U-Net's (M4) shapes, and its `index_select`s along W gathered one element at a time.
//!
//! Taps (ATen's `compute_source_index_and_lambda`, in the input's float type): the ratio is
//! `(in - 1) / (out - 1)` with `align_corners`, else `1 / scale` when a scale is given, else
//! `in / out`; the source coordinate `ratio * i`, or `ratio * (i + 0.5) - 0.5` clamped at 0;
//! taps at `floor` (through `floorf`, as ATen, also for f64) and the next index (the same at the
//! edge), weights `1 - l` and `l` with `l` clamped to `[0, 1]`; equal sizes copy.
//!
//! Summation order, chosen because it reproduces PyTorch 2.15's results bit for bit (checked
//! with `tests/python/nn/upsample_vs_pytorch.py` on an AVX-512 machine): ATen's channels-last vector
//! kernel, which its CPU dispatch picks for every channels-last input with C > 3 and for
//! contiguous inputs whose output H + W <= 128 (all of the U-Net's), computes per output
//! `x00 * w00 + (x01 * w01 + (x10 * w10 + x11 * w11))` with `w00 = h0 * w0` etc., which GCC's
//! FMA contraction compiles to `fma(x00, w00, fma(x01, w01, fma(x11, w11, x10 * w10)))`; the
//! source coordinate without `align_corners` is contracted too (`fma(ratio, i + 0.5, -0.5)`).
//! Both are written here as explicit `mul_add`s (exact, so every SIMD tier gives the same bits).
//! ATen's other kernels (its generic one for larger outputs, the scalar tail for C % 16 != 0)
//! sum in other orders: those results differ from PyTorch's in the last bit.
//!
//! `upsample_linear1d` runs ATen's generic kernel, `fma(x0, w0, x1 * w1)` with the source
//! coordinate not contracted: the same here, bit for bit.
//!
//! Contiguous (NCHW) kernel, per plane: every input row used is gathered once at the W taps
//! (`lo` and `hi`, `out_w` wide each), then each output row is the vectorisable blend of four
//! gathered rows. Channels-last inputs run a kernel over the channel vector instead. Bf16/f16
//! compute in f32 and round once, as ATen.

use crate::error::bail;
use crate::iter::SendPtr;
use crate::kernels::math::Flt;
use crate::kernels::simd::with_wide;
use crate::layout::Shaped;
use crate::memory_format::{MemoryFormat, suggested};
use crate::parallel::parallel_for;
use crate::{DType, Error, Result, Tensor, TensorMeta};

/// Below this many output elements the planes run on the calling thread.
pub(crate) const PARALLEL_MIN: usize = 1 << 16;

/// One dim's source taps: output `i` reads inputs `lo[i]` and `hi[i]` with weights `l0[i]`, `l1[i]`.
pub(crate) struct Taps<F> {
    pub(crate) lo: Vec<usize>,
    pub(crate) hi: Vec<usize>,
    pub(crate) l0: Vec<F>,
    pub(crate) l1: Vec<F>,
}

/// The taps of one dim; `fused`: the source coordinate `ratio * (i + 0.5) - 0.5` as one FMA, as
/// ATen's compiled kernels compute it (all but the 1-D forward's).
pub(crate) fn taps<F: Flt>(
    n_in: usize,
    n_out: usize,
    align: bool,
    scale: Option<f64>,
    fused: bool,
) -> Taps<F> {
    let f = |v: usize| F::c(v as f64);
    let ratio = if align {
        if n_out > 1 {
            f(n_in - 1) / f(n_out - 1)
        } else {
            F::zero()
        }
    } else {
        match scale {
            Some(s) if s > 0.0 => F::c(1.0 / s),
            _ => f(n_in) / f(n_out),
        }
    };
    let mut t = Taps {
        lo: Vec::with_capacity(n_out),
        hi: Vec::with_capacity(n_out),
        l0: Vec::with_capacity(n_out),
        l1: Vec::with_capacity(n_out),
    };
    for i in 0..n_out {
        let (lo, hi, l1) = if n_in == n_out {
            (i, i, F::zero())
        } else {
            let src = if align {
                ratio * f(i)
            } else {
                let half = f(i) + F::c(0.5);
                let s = if fused {
                    ratio.mul_add(half, F::c(-0.5))
                } else {
                    ratio * half - F::c(0.5)
                };
                s.max(F::zero())
            };
            let floor = src.to_f32().unwrap_or(0.0).floor();
            let lo = (floor.max(0.0) as usize).min(n_in - 1);
            let l1 = (src - f(lo)).max(F::zero()).min(F::one());
            (lo, lo + usize::from(lo + 1 < n_in), l1)
        };
        t.lo.push(lo);
        t.hi.push(hi);
        t.l0.push(F::one() - l1);
        t.l1.push(l1);
    }
    t
}

/// The sizes of one call (a 1-D one has height-1 planes); `fused` as for [`taps`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Geo {
    pub(crate) n: usize,
    pub(crate) c: usize,
    pub(crate) hw: [usize; 2],
    pub(crate) out: [usize; 2],
    pub(crate) align: bool,
    pub(crate) scales: [Option<f64>; 2],
    pub(crate) fused: bool,
}

impl Geo {
    pub(crate) fn taps<F: Flt>(&self) -> (Taps<F>, Taps<F>) {
        let (a, s, f) = (self.align, self.scales, self.fused);
        (
            taps(self.hw[0], self.out[0], a, s[0], f),
            taps(self.hw[1], self.out[1], a, s[1], f),
        )
    }
}

pub(crate) fn check_sizes(input: &[usize], out: [i64; 2]) -> Result<[usize; 2]> {
    let (h, w) = (input[2], input[3]);
    if h == 0 || w == 0 || out[0] <= 0 || out[1] <= 0 {
        bail!(
            Runtime,
            "Input and output sizes should be greater than 0, but got input (H: {h}, W: {w}) output (H: {}, W: {})",
            out[0],
            out[1]
        );
    }
    Ok([out[0] as usize, out[1] as usize])
}

pub(crate) fn pair(v: &[i64]) -> Result<[i64; 2]> {
    match v {
        [a, b] => Ok([*a, *b]),
        _ => bail!(
            Runtime,
            "It is expected output_size equals to 2, but got size {}",
            v.len()
        ),
    }
}

pub(crate) fn float_dtype(op: &'static str, dt: DType) -> Result<()> {
    if dt.is_floating_point() && !dt.is_complex() {
        return Ok(());
    }
    Err(Error::NotImplementedFor {
        op,
        dtype: dt.aten_name(),
    })
}

/// Runs one of the kernels below in `x`'s compute type: f32 and f64 as they are, bf16/f16 in
/// f32 (rounded once at the end, as ATen's opmath), on a contiguous `x`, into a fresh row-major
/// tensor of `shape` (nothing runs when it is empty); `f32`/`f64` are the kernel's two
/// instances. The result has `x`'s dtype.
pub(crate) fn in_compute_type(
    x: &Tensor,
    shape: &[usize],
    f32: impl FnOnce(&Tensor, &Tensor),
    f64: impl FnOnce(&Tensor, &Tensor),
) -> Tensor {
    let work = match x.dtype() {
        DType::Float32 | DType::Float64 => x.contiguous(),
        _ => x.to_dtype(DType::Float32),
    };
    let out = Tensor::empty(shape, work.dtype());
    if out.numel() > 0 {
        match work.dtype() {
            DType::Float64 => f64(&work, &out),
            _ => f32(&work, &out),
        }
    }
    out.to_dtype(x.dtype())
}

/// Shape/dtype rule of `upsample_bilinear2d`: `[N, C, out_h, out_w]` in the input's suggested
/// memory format (ATen's structured meta).
pub fn upsample_bilinear2d_meta(x: &impl Shaped, output_size: &[i64]) -> Result<TensorMeta> {
    let o = pair(output_size)?;
    if x.ndim() != 4 {
        bail!(
            Runtime,
            "It is expected input_size equals to 4, but got size {}",
            x.ndim()
        );
    }
    let o = check_sizes(x.shape(), o)?;
    float_dtype("upsample_bilinear2d_channels_last", x.dtype())?;
    let s = x.shape();
    Ok(TensorMeta::contiguous(x.dtype(), &[s[0], s[1], o[0], o[1]]).in_format(suggested(x)))
}

/// `upsample_bilinear2d(x, output_size, align_corners, scales_h, scales_w)`.
pub fn upsample_bilinear2d(
    x: &Tensor,
    output_size: &[i64],
    align_corners: bool,
    scales: [Option<f64>; 2],
) -> Result<Tensor> {
    let meta = upsample_bilinear2d_meta(x, output_size)?;
    let s = x.shape();
    let geo = Geo {
        n: s[0],
        c: s[1],
        hw: [s[2], s[3]],
        out: [meta.shape[2], meta.shape[3]],
        align: align_corners,
        scales,
        fused: true,
    };
    if meta.shape.contains(&0) {
        return Ok(Tensor::empty_meta(&meta));
    }
    let channels_last = suggested(x) == MemoryFormat::ChannelsLast
        && MemoryFormat::ChannelsLast.is_contiguous(s, x.strides());
    // Bf16/f16 in f32, rounded once at the end.
    let work = match x.dtype() {
        DType::Float32 | DType::Float64 => x.clone(),
        _ => x.to_dtype(DType::Float32),
    };
    let out = if channels_last {
        let work = if work.dtype() == x.dtype() {
            work
        } else {
            // `to_dtype` made it row-major: back to channels-last for the channel kernel.
            let cl =
                TensorMeta::contiguous(DType::Float32, s).in_format(MemoryFormat::ChannelsLast);
            work.laid_out_as(&cl)
        };
        let out = Tensor::empty_meta(&TensorMeta {
            dtype: work.dtype(),
            ..meta.clone()
        });
        match work.dtype() {
            DType::Float64 => forward_cl::<f64>(&work, &out, &geo),
            _ => forward_cl::<f32>(&work, &out, &geo),
        }
        out
    } else {
        let work = work.contiguous();
        let out = Tensor::empty(&meta.shape, work.dtype());
        match work.dtype() {
            DType::Float64 => forward_planes::<f64>(&work, &out, &geo),
            _ => forward_planes::<f32>(&work, &out, &geo),
        }
        out
    };
    Ok(out.to_dtype(x.dtype()).laid_out_as(&meta))
}

/// The contiguous kernel: one task per `(n, c)` plane.
fn forward_planes<F: Flt>(x: &Tensor, out: &Tensor, geo: &Geo) {
    let (th, tw) = geo.taps::<F>();
    let [h, w] = geo.hw;
    let [oh, ow] = geo.out;
    let mut used = vec![false; h];
    for (&a, &b) in th.lo.iter().zip(&th.hi) {
        used[a] = true;
        used[b] = true;
    }
    let (src, dst) = (SendPtr(x.data_ptr::<F>()), SendPtr(out.data_ptr::<F>()));
    let planes = geo.n * geo.c;
    let run = |p: usize, rows: &mut Vec<F>| {
        // SAFETY: `x` and `out` are distinct contiguous tensors of `planes` planes of `h * w`
        // and `oh * ow` elements of F; each task writes only its own output plane.
        let (xp, yp) = unsafe {
            (
                std::slice::from_raw_parts(src.at((p * h * w) as isize), h * w),
                std::slice::from_raw_parts_mut(dst.at((p * oh * ow) as isize), oh * ow),
            )
        };
        with_wide(
            #[inline(always)]
            || plane(xp, yp, w, (&th, &tw), &used, rows),
        );
    };
    if planes < 2 || planes * oh * ow < PARALLEL_MIN {
        let mut rows = vec![F::zero(); 2 * h * ow];
        (0..planes).for_each(|p| run(p, &mut rows));
    } else {
        parallel_for(planes, |p| run(p, &mut vec![F::zero(); 2 * h * ow]));
    }
}

/// One output plane `y` (`[oh, ow]`) from the input plane `x` (`[h, w]`); `rows` is scratch of
/// `2 * h * ow`: input row `r` gathered at the W taps `lo` (then `hi`).
#[inline(always)]
fn plane<F: Flt>(
    x: &[F],
    y: &mut [F],
    w: usize,
    (th, tw): (&Taps<F>, &Taps<F>),
    used: &[bool],
    rows: &mut [F],
) {
    let ow = tw.lo.len();
    for (r, _) in used.iter().enumerate().filter(|(_, u)| **u) {
        let row = &x[r * w..(r + 1) * w];
        let (g0, g1) = rows[2 * r * ow..2 * (r + 1) * ow].split_at_mut(ow);
        for (j, (a, b)) in g0.iter_mut().zip(g1.iter_mut()).enumerate() {
            *a = row[tw.lo[j]];
            *b = row[tw.hi[j]];
        }
    }
    let (l0, l1) = (&tw.l0[..ow], &tw.l1[..ow]);
    for (o, yr) in y.chunks_exact_mut(ow).enumerate() {
        let (a, b) = (th.l0[o], th.l1[o]);
        let (r00, r01) = rows[2 * th.lo[o] * ow..][..2 * ow].split_at(ow);
        let (r10, r11) = rows[2 * th.hi[o] * ow..][..2 * ow].split_at(ow);
        let yr = &mut yr[..ow];
        for j in 0..ow {
            yr[j] = blend(
                [r00[j], r01[j], r10[j], r11[j]],
                [a * l0[j], a * l1[j], b * l0[j], b * l1[j]],
            );
        }
    }
}

/// ATen's `x00 * w00 + (x01 * w01 + (x10 * w10 + x11 * w11))` as its compiler contracts it.
#[inline(always)]
fn blend<F: Flt>(x: [F; 4], w: [F; 4]) -> F {
    x[0].mul_add(w[0], x[1].mul_add(w[1], x[3].mul_add(w[3], x[2] * w[2])))
}

/// The channels-last kernel: one task per `(n, output row)`, each output pixel a blend of four
/// input pixels over the channel vector.
fn forward_cl<F: Flt>(x: &Tensor, out: &Tensor, geo: &Geo) {
    let (th, tw) = geo.taps::<F>();
    let (c, [h, w], [oh, ow]) = (geo.c, geo.hw, geo.out);
    let (src, dst) = (SendPtr(x.data_ptr::<F>()), SendPtr(out.data_ptr::<F>()));
    let rows = geo.n * oh;
    let run = |t: usize| {
        let (n, o) = (t / oh, t % oh);
        // SAFETY: `x` and `out` are distinct channels-last-contiguous tensors (`[n, h, w, c]`
        // and `[n, oh, ow, c]` in memory); each task writes its own output row.
        let (xn, yr) = unsafe {
            (
                std::slice::from_raw_parts(src.at((n * h * w * c) as isize), h * w * c),
                std::slice::from_raw_parts_mut(dst.at((t * ow * c) as isize), ow * c),
            )
        };
        let (a, b) = (th.l0[o], th.l1[o]);
        let (r0, r1) = (&xn[th.lo[o] * w * c..], &xn[th.hi[o] * w * c..]);
        with_wide(
            #[inline(always)]
            || {
                for (j, px) in yr.chunks_exact_mut(c).enumerate() {
                    let (i0, i1) = (tw.lo[j] * c, tw.hi[j] * c);
                    let ws = [a * tw.l0[j], a * tw.l1[j], b * tw.l0[j], b * tw.l1[j]];
                    let (p00, p01) = (&r0[i0..i0 + c], &r0[i1..i1 + c]);
                    let (p10, p11) = (&r1[i0..i0 + c], &r1[i1..i1 + c]);
                    for k in 0..c {
                        px[k] = blend([p00[k], p01[k], p10[k], p11[k]], ws);
                    }
                }
            },
        );
    };
    if rows < 2 || rows * ow * c < PARALLEL_MIN {
        (0..rows).for_each(run);
    } else {
        parallel_for(rows, run);
    }
}

/// Shape/dtype rule of `upsample_linear1d`: `[N, C, out_w]`.
pub fn upsample_linear1d_meta(x: &impl Shaped, output_size: &[i64]) -> Result<TensorMeta> {
    let [o] = output_size else {
        bail!(
            Runtime,
            "It is expected output_size equals to 1, but got size {}",
            output_size.len()
        );
    };
    if x.ndim() != 3 {
        bail!(
            Runtime,
            "It is expected input_size equals to 3, but got size {}",
            x.ndim()
        );
    }
    let s = x.shape();
    if s[2] == 0 || *o <= 0 {
        bail!(
            Runtime,
            "Input and output sizes should be greater than 0, but got input (W: {}) and output (W: {o})",
            s[2]
        );
    }
    float_dtype("upsample_linear1d_out_frame", x.dtype())?;
    Ok(TensorMeta::contiguous(
        x.dtype(),
        &[s[0], s[1], *o as usize],
    ))
}

/// `upsample_linear1d(x, output_size, align_corners, scales)`.
pub fn upsample_linear1d(
    x: &Tensor,
    output_size: &[i64],
    align_corners: bool,
    scales: Option<f64>,
) -> Result<Tensor> {
    let meta = upsample_linear1d_meta(x, output_size)?;
    let s = x.shape();
    let geo = Geo {
        n: s[0],
        c: s[1],
        hw: [1, s[2]],
        out: [1, meta.shape[2]],
        align: align_corners,
        scales: [None, scales],
        fused: false,
    };
    let out = in_compute_type(
        x,
        &meta.shape,
        |w, o| forward_rows::<f32>(w, o, &geo),
        |w, o| forward_rows::<f64>(w, o, &geo),
    );
    Ok(out)
}

/// The 1-D kernel, one task per `(n, c)` row: `fma(x0, w0, x1 * w1)` (not the 2-D blend on a
/// height-1 plane, whose zero row weights would turn an infinite input into NaN).
fn forward_rows<F: Flt>(x: &Tensor, out: &Tensor, geo: &Geo) {
    let (_, tw) = geo.taps::<F>();
    let (w, ow) = (geo.hw[1], geo.out[1]);
    let (src, dst) = (SendPtr(x.data_ptr::<F>()), SendPtr(out.data_ptr::<F>()));
    let rows = geo.n * geo.c;
    let run = |p: usize| {
        // SAFETY: `x` and `out` are distinct contiguous tensors of `rows` rows of `w` and `ow`
        // elements of F; each task writes only its own output row.
        let (xr, yr) = unsafe {
            (
                std::slice::from_raw_parts(src.at((p * w) as isize), w),
                std::slice::from_raw_parts_mut(dst.at((p * ow) as isize), ow),
            )
        };
        with_wide(
            #[inline(always)]
            || {
                for (j, y) in yr.iter_mut().enumerate() {
                    *y = xr[tw.lo[j]].mul_add(tw.l0[j], xr[tw.hi[j]] * tw.l1[j]);
                }
            },
        );
    };
    if rows < 2 || rows * ow < PARALLEL_MIN {
        (0..rows).for_each(run);
    } else {
        parallel_for(rows, run);
    }
}
