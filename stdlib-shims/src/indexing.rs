//! Tensor indexing and the sequence protocol: `x[key]`, `x[key] = value`, `len(x)`,
//! `iter(x)`, `v in x`. Indexing runs the registry's `__getitem__`/`__setitem__` ops.

use std::sync::LazyLock;

use rustpython_vm::protocol::{PyMapping, PyMappingMethods, PySequence, PySequenceMethods};
use rustpython_vm::types::{AsMapping, AsSequence, Iterable};
use rustpython_vm::{PyObject, PyObjectRef, PyRef, PyResult, VirtualMachine};
use rynamo_graph::{Op, Value, registry};

use crate::args::{py_to_index, py_to_value};
use crate::ops::{bind_overload, tensor_err, to_py_err};
use crate::tensor::{PyTensor, as_tensor, call_op1};

fn getitem(zelf: &PyObject, key: &PyObject, vm: &VirtualMachine) -> PyResult {
    let t = as_tensor(zelf).ok_or_else(|| vm.new_type_error("expected a Tensor"))?;
    let index = py_to_index(key, vm)?;
    call_op1(Op::GetItem, vec![Value::Tensor(t), index], vm)
}

fn setitem(
    zelf: &PyObject,
    key: &PyObject,
    value: Option<PyObjectRef>,
    vm: &VirtualMachine,
) -> PyResult<()> {
    let Some(value) = value else {
        return Err(vm.new_type_error("'Tensor' object does not support item deletion"));
    };
    let t = as_tensor(zelf).ok_or_else(|| vm.new_type_error("expected a Tensor"))?;
    let index = py_to_index(key, vm)?;
    let value = py_to_value(&value, vm)?;
    let (op, args) = bind_overload(&[Op::SetItem], vec![Value::Tensor(t), index, value], vec![])
        .map_err(|e| to_py_err(&e, vm))?;
    registry::call(op, &args).map_err(|e| to_py_err(&e, vm))?;
    Ok(())
}

fn length(zelf: &PyObject, vm: &VirtualMachine) -> PyResult<usize> {
    let t = as_tensor(zelf).ok_or_else(|| vm.new_type_error("expected a Tensor"))?;
    t.shape()
        .first()
        .copied()
        .ok_or_else(|| vm.new_type_error("len() of a 0-d tensor"))
}

/// `v in x` is `(x == v).any()`, as in PyTorch.
fn contains(zelf: &PyObject, needle: &PyObject, vm: &VirtualMachine) -> PyResult<bool> {
    let t = as_tensor(zelf).ok_or_else(|| vm.new_type_error("expected a Tensor"))?;
    let types = &vm.ctx.types;
    let ok = needle.downcastable::<PyTensor>()
        || needle.class().fast_issubclass(types.int_type)
        || needle.class().fast_issubclass(types.float_type);
    if !ok {
        return Err(vm.new_runtime_error(format!(
            "Tensor.__contains__ only supports Tensor or scalar, but you passed in a {}.",
            needle.class().name()
        )));
    }
    let (op, args) = bind_overload(
        &[Op::Eq],
        vec![Value::Tensor(t), py_to_value(needle, vm)?],
        vec![],
    )
    .map_err(|e| to_py_err(&e, vm))?;
    let eq = registry::call(op, &args).map_err(|e| to_py_err(&e, vm))?;
    let eq = eq
        .into_iter()
        .next()
        .ok_or_else(|| vm.new_runtime_error("eq: no output"))?;
    let any = registry::call(
        Op::Any,
        &[Value::Tensor(eq), Value::None, Value::Bool(false)],
    )
    .map_err(|e| to_py_err(&e, vm))?;
    let any = any
        .into_iter()
        .next()
        .ok_or_else(|| vm.new_runtime_error("any: no output"))?;
    Ok(any.item().map_err(|e| tensor_err(e, vm))?.to_bool())
}

impl AsMapping for PyTensor {
    fn as_mapping() -> &'static PyMappingMethods {
        static AS_MAPPING: LazyLock<PyMappingMethods> = LazyLock::new(|| PyMappingMethods {
            length: Some(|m: PyMapping<'_>, vm| length(m.obj, vm)),
            subscript: Some(|m: PyMapping<'_>, key, vm| getitem(m.obj, key, vm)),
            ass_subscript: Some(|m: PyMapping<'_>, key, value, vm| setitem(m.obj, key, value, vm)),
        });
        &AS_MAPPING
    }
}

impl AsSequence for PyTensor {
    fn as_sequence() -> &'static PySequenceMethods {
        static AS_SEQUENCE: LazyLock<PySequenceMethods> = LazyLock::new(|| PySequenceMethods {
            length: Some(|s: PySequence<'_>, vm| length(s.obj, vm)),
            contains: Some(|s: PySequence<'_>, needle, vm| contains(s.obj, needle, vm)),
            ..PySequenceMethods::NOT_IMPLEMENTED
        });
        &AS_SEQUENCE
    }
}

impl Iterable for PyTensor {
    /// `iter(x)` walks `x.unbind(0)`: one `select` per element of the first dim.
    fn iter(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyResult {
        let t = zelf.tensor();
        let n = t
            .shape()
            .first()
            .copied()
            .ok_or_else(|| vm.new_type_error("iteration over a 0-d tensor"))?;
        let items = (0..n as i64)
            .map(|i| {
                call_op1(
                    Op::Select,
                    vec![Value::Tensor(t.clone()), Value::Int(0), Value::Int(i)],
                    vm,
                )
            })
            .collect::<PyResult<Vec<_>>>()?;
        let tuple: PyObjectRef = vm.ctx.new_tuple(items).into();
        Ok(tuple.get_iter(vm)?.into())
    }
}
