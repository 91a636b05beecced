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
use super::trace_structured as tlog;

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

/// What compiling a graph for training needs from its trace, without the trace (so a graph
/// with dynamic shapes can be compiled again for other sizes).
#[derive(Clone, Debug)]
pub struct TrainingInputs {
    /// Per graph input, whether it requires grad.
    pub requires_grad: Vec<bool>,
    /// Names of the values computed inside `no_grad` blocks.
    pub no_grad_values: std::collections::HashSet<String>,
}

impl TrainingInputs {
    /// Read off a finished trace.
    pub fn of(out: &OutputGraph) -> TrainingInputs {
        TrainingInputs {
            requires_grad: out
                .inputs
                .iter()
                .map(|i| bridge::tensor_meta(&i.example).is_some_and(|(_, rg)| rg))
                .collect(),
            no_grad_values: out.no_grad_values.clone(),
        }
    }
}

/// [`compile_for_training`] from the trace's [`TrainingInputs`].
pub fn compile_for_training_with(
    graph: &Graph,
    inputs: &TrainingInputs,
    name: &str,
    backend: &dyn Backend,
    compile_id: (u32, u32),
) -> rynamo_backend::Result<Arc<dyn Executable>> {
    let no_grad: Vec<bool> = graph
        .nodes()
        .iter()
        .map(|n| {
            n.outputs
                .iter()
                .any(|&o| inputs.no_grad_values.contains(&graph.value(o).name))
        })
        .collect();
    if name == "eager" {
        return EagerExecutable::recording(graph, no_grad);
    }
    rynamo_backend::timing::timed("create_aot_dispatcher_function", || {
        aot_compile(graph, &inputs.requires_grad, &no_grad, backend, compile_id)
    })
}

/// AOT autograd proper: the joint graph, its partition, both graphs compiled by `backend`.
fn aot_compile(
    graph: &Graph,
    requires_grad: &[bool],
    no_grad: &[bool],
    backend: &dyn Backend,
    compile_id: (u32, u32),
) -> rynamo_backend::Result<Arc<dyn Executable>> {
    let graphs = match AotGraphs::build(graph, requires_grad, no_grad) {
        Ok(g) => g,
        Err(e) => {
            logs::log(
                Artifact::AotGraphs,
                Some(compile_id),
                &format!(
                    "AOT autograd cannot compile this graph ({e}); it runs under eager autograd"
                ),
            );
            return EagerExecutable::recording(graph, no_grad.to_vec());
        }
    };
    if logs::enabled(Artifact::AotJointGraph) {
        logs::log(
            Artifact::AotJointGraph,
            Some(compile_id),
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
            Some(compile_id),
            &format!(
                "TRACED GRAPH\n ===== Forward graph =====\n{}\nTRACED GRAPH\n ===== Backward graph =====\n{}saved {} values, {} bytes",
                p.fw,
                p.bw,
                p.num_saved,
                p.saved_bytes()
            ),
        );
    }
    if tlog::enabled() {
        // TORCH_TRACE records tlparse shows beside the Dynamo graph, as AOTAutograd writes them.
        let p = &graphs.partition;
        tlog::graph_record(
            "aot_joint_graph",
            compile_id,
            &graphs.joint.graph.to_string(),
        );
        tlog::graph_record("aot_forward_graph", compile_id, &p.fw.to_string());
        tlog::graph_record("aot_backward_graph", compile_id, &p.bw.to_string());
    }
    Ok(Arc::new(AotExecutable::compile(&graphs, backend)?))
}
