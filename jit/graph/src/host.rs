//! Host calls: an opaque node that calls back into the embedding program (Dynamo's
//! `allow_in_graph`: a Python function in the graph as one call, not traced inside).
//!
//! The graph stays Python-agnostic: a node holds an integer callee id; the embedder registers
//! callees that know their output metas and how to run. Backends that cannot run a host call
//! (plugins, the JIT) treat it like any op they do not lower.

use std::sync::{Arc, OnceLock, RwLock};

use rynamo_tensor::{Tensor, TensorMeta};

use crate::{Error, Result};

/// Something the graph can call: it has fixed output metas and runs on tensors.
pub trait HostCallee: Send + Sync {
    /// A name for printing.
    fn name(&self) -> &str;
    /// The metas of the outputs (fixed when the node is made).
    fn output_metas(&self) -> &[TensorMeta];
    /// Runs on the node's tensor inputs.
    fn call(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>>;
}

fn table() -> &'static RwLock<Vec<Arc<dyn HostCallee>>> {
    static T: OnceLock<RwLock<Vec<Arc<dyn HostCallee>>>> = OnceLock::new();
    T.get_or_init(|| RwLock::new(Vec::new()))
}

/// Registers a callee; returns its id (the `callee` argument of `host_call`).
pub fn register(c: Arc<dyn HostCallee>) -> i64 {
    let mut t = table().write().unwrap_or_else(|e| e.into_inner());
    t.push(c);
    t.len() as i64 - 1
}

/// The callee with id `id`.
pub fn get(id: i64) -> Result<Arc<dyn HostCallee>> {
    let t = table().read().unwrap_or_else(|e| e.into_inner());
    usize::try_from(id)
        .ok()
        .and_then(|i| t.get(i).cloned())
        .ok_or_else(|| Error::BadArgs(format!("host_call: no callee {id}")))
}
