//! `_rynamo_autograd` (`torch._C._autograd` in Python): the engine's entry points, hooks and
//! anomaly mode for `torch/autograd/`.

pub(crate) use _autograd::module_def;

/// The calling Python stack, formatted (anomaly mode stores it in each node).
fn python_stack() -> Option<String> {
    if !rustpython_vm::vm::thread::current_vm_is_set() {
        return None;
    }
    rustpython_vm::vm::thread::with_current_vm(|vm| {
        let tb = vm.import("traceback", 0).ok()?;
        let lines = tb.get_attr("format_stack", vm).ok()?.call((), vm).ok()?;
        let lines: Vec<String> = lines.try_to_value(vm).ok()?;
        Some(lines.concat())
    })
}

/// Reports an engine warning through Python's `warnings`.
fn python_warn(msg: &str) {
    if !rustpython_vm::vm::thread::current_vm_is_set() {
        eprintln!("UserWarning: {msg}");
        return;
    }
    rustpython_vm::vm::thread::with_current_vm(|vm| {
        let warned = vm
            .import("warnings", 0)
            .and_then(|w| w.get_attr("warn", vm))
            .and_then(|f| f.call((vm.ctx.new_str(msg),), vm));
        if warned.is_err() {
            eprintln!("UserWarning: {msg}");
        }
    });
}

/// `_rynamo_autograd` (`torch._C._autograd` in Python): the engine's entry points for `torch/autograd/__init__.py`.
#[rustpython_vm::pymodule(name = "_rynamo_autograd")]
mod _autograd {
    use std::sync::Arc;

    use rustpython_vm::builtins::PyTuple;
    use rustpython_vm::{PyObjectRef, PyPayload, PyRef, PyResult, VirtualMachine};
    use rynamo_graph::autograd::{self, BackwardOptions, anomaly, leaf};
    use rynamo_tensor::Tensor;

    use rustpython_vm::Py;
    use rustpython_vm::builtins::PyModule;
    use rustpython_vm::types::PyTypeFlags;

    use crate::autograd::{PyNode, external, function_apply, tensor_hook};

    pub(crate) fn module_exec(vm: &VirtualMachine, module: &Py<PyModule>) -> PyResult<()> {
        __module_exec(vm, module);
        // `torch.autograd.graph` adds `register_hook` / `register_prehook` in Python.
        PyNode::class(&vm.ctx)
            .slots
            .flags
            .remove(PyTypeFlags::IMMUTABLETYPE);
        anomaly::set_trace_provider(super::python_stack);
        anomaly::set_warn_handler(super::python_warn);
        Ok(())
    }
    use crate::ops::to_py_err;
    use crate::tensor::{PyTensor, as_tensor, wrap_tensor};

    fn tensors(objs: Vec<PyObjectRef>, what: &str, vm: &VirtualMachine) -> PyResult<Vec<Tensor>> {
        objs.iter()
            .map(|o| {
                as_tensor(o).ok_or_else(|| {
                    vm.new_type_error(format!("{what} must be Tensors, got {}", o.class().name()))
                })
            })
            .collect()
    }

    fn opt_tensors(objs: Vec<PyObjectRef>, vm: &VirtualMachine) -> PyResult<Vec<Option<Tensor>>> {
        objs.iter()
            .map(|o| {
                if vm.is_none(o) {
                    Ok(None)
                } else {
                    as_tensor(o)
                        .map(Some)
                        .ok_or_else(|| vm.new_type_error("grad_tensors must be Tensors or None"))
                }
            })
            .collect()
    }

    /// The engine run behind `torch.autograd.backward`.
    #[pyfunction]
    fn _run_backward(
        outputs: Vec<PyObjectRef>,
        grad_tensors: Vec<PyObjectRef>,
        retain_graph: bool,
        create_graph: bool,
        inputs: Option<Vec<PyObjectRef>>,
        vm: &VirtualMachine,
    ) -> PyResult<()> {
        let outs = tensors(outputs, "tensors", vm)?;
        let grads = opt_tensors(grad_tensors, vm)?;
        let inputs = inputs.map(|i| tensors(i, "inputs", vm)).transpose()?;
        autograd::backward(
            &outs,
            &grads,
            inputs.as_deref(),
            BackwardOptions {
                retain_graph,
                create_graph,
            },
        )
        .map_err(|e| to_py_err(&e, vm))
    }

    /// The engine run behind `torch.autograd.grad`.
    #[pyfunction]
    #[allow(
        clippy::too_many_arguments,
        reason = "mirrors torch.autograd.grad's signature"
    )]
    fn _run_grad(
        outputs: Vec<PyObjectRef>,
        grad_outputs: Vec<PyObjectRef>,
        inputs: Vec<PyObjectRef>,
        retain_graph: bool,
        create_graph: bool,
        allow_unused: bool,
        materialize_grads: bool,
        vm: &VirtualMachine,
    ) -> PyResult<PyRef<PyTuple>> {
        let outs = tensors(outputs, "outputs", vm)?;
        let grads = opt_tensors(grad_outputs, vm)?;
        let ins = tensors(inputs, "inputs", vm)?;
        let r = autograd::grad(
            &outs,
            &grads,
            &ins,
            BackwardOptions {
                retain_graph,
                create_graph,
            },
            allow_unused,
            materialize_grads,
        )
        .map_err(|e| to_py_err(&e, vm))?;
        let items = r
            .into_iter()
            .map(|g| g.map_or_else(|| vm.ctx.none(), |t| wrap_tensor(t, vm)))
            .collect();
        Ok(vm.ctx.new_tuple(items))
    }

    /// `Tensor.register_hook`: the hook id, for `_remove_tensor_hook`.
    #[pyfunction]
    fn _register_tensor_hook(
        tensor: PyRef<PyTensor>,
        hook: PyObjectRef,
        vm: &VirtualMachine,
    ) -> PyResult<u64> {
        let t = tensor.tensor();
        if !t.needs_grad() {
            return Err(vm.new_runtime_error(
                "cannot register a hook on a tensor that doesn't require gradient",
            ));
        }
        let h = tensor_hook(hook);
        Ok(match autograd::grad_fn_of(&t) {
            Some((node, nr)) => node.add_tensor_pre_hook(nr, h),
            None => leaf::add_leaf_hook(t.autograd().expect("invariant: needs grad"), h),
        })
    }

    /// Removes a hook `_register_tensor_hook` or `_register_post_accumulate_grad_hook` made.
    #[pyfunction]
    fn _remove_tensor_hook(tensor: PyRef<PyTensor>, id: u64) -> bool {
        let t = tensor.tensor();
        if let Some((node, _)) = autograd::grad_fn_of(&t)
            && node.remove_hook(id)
        {
            return true;
        }
        t.autograd().is_some_and(|m| leaf::remove_leaf_hook(m, id))
    }

    /// `Tensor.register_post_accumulate_grad_hook`: runs `hook(tensor)` after `.grad` changes.
    #[pyfunction]
    fn _register_post_accumulate_grad_hook(
        tensor: PyRef<PyTensor>,
        hook: PyObjectRef,
        vm: &VirtualMachine,
    ) -> PyResult<u64> {
        let t = tensor.tensor();
        if !t.needs_grad() {
            return Err(vm.new_runtime_error(
                "cannot register a hook on a tensor that doesn't require gradient",
            ));
        }
        if autograd::grad_fn_of(&t).is_some() {
            return Err(vm.new_runtime_error(
                "post accumulate grad hooks cannot be registered on non-leaf tensors",
            ));
        }
        // The hook holds the tensor weakly: the tensor's metadata holds the hook.
        let obj: PyObjectRef = tensor.clone().into();
        let weak = obj.downgrade(None, vm)?;
        let f = Arc::new(move || -> rynamo_graph::Result<()> {
            rustpython_vm::vm::thread::with_current_vm(|vm| {
                if let Some(obj) = weak.upgrade() {
                    hook.call((obj,), vm).map_err(|e| external(e, vm))?;
                }
                Ok(())
            })
        });
        Ok(leaf::add_post_accumulate_hook(
            t.autograd().expect("invariant: needs grad"),
            f,
        ))
    }

    /// `Function.apply`'s native half (see [`super::function_apply`]).
    #[pyfunction]
    #[allow(
        clippy::too_many_arguments,
        reason = "the Python caller's fields, one each"
    )]
    fn _function_apply(
        ctx: PyObjectRef,
        name: String,
        args: Vec<PyObjectRef>,
        outputs: Vec<PyObjectRef>,
        dirty: Vec<PyObjectRef>,
        non_differentiable: Vec<PyObjectRef>,
        vm: &VirtualMachine,
    ) -> PyResult<Vec<PyObjectRef>> {
        function_apply(ctx, name, &args, &outputs, &dirty, &non_differentiable, vm)
    }

    /// Enters a `saved_tensors_hooks(pack_hook, unpack_hook)` block.
    #[pyfunction]
    fn _push_saved_tensors_hooks(pack_hook: PyObjectRef, unpack_hook: PyObjectRef) {
        rynamo_graph::autograd::saved::push_hooks(Arc::new(crate::autograd::PySavedHooks {
            pack: pack_hook,
            unpack: unpack_hook,
        }));
    }

    /// Leaves the innermost `saved_tensors_hooks` block.
    #[pyfunction]
    fn _pop_saved_tensors_hooks() {
        rynamo_graph::autograd::saved::pop_hooks();
    }

    #[pyfunction]
    fn _set_anomaly_enabled(enabled: bool, check_nan: bool) {
        anomaly::set_enabled(enabled, check_nan);
    }

    #[pyfunction]
    fn _is_anomaly_enabled() -> bool {
        anomaly::is_enabled()
    }

    #[pyfunction]
    fn _is_anomaly_check_nan_enabled() -> bool {
        anomaly::check_nan()
    }

    /// The Node class (`torch.autograd.graph.Node`).
    #[pyattr(name = "Node")]
    fn node_class(vm: &VirtualMachine) -> PyObjectRef {
        PyNode::class(&vm.ctx).to_owned().into()
    }
}
