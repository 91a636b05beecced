//! Autograd from Python. The tensor attributes (`requires_grad`, `grad`, `grad_fn`, `is_leaf`,
//! `detach`, `data`, ...) are thin views of the runtime tensor's metadata
//! (`rynamo_tensor::autograd_meta`); `grad_fn` objects ([`PyNode`]) are views of the engine's
//! nodes; the native module `torch._C._autograd` exposes the engine (`_run_backward`,
//! `_run_grad`), hooks and anomaly mode to `torch/autograd/__init__.py`.

mod function;
mod module;
mod node;
mod tensor_attrs;

use std::sync::Arc;

use rustpython_vm::builtins::PyBaseExceptionRef;
use rustpython_vm::{AsObject, Py, PyObjectRef, PyResult, VirtualMachine};
use rynamo_graph::autograd::node::TensorHook;
use rynamo_graph::{Error, ExternalError};
use rynamo_tensor::{AutogradMeta, DType, Tensor};

use crate::tensor::{PyTensor, as_tensor, wrap_tensor};

pub(crate) use function::function_apply;
pub(crate) use module::module_def;
pub use node::PyNode;
pub(crate) use tensor_attrs::PyTensorAutograd;

/// The autograd part of a tensor's repr: `grad_fn=<MulBackward0>` or `requires_grad=True`.
pub(crate) fn repr_suffix(t: &Tensor) -> Option<String> {
    let meta = t.autograd()?;
    if let Some((node, _)) = rynamo_graph::autograd::grad_fn_of(t) {
        return Some(format!("grad_fn=<{}>", node.class_name()));
    }
    meta.lock()
        .requires_grad
        .then(|| "requires_grad=True".to_string())
}

/// A Python exception raised inside the engine (a hook), carried through it unchanged.
pub(crate) fn external(e: PyBaseExceptionRef, vm: &VirtualMachine) -> Error {
    let message = e
        .as_object()
        .str(vm)
        .map(|s| s.to_string())
        .unwrap_or_default();
    Error::External(ExternalError {
        message,
        payload: Arc::new(e),
    })
}

fn no_vm() -> Error {
    Error::Graph("an autograd hook ran on a thread without a Python interpreter".into())
}

/// A Python callable `hook(grad) -> Tensor | None` as an engine hook.
pub(crate) fn tensor_hook(hook: PyObjectRef) -> TensorHook {
    Arc::new(move |g: &Tensor| {
        if !rustpython_vm::vm::thread::current_vm_is_set() {
            return Err(no_vm());
        }
        rustpython_vm::vm::thread::with_current_vm(|vm| {
            let r = hook
                .call((wrap_tensor(g.clone(), vm),), vm)
                .map_err(|e| external(e, vm))?;
            if vm.is_none(&r) {
                return Ok(None);
            }
            as_tensor(&r).map(Some).ok_or_else(|| {
                Error::Tensor(rynamo_tensor::Error::Type(format!(
                    "hook returned an object of type {}, expected a Tensor or None",
                    r.class().name()
                )))
            })
        })
    })
}

fn check_float(dtype: DType, vm: &VirtualMachine) -> PyResult<()> {
    if dtype.is_floating_point() || dtype.is_complex() {
        Ok(())
    } else {
        Err(vm.new_runtime_error(
            "only Tensors of floating point and complex dtype can require gradients",
        ))
    }
}

fn meta_of(zelf: &Py<PyTensor>) -> Arc<AutogradMeta> {
    zelf.tensor()
        .autograd()
        .cloned()
        .expect("invariant: every Python tensor has autograd metadata (PyTensor::new)")
}

/// Sets `requires_grad` as PyTorch's setter does: leaves only (a non-leaf may only be asked to
/// keep requiring grad).
pub(crate) fn set_requires_grad(zelf: &Py<PyTensor>, v: bool, vm: &VirtualMachine) -> PyResult<()> {
    let meta = meta_of(zelf);
    if !meta.is_leaf() {
        if v {
            return Ok(());
        }
        return Err(vm.new_runtime_error(
            "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().",
        ));
    }
    if v {
        check_float(zelf.meta().dtype, vm)?;
        if meta.is_inference() && !crate::state::is_inference_mode_enabled() {
            return Err(vm.new_runtime_error(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.",
            ));
        }
    }
    meta.update(|s| s.requires_grad = v);
    Ok(())
}

/// A Python `(pack_hook, unpack_hook)` pair of `saved_tensors_hooks`.
pub(crate) struct PySavedHooks {
    pub(crate) pack: PyObjectRef,
    pub(crate) unpack: PyObjectRef,
}

impl rynamo_graph::autograd::saved::SavedTensorHooks for PySavedHooks {
    fn pack(&self, t: &Tensor) -> rynamo_graph::Result<Box<dyn std::any::Any + Send + Sync>> {
        if !rustpython_vm::vm::thread::current_vm_is_set() {
            return Err(no_vm());
        }
        rustpython_vm::vm::thread::with_current_vm(|vm| {
            let packed = self
                .pack
                .call((wrap_tensor(t.clone(), vm),), vm)
                .map_err(|e| external(e, vm))?;
            Ok(Box::new(packed) as Box<dyn std::any::Any + Send + Sync>)
        })
    }

    fn unpack(&self, packed: &(dyn std::any::Any + Send + Sync)) -> rynamo_graph::Result<Tensor> {
        let Some(obj) = packed.downcast_ref::<PyObjectRef>() else {
            return Err(Error::Graph(
                "internal: packed value of another embedder".into(),
            ));
        };
        rustpython_vm::vm::thread::with_current_vm(|vm| {
            let r = self
                .unpack
                .call((obj.clone(),), vm)
                .map_err(|e| external(e, vm))?;
            as_tensor(&r).ok_or_else(|| {
                Error::Tensor(rynamo_tensor::Error::Type(format!(
                    "Output of saved tensor unpack_hook expected to be a Tensor but got result of type {}",
                    r.class().name()
                )))
            })
        })
    }
}
