//! `grad_fn` objects: Python views of the engine's backward nodes, with their hooks.

use std::sync::Arc;

use rustpython_vm::builtins::PyTuple;
use rustpython_vm::common::hash::PyHash;
use rustpython_vm::function::PyComparisonValue;
use rustpython_vm::types::{Comparable, Hashable, PyComparisonOp, Representable};
use rustpython_vm::{
    Py, PyObject, PyObjectRef, PyPayload, PyRef, PyResult, VirtualMachine, pyclass,
};
use rynamo_graph::autograd::node::Node;
use rynamo_tensor::Tensor;

use super::{external, no_vm};
use crate::tensor::{as_tensor, wrap_tensor};

/// A backward node as Python sees it (`x.grad_fn`, `torch.autograd.graph.Node`).
#[pyclass(module = "torch.autograd.graph", name = "Node")]
#[derive(PyPayload)]
pub struct PyNode {
    node: Arc<Node>,
}

impl std::fmt::Debug for PyNode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<{}>", self.node.name())
    }
}

impl PyNode {
    /// The engine node.
    pub fn node(&self) -> &Arc<Node> {
        &self.node
    }

    pub(crate) fn wrap(node: Arc<Node>, vm: &VirtualMachine) -> PyObjectRef {
        PyNode { node }.into_ref(&vm.ctx).into()
    }
}

#[pyclass(with(Representable, Comparable, Hashable))]
impl PyNode {
    #[pymethod]
    fn name(zelf: &Py<Self>) -> String {
        zelf.node.name().to_string()
    }

    #[pygetset]
    fn next_functions(zelf: &Py<Self>, vm: &VirtualMachine) -> PyRef<PyTuple> {
        let items: Vec<PyObjectRef> = zelf
            .node
            .next_edges()
            .iter()
            .map(|e| {
                let (n, nr) = match e {
                    Some(e) => (PyNode::wrap(e.node.clone(), vm), e.input_nr),
                    None => (vm.ctx.none(), 0),
                };
                vm.ctx.new_tuple(vec![n, vm.ctx.new_int(nr).into()]).into()
            })
            .collect();
        vm.ctx.new_tuple(items)
    }

    /// `register_hook(fn(grad_inputs, grad_outputs))`: the hook id (see `_remove_hook`).
    #[pymethod]
    fn _register_hook(zelf: &Py<Self>, hook: PyObjectRef) -> u64 {
        zelf.node
            .add_post_hook(Arc::new(move |grad_inputs, grad_outputs| {
                call_node_hook(&hook, Some(grad_inputs), grad_outputs)
            }))
    }

    /// `register_prehook(fn(grad_outputs))`: the hook id.
    #[pymethod]
    fn _register_prehook(zelf: &Py<Self>, hook: PyObjectRef) -> u64 {
        zelf.node
            .add_pre_hook(Arc::new(move |grads| call_node_hook(&hook, None, grads)))
    }

    #[pymethod]
    fn _remove_hook(zelf: &Py<Self>, id: u64) -> bool {
        zelf.node.remove_hook(id)
    }
}

impl Comparable for PyNode {
    fn cmp(
        zelf: &Py<Self>,
        other: &PyObject,
        op: PyComparisonOp,
        _vm: &VirtualMachine,
    ) -> PyResult<PyComparisonValue> {
        op.eq_only(|| {
            let Some(other) = other.downcast_ref::<PyNode>() else {
                return Ok(PyComparisonValue::NotImplemented);
            };
            Ok(Arc::ptr_eq(&zelf.node, &other.node).into())
        })
    }
}

impl Hashable for PyNode {
    fn hash(zelf: &Py<Self>, _vm: &VirtualMachine) -> PyResult<PyHash> {
        Ok((Arc::as_ptr(&zelf.node) as usize >> 4) as PyHash)
    }
}

impl Representable for PyNode {
    fn repr_str(zelf: &Py<Self>, _vm: &VirtualMachine) -> PyResult<String> {
        Ok(format!(
            "<{} object at {:#x}>",
            zelf.node.class_name(),
            Arc::as_ptr(&zelf.node) as usize
        ))
    }
}

fn grads_to_py(gs: &[Option<Tensor>], vm: &VirtualMachine) -> PyObjectRef {
    let items = gs
        .iter()
        .map(|g| match g {
            Some(t) => wrap_tensor(t.clone(), vm),
            None => vm.ctx.none(),
        })
        .collect();
    vm.ctx.new_tuple(items).into()
}

fn grads_from_py(obj: &PyObjectRef, vm: &VirtualMachine) -> PyResult<Vec<Option<Tensor>>> {
    let items: Vec<PyObjectRef> = obj.try_to_value(vm)?;
    items
        .iter()
        .map(|o| {
            if vm.is_none(o) {
                Ok(None)
            } else {
                as_tensor(o).map(Some).ok_or_else(|| {
                    vm.new_type_error("hooks must return a tuple of Tensors or None")
                })
            }
        })
        .collect()
}

/// Calls a node hook: `hook(grad_inputs, grad_outputs)` (post) or `hook(grad_outputs)` (pre).
fn call_node_hook(
    hook: &PyObjectRef,
    grad_inputs: Option<&[Option<Tensor>]>,
    grad_outputs: &[Option<Tensor>],
) -> rynamo_graph::Result<Option<Vec<Option<Tensor>>>> {
    if !rustpython_vm::vm::thread::current_vm_is_set() {
        return Err(no_vm());
    }
    rustpython_vm::vm::thread::with_current_vm(|vm| {
        let outs = grads_to_py(grad_outputs, vm);
        let r = match grad_inputs {
            Some(gi) => hook.call((grads_to_py(gi, vm), outs), vm),
            None => hook.call((outs,), vm),
        }
        .map_err(|e| external(e, vm))?;
        if vm.is_none(&r) {
            return Ok(None);
        }
        grads_from_py(&r, vm).map(Some).map_err(|e| external(e, vm))
    })
}
