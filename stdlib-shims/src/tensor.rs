//! `torch.Tensor`: the native type that holds a [`rynamo_tensor::Tensor`].
//!
//! The Python object owns a cheap alias of the runtime tensor behind a lock, because PyTorch lets
//! Python replace a tensor's data and metadata in place (`x.data = y`). Everything Dynamo reads on
//! a guarded call ([`PyTensor::meta`], [`as_tensor`]) is a lock read and an `Arc` clone: no Python
//! calls.
//!
//! The methods live in several `#[pyclass]` traits by theme (this file: construction and the
//! autograd flags; `metadata.rs`: shape, strides, dtype, device; `convert.rs`: dtype/device
//! conversions and Python scalars; `number.rs`: operators; `indexing.rs`: `[]`, `len`,
//! iteration; `repr.rs`: printing). Every op of the registry flagged
//! `METHOD` is added to the type as a [`crate::ops::PyOpMethod`] by [`install_op_methods`].

use std::fmt;
use std::sync::Once;

use rustpython_vm::builtins::{PyDict, PyType, PyTypeRef};
use rustpython_vm::common::lock::PyRwLock;
use rustpython_vm::function::{FuncArgs, OptionalArg};
use rustpython_vm::types::{
    AsMapping, AsNumber, AsSequence, Comparable, Constructor, Hashable, Iterable, PyTypeFlags,
    Representable,
};
use rustpython_vm::{
    AsObject, Context, Py, PyObject, PyObjectRef, PyPayload, PyRef, PyResult, Traverse,
    VirtualMachine, pyclass,
};
use rynamo_graph::Op;
use rynamo_tensor::{DType, Tensor, TensorMeta};

use crate::autograd::PyTensorAutograd;
use crate::convert::PyTensorConvert;
use crate::dtype::PyDevice;
use crate::metadata::PyTensorMetadata;
use crate::ops::{self, PyOpFunction, PyOpMethod, Surface, to_py_err};

/// `torch.Tensor`. Subclassable (`nn.Parameter` subclasses it).
#[pyclass(module = "torch", name = "Tensor", traverse)]
#[derive(PyPayload)]
pub struct PyTensor {
    #[pytraverse(skip)]
    inner: PyRwLock<Tensor>,
    /// The Python object last returned for `.grad`, so `p.grad is p.grad` holds as in PyTorch
    /// (whose tensors keep their Python object); reused while `.grad` is the same tensor.
    #[pytraverse(skip)]
    grad_obj: PyRwLock<Option<PyObjectRef>>,
}

impl fmt::Debug for PyTensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.meta();
        write!(f, "PyTensor({}{:?})", m.dtype.short_name(), m.shape)
    }
}

impl PyTensor {
    /// A new tensor object holding `t`, with `t`'s autograd identity (made when missing: every
    /// Python tensor has one, so in-place ops and history reach every alias). A tensor without
    /// one is new, so inference mode makes it an inference tensor; one that has an identity
    /// keeps its flag (the registry sets it: an in-place result or a view of a normal tensor
    /// stays normal).
    pub fn new(mut t: Tensor) -> Self {
        let fresh = t.autograd().is_none();
        let meta = t.ensure_autograd();
        if fresh && crate::state::is_inference_mode_enabled() {
            meta.update(|s| s.is_inference = true);
        }
        PyTensor {
            inner: PyRwLock::new(t),
            grad_obj: PyRwLock::new(None),
        }
    }

    /// A new tensor object viewing `t`'s data under a fresh autograd identity (`detach()`
    /// semantics: a leaf not requiring grad).
    pub fn detached(t: &Tensor) -> Self {
        PyTensor::new(t.with_autograd(Some(rynamo_tensor::AutogradMeta::new())))
    }

    /// The Python object for `grad` (this tensor's `.grad`): the one returned last time when it is
    /// still the same tensor, else a new one, remembered.
    pub fn grad_object(&self, grad: Tensor, vm: &VirtualMachine) -> PyObjectRef {
        let mut cache = self.grad_obj.write();
        if let Some(obj) = cache.as_ref()
            && as_tensor(obj).is_some_and(|t| t.same_identity(&grad))
        {
            return obj.clone();
        }
        let obj = wrap_tensor(grad, vm);
        *cache = Some(obj.clone());
        obj
    }

    /// Remembers the object assigned to `.grad` (`p.grad = g; p.grad is g`).
    pub fn remember_grad_object(&self, obj: Option<PyObjectRef>) {
        *self.grad_obj.write() = obj;
    }

    /// The held tensor: a cheap alias (an `Arc` clone of the storage).
    pub fn tensor(&self) -> Tensor {
        self.inner.read().clone()
    }

    /// Dtype, shape and strides, without touching data.
    pub fn meta(&self) -> TensorMeta {
        self.inner.read().meta()
    }

    /// Whether dtype, shape and strides equal `m` (without building a [`TensorMeta`]: guards
    /// call this on every compiled call).
    pub fn matches_meta(&self, m: &TensorMeta) -> bool {
        let t = self.inner.read();
        t.dtype() == m.dtype
            && t.shape() == m.shape.as_slice()
            && t.strides() == m.strides.as_slice()
    }

    /// `requires_grad`: a leaf that requires grad, or a tensor with a `grad_fn`.
    pub fn requires_grad(&self) -> bool {
        self.inner.read().needs_grad()
    }

    /// Sets a leaf's `requires_grad` flag (the caller checks leafness and dtype; see
    /// `autograd::set_requires_grad` for Python's checked setter).
    pub fn set_requires_grad(&self, value: bool) {
        if let Some(m) = self.inner.read().autograd() {
            m.update(|s| s.requires_grad = value);
        }
    }

    /// Replaces the held data and layout (`x.data = y`, in-place metadata changes), keeping this
    /// tensor's autograd identity.
    pub fn set_tensor(&self, t: Tensor) {
        let mut inner = self.inner.write();
        let meta = inner.autograd().cloned();
        *inner = t.with_autograd(meta);
    }
}

/// A new `torch.Tensor` object holding `t`.
pub fn wrap_tensor(t: Tensor, vm: &VirtualMachine) -> PyObjectRef {
    install_op_methods(&vm.ctx);
    PyTensor::new(t).into_ref(&vm.ctx).into()
}

/// The tensor held by a `torch.Tensor` (or subclass) object; `None` for anything else.
pub fn as_tensor(obj: &PyObject) -> Option<Tensor> {
    obj.downcast_ref::<PyTensor>().map(|t| t.tensor())
}

/// Adds every `METHOD` op of the registry to `torch.Tensor` (once per process: the type is
/// shared by all interpreters). Names the type already defines natively (`to`, `type`) keep the
/// native method, which parses PyTorch's richer signature and then calls the same op.
pub fn install_op_methods(ctx: &Context) {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let class = PyTensor::class(ctx);
        // PyTorch's Tensor type is mutable: libraries add methods to it.
        class.slots.flags.remove(PyTypeFlags::IMMUTABLETYPE);
        for &(name, overloads) in ops::surface_table(Surface::Method) {
            if name.starts_with("__") {
                continue; // `__getitem__`/`__setitem__` are the mapping slots (indexing.rs).
            }
            if class.get_attr(ctx.intern_str(name)).is_some() {
                continue;
            }
            let method = PyOpMethod {
                func: PyOpFunction {
                    name,
                    overloads,
                    surface: Surface::Method,
                },
            };
            class.set_attr(ctx.intern_str(name), method.into_ref(ctx).into());
        }
    });
}

/// Runs a single-output op through the registry and wraps the result.
pub(crate) fn call_op1(
    op: Op,
    mut args: Vec<rynamo_graph::IValue>,
    vm: &VirtualMachine,
) -> PyResult {
    // Python operators (`a @ b`) reach the registry here: autocast applies as for `torch.matmul`.
    crate::autocast::apply_eager(op, &mut args).map_err(|e| to_py_err(&e, vm))?;
    let out = rynamo_graph::registry::call(op, &args).map_err(|e| to_py_err(&e, vm))?;
    let t = out
        .into_iter()
        .next()
        .ok_or_else(|| vm.new_runtime_error(format!("{op}: returned no tensor")))?;
    Ok(wrap_tensor(t, vm))
}

/// `torch.Tensor(*sizes)` / `torch.Tensor(sequence)` / `torch.Tensor(tensor)`: the legacy
/// constructor. New tensors are of the default dtype; sizes give zero-filled tensors.
impl Constructor for PyTensor {
    type Args = FuncArgs;

    fn py_new(_cls: &Py<PyType>, args: FuncArgs, vm: &VirtualMachine) -> PyResult<Self> {
        if let Some(device) = args.kwargs.get("device")
            && let Some(d) = PyDevice::from_py(device, vm)?
        {
            d.check_cpu(vm)?;
        }
        let dtype = crate::state::default_dtype();
        let pos = &args.args;
        if pos.is_empty() {
            return Ok(PyTensor::new(Tensor::zeros(&[0], dtype)));
        }
        if pos.len() == 1 {
            if let Some(t) = as_tensor(&pos[0]) {
                return Ok(PyTensor::new(t));
            }
            if pos[0].try_index_opt(vm).is_none() {
                let t = crate::creation::tensor_from_data(&pos[0], Some(dtype), vm)?;
                return Ok(PyTensor::new(t));
            }
        }
        let mut sizes = Vec::with_capacity(pos.len());
        for p in pos {
            let n: i64 = p.try_index(vm)?.try_to_primitive(vm)?;
            sizes.push(usize::try_from(n).map_err(|_| {
                vm.new_runtime_error(format!(
                    "Trying to create tensor with negative dimension {n}: {:?}",
                    pos.iter()
                        .map(|p| p.str(vm).map(|s| s.to_string_lossy().into_owned()))
                        .collect::<PyResult<Vec<_>>>()
                        .unwrap_or_default()
                ))
            })?);
        }
        Tensor::try_zeros(&sizes, dtype)
            .map(PyTensor::new)
            .map_err(|e| crate::ops::tensor_err(e, vm))
    }
}

fn check_dim_grad(dtype: DType, vm: &VirtualMachine) -> PyResult<()> {
    if dtype.is_floating_point() || dtype.is_complex() {
        Ok(())
    } else {
        Err(vm.new_runtime_error(
            "only Tensors of floating point and complex dtype can require gradients",
        ))
    }
}

#[pyclass(
    with(
        Constructor,
        Representable,
        AsNumber,
        Comparable,
        Hashable,
        AsMapping,
        AsSequence,
        Iterable,
        PyTensorConvert,
        PyTensorMetadata,
        PyTensorAutograd
    ),
    // Tensors take attributes (`t._dynamo_dynamic_indices = ...`) and weak references, as in
    // PyTorch.
    flags(BASETYPE, HAS_DICT, HAS_WEAKREF)
)]
impl PyTensor {
    /// Pickling outside `torch.save` (`pickle.dumps(t)`): the reduction lives in Python
    /// (`torch/_tensor_pickle.py`), the storage travelling as its bytes.
    #[pymethod]
    fn __reduce_ex__(
        zelf: PyObjectRef,
        _protocol: OptionalArg<PyObjectRef>,
        vm: &VirtualMachine,
    ) -> PyResult {
        // `import torch._tensor_pickle` binds the package; the submodule is then its attribute.
        let torch = vm.import("torch._tensor_pickle", 0)?;
        let module = torch.get_attr("_tensor_pickle", vm)?;
        module.get_attr("reduce_tensor", vm)?.call((zelf,), vm)
    }

    /// `Tensor._make_subclass(cls, data, require_grad=False)`: a `cls` instance sharing `data`'s
    /// storage (how `nn.Parameter.__new__` is written in PyTorch).
    #[pystaticmethod]
    fn _make_subclass(
        cls: PyTypeRef,
        data: PyRef<Self>,
        require_grad: OptionalArg<bool>,
        vm: &VirtualMachine,
    ) -> PyResult {
        let t = PyTensor::detached(&data.tensor());
        let rg = require_grad.unwrap_or(false);
        if rg {
            check_dim_grad(t.meta().dtype, vm)?;
        }
        t.set_requires_grad(rg);
        Ok(t.into_ref_with_type(vm, cls)?.into())
    }

    /// `copy.deepcopy(x)`: same class, copied data, flags and instance dict.
    #[pymethod]
    fn __deepcopy__(zelf: PyRef<Self>, memo: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        if !zelf.tensor().autograd().is_none_or(|m| m.is_leaf()) {
            return Err(vm.new_runtime_error(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment.  If you were attempting to deepcopy a module, this may be because of a torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001",
            ));
        }
        let copy = PyTensor::new(crate::ops::guarded("Tensor.__deepcopy__", vm, || {
            Ok(zelf.tensor().deep_clone().with_autograd(None))
        })?);
        copy.set_requires_grad(zelf.requires_grad());
        let new: PyObjectRef = copy.into_ref_with_type(vm, zelf.class().to_owned())?.into();
        if !vm.is_none(&memo) {
            let id = vm.ctx.new_int(zelf.get_id());
            memo.set_item(id.as_object(), new.clone(), vm)?;
        }
        if let Some(dict) = zelf.as_object().dict() {
            let deepcopy = vm.import("copy", 0)?.get_attr("deepcopy", vm)?;
            let copied = deepcopy.call((dict, memo), vm)?;
            let copied = copied.downcast::<PyDict>().map_err(|_| {
                vm.new_type_error("deepcopy of a tensor's __dict__ must give a dict")
            })?;
            if let Some(new_dict) = new.dict() {
                for (k, v) in &copied {
                    new_dict.set_item(&*k, v, vm)?;
                }
            }
        }
        Ok(new)
    }

    #[pymethod]
    fn cpu(zelf: PyRef<Self>) -> PyRef<Self> {
        zelf
    }

    #[pymethod]
    fn cuda(_zelf: &Py<Self>, _args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        PyDevice {
            kind: "cuda",
            index: None,
        }
        .check_cpu(vm)
        .map(|()| vm.ctx.none())
    }
}
