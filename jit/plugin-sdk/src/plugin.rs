//! The safe traits a plugin implements.

use rynamo_graph::Graph;
use rynamo_plugin_abi::{
    RYNAMO_CAP_BACKWARD_GRAPHS, RYNAMO_CAP_CONCURRENT_EXECUTE, RYNAMO_CAP_STRIDED_INPUTS,
};
use rynamo_tensor::Tensor;

use crate::Result;

/// What `execute` accepts; the host adapts its calls to it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// Inputs may have any non-negative strides (else the host makes them contiguous).
    pub strided_inputs: bool,
    /// One executable may run on several threads at once (else the host serialises).
    pub concurrent_execute: bool,
    /// `compile` takes training regions' backward graphs too (else the host's fallback does).
    pub backward_graphs: bool,
}

impl Capabilities {
    /// The `RYNAMO_CAP_*` bits.
    pub fn bits(self) -> u64 {
        let mut b = 0;
        if self.strided_inputs {
            b |= RYNAMO_CAP_STRIDED_INPUTS;
        }
        if self.concurrent_execute {
            b |= RYNAMO_CAP_CONCURRENT_EXECUTE;
        }
        if self.backward_graphs {
            b |= RYNAMO_CAP_BACKWARD_GRAPHS;
        }
        b
    }
}

/// What the host told `initialize`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostInfo {
    /// The host's ABI major version (equal to this SDK's, or the host would not have loaded us).
    pub abi_major: u32,
    /// The host's ABI minor version.
    pub abi_minor: u32,
}

/// A backend plugin. One instance lives for the life of the loaded library; every method may be
/// called from any thread.
pub trait Plugin: Send + Sync + Sized + 'static {
    /// What `compile` returns.
    type Executable: Executable;
    /// Backend name: `[A-Za-z0-9_.-]+`, at most 64 bytes (users pass it to `torch.compile`).
    fn name(&self) -> &str;
    /// Free-form version string.
    fn version(&self) -> &str;
    /// What `execute` accepts.
    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }
    /// Called once after loading, before anything else (ABI 1.1 hosts).
    fn initialize(&self, _host: &HostInfo) -> Result<()> {
        Ok(())
    }
    /// One entry per node of `graph`: whether this plugin can run it. The host runs the rest on
    /// its fallback backend.
    fn supports(&self, graph: &Graph) -> Vec<bool>;
    /// Compiles a graph made only of nodes `supports` accepted.
    fn compile(&self, graph: Graph) -> Result<Self::Executable>;
}

/// A compiled graph.
pub trait Executable: Send + Sync + 'static {
    /// Runs on tensors matching the graph's inputs (the host checked dtype and shape); returns one
    /// tensor per graph output. Inputs borrow host memory for this call only: keep no reference to
    /// them (outputs that alias an input are copied by the SDK).
    fn execute(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>>;
}
