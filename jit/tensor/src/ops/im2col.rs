//! `im2col` and its adjoint `col2im`, shared by the convolution (`conv.rs`) and its backward
//! (`conv_backward.rs`).
//!
//! Both walk (channel, kernel row, kernel column) and touch, per window, only the output rows
//! and columns that read the input: the in-bounds stretches come from [`in_bounds`] once per
//! kernel row and once per kernel column, not per output row (its two divisions cost more than
//! copying a 16-wide row). Padding is zeroed in whole runs. In-bounds runs are copied with
//! `copy_from_slice` at stride 1 and by pairs at stride 2 (the generic loop stays scalar).
//! Pure data movement: the results are the same bits as the element-by-element definition, and
//! col2im adds each column entry in the same (channel, kernel row, kernel column, output row,
//! output column) order as before, so its sums are the same bits too (pinned by
//! `tests/backward_kernels.rs`).

use crate::kernels::math::Flt;
use crate::kernels::simd::with_wide;
use crate::ops::conv::Geo;

/// The output positions `x0..x1` whose input position `x * stride + off` lies in `0..w` (a
/// window row's or column's in-bounds stretch; the rest read padding).
#[inline(always)]
pub(crate) fn in_bounds(off: isize, stride: usize, w: usize, ow: usize) -> (usize, usize) {
    let s = stride as isize;
    // smallest x with x * s + off >= 0, and the first x with x * s + off >= w
    let x0 = if off >= 0 { 0 } else { (-off + s - 1) / s };
    let x1 = if (w as isize) - off <= 0 {
        0
    } else {
        ((w as isize) - off + s - 1) / s
    };
    let x1 = (x1.max(0) as usize).min(ow);
    ((x0 as usize).min(x1), x1)
}

/// One window's geometry along a spatial dim: the offset of its first tap, and the output
/// positions that read the input.
struct Run {
    off: isize,
    lo: usize,
    hi: usize,
}

impl Run {
    #[inline(always)]
    fn new(tap: usize, dil: usize, pad: usize, stride: usize, size: usize, out: usize) -> Run {
        let off = (tap * dil) as isize - pad as isize;
        let (lo, hi) = in_bounds(off, stride, size, out);
        Run { off, lo, hi }
    }

    /// The input position read by output position `x` (in `lo..hi`).
    #[inline(always)]
    fn at(&self, x: usize, stride: usize) -> usize {
        ((x * stride) as isize + self.off) as usize
    }
}

/// Fills `col` (`[cg * kh * kw, oh * ow]`) from one sample's channel group `src` (`[cg, h, w]`).
///
/// Per output row only the stretches that exist are written: the left and right padding are
/// usually empty (a 3x3 kernel with padding 1 pads one column on the two outer taps only), and
/// calling `fill` on an empty run still cost a `memset` call per row (~40% of this function's
/// instructions in W12's training step).
pub(crate) fn im2col<F: Flt>(g: &Geo, cg: usize, src: &[F], col: &mut [F]) {
    // The crate builds for SSE2: the wide tier moves 16 f32 per instruction in the copies,
    // gathers and fills the compiler keeps inline.
    with_wide(
        #[inline(always)]
        || im2col_in(g, cg, src, col),
    )
}

#[inline(always)]
fn im2col_in<F: Flt>(g: &Geo, cg: usize, src: &[F], col: &mut [F]) {
    let [h, w] = g.hw;
    let [kh, kw] = g.k;
    let [oh, ow] = g.out;
    let [sh, sw] = g.stride;
    let l = oh * ow;
    for c in 0..cg {
        let plane = &src[c * h * w..(c + 1) * h * w];
        for i in 0..kh {
            let ry = Run::new(i, g.dil[0], g.pad_lo[0], sh, h, oh);
            for j in 0..kw {
                let rx = Run::new(j, g.dil[1], g.pad_lo[1], sw, w, ow);
                let row = &mut col[((c * kh + i) * kw + j) * l..][..l];
                if rx.lo == rx.hi {
                    row.fill(F::zero());
                    continue;
                }
                row[..ry.lo * ow].fill(F::zero());
                row[ry.hi * ow..].fill(F::zero());
                let (lo, hi) = (rx.lo, rx.hi);
                let first = rx.at(lo, sw);
                if sh == 1 && sw == 1 && ow == w && ry.lo < ry.hi {
                    // Unit strides and rows as wide as the input's: entry (y, x) reads a fixed
                    // distance past its own index, so all the in-bounds rows are one copy
                    // (a copy per row cost a `memcpy` call per 16 elements in W12), after
                    // which the padding columns, which got the neighbouring rows' values, are
                    // zeroed again.
                    let (a, b) = (ry.lo * ow + lo, (ry.hi - 1) * ow + hi);
                    let from = ry.at(ry.lo, 1) * w + first;
                    row[a..b].copy_from_slice(&plane[from..from + (b - a)]);
                    let body = &mut row[ry.lo * ow..ry.hi * ow];
                    // column by column: strided stores, no `memset` call per row
                    for x in (0..lo).chain(hi..ow) {
                        for v in body[x..].iter_mut().step_by(ow) {
                            *v = F::zero();
                        }
                    }
                    continue;
                }
                let rows = row[ry.lo * ow..ry.hi * ow].chunks_exact_mut(ow);
                for (y, dst) in (ry.lo..ry.hi).zip(rows) {
                    if lo > 0 {
                        dst[..lo].fill(F::zero());
                    }
                    if hi < ow {
                        dst[hi..].fill(F::zero());
                    }
                    let line = &plane[ry.at(y, sh) * w + first..];
                    gather(sw, line, &mut dst[lo..hi]);
                }
            }
        }
    }
}

/// Adds `col` (`[cg * kh * kw, oh * ow]`) back into one sample's channel group `dst`
/// (`[cg, h, w]`): the adjoint of [`im2col`].
///
/// Left in the SSE2 build: under `with_wide` W12's step spent more here (col2im's share of the
/// profile went from 5.0% to 6.9%), the strided adds at stride 2 being the likely cause.
pub(crate) fn col2im<F: Flt>(g: &Geo, cg: usize, col: &[F], dst: &mut [F]) {
    let [h, w] = g.hw;
    let [kh, kw] = g.k;
    let [oh, ow] = g.out;
    let [sh, sw] = g.stride;
    let l = oh * ow;
    for c in 0..cg {
        let plane = &mut dst[c * h * w..(c + 1) * h * w];
        for i in 0..kh {
            let ry = Run::new(i, g.dil[0], g.pad_lo[0], sh, h, oh);
            for j in 0..kw {
                let rx = Run::new(j, g.dil[1], g.pad_lo[1], sw, w, ow);
                if rx.lo == rx.hi {
                    continue;
                }
                let row = &col[((c * kh + i) * kw + j) * l..][..l];
                let first = rx.at(rx.lo, sw);
                for y in ry.lo..ry.hi {
                    let line = &mut plane[ry.at(y, sh) * w + first..];
                    scatter_add(sw, &row[y * ow + rx.lo..y * ow + rx.hi], line);
                }
            }
        }
    }
}

/// `dst[k] = src[k * stride]` for every `k`; `src` holds at least `(dst.len() - 1) * stride + 1`
/// elements.
#[inline(always)]
fn gather<F: Copy>(stride: usize, src: &[F], dst: &mut [F]) {
    match stride {
        1 => dst.copy_from_slice(&src[..dst.len()]),
        2 => gather_pairs(src, dst),
        s => gather_strided(s, src, dst),
    }
}

/// [`gather`] at stride 2: the first of each pair, as whole pairs (no index arithmetic per
/// element), then the last element, whose pair may end past the input row.
#[inline(always)]
fn gather_pairs<F: Copy>(src: &[F], dst: &mut [F]) {
    let Some(last) = dst.len().checked_sub(1) else {
        return;
    };
    let (body, tail) = dst.split_at_mut(last);
    for (d, pair) in body.iter_mut().zip(src[..2 * last].chunks_exact(2)) {
        *d = pair[0];
    }
    tail[0] = src[2 * last];
}

#[inline(always)]
fn gather_strided<F: Copy>(stride: usize, src: &[F], dst: &mut [F]) {
    let Some(last) = dst.len().checked_sub(1) else {
        return;
    };
    assert!(
        last * stride < src.len(),
        "invariant: a run stays in its input row"
    );
    for (k, d) in dst.iter_mut().enumerate() {
        // SAFETY: k <= last, and last * stride is in bounds (asserted above).
        *d = unsafe { *src.get_unchecked(k * stride) };
    }
}

/// `dst[k * stride] += src[k]` for every `k`, in order of `k`; `dst` holds at least
/// `(src.len() - 1) * stride + 1` elements.
#[inline(always)]
fn scatter_add<F: Flt>(stride: usize, src: &[F], dst: &mut [F]) {
    match stride {
        1 => {
            for (d, &v) in dst[..src.len()].iter_mut().zip(src) {
                *d += v;
            }
        }
        2 => scatter_add_strided(2, src, dst),
        s => scatter_add_strided(s, src, dst),
    }
}

#[inline(always)]
fn scatter_add_strided<F: Flt>(stride: usize, src: &[F], dst: &mut [F]) {
    let Some(last) = src.len().checked_sub(1) else {
        return;
    };
    assert!(
        last * stride < dst.len(),
        "invariant: a run stays in its input row"
    );
    for (k, &v) in src.iter().enumerate() {
        // SAFETY: k <= last, and last * stride is in bounds (asserted above).
        unsafe { *dst.get_unchecked_mut(k * stride) += v };
    }
}
