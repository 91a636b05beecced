//! Row taps: the column layout of convolutions with more than one kernel row, shared by the
//! forward (`conv.rs`) and both gradients (`conv_backward.rs`).
//!
//! Full im2col writes every input value once per kernel tap (9 times for a 3x3 kernel), in
//! short runs of one output row each: in W12's training step, im2col and col2im took about 20%
//! of the time. Output row `y` under kernel row `i` reads padded input row
//! `y * stride + i * dilation`. Kernel rows whose `i * dilation` leave the same remainder `r`
//! modulo the stride (a residue class; with stride 1, all of them) read the same padded rows,
//! shifted by whole output rows: with `i * dilation = m * stride + r`, kernel row `i` reads
//! class row `y + m`. So the columns here expand only the kernel's width, one buffer per class,
//! `R_r[(c, j), t * ow + x]` = the input that kernel column `j` reads for output column `x` in
//! padded row `t * stride + r`, over `oh + max m` rows; kernel row `i`'s columns are the view of
//! its class's buffer that starts `m` rows in (same row stride, unit column stride). A
//! convolution is then `kh` GEMMs over views of buffers about `kh` times smaller than im2col's
//! at stride 1 (1.5 times at 3x3 stride 2).
//!
//! Each `R_r` is im2col of a derived geometry (kernel height 1, the same strides, the top padding
//! less `r`, `oh + max m` output rows), so [`im2col`]/[`col2im`] and their bitwise tests cover it.

use crate::Tensor;
use crate::iter::SendPtr;
use crate::kernels::math::Flt;
use crate::ops::conv::Geo;
use crate::ops::im2col::{col2im, im2col};
use crate::parallel::{parallel_for, usable_threads};

/// A convolution's row-tap layout (see the module docs).
pub(crate) struct RowTaps {
    /// One column buffer per residue class, in order.
    classes: Vec<Class>,
    /// Every kernel row, class by class.
    taps: Vec<Tap>,
    kh: usize,
    kw: usize,
    /// Output positions per channel: `oh * ow`.
    l: usize,
}

/// The kernel rows whose first input row lies `r` rows past a multiple of the stride: their
/// columns are one buffer, `R_r[(c, j), t * ow + x]` = the input that kernel column `j` reads
/// for output column `x` in padded input row `t * stride + r`.
struct Class {
    /// The derived geometry whose im2col is `R_r`.
    geo: Geo,
    /// `R_r`'s row stride: its rows times the output width.
    q: usize,
    /// Sum of the row strides of the classes before it (its place in the buffer, per row).
    before: usize,
}

/// One kernel row: its class, and where its view starts within the class's rows.
struct Tap {
    i: usize,
    class: usize,
    view: usize,
}

/// A view of the columns for one kernel row: `[cg * kw, l]` at `offset`, row stride `q`.
pub(crate) struct View {
    /// The kernel row.
    pub(crate) i: usize,
    /// Elements from the start of the buffer.
    pub(crate) offset: usize,
    /// Row stride.
    pub(crate) q: usize,
    /// Whether it is its class's first view (see [`RowTaps::clear_around`]).
    pub(crate) first: bool,
    /// Where its class's columns start.
    start: usize,
}

impl RowTaps {
    /// The layout of `g`, when it has more than one kernel row and its classes hold fewer rows
    /// than im2col would (with stride 1 one class holds every kernel row; with stride 2 and
    /// three kernel rows, rows 0 and 2 share one), by more than twice the weight's elements. `None` also when a class would start inside
    /// the top padding's complement (more of it than the padding), which the derived geometry
    /// cannot express.
    pub(crate) fn new(g: &Geo) -> Option<RowTaps> {
        let ([kh, kw], [oh, ow]) = (g.k, g.out);
        let (sh, dh, ph) = (g.stride[0], g.dil[0], g.pad_lo[0]);
        if kh < 2 {
            return None;
        }
        let (mut classes, mut taps, mut before) = (Vec::new(), Vec::new(), 0);
        for r in 0..sh {
            let rows: Vec<usize> = (0..kh).filter(|i| i * dh % sh == r).collect();
            let Some(&last) = rows.last() else {
                continue;
            };
            if r > ph {
                return None;
            }
            let height = oh + last * dh / sh;
            let geo = Geo {
                k: [1, kw],
                out: [height, ow],
                stride: [sh, g.stride[1]],
                pad_lo: [ph - r, g.pad_lo[1]],
                dil: [1, g.dil[1]],
                ..g.clone()
            };
            for i in rows {
                taps.push(Tap {
                    i,
                    class: classes.len(),
                    view: i * dh / sh * ow,
                });
            }
            classes.push(Class {
                geo,
                q: height * ow,
                before,
            });
            before += height * ow;
        }
        // The weight is repacked on every call (`pack_weight`, scattered writes): worth it only
        // where the columns saved over the batch outnumber the weight's elements twice. At
        // batch 1 ResNet-18's 256- and 512-channel layers (4x4, 2x2 outputs) spent half their
        // time packing weights for a few hundred saved columns.
        let saved = g.n * g.c * kw * (kh * oh * ow).saturating_sub(before);
        let weight = g.o * (g.c / g.groups) * kh * kw;
        (saved > 2 * weight).then_some(RowTaps {
            classes,
            taps,
            kh,
            kw,
            l: oh * ow,
        })
    }

    /// Elements of the columns for `cg` channels.
    pub(crate) fn len(&self, cg: usize) -> usize {
        let q: usize = self.classes.iter().map(|c| c.q).sum();
        cg * self.kw * q
    }

    /// Each kernel row's view of the columns for `cg` channels, class by class.
    pub(crate) fn views(&self, cg: usize) -> impl Iterator<Item = View> + '_ {
        self.taps.iter().enumerate().map(move |(k, t)| {
            let c = &self.classes[t.class];
            let start = cg * self.kw * c.before;
            View {
                i: t.i,
                offset: start + t.view,
                q: c.q,
                first: k == 0 || self.taps[k - 1].class != t.class,
                start,
            }
        })
    }

    /// Zeroes what `v` (a class's first view) leaves out of its class's rows, so the gradient
    /// GEMMs can write `v` and add every later view of the class.
    pub(crate) fn clear_around<F: Flt>(&self, cg: usize, v: &View, col: &mut [F]) {
        let class = &mut col[v.start..v.start + cg * self.kw * v.q];
        let within = v.offset - v.start;
        for row in class.chunks_exact_mut(v.q) {
            row[..within].fill(F::zero());
            row[within + self.l..].fill(F::zero());
        }
    }

    /// Fills the columns (`[cg * kw, q]` per class) from one sample's channel group `src`
    /// (`[cg, h, w]`).
    pub(crate) fn expand<F: Flt>(&self, cg: usize, src: &[F], col: &mut [F]) {
        for c in &self.classes {
            let at = cg * self.kw * c.before;
            im2col(&c.geo, cg, src, &mut col[at..at + cg * self.kw * c.q]);
        }
    }

    /// [`RowTaps::expand`] on every thread, split by channels: a channel's rows of a class's
    /// buffer are contiguous (`kw` rows of `q`). For a single sample, whose GEMMs are split
    /// across the threads anyway; a serial expand left the other thread idle for 15% of a
    /// 32->16 channel 3x3 conv at 64x64.
    pub(crate) fn expand_parallel<F: Flt>(&self, cg: usize, src: &[F], col: &mut [F]) {
        // Below about 64K elements of columns, waking a worker costs more than it saves.
        let chunks = if self.len(cg) < 1 << 16 {
            1
        } else {
            cg.min(2 * usable_threads())
        };
        if chunks == 1 {
            return self.expand(cg, src, col);
        }
        let per = cg.div_ceil(chunks);
        let plane = src.len() / cg.max(1);
        let pc = SendPtr(col.as_mut_ptr());
        parallel_for(self.classes.len() * chunks, |task| {
            let (c, chunk) = (&self.classes[task / chunks], task % chunks);
            let (lo, hi) = (chunk * per, ((chunk + 1) * per).min(cg));
            if lo >= hi {
                return;
            }
            let (rows, at) = (self.kw * c.q, cg * self.kw * c.before);
            // SAFETY: channels lo..hi of class c's buffer, `[cg * kw, q]` from `at`: inside
            // `col` (`len(cg)` elements) and disjoint from every other task's.
            let dst = unsafe {
                std::slice::from_raw_parts_mut(pc.at((at + lo * rows) as isize), (hi - lo) * rows)
            };
            im2col(&c.geo, hi - lo, &src[lo * plane..hi * plane], dst);
        });
    }

    /// Adds the columns back into one sample's channel group `dst`: the adjoint of
    /// [`RowTaps::expand`].
    pub(crate) fn fold<F: Flt>(&self, cg: usize, col: &[F], dst: &mut [F]) {
        for c in &self.classes {
            let at = cg * self.kw * c.before;
            col2im(&c.geo, cg, &col[at..at + cg * self.kw * c.q], dst);
        }
    }

    /// The weight (`[o, cg, kh, kw]`, contiguous) as one `[og, cg * kw]` matrix per group and
    /// kernel row, `[groups][kh][og][cg * kw]`: kernel row `i`'s taps for `R`'s rows.
    ///
    /// Written in packed order, one kernel row's `kw` taps at a time: the element-wise scatter
    /// this replaced (through a copy of the weight) took 20% of a 128->32 channel 3x3 conv at
    /// 16x16.
    pub(crate) fn pack_weight<F: Flt>(&self, g: &Geo, w: &Tensor) -> Vec<F> {
        debug_assert!(w.is_contiguous());
        // SAFETY: `w` is contiguous with `numel` elements of `F`, read only during this call.
        let w = unsafe { std::slice::from_raw_parts(w.data_ptr::<F>().cast_const(), w.numel()) };
        let (kh, kw) = (self.kh, g.k[1]);
        let (cg, og) = (g.c / g.groups, g.o / g.groups);
        let mut out = vec![F::zero(); w.len()];
        // `out`'s rows of `cg * kw` are in (group, kernel row, output channel) order.
        for (block, row) in out.chunks_exact_mut(cg * kw).enumerate() {
            let (gi, i, oo) = (block / (kh * og), block / og % kh, block % og);
            let o = gi * og + oo;
            // Output channel o's weights, one `kh * kw` block per input channel.
            let natural = &w[o * cg * kh * kw..(o + 1) * cg * kh * kw];
            match kw {
                1 => copy_taps::<F, 1>(row, natural, kh, i),
                3 => copy_taps::<F, 3>(row, natural, kh, i),
                5 => copy_taps::<F, 5>(row, natural, kh, i),
                _ => {
                    for (d, s) in row.chunks_exact_mut(kw).zip(natural.chunks_exact(kh * kw)) {
                        d.copy_from_slice(&s[i * kw..(i + 1) * kw]);
                    }
                }
            }
        }
        out
    }

    /// The weight gradient `[o, cg, kh, kw]` from the blocks the gradient GEMMs accumulate,
    /// `[groups][kh][cg * kw][og]` (transposed, as `conv_backward`'s full-im2col path keeps
    /// them).
    pub(crate) fn unpack_weight_grad<F: Flt>(&self, g: &Geo, acc: &[F]) -> Vec<F> {
        let mut out = vec![F::zero(); acc.len()];
        let og = g.o / g.groups;
        let kc = (g.c / g.groups) * self.kw;
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

/// Copies kernel row `i`'s `K` taps of every input channel (`natural` holds `[cg][kh][K]`) into
/// `row` (`[cg][K]`). A constant width keeps the copies inline instead of a `memcpy` call each.
#[inline(always)]
fn copy_taps<F: Flt, const K: usize>(row: &mut [F], natural: &[F], kh: usize, i: usize) {
    for (d, s) in row.chunks_exact_mut(K).zip(natural.chunks_exact(kh * K)) {
        let d: &mut [F; K] = d.try_into().expect("invariant: chunk of K");
        d.copy_from_slice(&s[i * K..(i + 1) * K]);
    }
}
