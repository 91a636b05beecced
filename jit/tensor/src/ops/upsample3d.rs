//! `upsample_trilinear3d` and its backward: `F.interpolate(mode="trilinear")`, as ATen's CPU
//! kernels compute it (taps as in `upsample.rs`).
//!
//! Forward: ATen's generic kernel, which it runs for every contiguous (NCDHW) input, nests the
//! dims, `t0 * w0 + t1 * w1` per dim from W outwards, compiled to `fma(t0, w0, t1 * w1)`, the
//! source coordinate not contracted: the same here as three separable passes per plane (W over
//! every input row, then H, then D; each value is the nested sum's), PyTorch's bits in f32
//! (`tests/python/nn/upsample_vs_pytorch.py`; f64 differs in the last bit, not investigated). Channels-last inputs are copied to NCDHW first and
//! the result laid out channels-last again; ATen's channels-last kernel (C > 3) sums the eight
//! products instead, so those differ from PyTorch's in the last bit.
//!
//! Backward: ATen's scatter, each output's gradient to its eight taps in (D, H, W) order,
//! `g_in = fma((wd * wh) * ww, g_out, g_in)`, the source coordinate contracted: bit for bit. Per
//! output row, its four input rows take their terms per cell in a register (`add_row`) when they
//! are distinct; the scatter itself where two coincide (edges, equal sizes).

use crate::error::bail;
use crate::iter::SendPtr;
use crate::kernels::math::Flt;
use crate::kernels::simd::with_wide;
use crate::layout::Shaped;
use crate::memory_format::suggested;
use crate::ops::upsample::{PARALLEL_MIN, Taps, float_dtype, in_compute_type, taps};
use crate::ops::upsample_backward::{Readers, add_row, grad_input_meta};
use crate::parallel::parallel_for;
use crate::{Result, Tensor, TensorMeta};

/// The sizes of one call: planes, input and output `[D, H, W]`, taps options.
#[derive(Clone, Copy, Debug)]
struct Geo3 {
    planes: usize,
    ins: [usize; 3],
    outs: [usize; 3],
    align: bool,
    scales: [Option<f64>; 3],
}

impl Geo3 {
    fn taps<F: Flt>(&self, fused: bool) -> [Taps<F>; 3] {
        std::array::from_fn(|i| taps(self.ins[i], self.outs[i], self.align, self.scales[i], fused))
    }
}

fn check(input: &[usize], out: &[i64]) -> Result<[usize; 3]> {
    let [od, oh, ow] = out else {
        bail!(
            Runtime,
            "It is expected output_size equals to 3, but got size {}",
            out.len()
        );
    };
    if input.len() != 5 {
        bail!(
            Runtime,
            "It is expected input_size equals to 5, but got size {}",
            input.len()
        );
    }
    let (d, h, w) = (input[2], input[3], input[4]);
    if d == 0 || h == 0 || w == 0 || *od <= 0 || *oh <= 0 || *ow <= 0 {
        bail!(
            Runtime,
            "Input and output sizes should be greater than 0, but got input (D: {d}, H: {h}, W: {w}) output (D: {od}, H: {oh}, W: {ow})"
        );
    }
    Ok([*od as usize, *oh as usize, *ow as usize])
}

/// Shape/dtype rule of `upsample_trilinear3d`: `[N, C, out_d, out_h, out_w]` in the input's
/// suggested memory format.
pub fn upsample_trilinear3d_meta(x: &impl Shaped, output_size: &[i64]) -> Result<TensorMeta> {
    let o = check(x.shape(), output_size)?;
    float_dtype("upsample_trilinear3d_channels_last", x.dtype())?;
    let s = x.shape();
    Ok(TensorMeta::contiguous(x.dtype(), &[s[0], s[1], o[0], o[1], o[2]]).in_format(suggested(x)))
}

/// `upsample_trilinear3d(x, output_size, align_corners, scales_d, scales_h, scales_w)`.
pub fn upsample_trilinear3d(
    x: &Tensor,
    output_size: &[i64],
    align_corners: bool,
    scales: [Option<f64>; 3],
) -> Result<Tensor> {
    let meta = upsample_trilinear3d_meta(x, output_size)?;
    let s = x.shape();
    let geo = Geo3 {
        planes: s[0] * s[1],
        ins: [s[2], s[3], s[4]],
        outs: [meta.shape[2], meta.shape[3], meta.shape[4]],
        align: align_corners,
        scales,
    };
    let out = in_compute_type(
        x,
        &meta.shape,
        |w, o| forward::<f32>(w, o, &geo),
        |w, o| forward::<f64>(w, o, &geo),
    );
    Ok(out.laid_out_as(&meta))
}

fn forward<F: Flt>(x: &Tensor, out: &Tensor, geo: &Geo3) {
    let t = geo.taps::<F>(false);
    let ([d, h, w], [od, oh, ow]) = (geo.ins, geo.outs);
    let (src, dst) = (SendPtr(x.data_ptr::<F>()), SendPtr(out.data_ptr::<F>()));
    let run = |p: usize| {
        // SAFETY: `x` and `out` are distinct contiguous tensors of `planes` planes of `d * h * w`
        // and `od * oh * ow` elements of F; each task writes only its own output plane.
        let (xp, yp) = unsafe {
            (
                std::slice::from_raw_parts(src.at((p * d * h * w) as isize), d * h * w),
                std::slice::from_raw_parts_mut(dst.at((p * od * oh * ow) as isize), od * oh * ow),
            )
        };
        let mut u = vec![F::zero(); d * h * ow];
        let mut v = vec![F::zero(); d * oh * ow];
        with_wide(
            #[inline(always)]
            || plane(xp, yp, &t, [d, h, w], (&mut u, &mut v)),
        );
    };
    if geo.planes < 2 || geo.planes * od * oh * ow < PARALLEL_MIN {
        (0..geo.planes).for_each(run);
    } else {
        parallel_for(geo.planes, run);
    }
}

/// `fma(a, wa, b * wb)` over two rows into `out`.
#[inline(always)]
fn lerp<F: Flt>(out: &mut [F], a: &[F], b: &[F], wa: F, wb: F) {
    let (a, b) = (&a[..out.len()], &b[..out.len()]);
    for (j, o) in out.iter_mut().enumerate() {
        *o = a[j].mul_add(wa, b[j] * wb);
    }
}

/// One output plane: `u` (`[d, h, ow]`) the W pass, `v` (`[d, oh, ow]`) the H pass, then D.
#[inline(always)]
fn plane<F: Flt>(
    x: &[F],
    y: &mut [F],
    [td, th, tw]: &[Taps<F>; 3],
    [d, h, w]: [usize; 3],
    (u, v): (&mut [F], &mut [F]),
) {
    let (oh, ow) = (th.lo.len(), tw.lo.len());
    for (xr, ur) in x.chunks_exact(w).zip(u.chunks_exact_mut(ow)) {
        for (j, o) in ur.iter_mut().enumerate() {
            *o = xr[tw.lo[j]].mul_add(tw.l0[j], xr[tw.hi[j]] * tw.l1[j]);
        }
    }
    for dd in 0..d {
        let us = &u[dd * h * ow..(dd + 1) * h * ow];
        for (o, vr) in v[dd * oh * ow..(dd + 1) * oh * ow]
            .chunks_exact_mut(ow)
            .enumerate()
        {
            let (a, b) = (&us[th.lo[o] * ow..], &us[th.hi[o] * ow..]);
            lerp(vr, a, b, th.l0[o], th.l1[o]);
        }
    }
    let s = oh * ow;
    for (o, yr) in y.chunks_exact_mut(s).enumerate() {
        let (a, b) = (&v[td.lo[o] * s..], &v[td.hi[o] * s..]);
        lerp(yr, a, b, td.l0[o], td.l1[o]);
    }
}

/// Shape/dtype rule of `upsample_trilinear3d_backward`: `input_size`, in the gradient's
/// suggested memory format.
pub fn upsample_trilinear3d_backward_meta(
    g: &impl Shaped,
    output_size: &[i64],
    input_size: &[i64],
) -> Result<TensorMeta> {
    if input_size.iter().any(|&v| v < 0) {
        bail!(
            Runtime,
            "input_size must be non-negative, got {input_size:?}"
        );
    }
    let is: Vec<usize> = input_size.iter().map(|&v| v as usize).collect();
    let o = check(&is, output_size)?;
    grad_input_meta(g, &is, &o, "upsample_trilinear3d_backward_out_frame")
}

/// `upsample_trilinear3d_backward(grad_output, output_size, input_size, align_corners, scales_d,
/// scales_h, scales_w)`.
pub fn upsample_trilinear3d_backward(
    g: &Tensor,
    output_size: &[i64],
    input_size: &[i64],
    align_corners: bool,
    scales: [Option<f64>; 3],
) -> Result<Tensor> {
    let meta = upsample_trilinear3d_backward_meta(g, output_size, input_size)?;
    let s = &meta.shape;
    let gs = g.shape();
    let geo = Geo3 {
        planes: s[0] * s[1],
        ins: [s[2], s[3], s[4]],
        outs: [gs[2], gs[3], gs[4]],
        align: align_corners,
        scales,
    };
    let out = in_compute_type(
        g,
        s,
        |w, o| backward::<f32>(w, o, &geo),
        |w, o| backward::<f64>(w, o, &geo),
    );
    Ok(out.laid_out_as(&meta))
}

fn backward<F: Flt>(g: &Tensor, out: &Tensor, geo: &Geo3) {
    let t = geo.taps::<F>(true);
    let ([d, h, w], [od, oh, ow]) = (geo.ins, geo.outs);
    let (src, dst) = (SendPtr(g.data_ptr::<F>()), SendPtr(out.data_ptr::<F>()));
    let rw = Readers::of(&t[2], w);
    let run = |p: usize| {
        // SAFETY: `g` and `out` are distinct contiguous tensors of `planes` planes of
        // `od * oh * ow` and `d * h * w` elements of F; each task writes only its own plane.
        let (gp, xp) = unsafe {
            (
                std::slice::from_raw_parts(src.at((p * od * oh * ow) as isize), od * oh * ow),
                std::slice::from_raw_parts_mut(dst.at((p * d * h * w) as isize), d * h * w),
            )
        };
        with_wide(
            #[inline(always)]
            || backward_plane(gp, xp, &t, &rw, [h, w]),
        );
    };
    if geo.planes < 2 || geo.planes * od * oh * ow < PARALLEL_MIN {
        (0..geo.planes).for_each(run);
    } else {
        parallel_for(geo.planes, run);
    }
}

/// One input-gradient plane, ATen's scatter in its order. Inlined into `with_wide`, where
/// `mul_add` is one instruction (out of line it would be a libm call).
#[inline(always)]
fn backward_plane<F: Flt>(
    g: &[F],
    x: &mut [F],
    [td, th, tw]: &[Taps<F>; 3],
    rw: &Readers<F>,
    [h, w]: [usize; 2],
) {
    let (oh, ow) = (th.lo.len(), tw.lo.len());
    x.fill(F::zero());
    for (r, gr) in g.chunks_exact(ow).enumerate() {
        let (o_d, o_h) = (r / oh, r % oh);
        let ds = [(td.lo[o_d], td.l0[o_d]), (td.hi[o_d], td.l1[o_d])];
        let hs = [(th.lo[o_h], th.l0[o_h]), (th.hi[o_h], th.l1[o_h])];
        if ds[0].0 != ds[1].0 && hs[0].0 != hs[1].0 {
            for (dd, a) in ds {
                for (hh, b) in hs {
                    let row = (dd * h + hh) * w;
                    add_row(&mut x[row..row + w], gr, a * b, rw);
                }
            }
            continue;
        }
        for (o_w, &gv) in gr.iter().enumerate() {
            for (dd, a) in ds {
                for (hh, b) in hs {
                    let ab = a * b;
                    let row = (dd * h + hh) * w;
                    for (ww, c) in [(tw.lo[o_w], tw.l0[o_w]), (tw.hi[o_w], tw.l1[o_w])] {
                        x[row + ww] = (ab * c).mul_add(gv, x[row + ww]);
                    }
                }
            }
        }
    }
}
