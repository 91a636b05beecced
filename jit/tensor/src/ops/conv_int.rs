//! Integer `conv1d` / `conv2d` (uint8, int8, int16, int32, int64), which ATen's `slow_conv2d_cpu`
//! computes exactly, wrapping on overflow in the tensor's own width. The sums here run in i64
//! with wrapping arithmetic and are narrowed once at the end: two's-complement addition and
//! multiplication commute with truncation modulo 2^bits, so the bits equal those of a sum kept in
//! the narrow type all along (int8 `100 * 100 * 3` gives 48 in both). A direct loop, not the float
//! path's im2col + GEMM: integer convolutions are rare and small, and exactness is what matters.

use rayon::prelude::*;

use crate::ops::conv::Geo;
use crate::{DType, Tensor};

/// The convolution of integer `x` and `w` (plus `b`) as a contiguous tensor of `x`'s dtype and
/// the given `shape` (`[n, o, out_h, out_w]` with the 1-D height and the unbatched `n` dropped).
pub(crate) fn conv_int(
    g: &Geo,
    shape: &[usize],
    x: &Tensor,
    w: &Tensor,
    b: Option<&Tensor>,
) -> Tensor {
    let (xs, ws) = (x.to_vec::<i64>(), w.to_vec::<i64>());
    let bias = b.map(|b| b.to_vec::<i64>());
    let [h, wd] = g.hw;
    let [kh, kw] = g.k;
    let [oh, ow] = g.out;
    let (cg, og) = (g.c / g.groups, g.o / g.groups);
    let mut out = vec![0i64; g.n * g.o * oh * ow];
    // One output plane (sample n, channel o) per task; planes are disjoint.
    out.par_chunks_mut((oh * ow).max(1))
        .enumerate()
        .for_each(|(no, plane)| {
            let (n, o) = (no / g.o, no % g.o);
            let first_c = n * g.c + o / og * cg;
            let start = bias.as_ref().map_or(0, |b| b[o]);
            for (p, v) in plane.iter_mut().enumerate() {
                let (oy, ox) = (p / ow, p % ow);
                let mut s = start;
                for ci in 0..cg {
                    let xc = &xs[(first_c + ci) * h * wd..][..h * wd];
                    let wc = &ws[(o * cg + ci) * kh * kw..][..kh * kw];
                    for ky in 0..kh {
                        let Some(iy) = tap(oy, ky, 0, g, h) else {
                            continue;
                        };
                        for kx in 0..kw {
                            if let Some(ix) = tap(ox, kx, 1, g, wd) {
                                s = s.wrapping_add(xc[iy * wd + ix].wrapping_mul(wc[ky * kw + kx]));
                            }
                        }
                    }
                }
                *v = s;
            }
        });
    let wide = Tensor::from_vec(out, shape).expect("invariant: the output holds n*o*oh*ow values");
    // The narrowing cast truncates, which is the wrap-around of the narrow type.
    if x.dtype() == DType::Int64 {
        wide
    } else {
        wide.to_dtype(x.dtype())
    }
}

/// The input index that output index `o` reads through kernel tap `k` along spatial dim `d`, or
/// `None` when it falls in the zero padding.
fn tap(o: usize, k: usize, d: usize, g: &Geo, len: usize) -> Option<usize> {
    (o * g.stride[d] + k * g.dil[d])
        .checked_sub(g.pad_lo[d])
        .filter(|&i| i < len)
}
