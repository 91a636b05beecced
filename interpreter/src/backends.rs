//! The native backends every interpreter starts with. `eager` (the graph interpreter) is in the
//! registry from the start; this adds `dynasm`, the JIT, which `torch.compile`'s default
//! `backend="inductor"` resolves to (`torch._dynamo.backends.registry.lookup_backend`).

use std::sync::{Arc, Once};

use rynamo_dynasm::DynasmBackend;

/// Registers the built-in native backends in the global registry (once per process).
pub fn register_defaults() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // On a machine without a JIT target the backend still runs every graph (per-node eager
        // kernels), so registering it unconditionally keeps `inductor` meaning one thing.
        rynamo_backend::global().register_or_replace(Arc::new(DynasmBackend::new()));
    });
}
