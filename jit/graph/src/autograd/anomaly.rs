//! Anomaly mode (`torch.autograd.detect_anomaly` / `set_detect_anomaly`): nodes made while it is
//! on keep the user's stack at their forward call, and a failing backward names that node and
//! prints that stack; with `check_nan`, a node returning NaN gradients fails.
//!
//! The stack comes from the embedder (Python frames are not visible here), through a provider
//! it installs once; warnings go to its warning handler.

use std::cell::Cell;
use std::sync::OnceLock;

thread_local! {
    static ENABLED: Cell<bool> = const { Cell::new(false) };
    static CHECK_NAN: Cell<bool> = const { Cell::new(true) };
}

static TRACE_PROVIDER: OnceLock<fn() -> Option<String>> = OnceLock::new();
static WARN_HANDLER: OnceLock<fn(&str)> = OnceLock::new();

/// Whether anomaly mode is on (this thread).
pub fn is_enabled() -> bool {
    ENABLED.with(Cell::get)
}

/// Whether anomaly mode checks gradients for NaN.
pub fn check_nan() -> bool {
    CHECK_NAN.with(Cell::get)
}

/// `torch.autograd.set_detect_anomaly(mode, check_nan)`.
pub fn set_enabled(enabled: bool, check_nan: bool) {
    ENABLED.with(|c| c.set(enabled));
    CHECK_NAN.with(|c| c.set(check_nan));
}

/// Installs the function that formats the caller's stack (once per process).
pub fn set_trace_provider(f: fn() -> Option<String>) {
    let _ = TRACE_PROVIDER.set(f);
}

/// Installs the function that reports warnings to the user (once per process).
pub fn set_warn_handler(f: fn(&str)) {
    let _ = WARN_HANDLER.set(f);
}

/// The stack to store in a node made now: `None` unless anomaly mode is on.
pub(crate) fn forward_trace() -> Option<String> {
    if !is_enabled() {
        return None;
    }
    TRACE_PROVIDER.get().and_then(|f| f())
}

/// Reports a warning through the embedder, or stderr without one.
pub(crate) fn warn(msg: &str) {
    match WARN_HANDLER.get() {
        Some(f) => f(msg),
        None => eprintln!("UserWarning: {msg}"),
    }
}
