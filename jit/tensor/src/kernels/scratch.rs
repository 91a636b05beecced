//! Per-thread scratch buffers for kernels that need a large temporary per call (im2col columns).
//!
//! Why: a fresh `vec![0.0; n]` of a few hundred KiB is served by `mmap`, so every call faulted
//! its pages in and zeroed them (U-Net forward at batch 1: ~7% of the time in `memset` under
//! `conv_kernel`); the storage pool only keeps buffers of 1 MiB and more. A thread's buffer is
//! reused by its next call, already mapped and warm.
//!
//! Invariant: every byte of a scratch buffer is initialised (it grows zero-filled and is only
//! ever written with values of the element type), so handing it out as `&mut [F]` is sound.

use std::cell::RefCell;

use crate::kernels::math::Flt;

/// Largest buffer a thread keeps between calls (64 MiB); bigger requests are served fresh.
const KEEP_BYTES: usize = 64 << 20;

thread_local! {
    /// 8-byte words: aligned for both f32 and f64.
    static SCRATCH: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` on a buffer of `len` elements whose contents are unspecified (earlier calls' values):
/// the caller must write before reading. Re-entrant: a nested call on the same thread (rayon
/// runs stolen jobs while a parallel gemm waits) gets a fresh buffer instead.
pub fn with_scratch<F: Flt, R>(len: usize, f: impl FnOnce(&mut [F]) -> R) -> R {
    const { assert!(std::mem::align_of::<F>() <= 8) };
    let bytes = len * std::mem::size_of::<F>();
    if bytes > KEEP_BYTES {
        return f(&mut vec![F::zero(); len]);
    }
    SCRATCH.with(|cell| {
        let Ok(mut words) = cell.try_borrow_mut() else {
            return f(&mut vec![F::zero(); len]);
        };
        let need = bytes.div_ceil(8);
        if words.len() < need {
            words.resize(need, 0);
        }
        // SAFETY: `words` holds at least `bytes` initialised bytes, 8-byte aligned (>= F's
        // alignment, checked above), borrowed exclusively for this call; every bit pattern is a
        // valid f32/f64.
        let buf = unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<F>(), len) };
        f(buf)
    })
}
