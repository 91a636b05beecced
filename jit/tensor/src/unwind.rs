//! Errors that must cross infallible code, and the boundary that turns them (and genuine panics)
//! back into [`Error`]s.
//!
//! Why: an allocation happens deep inside constructors that return a [`crate::Tensor`], not a
//! `Result` (`Tensor::empty` has hundreds of callers, kernels included). When it fails, PyTorch's
//! allocator throws a C++ exception that unwinds to the Python boundary; [`raise`] does the same
//! with a Rust unwind carrying the [`Error`]. It uses `resume_unwind`, so no panic message is
//! printed: it is an ordinary error, not a bug. Every entry from Python into Rust that runs
//! kernels (the dispatcher, compiled graphs, the autograd engine, plugin calls) runs under
//! [`catch`], which returns the raised error, or turns a genuine panic (a bug) into a
//! `RuntimeError` that names what was running. Nothing unwinds into the interpreter.
//!
//! Unwinding is safe here: kernels hold no locks that poison (`parking_lot`), temporaries are
//! owned values freed on unwind, and a half-written output is dropped with its tensor.
//!
//! [`fault`] is the test-only hook that makes a chosen layer panic, so tests can check each
//! boundary.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use crate::{Error, Result};

/// The payload of an unwind started by [`raise`].
pub struct Raised(pub Error);

/// Unwinds to the nearest [`catch`] with `err`, printing nothing.
pub fn raise(err: Error) -> ! {
    resume_unwind(Box::new(Raised(err)))
}

/// A `Vec` with room for `n` values, or PyTorch's out-of-memory error: a failed `Vec`
/// allocation would abort the process (`handle_alloc_error`), so kernels that build values in a
/// `Vec` of a user-chosen length reserve it here.
pub fn try_vec<T>(n: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| Error::OutOfMemory {
        nbytes: n.saturating_mul(std::mem::size_of::<T>()),
    })?;
    Ok(v)
}

/// Fails as the allocator would for an output of `shape` and `dtype`, before a kernel builds
/// its values elsewhere first: the error then names the output's size, as PyTorch's does.
pub fn check_alloc(shape: &[usize], dtype: crate::DType) -> Result<()> {
    crate::Tensor::try_empty(shape, dtype).map(drop)
}

/// Runs `f`; an error raised inside comes back as `Err`, and a panic as a `RuntimeError` naming
/// `what()` (e.g. "the kernel of aten::add") with the panic's message.
/// Generic over the error type, so crates above this one (whose errors wrap [`Error`]) use it too.
pub fn catch<T, E: From<Error>>(
    what: impl FnOnce() -> String,
    f: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => Err(from_panic(payload, what).into()),
    }
}

/// The error an unwind payload stands for: the raised error itself, or a `RuntimeError` for a
/// panic in `what()`.
pub fn from_panic(payload: Box<dyn Any + Send>, what: impl FnOnce() -> String) -> Error {
    match payload.downcast::<Raised>() {
        Ok(r) => r.0,
        Err(payload) => Error::Runtime(panic_error_message(&what(), &*payload)),
    }
}

/// The text of the `RuntimeError` a panic in `what` becomes.
pub fn panic_error_message(what: &str, payload: &(dyn Any + Send)) -> String {
    format!(
        "internal error (Rust panic) in {what}: {}. This is a bug in Rynamo; please report it.",
        panic_message(payload)
    )
}

/// The message of a panic payload (`panic!` with a literal or a formatted string).
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else if let Some(r) = payload.downcast_ref::<Raised>() {
        r.0.to_string()
    } else {
        "a panic with a non-string payload".to_string()
    }
}

/// Test-only fault injection: make one named place panic, to check that every boundary turns the
/// panic into an error (issue 30). Disarmed, a check is one relaxed atomic load.
pub mod fault {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, Ordering};

    static ARMED: AtomicBool = AtomicBool::new(false);
    static TARGET: Mutex<Option<(String, String)>> = Mutex::new(None);

    /// The layers that have an injection point, with what their name argument means.
    pub const LAYERS: &[(&str, &str)] = &[
        (
            "kernel",
            "an op's eager kernel, by op name (aten::add or add)",
        ),
        ("pass", "a JIT compile pass, by pass name (or *)"),
        ("jit", "a compiled kernel launch, by kernel name (or *)"),
        (
            "autograd",
            "a backward node of the autograd engine, by node name (or *)",
        ),
        (
            "plugin",
            "the plugin host's compile or run, by plugin name (or *)",
        ),
        (
            "dynamo",
            "Dynamo's frame conversion, by function name (or *)",
        ),
        (
            "convert",
            "a conversion outside the dispatcher, by method (Tensor.tolist, Tensor.item, Tensor.__repr__, or *)",
        ),
    ];

    /// Makes the next [`check`]s of `layer` whose name matches `name` (`*`: any) panic, until
    /// [`disarm`].
    pub fn arm(layer: &str, name: &str) {
        *lock() = Some((layer.to_string(), name.to_string()));
        ARMED.store(true, Ordering::Release);
    }

    /// Stops injecting.
    pub fn disarm() {
        ARMED.store(false, Ordering::Release);
        *lock() = None;
    }

    fn lock() -> std::sync::MutexGuard<'static, Option<(String, String)>> {
        TARGET.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Panics when armed for `layer` and `name`.
    #[inline]
    pub fn check(layer: &str, name: &str) {
        if ARMED.load(Ordering::Relaxed) {
            check_slow(layer, name);
        }
    }

    #[cold]
    fn check_slow(layer: &str, name: &str) {
        let hit = lock().as_ref().is_some_and(|(l, n)| {
            l == layer
                && (n == "*" || n == name || name.strip_prefix("aten::").is_some_and(|s| s == n))
        });
        if hit {
            panic!("injected panic in {layer} {name} (torch._C._test_inject_panic)");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raised_errors_come_back_unchanged() {
        let r: Result<()> = catch(
            || "test".to_string(),
            || raise(Error::Runtime("no memory".into())),
        );
        assert_eq!(r, Err(Error::Runtime("no memory".into())));
    }

    #[test]
    fn panics_become_runtime_errors_naming_the_place() {
        let r: Result<()> = catch(
            || "the kernel of aten::foo".to_string(),
            || panic!("boom {}", 1),
        );
        let Err(Error::Runtime(msg)) = r else {
            panic!("expected a runtime error")
        };
        assert!(msg.contains("the kernel of aten::foo"), "{msg}");
        assert!(msg.contains("boom 1"), "{msg}");
    }

    #[test]
    fn fault_injection_hits_only_its_target() {
        fault::arm("kernel", "zz_test_only");
        fault::check("kernel", "aten::other");
        fault::check("pass", "zz_test_only");
        let r = std::panic::catch_unwind(|| fault::check("kernel", "aten::zz_test_only"));
        fault::disarm();
        assert!(r.is_err());
        fault::check("kernel", "aten::zz_test_only");
    }
}
