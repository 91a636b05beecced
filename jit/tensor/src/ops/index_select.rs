//! The copy behind `index_select(x, dim, index)`: `out[o, i, r] = x[o, index[i], r]`, with `o` the
//! dims before `dim` and `r` the dims after it, on a contiguous source.
//!
//! Why its own kernel: going through advanced indexing (`getitem`) zero-filled the output, copied
//! it once more to make it contiguous, and moved every selected slice with its own `memcpy` call,
//! one element at a time when `dim` is the last dim. `F.interpolate` is separable `index_select`s
//! along H and W (`stdlib-shims/python/torch/nn/_interpolate.py`), and reflect/replicate padding is
//! too, so that was most of the U-Net workload's (M4 of `benchmarks.md`) upsampling time.

use crate::Tensor;
use crate::iter::SendPtr;
use crate::parallel::parallel_for;

/// Below this many elements a selection runs on the calling thread.
const PARALLEL_MIN: usize = 1 << 15;

/// Selects along dim `d` of the contiguous `x` at `index` (already range-checked). The result is
/// a new contiguous tensor.
pub(crate) fn select_contiguous(x: &Tensor, d: usize, index: &[i64]) -> Tensor {
    debug_assert!(x.is_contiguous());
    let mut shape = x.shape().to_vec();
    shape[d] = index.len();
    let out = Tensor::empty(&shape, x.dtype());
    let geom = Rows {
        outer: x.shape()[..d].iter().product(),
        size: x.shape()[d],
        inner: x.shape()[d + 1..].iter().product(),
    };
    // SAFETY: `x` is contiguous and `out` is its fresh contiguous result, both of this dtype's
    // element size; `geom` describes both, and every index is below `geom.size`.
    unsafe {
        match x.dtype().itemsize() {
            1 => geom.copy::<u8>(x, &out, index),
            2 => geom.copy::<u16>(x, &out, index),
            4 => geom.copy::<u32>(x, &out, index),
            8 => geom.copy::<u64>(x, &out, index),
            16 => geom.copy::<u128>(x, &out, index),
            n => unreachable!("no dtype has {n}-byte elements"),
        }
    }
    out
}

/// `x` seen as `[outer, size, inner]` (and the output as `[outer, index.len(), inner]`).
struct Rows {
    outer: usize,
    size: usize,
    inner: usize,
}

impl Rows {
    /// Copies the selected slices, as plain `T`-sized words (only the bytes matter).
    ///
    /// # Safety
    /// `x` and `out` are contiguous, of `T`-sized elements, shaped as `self` says, and every
    /// value of `index` is in `0..self.size`.
    unsafe fn copy<T: Copy>(&self, x: &Tensor, out: &Tensor, index: &[i64]) {
        let n = index.len();
        let item = size_of::<T>();
        // SAFETY: element `[0, ..., 0]` of each tensor, within its storage.
        let (src, dst) = unsafe {
            (
                SendPtr(x.storage().as_ptr().add(x.offset() * item).cast::<T>()),
                SendPtr(out.storage().as_ptr().add(out.offset() * item).cast::<T>()),
            )
        };
        let (size, inner) = (self.size, self.inner);
        // One task per outer slice: its `n` selected rows of `inner` elements.
        let slice = |o: usize| {
            for (i, &j) in index.iter().enumerate() {
                // SAFETY: `o < outer`, `j < size` and `i < n`, so both rows are in bounds; `out`
                // is a fresh buffer that cannot overlap `x`.
                unsafe {
                    let s = src.at(((o * size + j as usize) * inner) as isize);
                    let d = dst.at(((o * n + i) * inner) as isize);
                    if inner == 1 {
                        *d = *s;
                    } else {
                        std::ptr::copy_nonoverlapping(s, d, inner);
                    }
                }
            }
        };
        if self.outer < 2 || self.outer * n * inner < PARALLEL_MIN {
            (0..self.outer).for_each(slice);
        } else {
            parallel_for(self.outer, slice);
        }
    }
}
