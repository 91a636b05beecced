//! Strided iteration: walks N operands of one shape as a sequence of inner runs.
//!
//! Dims of size 1 are dropped and adjacent dims are merged when every operand's strides allow it
//! (coalescing), so a contiguous tensor is one run and a transposed one is a run per row. Kernels
//! then see `(offsets, len)` per run with fixed inner strides, and pick a slice-based loop (which
//! the compiler vectorises) when the inner strides are 1.

use std::ops::Range;

use smallvec::SmallVec;

/// Elements below which kernels stay on the calling thread. Measured (release, 2-core dev machine
/// shared with other builds) on a contiguous f32 `add`: at 32 Ki elements one thread took 7 us and
/// two took 19 us, at 64 Ki 14 us vs 42 us (waking and joining a rayon worker dominates); at
/// 256 Ki they were about even (123 us vs 110 us). So only from 256 Ki elements does splitting pay.
pub const PAR_THRESHOLD: usize = 256 * 1024;

/// Elements from which [`Geometry::par_for_each_run`] (the pointwise kernels) splits. It runs on
/// [`crate::parallel::parallel_for`], where the caller works from the first moment, so splitting
/// pays earlier than the rayon jobs [`PAR_THRESHOLD`] was measured with. Contiguous f32 (best of
/// 7 loops, quiet machine, alternating builds; 256K threshold -> this one): `a + b` at 64K
/// elements 7.4-8.4 us both, 96K 12.9-13.1 -> 9.2-9.5, 128K 18.2-18.7 -> 12.6-12.9, 192K
/// 28.0 -> 18.4-18.9; `a * 0.25` alike (PyTorch 2.15, grain 32K: 3.6, 4.8, 6.2, 12.2 us for
/// the adds).
pub const POINTWISE_PAR_THRESHOLD: usize = 64 * 1024;

/// Coalesced shape and per-operand strides (innermost last; at least one dim).
#[derive(Clone, Debug)]
pub struct Geometry<const N: usize> {
    shape: SmallVec<[usize; 6]>,
    strides: [SmallVec<[isize; 6]>; N],
}

impl<const N: usize> Geometry<N> {
    /// Coalesces `shape` with one stride list per operand (all of `shape`'s length).
    pub fn new(shape: &[usize], strides: [&[isize]; N]) -> Geometry<N> {
        let mut out_shape: SmallVec<[usize; 6]> = SmallVec::new();
        let mut out_strides: [SmallVec<[isize; 6]>; N] = std::array::from_fn(|_| SmallVec::new());
        for d in 0..shape.len() {
            if shape[d] == 1 {
                continue;
            }
            let merge = match out_shape.last() {
                // The previous (outer) dim steps exactly over this whole dim for every operand.
                Some(_) => (0..N).all(|k| {
                    *out_strides[k]
                        .last()
                        .expect("invariant: parallel to out_shape")
                        == strides[k][d] * shape[d] as isize
                }),
                None => false,
            };
            if merge {
                let last = out_shape.len() - 1;
                out_shape[last] *= shape[d];
                for k in 0..N {
                    out_strides[k][last] = strides[k][d];
                }
            } else {
                out_shape.push(shape[d]);
                for k in 0..N {
                    out_strides[k].push(strides[k][d]);
                }
            }
        }
        if shape.contains(&0) {
            out_shape = SmallVec::from_elem(0, 1);
            out_strides = std::array::from_fn(|_| SmallVec::from_elem(0, 1));
        } else if out_shape.is_empty() {
            out_shape.push(1);
            out_strides = std::array::from_fn(|_| SmallVec::from_elem(0, 1));
        }
        Geometry {
            shape: out_shape,
            strides: out_strides,
        }
    }

    /// [`Geometry::new`] walking the dims in memory order (the first operand's first), so that a
    /// channels-last or otherwise permuted dense tensor is one contiguous run. Only for kernels
    /// whose result does not depend on the visiting order (elementwise maps, copies, fills).
    pub fn in_memory_order(shape: &[usize], strides: [&[isize]; N]) -> Geometry<N> {
        let Some(order) = crate::memory_format::memory_order(shape, strides) else {
            return Geometry::new(shape, strides);
        };
        let sizes: SmallVec<[usize; 6]> = order.iter().map(|&d| shape[d]).collect();
        let steps: [SmallVec<[isize; 6]>; N] =
            std::array::from_fn(|k| order.iter().map(|&d| strides[k][d]).collect());
        Geometry::new(&sizes, std::array::from_fn(|k| &steps[k][..]))
    }

    /// Total elements.
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// The coalesced sizes and each operand's strides (innermost last), for kernels that plan
    /// their own loop nest (the strided copy).
    pub fn dims(&self) -> (&[usize], [&[isize]; N]) {
        (&self.shape, std::array::from_fn(|k| &self.strides[k][..]))
    }

    /// Inner-dim stride of each operand (constant within every run).
    pub fn inner_strides(&self) -> [isize; N] {
        std::array::from_fn(|k| *self.strides[k].last().expect("invariant: >= 1 dim"))
    }

    /// Calls `f(offsets, len)` for each inner run covering logical elements `range`; offsets are in
    /// elements from each operand's base.
    pub fn for_each_run(&self, range: Range<usize>, mut f: impl FnMut([isize; N], usize)) {
        if range.is_empty() {
            return;
        }
        let nd = self.shape.len();
        let inner = self.shape[nd - 1];
        // Decompose the start into a multi-index.
        let mut idx: SmallVec<[usize; 6]> = SmallVec::from_elem(0, nd);
        let mut rem = range.start;
        for d in (0..nd).rev() {
            idx[d] = rem % self.shape[d];
            rem /= self.shape[d];
        }
        let mut offs: [isize; N] =
            std::array::from_fn(|k| (0..nd).map(|d| idx[d] as isize * self.strides[k][d]).sum());
        let mut pos = range.start;
        while pos < range.end {
            let len = (inner - idx[nd - 1]).min(range.end - pos);
            f(offs, len);
            pos += len;
            idx[nd - 1] += len;
            for (o, st) in offs.iter_mut().zip(&self.strides) {
                *o += len as isize * st[nd - 1];
            }
            // Odometer carry into the outer dims.
            let mut d = nd - 1;
            while idx[d] == self.shape[d] && d > 0 {
                for (o, st) in offs.iter_mut().zip(&self.strides) {
                    *o += st[d - 1] - self.shape[d] as isize * st[d];
                }
                idx[d] = 0;
                idx[d - 1] += 1;
                d -= 1;
            }
        }
    }

    /// [`Geometry::for_each_run`] over all elements, split across threads from
    /// [`POINTWISE_PAR_THRESHOLD`].
    pub fn par_for_each_run(&self, f: impl Fn([isize; N], usize) + Sync) {
        self.par_for_each_run_weighted(1, f)
    }

    /// [`Geometry::par_for_each_run`] where each element stands for `weight` elements of work
    /// (a geometry over the rows of a copy), so the split starts at the same amount of work.
    pub fn par_for_each_run_weighted(&self, weight: usize, f: impl Fn([isize; N], usize) + Sync) {
        let n = self.numel();
        let work = n.saturating_mul(weight);
        let threads = rayon::current_num_threads();
        if work < POINTWISE_PAR_THRESHOLD || threads == 1 || n < 2 {
            self.for_each_run(0..n, f);
            return;
        }
        let chunks = (threads * 4)
            .min(work.div_ceil(POINTWISE_PAR_THRESHOLD / 2))
            .min(n);
        let per = n.div_ceil(chunks);
        // The caller works too (see `crate::parallel`): with `into_par_iter` it waited blocked.
        crate::parallel::parallel_for(chunks, |c| {
            let r = (c * per).min(n)..((c + 1) * per).min(n);
            self.for_each_run(r, &f);
        });
    }
}

/// A raw pointer that may cross threads; each thread touches a disjoint element range.
#[derive(Clone, Copy, Debug)]
pub struct SendPtr<T>(pub *mut T);
// SAFETY: only used by kernels that give every thread a disjoint output range (see `Geometry`).
unsafe impl<T> Send for SendPtr<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for SendPtr<T> {}

impl<T> SendPtr<T> {
    /// The pointer `off` elements further.
    ///
    /// # Safety
    /// The result must stay inside the allocation.
    #[inline(always)]
    pub unsafe fn at(self, off: isize) -> *mut T {
        // SAFETY: forwarded to the caller.
        unsafe { self.0.offset(off) }
    }
}
