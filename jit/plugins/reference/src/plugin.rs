//! The plugin and its executable.

use std::sync::Arc;

use rynamo_backend::{Backend, EagerBackend};
use rynamo_plugin_sdk::graph::{Graph, Node, OpFlags};
use rynamo_plugin_sdk::tensor::Tensor;
use rynamo_plugin_sdk::{Capabilities, Error, Executable, Plugin, Result, export_plugin, log};

/// The plugin.
#[derive(Debug, Default)]
pub struct Reference;

/// A graph compiled by [`Reference`].
pub struct ReferenceExecutable(Arc<dyn rynamo_backend::Executable>);

/// Whether the reference plugin runs `node`.
pub fn claims(node: &Node) -> bool {
    let f = node.op.flags();
    !(f.contains(OpFlags::INPLACE)
        || f.contains(OpFlags::MUTATES_ARGS)
        || f.contains(OpFlags::RANDOM)
        || f.contains(OpFlags::DATA_DEPENDENT)
        || f.contains(OpFlags::HOST))
}

fn backend_error(e: rynamo_backend::Error) -> Error {
    match e {
        rynamo_backend::Error::InvalidGraph(m) | rynamo_backend::Error::Inputs(m) => {
            Error::InvalidArgument(m)
        }
        e => Error::Internal(e.to_string()),
    }
}

impl Plugin for Reference {
    type Executable = ReferenceExecutable;

    fn name(&self) -> &str {
        "reference"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            strided_inputs: true,
            concurrent_execute: true,
            // `RYNAMO_REFERENCE_NO_BACKWARD=1` withholds the capability, so tests can check the
            // host's fallback for backward graphs.
            backward_graphs: std::env::var_os("RYNAMO_REFERENCE_NO_BACKWARD").is_none(),
        }
    }

    fn supports(&self, graph: &Graph) -> Vec<bool> {
        graph.nodes().iter().map(claims).collect()
    }

    fn compile(&self, graph: Graph) -> Result<ReferenceExecutable> {
        if let Some(n) = graph.nodes().iter().find(|n| !claims(n)) {
            return Err(Error::Unimplemented(format!("`{}` is not supported", n.op)));
        }
        log::log(
            log::Level::Debug,
            &format!("compiling {} nodes", graph.nodes().len()),
        );
        EagerBackend
            .compile(&graph)
            .map(ReferenceExecutable)
            .map_err(backend_error)
    }
}

impl Executable for ReferenceExecutable {
    fn execute(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        self.0.run(inputs).map_err(backend_error)
    }
}

export_plugin!(Reference, Reference);
