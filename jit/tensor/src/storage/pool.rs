//! A bounded pool of freed large storage buffers, reused by later allocations of the same size.
//!
//! Why: an eager op allocates its output, and a chain of ops over big tensors frees and allocates
//! same-sized buffers over and over. glibc serves those from fresh `mmap`ed (or trimmed and regrown)
//! pages, so every op faulted its whole output in page by page and zeroed it once more: measured with
//! `perf stat` on W1 (`benchmarks.md`, 4 Mi f32), 368k page faults in 11 chains and as much system
//! time as user time. A reused buffer is already mapped and warm.
//!
//! Only buffers of at least [`MIN_BYTES`] are kept (smaller ones are cheap for the allocator), at
//! most [`MAX_BYTES`] in all; beyond that the oldest are freed. [`release`] frees them all.
//!
//! Invariant: every buffer in the pool has all its bytes initialised (storages are zeroed or fully
//! copied into when allocated), so a reused buffer may be read before it is written.

use std::alloc::Layout;
use std::ptr::NonNull;
use std::sync::Mutex;

/// Smallest buffer worth keeping: below this, malloc reuses its heap without page faults.
pub const MIN_BYTES: usize = 1 << 20;

/// Most bytes kept at once. W3 (`benchmarks.md`) keeps ten 16 MiB temporaries alive at its peak;
/// this holds a few such working sets.
pub const MAX_BYTES: usize = 256 << 20;

/// A freed buffer and the layout it was allocated with.
struct Buf(NonNull<u8>, Layout);

// SAFETY: a pooled buffer is plain memory that nothing references; whoever takes it out owns it.
unsafe impl Send for Buf {}

struct Pool {
    /// Oldest first.
    bufs: Vec<Buf>,
    bytes: usize,
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    bufs: Vec::new(),
    bytes: 0,
});

fn lock() -> std::sync::MutexGuard<'static, Pool> {
    // A panic while holding the lock cannot leave the pool inconsistent (each update is a push or
    // remove plus a counter change with no panic between), so a poisoned lock is still usable.
    POOL.lock().unwrap_or_else(|e| e.into_inner())
}

/// A pooled buffer allocated with exactly `layout`, if any; the most recently freed one, whose
/// pages are likeliest still in cache.
pub(crate) fn take(layout: Layout) -> Option<NonNull<u8>> {
    if layout.size() < MIN_BYTES {
        return None;
    }
    let mut pool = lock();
    let i = pool.bufs.iter().rposition(|b| b.1 == layout)?;
    let Buf(p, l) = pool.bufs.remove(i);
    pool.bytes -= l.size();
    Some(p)
}

/// Frees `ptr` or keeps it for reuse.
///
/// `ptr` must come from `heap::alloc` with exactly `layout`, have every byte initialised, and not be
/// used by the caller afterwards.
pub(crate) fn give(ptr: NonNull<u8>, layout: Layout) {
    let size = layout.size();
    if !(MIN_BYTES..=MAX_BYTES).contains(&size) {
        // SAFETY: `ptr` came from `heap::alloc` with `layout` (the contract of `give`).
        // Freed here without the eviction list: every small tensor dropped comes this way, and
        // a `Vec` for it was one more malloc/free pair per eager op (W5).
        unsafe { super::heap::dealloc(ptr.as_ptr(), layout) };
        return;
    }
    let mut evicted = Vec::new();
    {
        let mut pool = lock();
        while pool.bytes + size > MAX_BYTES {
            let b = pool.bufs.remove(0);
            pool.bytes -= b.1.size();
            evicted.push(b);
        }
        pool.bufs.push(Buf(ptr, layout));
        pool.bytes += size;
    }
    // Freed outside the lock: `munmap` can take a while.
    for Buf(p, l) in evicted {
        // SAFETY: `p` came from `heap::alloc` with layout `l` (the contract of `give`) and left the
        // pool, so this is its only owner.
        unsafe { super::heap::dealloc(p.as_ptr(), l) };
    }
}

/// Frees every pooled buffer (e.g. after a large workload, to return the memory to the OS).
pub fn release() {
    let bufs = {
        let mut pool = lock();
        pool.bytes = 0;
        std::mem::take(&mut pool.bufs)
    };
    for Buf(p, l) in bufs {
        // SAFETY: as in `give`.
        unsafe { super::heap::dealloc(p.as_ptr(), l) };
    }
}

/// Bytes currently held by the pool.
pub fn pooled_bytes() -> usize {
    lock().bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Storage;

    #[test]
    fn freed_large_buffers_are_reused_and_zeroed_on_request() {
        let n = MIN_BYTES + 4096 * 3;
        let a = Storage::zeroed(n);
        // SAFETY: `a` owns `n` bytes and nothing else views them.
        unsafe { std::ptr::write_bytes(a.as_ptr(), 7, n) };
        let p = a.as_ptr();
        drop(a);
        // Other tests allocate concurrently, so reuse of this exact buffer is likely, not certain;
        // the contents contract holds either way.
        let b = Storage::uninit(n);
        if b.as_ptr() == p {
            // SAFETY: `b` owns `n` initialised bytes.
            assert_eq!(unsafe { *b.as_ptr().add(n - 1) }, 7);
        }
        drop(b);
        let c = Storage::zeroed(n);
        // SAFETY: `c` owns `n` initialised bytes.
        let bytes = unsafe { std::slice::from_raw_parts(c.as_ptr(), n) };
        assert!(bytes.iter().all(|&v| v == 0));
    }

    #[test]
    fn small_and_huge_buffers_are_not_kept() {
        let small = Layout::from_size_align(MIN_BYTES - 1, 64).expect("valid layout");
        let huge = Layout::from_size_align(MAX_BYTES + 64, 64).expect("valid layout");
        assert!(take(small).is_none());
        assert!(take(huge).is_none());
        drop(Storage::zeroed(MIN_BYTES - 1));
        assert!(lock().bufs.iter().all(|b| b.1.size() >= MIN_BYTES));
        assert!(pooled_bytes() <= MAX_BYTES);
    }
}
