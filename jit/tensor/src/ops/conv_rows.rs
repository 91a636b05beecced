//! Row taps: the column layout of convolutions that step one input row per output row (stride 1
//! in height, kernel height above 1), shared by the forward (`conv.rs`) and both gradients
//! (`conv_backward.rs`).
//!
//! Full im2col writes every input value once per kernel tap (9 times for a 3x3 kernel), in
//! short runs of one output row each: in W12's training step, im2col and col2im took about 20%
//! of the time. With stride 1 in height, output row `y` under kernel row `i` reads input row
//! `y + i * dilation - pad`, so the rows a kernel row reads are the rows the kernel row above
//! read, moved down by `dilation`. The columns here expand only the kernel's width:
//! `R[(c, j), y' * ow + x]` is the input that kernel column `j` reads for output column `x` in
//! padded input row `y'`, over `oh + dilation * (kh - 1)` padded rows. Kernel row `i`'s columns
//! are then the view of `R` that starts `i * dilation` rows further on (same row stride, unit
//! column stride), and a convolution is `kh` GEMMs over views of one buffer, about `kh` times
//! smaller than im2col's.
//!
//! `R` is im2col of a derived geometry (kernel height 1, stride 1, `oh + dilation * (kh - 1)`
//! output rows), so [`im2col`]/[`col2im`] and their bitwise tests cover it.

use crate::kernels::math::Flt;
use crate::ops::conv::Geo;
use crate::ops::im2col::{col2im, im2col};

/// A convolution's row-tap layout (see the module docs).
pub(crate) struct RowTaps {
    /// The derived geometry whose im2col is `R`.
    geo: Geo,
    kh: usize,
    /// `R`'s row stride: padded rows times output width.
    q: usize,
    /// Elements between the views of consecutive kernel rows: `dilation * ow`.
    step: usize,
}

impl RowTaps {
    /// The layout of `g`, when it steps one row per output row and has more than one kernel
    /// row (otherwise im2col is already as small, or the views would not be evenly spaced).
    pub(crate) fn new(g: &Geo) -> Option<RowTaps> {
        let [kh, _] = g.k;
        if g.stride[0] != 1 || kh < 2 {
            return None;
        }
        let [oh, ow] = g.out;
        let rows = oh + g.dil[0] * (kh - 1);
        let geo = Geo {
            k: [1, g.k[1]],
            out: [rows, ow],
            dil: [1, g.dil[1]],
            ..g.clone()
        };
        Some(RowTaps {
            geo,
            kh,
            q: rows * ow,
            step: g.dil[0] * ow,
        })
    }

    /// Elements of `R` for `cg` channels.
    pub(crate) fn len(&self, cg: usize) -> usize {
        cg * self.geo.k[1] * self.q
    }

    /// `R`'s row stride.
    pub(crate) fn row_stride(&self) -> usize {
        self.q
    }

    /// Where kernel row `i`'s view of `R` starts.
    pub(crate) fn view(&self, i: usize) -> usize {
        i * self.step
    }

    /// Fills `col` (`[cg * kw, q]`) from one sample's channel group `src` (`[cg, h, w]`).
    pub(crate) fn expand<F: Flt>(&self, cg: usize, src: &[F], col: &mut [F]) {
        im2col(&self.geo, cg, src, col);
    }

    /// Adds `col` (`[cg * kw, q]`) back into one sample's channel group `dst`: the adjoint of
    /// [`RowTaps::expand`].
    pub(crate) fn fold<F: Flt>(&self, cg: usize, col: &[F], dst: &mut [F]) {
        col2im(&self.geo, cg, col, dst);
    }

    /// The weight (`[o, cg, kh, kw]`, contiguous) as one `[og, cg * kw]` matrix per group and
    /// kernel row, `[groups][kh][og][cg * kw]`: kernel row `i`'s taps for `R`'s rows.
    pub(crate) fn pack_weight<F: Flt>(&self, g: &Geo, w: &[F]) -> Vec<F> {
        let mut out = vec![F::zero(); w.len()];
        self.for_each_tap(g, |packed, natural| out[packed] = w[natural]);
        out
    }

    /// The weight gradient `[o, cg, kh, kw]` from the blocks the gradient GEMMs accumulate,
    /// `[groups][kh][cg * kw][og]` (transposed, as `conv_backward`'s full-im2col path keeps
    /// them).
    pub(crate) fn unpack_weight_grad<F: Flt>(&self, g: &Geo, acc: &[F]) -> Vec<F> {
        let mut out = vec![F::zero(); acc.len()];
        let og = g.o / g.groups;
        let kc = self.len(g.c / g.groups) / self.q;
        self.for_each_tap(g, |packed, natural| {
            // `packed` indexes [groups][kh][og][kc]; the gradient block is [groups][kh][kc][og].
            let (block, within) = (packed / (og * kc), packed % (og * kc));
            let (o, t) = (within / kc, within % kc);
            out[natural] = acc[block * og * kc + t * og + o];
        });
        out
    }

    /// Calls `f(packed, natural)` for every weight element: its index in the packed
    /// `[groups][kh][og][cg * kw]` layout and in the natural `[o, cg, kh, kw]` one.
    fn for_each_tap(&self, g: &Geo, mut f: impl FnMut(usize, usize)) {
        let (kh, kw) = (self.kh, g.k[1]);
        let (cg, og) = (g.c / g.groups, g.o / g.groups);
        let kc = cg * kw;
        for o in 0..g.o {
            let (gi, oo) = (o / og, o % og);
            for c in 0..cg {
                for i in 0..kh {
                    for j in 0..kw {
                        let packed = ((gi * kh + i) * og + oo) * kc + c * kw + j;
                        f(packed, ((o * cg + c) * kh + i) * kw + j);
                    }
                }
            }
        }
    }
}
