//! Compiling a captured region whose inputs require grad (AOTAutograd's entry,
//! `aot_module_simplified`): the graph is differentiated and partitioned
//! ([`rynamo_backend::AotGraphs`]), the backend compiles the forward and backward graphs, and each
//! run makes one autograd node that runs the compiled backward.
//!
//! The `eager` backend keeps PyTorch's meaning (the captured graph runs op by op, recorded by
//! eager autograd), as do regions AOT cannot differentiate as a whole (in-place writes, host calls,
//! an op without a backward formula): those run node by node through the dispatcher
//! (`EagerExecutable::recording`), which gives eager's history exactly.

use std::sync::Arc;

use rynamo_backend::{AotExecutable, AotGraphs, Backend, EagerExecutable, Executable};
use rynamo_graph::Graph;

use super::bridge;
use super::logs::{self, Artifact};
use super::output_graph::OutputGraph;

/// Per node, whether it was traced inside a `no_grad` block.
fn no_grad_nodes(graph: &Graph, out: &OutputGraph) -> Vec<bool> {
    graph
        .nodes()
        .iter()
        .map(|n| {
            n.outputs
                .iter()
                .any(|&o| out.no_grad_values.contains(&graph.value(o).name))
        })
        .collect()
}

/// Whether every node of the graph was traced inside a `no_grad` block (so it records nothing).
pub fn all_no_grad(graph: &Graph, out: &OutputGraph) -> bool {
    no_grad_nodes(graph, out).into_iter().all(|b| b)
}

/// The joint and partitioned graphs of a region whose inputs require grad, or `None` when AOT
/// cannot differentiate it as a whole.
pub fn graphs_for(graph: &Graph, out: &OutputGraph) -> Option<AotGraphs> {
    let requires_grad: Vec<bool> = out
        .inputs
        .iter()
        .map(|i| bridge::tensor_meta(&i.example).is_some_and(|(_, rg)| rg))
        .collect();
    AotGraphs::build(graph, &requires_grad, &no_grad_nodes(graph, out)).ok()
}

/// The executable for a graph with inputs that require grad, compiled by `backend` (named
/// `name` by the user).
pub fn compile_for_training(
    graph: &Graph,
    out: &OutputGraph,
    name: &str,
    backend: &dyn Backend,
) -> rynamo_backend::Result<Arc<dyn Executable>> {
    let no_grad = no_grad_nodes(graph, out);
    if name == "eager" {
        return EagerExecutable::recording(graph, no_grad);
    }
    let requires_grad: Vec<bool> = out
        .inputs
        .iter()
        .map(|i| bridge::tensor_meta(&i.example).is_some_and(|(_, rg)| rg))
        .collect();
    let graphs = match AotGraphs::build(graph, &requires_grad, &no_grad) {
        Ok(g) => g,
        Err(e) => {
            logs::log(
                Artifact::AotGraphs,
                None,
                &format!(
                    "AOT autograd cannot compile this graph ({e}); it runs under eager autograd"
                ),
            );
            return EagerExecutable::recording(graph, no_grad);
        }
    };
    if logs::enabled(Artifact::AotJointGraph) {
        logs::log(
            Artifact::AotJointGraph,
            None,
            &format!(
                "TRACED GRAPH\n ===== Joint graph =====\n{}",
                graphs.joint.graph
            ),
        );
    }
    if logs::enabled(Artifact::AotGraphs) {
        let p = &graphs.partition;
        logs::log(
            Artifact::AotGraphs,
            None,
            &format!(
                "TRACED GRAPH\n ===== Forward graph =====\n{}\nTRACED GRAPH\n ===== Backward graph =====\n{}saved {} values, {} bytes",
                p.fw,
                p.bw,
                p.num_saved,
                p.saved_bytes()
            ),
        );
    }
    Ok(Arc::new(AotExecutable::compile(&graphs, backend)?))
}
