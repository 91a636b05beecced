//! `_rynamo_aot`: AOTAutograd for Python backends (`torch._dynamo.backends.common.aot_autograd`).
//! A graph handed to a Python backend carries `gm._rynamo_aot` when its inputs require grad;
//! `split(handle)` returns its partitioned forward and backward graphs as FX GraphModules with the
//! layout `aot_autograd` needs to build the compiled autograd Function.

pub(crate) use native::module_def;

use rustpython_vm::{PyObjectRef, PyPayload, PyResult, VirtualMachine, pyclass};
use rynamo_backend::AotGraphs;

/// The joint and partitioned graphs of a region, attached to its GraphModule.
#[pyclass(module = "_rynamo_aot", name = "AotHandle")]
#[derive(Debug, PyPayload)]
pub struct PyAotHandle {
    graphs: AotGraphs,
}

#[pyclass]
impl PyAotHandle {}

impl PyAotHandle {
    /// The handle object for a region's graphs.
    pub fn object(graphs: AotGraphs, vm: &VirtualMachine) -> PyObjectRef {
        use rustpython_vm::class::PyClassImpl;
        let _ = PyAotHandle::make_static_type();
        PyAotHandle { graphs }.into_ref(&vm.ctx).into()
    }
}

/// An FX GraphModule of a graph that did not come from a trace (placeholders named after the
/// graph's inputs).
fn plain_graph_module(
    graph: &rynamo_graph::Graph,
    name: &str,
    vm: &VirtualMachine,
) -> PyResult<PyObjectRef> {
    use std::rc::Rc;

    use super::source::Source;
    let inputs = graph
        .inputs()
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let src = Source::Local {
                name: Rc::from(graph.value(*v).name.as_str()),
                index: i as u32,
            };
            (Rc::new(src), vm.ctx.none())
        })
        .collect();
    let view = super::stats::FxView {
        graph: Rc::new(graph.clone()),
        fx: vec![None; graph.nodes().len()],
        inputs,
        fn_name: name.to_owned(),
        grad_enabled: vec![true; graph.nodes().len()],
        grad_enabled_at_start: true,
        sym_args: Vec::new(),
        size_assumptions: Vec::new(),
        int_symbols: Vec::new(),
        dim_symbols: Vec::new(),
        shape_probe: None,
    };
    super::fx::build(&view, vm)
}

#[rustpython_vm::pymodule(name = "_rynamo_aot")]
mod native {
    use rustpython_vm::{PyObjectRef, PyRef, PyResult, VirtualMachine};

    use super::{PyAotHandle, plain_graph_module};

    /// `(fw_gm, bw_gm, num_fw_outputs, tangent_of_output, grad_primals)`: the forward graph takes
    /// the primals and returns the outputs then the saved values; the backward graph takes the
    /// saved values then one tangent per differentiable output and returns the gradients of
    /// `grad_primals`.
    #[pyfunction]
    fn split(handle: PyRef<PyAotHandle>, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
        let g = &handle.graphs;
        let p = &g.partition;
        let fw = plain_graph_module(&p.fw, "forward", vm)?;
        let bw = plain_graph_module(&p.bw, "backward", vm)?;
        let tangents: Vec<PyObjectRef> = g
            .joint
            .tangent_of_output
            .iter()
            .map(|t| t.map_or_else(|| vm.ctx.none(), |i| vm.ctx.new_int(i).into()))
            .collect();
        let primals: Vec<PyObjectRef> = g
            .joint
            .grad_primals
            .iter()
            .map(|&k| vm.ctx.new_int(k).into())
            .collect();
        Ok(vm
            .ctx
            .new_tuple(vec![
                fw,
                bw,
                vm.ctx.new_int(p.num_fw_outputs).into(),
                vm.ctx.new_list(tangents).into(),
                vm.ctx.new_list(primals).into(),
            ])
            .into())
    }
}
