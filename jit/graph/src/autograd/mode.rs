//! Grad mode and inference mode, per thread (PyTorch's `GradMode` / `InferenceMode` TLS).
//!
//! They live here, beside the dispatcher that reads them on every op, rather than in the Python
//! shims: `torch.no_grad()` in Python and an embedder's [`NoGradGuard`] flip the same flag.

use std::cell::Cell;

thread_local! {
    static GRAD_ENABLED: Cell<bool> = const { Cell::new(true) };
    static INFERENCE_MODE: Cell<bool> = const { Cell::new(false) };
}

/// `torch.is_grad_enabled()` on this thread.
pub fn is_grad_enabled() -> bool {
    GRAD_ENABLED.with(Cell::get)
}

/// `torch._C._set_grad_enabled(mode)` on this thread.
pub fn set_grad_enabled(enabled: bool) {
    GRAD_ENABLED.with(|g| g.set(enabled));
}

/// `torch.is_inference_mode_enabled()` on this thread.
pub fn is_inference_mode_enabled() -> bool {
    INFERENCE_MODE.with(Cell::get)
}

/// Sets the inference-mode flag on this thread (the caller also turns grad mode off, as
/// `torch.inference_mode` does).
pub fn set_inference_mode(enabled: bool) {
    INFERENCE_MODE.with(|g| g.set(enabled));
}

/// Sets grad mode for a scope and restores the previous mode on drop (C++'s `AutoGradMode`).
pub struct GradModeGuard {
    prev: bool,
}

impl GradModeGuard {
    /// Grad mode `enabled` until the guard drops.
    pub fn new(enabled: bool) -> GradModeGuard {
        let prev = is_grad_enabled();
        set_grad_enabled(enabled);
        GradModeGuard { prev }
    }
}

impl Drop for GradModeGuard {
    fn drop(&mut self) {
        set_grad_enabled(self.prev);
    }
}

/// Grad mode off until dropped (C++'s `NoGradGuard`).
pub struct NoGradGuard(#[allow(dead_code, reason = "restores on drop")] GradModeGuard);

impl NoGradGuard {
    /// Turns grad mode off for the guard's lifetime.
    pub fn new() -> NoGradGuard {
        NoGradGuard(GradModeGuard::new(false))
    }
}

impl Default for NoGradGuard {
    fn default() -> Self {
        NoGradGuard::new()
    }
}
