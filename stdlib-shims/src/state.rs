//! Process and thread state the `torch` module keeps outside any tensor: grad mode (delegated to
//! the dispatcher's flag in `rynamo_graph::autograd::mode`), the default dtype and the print options.
//!
//! Grad mode is per thread, as in PyTorch (`torch.no_grad()` in one thread leaves others alone).
//! The default dtype and print options are process-wide, as in PyTorch.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, Ordering};

use rynamo_tensor::DType;

/// `torch.is_grad_enabled()` for the current thread (the dispatcher's flag, see
/// `rynamo_graph::autograd::mode`).
pub fn is_grad_enabled() -> bool {
    rynamo_graph::autograd::mode::is_grad_enabled()
}

/// `torch._C._set_grad_enabled(mode)` for the current thread.
pub fn set_grad_enabled(enabled: bool) {
    rynamo_graph::autograd::mode::set_grad_enabled(enabled);
}

/// `torch.is_inference_mode_enabled()` for the current thread.
pub fn is_inference_mode_enabled() -> bool {
    rynamo_graph::autograd::mode::is_inference_mode_enabled()
}

/// Sets the inference-mode flag for the current thread.
pub fn set_inference_mode(enabled: bool) {
    rynamo_graph::autograd::mode::set_inference_mode(enabled);
}

/// The wire index of the default float dtype (`DType::ALL[i]`).
static DEFAULT_DTYPE: AtomicU8 = AtomicU8::new(dtype_index(rynamo_tensor::DEFAULT_FLOAT));

const fn dtype_index(d: DType) -> u8 {
    d as u8
}

/// `torch.get_default_dtype()`.
pub fn default_dtype() -> DType {
    DType::ALL[usize::from(DEFAULT_DTYPE.load(Ordering::Relaxed))]
}

/// `torch.set_default_dtype(d)`; the caller checks that `d` is a floating dtype.
pub fn set_default_dtype(d: DType) {
    DEFAULT_DTYPE.store(dtype_index(d), Ordering::Relaxed);
}

/// `torch.set_printoptions` state (`torch._tensor_str.PRINT_OPTS`).
#[derive(Clone, Debug, PartialEq)]
pub struct PrintOptions {
    /// Digits after the point.
    pub precision: usize,
    /// Element count above which printing summarises (`f64` so that `inf` fits).
    pub threshold: f64,
    /// Items shown at each end of a summarised dim.
    pub edgeitems: usize,
    /// Characters per line.
    pub linewidth: usize,
    /// Forces (or forbids) scientific notation; `None` lets the formatter decide.
    pub sci_mode: Option<bool>,
}

impl Default for PrintOptions {
    fn default() -> Self {
        PrintOptions {
            precision: 4,
            threshold: 1000.0,
            edgeitems: 3,
            linewidth: 80,
            sci_mode: None,
        }
    }
}

static PRINT_OPTIONS: Mutex<Option<PrintOptions>> = Mutex::new(None);

/// The current print options.
pub fn print_options() -> PrintOptions {
    PRINT_OPTIONS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .unwrap_or_default()
}

/// Replaces the print options.
pub fn set_print_options(opts: PrintOptions) {
    *PRINT_OPTIONS.lock().unwrap_or_else(|e| e.into_inner()) = Some(opts);
}
