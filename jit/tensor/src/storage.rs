//! Shared, mutable element buffers.
//!
//! **Aliasing invariant.** A [`Storage`] is a raw byte region shared by every tensor that views it
//! (through `Arc`). Writes go through `&Storage` (in-place ops mutate through a shared `&Tensor`), so
//! the region lives behind raw pointers and Rust references into it exist only for the duration of one
//! kernel call. Kernels never hand out a `&mut` slice while a `&` slice of an overlapping range is
//! alive: a kernel whose output overlaps an input either works element-by-element in place (same
//! layout) or copies the input first. As in PyTorch, concurrent in-place writes to one storage from
//! several threads are a data race the caller must avoid.
//!
//! Every in-place write bumps the storage's version counter, so all aliases observe it (autograd-style
//! saved-tensor checks and guard caches read it).
//!
//! **Buffer reuse.** Large owned buffers go back to a bounded pool when freed (see [`pool`]), so
//! the next allocation of the same size skips the allocator, the page faults and the zeroing: an
//! eager op chain over 16 MiB tensors otherwise spends as long faulting fresh pages in as computing.

use std::alloc::Layout;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

pub mod heap;
pub mod pool;

/// Alignment of owned buffers: a cache line, and enough for any SIMD load.
pub const STORAGE_ALIGN: usize = 64;

/// What a new buffer must hold.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fill {
    /// Zeros.
    Zero,
    /// Any initialised bytes.
    Any,
    /// Nothing yet: the caller overwrites every byte before anything reads it.
    Overwritten,
}

enum Owner {
    /// Allocated here with this layout; freed on drop.
    Owned(Layout),
    /// Memory owned elsewhere; the callback releases it.
    External(Option<Box<dyn FnOnce() + Send + Sync>>),
}

/// A 64-byte-aligned buffer with interior mutability and a version counter.
pub struct Storage {
    ptr: NonNull<u8>,
    nbytes: usize,
    owner: Owner,
    version: AtomicU64,
}

// SAFETY: the buffer is plain bytes with no thread affinity; synchronisation of concurrent writes is
// the caller's responsibility, as documented in the module's aliasing invariant.
unsafe impl Send for Storage {}
// SAFETY: as above; `&Storage` only exposes raw pointers and an atomic counter.
unsafe impl Sync for Storage {}

impl Storage {
    /// A zero-filled buffer of `nbytes` bytes. An allocation failure is raised
    /// ([`crate::unwind::raise`]) as PyTorch's out-of-memory `RuntimeError`.
    pub fn zeroed(nbytes: usize) -> Storage {
        Self::try_zeroed(nbytes).unwrap_or_else(|e| crate::unwind::raise(e))
    }

    /// [`Storage::zeroed`], returning an allocation failure.
    pub fn try_zeroed(nbytes: usize) -> crate::Result<Storage> {
        Self::alloc(nbytes, Fill::Zero)
    }

    /// A buffer of `nbytes` bytes whose contents are unspecified but initialised: zeros when freshly
    /// allocated, or whatever a previous tensor left in a reused buffer (like `torch.empty`).
    /// An allocation failure is raised as in [`Storage::zeroed`].
    pub fn uninit(nbytes: usize) -> Storage {
        Self::try_uninit(nbytes).unwrap_or_else(|e| crate::unwind::raise(e))
    }

    /// [`Storage::uninit`], returning an allocation failure.
    pub fn try_uninit(nbytes: usize) -> crate::Result<Storage> {
        // NOTE: fresh memory is still zeroed: reading uninitialised bytes as floats is UB in Rust,
        // and `empty` tensors can be read by users. Reused buffers skip it: every buffer was fully
        // initialised when first allocated, so old contents are initialised bytes.
        Self::alloc(nbytes, Fill::Any)
    }

    /// A buffer of `nbytes` bytes with unspecified contents: a fresh allocation is not zeroed, which
    /// for a copy's output was a second pass over it (the 266 KiB result of a ViT head split spent
    /// 8% of its `contiguous()` in `memset`). An allocation failure is raised as in
    /// [`Storage::zeroed`].
    ///
    /// # Safety
    /// The caller writes every byte before anything reads one, and before the storage can be
    /// dropped (a pooled buffer must be fully initialised), so nothing between allocation and the
    /// last write may unwind.
    pub(crate) unsafe fn for_overwrite(nbytes: usize) -> crate::Result<Storage> {
        Self::alloc(nbytes, Fill::Overwritten)
    }

    /// Allocates, or fails with PyTorch's `DefaultCPUAllocator: can't allocate memory` error when
    /// the allocator refuses (or the size cannot be a `Layout` at all): never an abort.
    fn alloc(nbytes: usize, fill: Fill) -> crate::Result<Storage> {
        let oom = || crate::Error::OutOfMemory { nbytes };
        let layout = Layout::from_size_align(nbytes.max(1), STORAGE_ALIGN).map_err(|_| oom())?;
        let ptr = match pool::take(layout) {
            Some(p) => {
                if fill == Fill::Zero {
                    // SAFETY: `p` is a live buffer of `layout.size()` bytes that we now own.
                    unsafe { std::ptr::write_bytes(p.as_ptr(), 0, layout.size()) };
                }
                p
            }
            None => {
                // SAFETY: the layout has a non-zero size.
                let raw = unsafe { heap::alloc(layout, fill != Fill::Overwritten) };
                NonNull::new(raw).ok_or_else(oom)?
            }
        };
        Ok(Storage {
            ptr,
            nbytes,
            owner: Owner::Owned(layout),
            version: AtomicU64::new(0),
        })
    }

    /// A storage holding a copy of `bytes`.
    pub fn from_bytes(bytes: &[u8]) -> Storage {
        let s =
            Self::alloc(bytes.len(), Fill::Overwritten).unwrap_or_else(|e| crate::unwind::raise(e));
        // SAFETY: `s` owns `bytes.len()` fresh bytes that cannot overlap `bytes`.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), s.ptr.as_ptr(), bytes.len()) };
        s
    }

    /// Wraps memory owned elsewhere (DLPack, a NumPy buffer). `release` runs once when the last tensor
    /// viewing it is dropped.
    ///
    /// # Safety
    /// `ptr` must be valid for reads and writes of `nbytes` bytes, aligned for the dtype it will be
    /// viewed as, and stay valid until `release` runs. Nothing else may free it meanwhile.
    pub unsafe fn from_external(
        ptr: NonNull<u8>,
        nbytes: usize,
        release: Box<dyn FnOnce() + Send + Sync>,
    ) -> Storage {
        Storage {
            ptr,
            nbytes,
            owner: Owner::External(Some(release)),
            version: AtomicU64::new(0),
        }
    }

    /// Size in bytes.
    pub fn nbytes(&self) -> usize {
        self.nbytes
    }

    /// Start of the buffer. Writing through it requires the aliasing invariant of this module and a
    /// following [`Storage::bump_version`].
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// The version counter: incremented by every in-place write through any alias.
    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    /// Records an in-place write.
    pub fn bump_version(&self) {
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    /// Whether the memory is owned by someone else.
    pub fn is_external(&self) -> bool {
        matches!(self.owner, Owner::External(_))
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        match &mut self.owner {
            // The pool frees it (or keeps it for reuse): `ptr` came from `alloc` with exactly this
            // layout, every byte of it is initialised, and nothing else refers to it any more.
            Owner::Owned(layout) => pool::give(self.ptr, *layout),
            Owner::External(release) => {
                if let Some(f) = release.take() {
                    f()
                }
            }
        }
    }
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Storage")
            .field("nbytes", &self.nbytes)
            .field("version", &self.version())
            .field("external", &self.is_external())
            .finish()
    }
}
