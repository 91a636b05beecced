//! Where tensor buffers come from: small ones from the global allocator, large ones (at least
//! [`pool::MIN_BYTES`](super::pool::MIN_BYTES)) from the system allocator. Every owner of tensor
//! memory allocates here: [`Storage`](super::Storage) and the JIT's output buffers
//! (`rynamo_dynasm::buffers`).
//!
//! Why two: the `rynamo` binary's global allocator is mimalloc (fast small allocations, see its
//! `main.rs`), which reserves address space for any size and lets the kernel back it lazily, so
//! `torch.empty(10**12)` would "succeed" and die at first touch. glibc's `malloc` maps large
//! blocks with `mmap`, which refuses an absurd size at once (issue 30: PyTorch's out-of-memory
//! error, the program goes on), and the binary's `mallopt` thresholds were tuned for these large
//! buffers. The choice depends only on the layout, so `dealloc` finds the allocator `alloc` used.

use std::alloc::{GlobalAlloc, Layout, System};

use super::pool::MIN_BYTES;

/// A new buffer for `layout` (zero-filled when `zeroed`), or null when the allocator refuses.
///
/// # Safety
/// `layout` must have a non-zero size.
pub unsafe fn alloc(layout: Layout, zeroed: bool) -> *mut u8 {
    // SAFETY: forwarded: `layout` has a non-zero size.
    unsafe {
        match (layout.size() >= MIN_BYTES, zeroed) {
            (true, true) => System.alloc_zeroed(layout),
            (true, false) => System.alloc(layout),
            (false, true) => std::alloc::alloc_zeroed(layout),
            (false, false) => std::alloc::alloc(layout),
        }
    }
}

/// Frees a buffer from [`alloc`].
///
/// # Safety
/// `ptr` must come from [`alloc`] with exactly `layout`, and not be used afterwards.
pub unsafe fn dealloc(ptr: *mut u8, layout: Layout) {
    // SAFETY: forwarded; the size picks the allocator `alloc` used for this layout.
    unsafe {
        if layout.size() >= MIN_BYTES {
            System.dealloc(ptr, layout)
        } else {
            std::alloc::dealloc(ptr, layout)
        }
    }
}
