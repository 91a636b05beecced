//! Process-wide cache of compiled kernels, keyed by the target name and the kernel's loop IR.
//!
//! The IR holds no sizes, strides or constant values (see [`crate::loop_ir`]), so equal IR means
//! interchangeable code: recompiling an identical graph, or the same graph at other sizes, emits
//! nothing new.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

use crate::Result;
use crate::loop_ir::Kernel;
use crate::target::{CompiledKernel, Target};

type Map = HashMap<(&'static str, Kernel), Arc<CompiledKernel>>;

static EMITTED: AtomicU64 = AtomicU64::new(0);

fn cache() -> &'static Mutex<Map> {
    static C: OnceLock<Mutex<Map>> = OnceLock::new();
    C.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The compiled code of `k` on `t`, emitting it on first use.
pub fn get_or_compile(t: &dyn Target, k: &Kernel) -> Result<Arc<CompiledKernel>> {
    let key = (t.name(), k.clone());
    if let Some(c) = cache().lock().get(&key) {
        return Ok(c.clone());
    }
    // Emit outside the lock: compiling is pure, and a racing duplicate is simply dropped.
    let code = Arc::new(t.compile(k)?);
    EMITTED.fetch_add(1, Ordering::Relaxed);
    Ok(cache().lock().entry(key).or_insert(code).clone())
}

/// Kernels emitted so far in this process.
pub fn emitted() -> u64 {
    EMITTED.load(Ordering::Relaxed)
}
