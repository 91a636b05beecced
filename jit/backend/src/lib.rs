//! Backend and Executable traits, the backend registry, and the eager graph interpreter.
//!
//! A [`Backend`] compiles a whole [`Graph`] into an [`Executable`] (graph-level, like Dynamo's
//! `backend(gm, example_inputs)` and PJRT's compile/execute); ops are IR data, not trait methods.
//! [`EagerBackend`] interprets graphs node by node through the registry's eager kernels and is the
//! oracle every other backend is tested against.
//!
//! ```
//! use rynamo_backend::{Backend, EagerBackend};
//! use rynamo_graph::parse;
//! use rynamo_tensor::Tensor;
//! let g = parse("graph(%x: f32[3]):\n  %0: f32[3] = mul(%x, 2.0)\n  return (%0)\n").unwrap();
//! let exe = EagerBackend.compile(&g).unwrap();
//! let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).unwrap();
//! assert_eq!(exe.run(&[x]).unwrap()[0].to_vec::<f32>(), vec![2.0, 4.0, 6.0]);
//! ```

#![deny(missing_docs)]

mod eager;
mod error;
mod registry;

use std::sync::Arc;

pub use eager::{EagerBackend, EagerExecutable};
pub use error::{Error, Result};
pub use registry::{BackendRegistry, global};
use rynamo_graph::{Graph, NodeId};
use rynamo_tensor::Tensor;

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
}

/// A compiled graph.
pub trait Executable: Send + Sync {
    /// Runs on tensors matching the graph inputs (dtype and shape); returns the graph outputs.
    fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>>;
}

#[cfg(test)]
mod tests;
