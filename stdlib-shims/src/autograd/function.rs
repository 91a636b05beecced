//! Custom `torch.autograd.Function`s: a node whose backward calls the class's `backward` in
//! Python.

use std::sync::Arc;

use rustpython_vm::{AsObject, PyObjectRef, PyResult, VirtualMachine};
use rynamo_graph::autograd::node::Node;
use rynamo_tensor::Tensor;

use super::{external, no_vm};
use crate::tensor::{as_tensor, wrap_tensor};

/// The backward of a custom `torch.autograd.Function`: calls the class's `backward` in Python
/// (through `torch.autograd.function._call_backward`) and maps its results onto the forward's
/// tensor arguments.
struct PyFunctionBackward {
    ctx: PyObjectRef,
    /// For each forward argument, its tensor slot (edge index), if it is a tensor.
    arg_slots: Vec<Option<usize>>,
}

impl rynamo_graph::autograd::Backward for PyFunctionBackward {
    fn apply(
        &self,
        node: &Arc<Node>,
        grads: Vec<Option<Tensor>>,
    ) -> rynamo_graph::Result<Vec<Option<Tensor>>> {
        if !rustpython_vm::vm::thread::current_vm_is_set() {
            return Err(no_vm());
        }
        rustpython_vm::vm::thread::with_current_vm(|vm| {
            let run = || -> PyResult<Vec<Option<Tensor>>> {
                let materialize = self
                    .ctx
                    .get_attr("_materialize_grads", vm)?
                    .try_to_bool(vm)?;
                let py_grads: Vec<PyObjectRef> = grads
                    .iter()
                    .enumerate()
                    .map(|(j, g)| match g {
                        Some(t) => wrap_tensor(t.clone(), vm),
                        None if materialize => {
                            let m = &node.output_metas()[j];
                            wrap_tensor(Tensor::zeros(&m.shape, m.dtype), vm)
                        }
                        None => vm.ctx.none(),
                    })
                    .collect();
                vm.import("torch.autograd.function", 0)?;
                let module = vm
                    .sys_module
                    .get_attr("modules", vm)?
                    .get_item("torch.autograd.function", vm)?;
                let call = module.get_attr("_call_backward", vm)?;
                let res = call.call((self.ctx.clone(), vm.ctx.new_tuple(py_grads)), vm)?;
                let res: Vec<PyObjectRef> = res.try_to_value(vm)?;
                let mut out = vec![None; node.next_edges().len()];
                for (i, r) in res.iter().enumerate() {
                    if vm.is_none(r) {
                        continue;
                    }
                    match self.arg_slots.get(i).copied().flatten() {
                        Some(s) => {
                            out[s] = Some(as_tensor(r).ok_or_else(|| {
                                vm.new_type_error(format!(
                                    "backward returned a {} at position {i}, expected a Tensor or None",
                                    r.class().name()
                                ))
                            })?);
                        }
                        None => {
                            return Err(vm.new_runtime_error(format!(
                                "function {}Backward returned a gradient different than None at position {}, but the corresponding forward input was not a Variable",
                                node.name().trim_end_matches("Backward"),
                                i + 1
                            )));
                        }
                    }
                }
                Ok(out)
            };
            run().map_err(|e| external(e, vm))
        })
    }

    fn release(&self) {
        if !rustpython_vm::vm::thread::current_vm_is_set() {
            return;
        }
        rustpython_vm::vm::thread::with_current_vm(|vm| {
            if let Ok(f) = self.ctx.get_attr("_release_saved", vm) {
                let _ = f.call((), vm);
            }
        });
    }
}

/// Attaches a custom Function's node to its outputs (`Function.apply`'s native half): one edge
/// per tensor argument; dirty inputs (`mark_dirty`) get their history rebased onto the node; an
/// input returned as-is comes back as a new tensor sharing its data; non-differentiable
/// outputs get no history. Returns the outputs to hand to the caller.
pub(crate) fn function_apply(
    ctx: PyObjectRef,
    name: String,
    args: &[PyObjectRef],
    outputs: &[PyObjectRef],
    dirty: &[PyObjectRef],
    non_differentiable: &[PyObjectRef],
    vm: &VirtualMachine,
) -> PyResult<Vec<PyObjectRef>> {
    let mut arg_slots = Vec::with_capacity(args.len());
    let mut inputs: Vec<Tensor> = Vec::new();
    for a in args {
        match as_tensor(a) {
            Some(t) => {
                arg_slots.push(Some(inputs.len()));
                inputs.push(t);
            }
            None => arg_slots.push(None),
        }
    }
    let edges = inputs
        .iter()
        .map(|t| {
            if t.needs_grad() {
                rynamo_graph::autograd::gradient_edge(t)
            } else {
                None
            }
        })
        .collect();
    let input_metas = inputs.iter().map(Tensor::meta).collect();
    let out_tensors: Vec<Tensor> = outputs
        .iter()
        .map(|o| as_tensor(o).ok_or_else(|| vm.new_type_error("Function outputs must be Tensors")))
        .collect::<PyResult<_>>()?;
    let output_metas = out_tensors.iter().map(Tensor::meta).collect();
    let node = Node::new(
        name,
        edges,
        input_metas,
        output_metas,
        Box::new(PyFunctionBackward { ctx, arg_slots }),
    );
    let is = |list: &[PyObjectRef], o: &PyObjectRef| list.iter().any(|x| x.is(o));
    let mut result = Vec::with_capacity(outputs.len());
    for (j, (obj, t)) in outputs.iter().zip(out_tensors).enumerate() {
        if is(non_differentiable, obj) || !t.dtype().is_floating_point() {
            result.push(obj.clone());
            continue;
        }
        let is_input = inputs.iter().any(|i| i.same_identity(&t));
        if is_input && is(dirty, obj) {
            let mut t = t;
            rynamo_graph::autograd::set_grad_fn(&mut t, &node, j as u32);
            result.push(obj.clone());
        } else if is_input {
            let mut alias = t.with_autograd(None);
            rynamo_graph::autograd::set_grad_fn(&mut alias, &node, j as u32);
            result.push(wrap_tensor(alias, vm));
        } else {
            let mut t = t;
            rynamo_graph::autograd::set_grad_fn(&mut t, &node, j as u32);
            result.push(obj.clone());
        }
    }
    Ok(result)
}
