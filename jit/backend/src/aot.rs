//! Compiled training (AOTAutograd's runtime): a captured graph whose inputs require grad is
//! differentiated ahead of time ([`rynamo_graph::autograd::joint`]), split into a forward and a
//! backward graph ([`rynamo_graph::autograd::partition`]), and both are compiled by the chosen
//! backend. Each run executes the forward and makes ONE autograd node (PyTorch's
//! `CompiledFunctionBackward`) whose backward runs the compiled backward graph on the saved
//! values and the incoming gradients, so eager autograd links compiled regions to the code around
//! them.
//!
//! **Invariant:** the forward graph's outputs are the user's outputs followed by the saved
//! values; the backward graph's inputs are the saved values followed by one tangent per
//! differentiable output, and its outputs are the gradients of `grad_primals`, in order.

use std::sync::{Arc, Mutex};

use rynamo_graph::Graph;
use rynamo_graph::autograd::joint::{Joint, build_joint};
use rynamo_graph::autograd::node::{Backward, Edge, Node};
use rynamo_graph::autograd::partition::{Partition, partition};
use rynamo_graph::autograd::saved::SavedTensor;
use rynamo_graph::autograd::{self as ag};
use rynamo_tensor::{Tensor, TensorMeta};

use crate::{Backend, Error, Executable, Result, timing};

/// The forward and backward graphs of a region, before compilation.
#[derive(Clone, Debug)]
pub struct AotGraphs {
    /// The joint graph (for `TORCH_LOGS=aot_joint_graph`).
    pub joint: Joint,
    /// The partition.
    pub partition: Partition,
}

impl AotGraphs {
    /// Differentiates and partitions `graph`; `requires_grad` per input, `no_grad` per node.
    pub fn build(graph: &Graph, requires_grad: &[bool], no_grad: &[bool]) -> Result<AotGraphs> {
        let joint = timing::timed("aot_trace_joint_graph", || {
            build_joint(graph, requires_grad, no_grad)
        })?;
        let partition = timing::timed("min_cut_rematerialization_partition", || partition(&joint))?;
        Ok(AotGraphs { joint, partition })
    }
}

/// A region compiled for training: the forward and backward executables.
pub struct AotExecutable {
    fw: Arc<dyn Executable>,
    bw: Arc<dyn Executable>,
    num_fw_outputs: usize,
    tangent_of_output: Vec<Option<usize>>,
    tangent_metas: Vec<TensorMeta>,
    grad_primals: Vec<usize>,
    /// The joint graph and the partition, for the `TORCH_COMPILE_DEBUG=1` directory.
    graphs: AotGraphs,
}

impl AotExecutable {
    /// Compiles both graphs of `g` with `backend`.
    pub fn compile(g: &AotGraphs, backend: &dyn Backend) -> Result<AotExecutable> {
        let p = &g.partition;
        let fw = timing::timed("compile_fx.<locals>.fw_compiler_base", || {
            backend.compile(&p.fw)
        })?;
        let bw = timing::timed("compile_fx.<locals>.bw_compiler", || {
            backend.compile_backward(&p.bw)
        })?;
        let tangent_metas = p.bw.inputs()[p.num_saved..]
            .iter()
            .map(|v| p.bw.value(*v).meta.clone())
            .collect();
        Ok(AotExecutable {
            fw,
            bw,
            num_fw_outputs: p.num_fw_outputs,
            tangent_of_output: g.joint.tangent_of_output.clone(),
            tangent_metas,
            grad_primals: g.joint.grad_primals.clone(),
            graphs: g.clone(),
        })
    }
}

impl Executable for AotExecutable {
    fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let mut outs = self.fw.run(inputs)?;
        let saved: Vec<Tensor> = outs.split_off(self.num_fw_outputs);
        let edges: Vec<Option<Edge>> = self
            .grad_primals
            .iter()
            .map(|&k| {
                let t = &inputs[k];
                if t.needs_grad() {
                    ag::gradient_edge(t)
                } else {
                    None
                }
            })
            .collect();
        // No check of the grad mode at the call: a region compiled for training has nodes traced
        // with grad on, and the guards pin the mode at entry. A region resumed inside `no_grad`
        // that leaves the block (the call runs with grad off, the traced ops after the block with
        // it on) records its history as eager does.
        if edges.iter().all(Option::is_none) {
            return Ok(outs);
        }
        let saved = saved
            .iter()
            .map(SavedTensor::input)
            .collect::<rynamo_graph::Result<Vec<_>>>()?;
        let input_metas = self
            .grad_primals
            .iter()
            .map(|&k| inputs[k].meta())
            .collect();
        let node = Node::new(
            "CompiledFunctionBackward",
            edges,
            input_metas,
            self.tangent_metas.clone(),
            Box::new(CompiledBackward {
                bw: self.bw.clone(),
                saved: Mutex::new(Some(saved)),
                tangent_metas: self.tangent_metas.clone(),
            }),
        );
        for (o, tangent) in outs.iter_mut().zip(&self.tangent_of_output) {
            let Some(t) = tangent else { continue };
            // An output that is an input comes back as a new tensor sharing its data, so the
            // input keeps its own history (PyTorch returns a view there).
            if o.autograd().is_some() {
                *o = o.with_autograd(None);
            }
            ag::set_grad_fn(o, &node, *t as u32);
        }
        Ok(outs)
    }

    fn debug_dump(&self) -> Option<String> {
        let fw = self.fw.debug_dump()?;
        let bw = self.bw.debug_dump().unwrap_or_default();
        Some(format!("# forward\n{fw}\n# backward\n{bw}"))
    }

    fn debug_files(&self) -> Vec<(String, String)> {
        let p = &self.graphs.partition;
        let mut files = vec![
            (
                "joint.graph.txt".to_string(),
                self.graphs.joint.graph.to_string(),
            ),
            ("forward.graph.txt".to_string(), p.fw.to_string()),
            ("backward.graph.txt".to_string(), p.bw.to_string()),
        ];
        for (dir, exe) in [("forward", &self.fw), ("backward", &self.bw)] {
            files.extend(
                exe.debug_files()
                    .into_iter()
                    .map(|(p, text)| (format!("{dir}/{p}"), text)),
            );
        }
        files
    }
}

/// The backward of a compiled region.
struct CompiledBackward {
    bw: Arc<dyn Executable>,
    saved: Mutex<Option<Vec<SavedTensor>>>,
    tangent_metas: Vec<TensorMeta>,
}

impl Backward for CompiledBackward {
    fn apply(
        &self,
        node: &Arc<Node>,
        grads: Vec<Option<Tensor>>,
    ) -> rynamo_graph::Result<Vec<Option<Tensor>>> {
        let create_graph = ag::is_grad_enabled();
        let _no_grad = ag::GradModeGuard::new(false);
        let mut args: Vec<Tensor> = {
            let guard = self.saved.lock().unwrap_or_else(|e| e.into_inner());
            let saved = guard
                .as_ref()
                .ok_or_else(rynamo_graph::autograd::saved::backward_twice)?;
            saved
                .iter()
                .map(|s| s.unpack(node))
                .collect::<rynamo_graph::Result<_>>()?
        };
        for (g, m) in grads.into_iter().zip(&self.tangent_metas) {
            // The backward graph takes every tangent; an output no gradient reached is zero.
            args.push(match g {
                Some(g) if g.is_contiguous() => g,
                Some(g) => g.contiguous(),
                None => Tensor::zeros(&m.shape, m.dtype),
            });
        }
        let out = self.bw.run(&args).map_err(|e| match e {
            Error::Graph(g) => g,
            other => rynamo_graph::Error::Graph(other.to_string()),
        })?;
        if create_graph {
            return Ok(no_double_backward(&args, out));
        }
        Ok(out.into_iter().map(Some).collect())
    }

    fn release(&self) {
        *self.saved.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

/// Under `create_graph=True` the compiled backward's results get a node that refuses to be
/// differentiated (PyTorch's `CompiledFunctionBackwardBackward`), linked to the backward's
/// inputs that need grad, so a second backward reaches it and fails with PyTorch's message.
fn no_double_backward(inputs: &[Tensor], out: Vec<Tensor>) -> Vec<Option<Tensor>> {
    let edges: Vec<Option<Edge>> = inputs
        .iter()
        .filter(|t| t.needs_grad())
        .map(ag::gradient_edge)
        .collect();
    if edges.iter().all(Option::is_none) {
        return out.into_iter().map(Some).collect();
    }
    let metas = inputs
        .iter()
        .filter(|t| t.needs_grad())
        .map(Tensor::meta)
        .collect();
    let node = Node::new(
        "CompiledFunctionBackwardBackward",
        edges,
        metas,
        out.iter().map(Tensor::meta).collect(),
        Box::new(DoubleBackwardError),
    );
    out.into_iter()
        .enumerate()
        .map(|(i, mut t)| {
            if t.dtype().is_floating_point() {
                ag::set_grad_fn(&mut t, &node, i as u32);
            }
            Some(t)
        })
        .collect()
}

struct DoubleBackwardError;

impl Backward for DoubleBackwardError {
    fn apply(
        &self,
        _: &Arc<Node>,
        _: Vec<Option<Tensor>>,
    ) -> rynamo_graph::Result<Vec<Option<Tensor>>> {
        Err(rynamo_graph::Error::Tensor(rynamo_tensor::Error::Runtime(
            "torch.compile with aot_autograd does not currently support double backward".into(),
        )))
    }
}
