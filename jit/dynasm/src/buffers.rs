//! Output buffers for kernels: large buffers are recycled through a small process-wide pool
//! instead of going back to the system allocator.
//!
//! Why: a fresh multi-megabyte allocation costs a page fault per 4 KiB page plus the kernel's
//! page clearing, and `Tensor::empty` zero-fills on top (`calloc` on reused heap memory). For a
//! memory-bound kernel that is two extra full passes over its output; `perf` on the W1/W2
//! workloads of `benchmarks.md` showed `memset` and `exc_page_fault` at 7-20% of the run.
//! A pooled buffer has been written before, so it is handed out as is: every kernel output is
//! written in full by the kernel before anything reads it.
//!
//! Buffers are zero-filled once when first allocated, so their bytes are always initialised.
//! The pool is bounded ([`MAX_POOLED_BYTES`], [`MAX_POOLED`]); a buffer released while the pool
//! is full is freed. Tensors over these buffers report `Storage::is_external()`.

use std::alloc::Layout as AllocLayout;
use std::ptr::NonNull;
use std::sync::Arc;

use parking_lot::Mutex;
use rynamo_tensor::layout::Layout;
use rynamo_tensor::storage::STORAGE_ALIGN;
use rynamo_tensor::{DType, Storage, Tensor};

/// Buffers below this size come from `Tensor::empty_for_overwrite` (malloc handles them well).
pub const MIN_POOLED: usize = 256 << 10;
/// Total bytes the pool keeps while no tensor uses them.
pub const MAX_POOLED_BYTES: usize = 256 << 20;
/// Buffers the pool keeps.
pub const MAX_POOLED: usize = 32;

/// A raw, 64-byte aligned, initialised allocation.
struct Buf {
    ptr: NonNull<u8>,
    layout: AllocLayout,
}

// SAFETY: a `Buf` is plain owned bytes with no thread affinity; it is only ever owned by one place
// (the pool, or one storage's release closure).
unsafe impl Send for Buf {}
// SAFETY: as above; `&Buf` exposes nothing.
unsafe impl Sync for Buf {}

impl Buf {
    /// A fresh buffer; an allocation the system refuses is raised as PyTorch's out-of-memory
    /// error (`rynamo_tensor::unwind::raise`), never an abort.
    fn new(size: usize) -> Buf {
        fn oom(nbytes: usize) -> ! {
            rynamo_tensor::unwind::raise(rynamo_tensor::Error::OutOfMemory { nbytes })
        }
        let layout =
            AllocLayout::from_size_align(size, STORAGE_ALIGN).unwrap_or_else(|_| oom(size));
        // SAFETY: `size >= MIN_POOLED > 0`. Through the tensor heap, so a huge size is refused
        // at once (see `rynamo_tensor::storage::heap`).
        let raw = unsafe { rynamo_tensor::storage::heap::alloc(layout, true) };
        let ptr = NonNull::new(raw).unwrap_or_else(|| oom(size));
        Buf { ptr, layout }
    }
}

impl Drop for Buf {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `heap::alloc` with exactly this layout and is freed only here.
        unsafe { rynamo_tensor::storage::heap::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

static POOL: Mutex<Vec<Buf>> = Mutex::new(Vec::new());

/// Size class: whole 64 KiB blocks, so that tensors of nearby sizes share buffers.
fn class(nbytes: usize) -> usize {
    nbytes.div_ceil(64 << 10) * (64 << 10)
}

fn take(size: usize) -> Buf {
    let mut pool = POOL.lock();
    match pool.iter().position(|b| b.layout.size() == size) {
        Some(i) => pool.swap_remove(i),
        None => {
            drop(pool);
            Buf::new(size)
        }
    }
}

fn give_back(b: Buf) {
    let mut pool = POOL.lock();
    let held: usize = pool.iter().map(|b| b.layout.size()).sum();
    if pool.len() < MAX_POOLED && held + b.layout.size() <= MAX_POOLED_BYTES {
        pool.push(b);
    }
    // Otherwise `b` is freed as it drops here.
}

/// A contiguous tensor for a kernel to write in full. Its contents are unspecified (zeros or an
/// earlier result).
///
/// A size that overflows or cannot be allocated is raised as PyTorch's error (the graph's metas
/// were checked when traced, but a plan may allocate beyond them).
pub fn output(shape: &[usize], dtype: DType) -> Tensor {
    let nbytes = rynamo_tensor::layout::contiguous_nbytes(shape, dtype.itemsize())
        .unwrap_or_else(|e| rynamo_tensor::unwind::raise(e));
    if nbytes < MIN_POOLED {
        // Every kernel writes its whole output (see the module note).
        return Tensor::empty_for_overwrite(shape, dtype);
    }
    let buf = take(class(nbytes));
    let ptr = buf.ptr;
    // SAFETY: `buf` owns at least `nbytes` initialised bytes, 64-byte aligned (enough for every
    // dtype); the release closure owns `buf`, so the memory stays valid until it runs, and nothing
    // else frees it.
    let storage = unsafe { Storage::from_external(ptr, nbytes, Box::new(move || give_back(buf))) };
    Tensor::from_storage(Arc::new(storage), dtype, Layout::contiguous(shape))
        .expect("invariant: a contiguous layout fits a storage of its own size")
}

/// Bytes the pool holds now (for tests).
pub fn pooled_bytes() -> usize {
    POOL.lock().iter().map(|b| b.layout.size()).sum()
}
