//! Autograd metadata carried by a runtime [`Tensor`] (PyTorch's `AutogradMeta` on `TensorImpl`).
//!
//! A tensor's identity for autograd is its `Arc<AutogradMeta>`: every alias of the same tensor
//! (a cheap [`Tensor::clone`], the Python object holding it, the argument list of an op call)
//! shares one, so an in-place op recorded through any alias rebases the history every alias
//! sees. Views and op outputs are new tensors with metadata of their own. The version counter
//! lives on the [`crate::Storage`] (shared by views, bumped by every in-place kernel).
//!
//! This crate only stores the metadata; the graph of backward nodes and the engine that runs it
//! live in `rynamo-graph` (`autograd/`), which is why the node handle is opaque here.
//!
//! **Invariant:** `needs_grad()` is `requires_grad || grad_fn.is_some()` and `is_inference()` is
//! `is_inference`, kept by [`AutogradMeta::update`] (the only way to change those fields), so the
//! dispatcher's per-op checks are atomic loads, not locks.

use std::any::Any;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::Tensor;

/// A backward node, opaque to the runtime (the engine in `rynamo-graph` downcasts it).
pub type GradFn = Arc<dyn Any + Send + Sync>;

/// Engine-defined per-tensor data (hooks, the grad accumulator), opaque to the runtime.
pub type AutogradExtra = Box<dyn Any + Send + Sync>;

/// The autograd state of one tensor (see the module docs).
#[derive(Default)]
pub struct AutogradMeta {
    needs_grad: AtomicBool,
    /// `state.is_inference`, readable without the lock (every op asks it of its first input).
    is_inference: AtomicBool,
    state: Mutex<AutogradState>,
}

/// The fields behind [`AutogradMeta`]'s lock.
#[derive(Default)]
pub struct AutogradState {
    /// A leaf that requires grad (set by the user, or by a factory's `requires_grad=True`).
    /// Non-leaves require grad through their `grad_fn` instead.
    pub requires_grad: bool,
    /// The node that produced this tensor, and which of its outputs it is.
    pub grad_fn: Option<(GradFn, u32)>,
    /// `.grad`.
    pub grad: Option<Tensor>,
    /// `retain_grad()` was called on this non-leaf.
    pub retains_grad: bool,
    /// For a view: the tensor it views (the root of a chain of views), as PyTorch's `_base`.
    pub view_base: Option<Tensor>,
    /// Whether the tensor was made under `inference_mode` (PyTorch's inference tensors).
    pub is_inference: bool,
    /// Engine data (hooks, the leaf's grad accumulator).
    pub extra: Option<AutogradExtra>,
}

impl AutogradMeta {
    /// Fresh metadata: a leaf that does not require grad.
    pub fn new() -> Arc<AutogradMeta> {
        Arc::new(AutogradMeta::default())
    }

    /// Whether gradients flow through this tensor: a leaf requiring grad or a tensor with a
    /// `grad_fn`. One atomic load.
    pub fn needs_grad(&self) -> bool {
        self.needs_grad.load(Ordering::Acquire)
    }

    /// Locks the state. Changes must go through [`AutogradMeta::update`] when they touch
    /// `requires_grad` or `grad_fn`, so the fast flag stays right.
    pub fn lock(&self) -> MutexGuard<'_, AutogradState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `f` on the locked state, then refreshes the fast flag.
    pub fn update<R>(&self, f: impl FnOnce(&mut AutogradState) -> R) -> R {
        let mut s = self.lock();
        let r = f(&mut s);
        self.needs_grad
            .store(s.requires_grad || s.grad_fn.is_some(), Ordering::Release);
        self.is_inference.store(s.is_inference, Ordering::Release);
        r
    }

    /// Whether this is a leaf: no `grad_fn`.
    pub fn is_leaf(&self) -> bool {
        self.lock().grad_fn.is_none()
    }

    /// Whether the tensor was made under inference mode.
    pub fn is_inference(&self) -> bool {
        self.is_inference.load(Ordering::Acquire)
    }
}

impl std::fmt::Debug for AutogradMeta {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.lock();
        f.debug_struct("AutogradMeta")
            .field("requires_grad", &s.requires_grad)
            .field("has_grad_fn", &s.grad_fn.is_some())
            .field("has_grad", &s.grad.is_some())
            .finish()
    }
}

impl Tensor {
    /// This tensor's autograd metadata, if it has any (tensors made inside kernels have none
    /// until they reach the dispatcher or Python).
    pub fn autograd(&self) -> Option<&Arc<AutogradMeta>> {
        self.autograd.as_ref()
    }

    /// The metadata, created (as a leaf not requiring grad) when missing.
    pub fn ensure_autograd(&mut self) -> &Arc<AutogradMeta> {
        self.autograd.get_or_insert_with(AutogradMeta::new)
    }

    /// The same tensor (storage and layout) under the given metadata: a different autograd
    /// identity when `meta` is fresh (`detach()`), or the same one (`x.data = y` keeps `x`'s).
    pub fn with_autograd(&self, meta: Option<Arc<AutogradMeta>>) -> Tensor {
        let mut t = self.clone();
        t.autograd = meta;
        t
    }

    /// Whether gradients flow through this tensor (see [`AutogradMeta::needs_grad`]).
    pub fn needs_grad(&self) -> bool {
        self.autograd.as_ref().is_some_and(|m| m.needs_grad())
    }

    /// Whether `other` is this very tensor (one autograd identity), not only an alias of its
    /// storage: what in-place ops and identity-returning ops (`contiguous()` of a contiguous
    /// tensor) give back.
    pub fn same_identity(&self, other: &Tensor) -> bool {
        match (&self.autograd, &other.autograd) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}
