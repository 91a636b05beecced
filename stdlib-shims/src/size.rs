//! `torch.Size`: a tuple subclass with PyTorch's repr (`torch.Size([2, 3])`) and `numel()`.

use std::sync::LazyLock;

use rustpython_vm::builtins::{PySlice, PyTuple, PyTupleRef, PyType};
use rustpython_vm::function::OptionalArg;
use rustpython_vm::protocol::{PyMapping, PyMappingMethods, PySequence, PySequenceMethods};
use rustpython_vm::types::{AsMapping, AsSequence, Constructor, Representable};
use rustpython_vm::{
    AsObject, Py, PyObject, PyObjectRef, PyPayload, PyRef, PyResult, VirtualMachine, pyclass,
};

/// `torch.Size`.
#[pyclass(module = "torch", name = "Size", base = PyTuple)]
#[repr(transparent)]
#[derive(Debug)]
pub struct PySize(PyTuple);

/// A new `torch.Size` holding `dims`.
pub fn new_size(dims: &[usize], vm: &VirtualMachine) -> PyObjectRef {
    let items: Vec<PyObjectRef> = dims.iter().map(|&d| vm.ctx.new_int(d).into()).collect();
    size_from_items(items, vm)
}

fn size_from_items(items: Vec<PyObjectRef>, vm: &VirtualMachine) -> PyObjectRef {
    PySize(PyTuple::new_unchecked(items.into_boxed_slice()))
        .into_ref(&vm.ctx)
        .into()
}

impl PySize {
    /// The dims as `i64`s (every item is an int: the constructor checks).
    pub fn dims(&self, vm: &VirtualMachine) -> PyResult<Vec<i64>> {
        self.0
            .as_slice()
            .iter()
            .map(|d| d.try_index(vm)?.try_to_primitive(vm))
            .collect()
    }
}

impl Constructor for PySize {
    type Args = OptionalArg<PyObjectRef>;

    fn py_new(_cls: &Py<PyType>, arg: Self::Args, vm: &VirtualMachine) -> PyResult<Self> {
        let items: Vec<PyObjectRef> = match arg {
            OptionalArg::Present(seq) => seq.try_to_value(vm)?,
            OptionalArg::Missing => Vec::new(),
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            // Ints, and anything with `__index__` (0-dim integer tensors included).
            let v = item.try_index(vm).map_err(|_| {
                vm.new_type_error(format!(
                    "torch.Size() takes an iterable of 'int' (item {i} is '{}')",
                    item.class().name()
                ))
            })?;
            out.push(v.into());
        }
        Ok(PySize(PyTuple::new_unchecked(out.into_boxed_slice())))
    }
}

#[pyclass(
    with(Constructor, Representable, AsMapping, AsSequence),
    flags(BASETYPE)
)]
impl PySize {
    /// The number of elements a tensor of this shape holds.
    #[pymethod]
    fn numel(zelf: &Py<Self>, vm: &VirtualMachine) -> PyResult<i64> {
        Ok(zelf.dims(vm)?.iter().product())
    }

    #[pymethod]
    fn __reduce__(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyTupleRef {
        let items = vm.ctx.new_tuple(zelf.0.as_slice().to_vec());
        let cls: PyObjectRef = zelf.class().to_owned().into();
        vm.new_tuple((cls, vm.new_tuple((items,))))
    }
}

/// `size[i]` is an int; `size[a:b]` is a `torch.Size` again (a plain tuple slice otherwise).
fn getitem(zelf: &PyObject, needle: &PyObject, vm: &VirtualMachine) -> PyResult {
    let tuple_getitem = vm
        .ctx
        .types
        .tuple_type
        .as_object()
        .get_attr("__getitem__", vm)?;
    let out = tuple_getitem.call((zelf.to_owned(), needle.to_owned()), vm)?;
    if needle.downcastable::<PySlice>() {
        let items: Vec<PyObjectRef> = out.try_to_value(vm)?;
        return Ok(size_from_items(items, vm));
    }
    Ok(out)
}

impl AsMapping for PySize {
    fn as_mapping() -> &'static PyMappingMethods {
        static AS_MAPPING: LazyLock<PyMappingMethods> = LazyLock::new(|| PyMappingMethods {
            length: Some(|mapping: PyMapping<'_>, _vm| {
                Ok(PySize::mapping_downcast(mapping).0.as_slice().len())
            }),
            subscript: Some(|mapping: PyMapping<'_>, needle, vm| getitem(mapping.obj, needle, vm)),
            ..PyMappingMethods::NOT_IMPLEMENTED
        });
        &AS_MAPPING
    }
}

/// `size + tuple` is a `torch.Size`, as in PyTorch.
fn concat(zelf: &PyObject, other: &PyObject, vm: &VirtualMachine) -> PyResult {
    let Some(other) = other.downcast_ref::<PyTuple>() else {
        return Err(vm.new_type_error(format!(
            "can only concatenate tuple (not \"{}\") to tuple",
            other.class().name()
        )));
    };
    let mut items: Vec<PyObjectRef> = zelf.to_owned().try_to_value(vm)?;
    items.extend(other.as_slice().iter().cloned());
    Ok(size_from_items(items, vm))
}

impl AsSequence for PySize {
    fn as_sequence() -> &'static PySequenceMethods {
        static AS_SEQUENCE: LazyLock<PySequenceMethods> = LazyLock::new(|| PySequenceMethods {
            length: Some(|seq: PySequence<'_>, _vm| {
                Ok(PySize::sequence_downcast(seq).0.as_slice().len())
            }),
            concat: Some(|seq: PySequence<'_>, other, vm| concat(seq.obj, other, vm)),
            ..PySequenceMethods::NOT_IMPLEMENTED
        });
        &AS_SEQUENCE
    }
}

impl Representable for PySize {
    fn repr_str(zelf: &Py<Self>, vm: &VirtualMachine) -> PyResult<String> {
        let parts: Vec<String> = zelf
            .0
            .as_slice()
            .iter()
            .map(|d| d.repr(vm).map(|s| s.to_string_lossy().into_owned()))
            .collect::<PyResult<_>>()?;
        Ok(format!("torch.Size([{}])", parts.join(", ")))
    }
}
