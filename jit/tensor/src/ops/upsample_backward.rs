//! `upsample_bilinear2d_backward` and `upsample_linear1d_backward`: the adjoints of the forward
//! ops in `upsample.rs` (linear in `grad_output`).
//!
//! ATen's order, which these reproduce bit for bit (`tests/python/nn/upsample_vs_pytorch.py`):
//! each output's gradient goes to its taps in output order, `g_in = fma(w, g_out, g_in)` with
//! `w = h_weight * w_weight` (the 1-D kernel: `w` the one weight), the source coordinate
//! FMA-contracted. Computed per input cell from the transposed taps ([`Readers`]), in a register:
//! the scatter's read-modify-write chains through the same cells were ~4x slower.

use crate::error::bail;
use crate::iter::SendPtr;
use crate::kernels::math::Flt;
use crate::kernels::simd::with_wide;
use crate::layout::Shaped;
use crate::memory_format::suggested;
use crate::ops::upsample::{
    Geo, PARALLEL_MIN, Taps, check_sizes, float_dtype, in_compute_type, pair,
};
use crate::parallel::parallel_for;
use crate::{Result, Tensor, TensorMeta};

/// Shape/dtype rule of `upsample_bilinear2d_backward`: `input_size`, in the gradient's suggested
/// memory format.
pub fn upsample_bilinear2d_backward_meta(
    g: &impl Shaped,
    output_size: &[i64],
    input_size: &[i64],
) -> Result<TensorMeta> {
    let o = pair(output_size)?;
    if input_size.len() != 4 || input_size.iter().any(|&v| v < 0) {
        bail!(
            Runtime,
            "It is expected input_size equals to 4, but got size {}",
            input_size.len()
        );
    }
    let is: Vec<usize> = input_size.iter().map(|&v| v as usize).collect();
    let o = check_sizes(&is, o)?;
    grad_input_meta(g, &is, &o, "upsample_bilinear2d_backward_out_frame")
}

/// What every backward op checks once its sizes are resolved (ATen's
/// `upsample_*_backward_out` shape checks): `grad_output` is the output's shape,
/// `[n, c, *out]`, and a float dtype (`op` names the kernel in the error). The gradient has the
/// input's shape `is`, in `grad_output`'s suggested layout.
pub(crate) fn grad_input_meta(
    g: &impl Shaped,
    is: &[usize],
    out: &[usize],
    op: &'static str,
) -> Result<TensorMeta> {
    let nd = out.len() + 2;
    if g.ndim() != nd {
        bail!(
            Runtime,
            "Expected grad_output to be a tensor of dimension {nd} but got: dimension {}",
            g.ndim()
        );
    }
    let want = is[..2].iter().chain(out);
    for (i, (&got, &want)) in g.shape().iter().zip(want).enumerate() {
        if got != want {
            bail!(
                Runtime,
                "Expected grad_output to have the same shape as output; output.size({i}) = {want} but got grad_output.size({i}) = {got}"
            );
        }
    }
    float_dtype(op, g.dtype())?;
    Ok(TensorMeta::contiguous(g.dtype(), is).in_format(suggested(g)))
}

/// `upsample_bilinear2d_backward(grad_output, output_size, input_size, align_corners, scales_h,
/// scales_w)`: the adjoint of the forward (linear in `grad_output`).
pub fn upsample_bilinear2d_backward(
    g: &Tensor,
    output_size: &[i64],
    input_size: &[i64],
    align_corners: bool,
    scales: [Option<f64>; 2],
) -> Result<Tensor> {
    let meta = upsample_bilinear2d_backward_meta(g, output_size, input_size)?;
    let s = &meta.shape;
    let geo = Geo {
        n: s[0],
        c: s[1],
        hw: [s[2], s[3]],
        out: [g.shape()[2], g.shape()[3]],
        align: align_corners,
        scales,
        fused: true,
    };
    let out = in_compute_type(
        g,
        s,
        |w, o| backward_planes::<f32>(w, o, &geo, false),
        |w, o| backward_planes::<f64>(w, o, &geo, false),
    );
    Ok(out.laid_out_as(&meta))
}

/// The transpose of one dim's taps: for each input index, the outputs that read it, in ATen's
/// accumulation order (by output, then tap), with the tap's weight.
pub(crate) struct Readers<F> {
    start: Vec<usize>,
    out: Vec<u32>,
    weight: Vec<F>,
}

impl<F: Flt> Readers<F> {
    pub(crate) fn of(t: &Taps<F>, n_in: usize) -> Readers<F> {
        let mut start = vec![0usize; n_in + 1];
        for (&lo, &hi) in t.lo.iter().zip(&t.hi) {
            start[lo + 1] += 1;
            start[hi + 1] += 1;
        }
        for i in 0..n_in {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut out = vec![0u32; start[n_in]];
        let mut weight = vec![F::zero(); start[n_in]];
        for (o, (&lo, &hi)) in t.lo.iter().zip(&t.hi).enumerate() {
            for (i, l) in [(lo, t.l0[o]), (hi, t.l1[o])] {
                out[fill[i]] = o as u32;
                weight[fill[i]] = l;
                fill[i] += 1;
            }
        }
        Readers { start, out, weight }
    }
}

/// Adds one output row's gradient `g` into input row `row` read with row weight `a`: each input
/// cell's terms in ATen's order, `fma(a * l, g, acc)`, accumulated in a register instead of
/// through memory (a scatter's read-modify-write chain through the same cells was ~4x slower).
#[inline(always)]
pub(crate) fn add_row<F: Flt>(row: &mut [F], g: &[F], a: F, rd: &Readers<F>) {
    for (c, acc) in row.iter_mut().enumerate() {
        let mut s = *acc;
        for e in rd.start[c]..rd.start[c + 1] {
            s = (a * rd.weight[e]).mul_add(g[rd.out[e] as usize], s);
        }
        *acc = s;
    }
}

fn backward_planes<F: Flt>(g: &Tensor, out: &Tensor, geo: &Geo, one_d: bool) {
    let (th, tw) = geo.taps::<F>();
    let ([h, w], [oh, ow]) = (geo.hw, geo.out);
    let (src, dst) = (SendPtr(g.data_ptr::<F>()), SendPtr(out.data_ptr::<F>()));
    let planes = geo.n * geo.c;
    let rw = Readers::of(&tw, w);
    let run = |p: usize| {
        // SAFETY: `g` and `out` are distinct contiguous tensors of `planes` planes of
        // `oh * ow` and `h * w` elements of F; each task writes only its own plane.
        let (gp, xp) = unsafe {
            (
                std::slice::from_raw_parts(src.at((p * oh * ow) as isize), oh * ow),
                std::slice::from_raw_parts_mut(dst.at((p * h * w) as isize), h * w),
            )
        };
        with_wide(
            #[inline(always)]
            || backward_plane(gp, xp, (&th, &tw), &rw, one_d),
        );
    };
    if planes < 2 || planes * oh * ow < PARALLEL_MIN {
        (0..planes).for_each(run);
    } else {
        parallel_for(planes, run);
    }
}

/// One input-gradient plane `x` (`[h, w]`) from the output gradient plane `g`. Inlined into
/// `with_wide`: out of line it stays baseline code, where `mul_add` is a libm call (measured:
/// 28% of the backward's samples in `fmaf`). `one_d`: ATen's 1-D kernel, two taps per output.
#[inline(always)]
fn backward_plane<F: Flt>(
    g: &[F],
    x: &mut [F],
    (th, tw): (&Taps<F>, &Taps<F>),
    rw: &Readers<F>,
    one_d: bool,
) {
    let (w, ow) = (rw.start.len() - 1, tw.lo.len());
    x.fill(F::zero());
    for (o, gr) in g.chunks_exact(ow).enumerate() {
        let (a, b) = (th.l0[o], th.l1[o]);
        let (r0, r1) = (th.lo[o], th.hi[o]);
        if one_d {
            add_row(&mut x[..w], gr, F::one(), rw);
            continue;
        }
        if r0 != r1 {
            add_row(&mut x[r0 * w..(r0 + 1) * w], gr, a, rw);
            add_row(&mut x[r1 * w..(r1 + 1) * w], gr, b, rw);
            continue;
        }
        // Both taps in one row (its edge, or equal sizes): ATen's order interleaves them.
        let row = &mut x[r0 * w..(r0 + 1) * w];
        for (j, &gv) in gr.iter().enumerate() {
            let (c0, c1) = (tw.lo[j], tw.hi[j]);
            let (w0, w1) = (tw.l0[j], tw.l1[j]);
            for (at, wt) in [(c0, a * w0), (c1, a * w1), (c0, b * w0), (c1, b * w1)] {
                row[at] = wt.mul_add(gv, row[at]);
            }
        }
    }
}

/// Shape/dtype rule of `upsample_linear1d_backward`: `input_size`.
pub fn upsample_linear1d_backward_meta(
    g: &impl Shaped,
    output_size: &[i64],
    input_size: &[i64],
) -> Result<TensorMeta> {
    let [o] = output_size else {
        bail!(
            Runtime,
            "It is expected output_size equals to 1, but got size {}",
            output_size.len()
        );
    };
    if input_size.len() != 3 || input_size.iter().any(|&v| v < 0) {
        bail!(
            Runtime,
            "It is expected input_size equals to 3, but got size {}",
            input_size.len()
        );
    }
    let is: Vec<usize> = input_size.iter().map(|&v| v as usize).collect();
    if is[2] == 0 || *o <= 0 {
        bail!(
            Runtime,
            "Input and output sizes should be greater than 0, but got input (W: {}) and output (W: {o})",
            is[2]
        );
    }
    // (A 3-D gradient's suggested layout is always contiguous.)
    grad_input_meta(
        g,
        &is,
        &[*o as usize],
        "upsample_linear1d_backward_out_frame",
    )
}

/// `upsample_linear1d_backward(grad_output, output_size, input_size, align_corners, scales)`.
pub fn upsample_linear1d_backward(
    g: &Tensor,
    output_size: &[i64],
    input_size: &[i64],
    align_corners: bool,
    scales: Option<f64>,
) -> Result<Tensor> {
    let meta = upsample_linear1d_backward_meta(g, output_size, input_size)?;
    let s = &meta.shape;
    let geo = Geo {
        n: s[0],
        c: s[1],
        hw: [1, s[2]],
        out: [1, g.shape()[2]],
        align: align_corners,
        scales: [None, scales],
        fused: true,
    };
    let out = in_compute_type(
        g,
        s,
        |w, o| backward_planes::<f32>(w, o, &geo, true),
        |w, o| backward_planes::<f64>(w, o, &geo, true),
    );
    Ok(out)
}
