//! The graph-level backend contract: small and object-safe, because backends are picked at run
//! time by name.

use std::sync::Arc;

use rynamo_graph::{Graph, NodeId};
use rynamo_tensor::Tensor;

use crate::Result;

/// What a backend can do with a graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Support {
    /// Every node.
    Full,
    /// All but these nodes: the capturer may split the graph around them.
    Partial {
        /// Nodes the backend cannot run.
        unsupported: Vec<NodeId>,
    },
    /// Nothing (with the reason), e.g. a backend compiled out or a device missing.
    Unsupported(String),
}

/// Compiles captured graphs into callables; the interpreter caches them behind guards.
pub trait Backend: Send + Sync {
    /// Registry name: `"eager"`, `"dynasm"`, `"plugin:foo"`.
    fn name(&self) -> &str;
    /// Cheap check of which nodes this backend can run. Not an error.
    fn supports(&self, graph: &Graph) -> Support;
    /// Compiles `graph`. The executable takes the graph inputs in order.
    fn compile(&self, graph: &Graph) -> Result<Arc<dyn Executable>>;
    /// Compiles the backward graph of a training region (AOT autograd's partition). A backend
    /// that cannot take backward graphs (a plugin without `RYNAMO_CAP_BACKWARD_GRAPHS`) hands
    /// it to another.
    fn compile_backward(&self, graph: &Graph) -> Result<Arc<dyn Executable>> {
        self.compile(graph)
    }
}

/// A compiled graph.
pub trait Executable: Send + Sync {
    /// Runs on tensors matching the graph inputs (dtype and shape); returns the graph outputs.
    fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>>;

    /// The generated code, for `TORCH_LOGS=output_code` (a JIT's kernels); `None` when the
    /// backend generates nothing worth printing.
    fn debug_dump(&self) -> Option<String> {
        None
    }

    /// Files for the `TORCH_COMPILE_DEBUG=1` directory, as `(relative path, contents)`: a JIT's
    /// graph after each pass, each kernel's loop IR and disassembly. Empty when the backend
    /// generates nothing.
    fn debug_files(&self) -> Vec<(String, String)> {
        Vec::new()
    }
}
