//! The autograd attributes and methods of `torch.Tensor`: views of the runtime tensor's
//! metadata.

use rustpython_vm::function::{OptionalArg, PySetterValue};
use rustpython_vm::{Py, PyObjectRef, PyPayload, PyRef, PyResult, VirtualMachine, pyclass};
use rynamo_tensor::AutogradMeta;

use super::{PyNode, meta_of, set_requires_grad};
use crate::ops::to_py_err;
use crate::tensor::{PyTensor, as_tensor, wrap_tensor};

/// The tensor attributes and methods of autograd.
#[pyclass]
pub(crate) trait PyTensorAutograd: PyPayload {
    #[pygetset(name = "requires_grad")]
    fn requires_grad_prop(zelf: &Py<PyTensor>) -> bool {
        zelf.requires_grad()
    }

    #[pygetset(name = "requires_grad", setter)]
    fn set_requires_grad_prop(
        zelf: &Py<PyTensor>,
        value: PySetterValue<bool>,
        vm: &VirtualMachine,
    ) -> PyResult<()> {
        match value {
            PySetterValue::Assign(v) => set_requires_grad(zelf, v, vm),
            PySetterValue::Delete => {
                Err(vm.new_type_error("can't delete attribute 'requires_grad'"))
            }
        }
    }

    #[pymethod]
    fn requires_grad_(
        zelf: PyRef<PyTensor>,
        requires_grad: OptionalArg<bool>,
        vm: &VirtualMachine,
    ) -> PyResult<PyRef<PyTensor>> {
        let v = requires_grad.unwrap_or(true);
        // The method's message differs from the attribute's, as in PyTorch.
        if v && !(zelf.meta().dtype.is_floating_point() || zelf.meta().dtype.is_complex()) {
            return Err(
                vm.new_runtime_error("only Tensors of floating point dtype can require gradients")
            );
        }
        set_requires_grad(&zelf, v, vm)?;
        Ok(zelf)
    }

    #[pymethod]
    fn is_inference(zelf: &Py<PyTensor>) -> bool {
        meta_of(zelf).is_inference()
    }

    #[pygetset]
    fn is_leaf(zelf: &Py<PyTensor>) -> bool {
        meta_of(zelf).is_leaf()
    }

    #[pygetset]
    fn grad_fn(zelf: &Py<PyTensor>, vm: &VirtualMachine) -> Option<PyObjectRef> {
        let (node, _) = rynamo_graph::autograd::grad_fn_of(&zelf.tensor())?;
        Some(PyNode::wrap(node, vm))
    }

    #[pygetset]
    fn output_nr(zelf: &Py<PyTensor>) -> u32 {
        rynamo_graph::autograd::grad_fn_of(&zelf.tensor()).map_or(0, |(_, nr)| nr)
    }

    #[pygetset]
    fn grad(zelf: &Py<PyTensor>, vm: &VirtualMachine) -> PyResult<Option<PyObjectRef>> {
        let meta = meta_of(zelf);
        let (grad, leaf, retains) = {
            let mut s = meta.lock();
            // The stored gradient gets its autograd identity here, so the object made for it
            // below is recognised as the same tensor next time.
            let grad = s.grad.as_mut().map(|g| {
                g.ensure_autograd();
                g.clone()
            });
            (grad, s.grad_fn.is_none(), s.retains_grad)
        };
        if !leaf && !retains && grad.is_none() {
            let warnings = vm.import("warnings", 0)?;
            warnings
                .get_attr("warn", vm)?
                .call((vm.ctx.new_str(NON_LEAF_GRAD_WARNING),), vm)?;
        }
        if grad.is_none() {
            zelf.remember_grad_object(None);
        }
        Ok(grad.map(|g| zelf.grad_object(g, vm)))
    }

    #[pygetset(setter)]
    fn set_grad(
        zelf: &Py<PyTensor>,
        value: PySetterValue<Option<PyObjectRef>>,
        vm: &VirtualMachine,
    ) -> PyResult<()> {
        let value = match value {
            PySetterValue::Assign(v) => v.filter(|v| !vm.is_none(v)),
            PySetterValue::Delete => None,
        };
        let grad = match &value {
            None => None,
            Some(v) => {
                let Some(g) = as_tensor(v) else {
                    return Err(vm.new_type_error(format!(
                        "assigned grad expected to be a Tensor or None but got grad of type {}",
                        v.class().name()
                    )));
                };
                let m = zelf.meta();
                if g.dtype() != m.dtype {
                    return Err(vm.new_runtime_error("assigned grad has data of a different type"));
                }
                if g.shape() != m.shape.as_slice() {
                    return Err(vm.new_runtime_error("assigned grad has data of a different size"));
                }
                Some(g)
            }
        };
        meta_of(zelf).update(|s| s.grad = grad);
        zelf.remember_grad_object(value);
        Ok(())
    }

    #[pymethod]
    fn retain_grad(zelf: &Py<PyTensor>, vm: &VirtualMachine) -> PyResult<()> {
        let t = zelf.tensor();
        if !t.needs_grad() {
            return Err(
                vm.new_runtime_error("can't retain_grad on Tensor that has requires_grad=False")
            );
        }
        rynamo_graph::autograd::retain_grad(&t).map_err(|e| to_py_err(&e, vm))
    }

    #[pygetset]
    fn retains_grad(zelf: &Py<PyTensor>) -> bool {
        meta_of(zelf).lock().retains_grad
    }

    /// A new tensor sharing storage (and version counter), outside the graph.
    #[pymethod]
    fn detach(zelf: &Py<PyTensor>, vm: &VirtualMachine) -> PyObjectRef {
        wrap_tensor(zelf.tensor().with_autograd(Some(AutogradMeta::new())), vm)
    }

    #[pymethod]
    fn detach_(zelf: PyRef<PyTensor>, vm: &VirtualMachine) -> PyResult<PyRef<PyTensor>> {
        let meta = meta_of(&zelf);
        if meta.lock().view_base.is_some() {
            return Err(vm.new_runtime_error(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and hence detach_() cannot be called on these gradients. To fix this error, please refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.",
            ));
        }
        meta.update(|s| {
            s.grad_fn = None;
            s.requires_grad = false;
        });
        Ok(zelf)
    }

    /// `x.data`: the same storage, not requiring grad, another identity.
    #[pygetset]
    fn data(zelf: &Py<PyTensor>, vm: &VirtualMachine) -> PyObjectRef {
        wrap_tensor(zelf.tensor().with_autograd(Some(AutogradMeta::new())), vm)
    }

    /// `x.data = y`: `x` now views `y`'s storage and layout, keeping its own autograd identity.
    #[pygetset(setter)]
    fn set_data(
        zelf: &Py<PyTensor>,
        value: PySetterValue<PyRef<PyTensor>>,
        vm: &VirtualMachine,
    ) -> PyResult<()> {
        match value {
            PySetterValue::Assign(t) => {
                zelf.set_tensor(t.tensor());
                Ok(())
            }
            PySetterValue::Delete => Err(vm.new_type_error("can't delete attribute 'data'")),
        }
    }

    /// The in-place view methods (`x.unsqueeze_(0)`, `x.t_()`, ... in `torch/_tensor.py`): `x`
    /// takes the layout of `view` (a view of `x` computed out of place), keeping its identity
    /// (hooks, `.grad`). With grad mode on, the view's node becomes `x`'s history, as PyTorch
    /// rebases a non-leaf; a leaf that requires grad (or a view of one) is refused as any
    /// in-place op is.
    #[pymethod]
    fn _set_view_(
        zelf: PyRef<PyTensor>,
        view: PyRef<PyTensor>,
        vm: &VirtualMachine,
    ) -> PyResult<PyRef<PyTensor>> {
        let meta = meta_of(&zelf);
        if crate::state::is_grad_enabled() {
            let s = meta.lock();
            if s.grad_fn.is_none() && s.requires_grad {
                return Err(vm.new_runtime_error(
                    "a leaf Variable that requires grad is being used in an in-place operation.",
                ));
            }
            let base_is_leaf = s
                .view_base
                .as_ref()
                .and_then(|b| b.autograd())
                .is_some_and(|m| {
                    let b = m.lock();
                    b.grad_fn.is_none() && b.requires_grad
                });
            if base_is_leaf {
                return Err(vm.new_runtime_error(
                    "a view of a leaf Variable that requires grad is being used in an in-place operation.",
                ));
            }
        }
        let view = view.tensor();
        let history = view.autograd().and_then(|m| m.lock().grad_fn.clone());
        zelf.set_tensor(view);
        if history.is_some() {
            meta.update(|s| s.grad_fn = history);
        }
        Ok(zelf)
    }

    /// `x._base`: the tensor `x` is a view of, or None.
    #[pygetset]
    fn _base(zelf: &Py<PyTensor>, vm: &VirtualMachine) -> Option<PyObjectRef> {
        let base = meta_of(zelf).lock().view_base.clone()?;
        Some(wrap_tensor(base, vm))
    }

    #[pygetset]
    fn _is_view(zelf: &Py<PyTensor>) -> bool {
        meta_of(zelf).lock().view_base.is_some()
    }
}

const NON_LEAF_GRAD_WARNING: &str = "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more informations.";

impl PyTensorAutograd for PyTensor {}
