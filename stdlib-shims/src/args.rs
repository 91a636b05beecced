//! Python objects to op argument values ([`IValue`]): the conversions PyTorch's argument parser
//! does before a schema sees the call.

use rustpython_vm::builtins::{
    PyComplex, PyEllipsis, PyFloat, PyInt, PyList, PySlice, PyStr, PyTuple,
};
use rustpython_vm::{AsObject, Py, PyObject, PyObjectRef, PyResult, VirtualMachine};
use rynamo_graph::{IValue, Value};
use rynamo_tensor::{DType, IndexItem};

use crate::dtype::{PyDType, PyDevice, dtype_from_py};
use crate::tensor::as_tensor;

/// Converts one Python object to an op argument value: `Tensor` objects become
/// `Value::Tensor`; ints, floats, bools, `None`, str, dtypes, lists and tuples (of ints or of
/// tensors), slices and `...` become the values the schema types need. The schema's binding then
/// checks and converts them per parameter (a number for a `Scalar`, one int for an `int[]`).
pub fn py_to_value(obj: &PyObject, vm: &VirtualMachine) -> PyResult<IValue> {
    if let Some(t) = as_tensor(obj) {
        return Ok(Value::Tensor(t));
    }
    if vm.is_none(obj) {
        return Ok(Value::None);
    }
    if let Some(b) = as_bool(obj, vm) {
        return Ok(Value::Bool(b));
    }
    if let Some(i) = obj.downcast_ref::<PyInt>() {
        return Ok(Value::Int(int_value(i, vm)?));
    }
    if let Some(f) = obj.downcast_ref::<PyFloat>() {
        return Ok(Value::Float(f.to_f64()));
    }
    if let Some(c) = obj.downcast_ref::<PyComplex>() {
        // A Python complex has no `Scalar` form: it becomes a 0-dim tensor of the default
        // complex dtype, whose zero-dim promotion gives PyTorch's results for the wrapped number
        // (`float64 tensor * 1j` is complex128, `int tensor * 1j` complex64).
        let z = c.to_complex();
        let d = crate::creation::default_complex();
        return Ok(Value::Tensor(rynamo_tensor::ops::complex::scalar(
            z.re, z.im, d,
        )));
    }
    if let Some(s) = obj.downcast_ref::<PyStr>() {
        return Ok(Value::Str(s.to_string_lossy().into_owned()));
    }
    if let Some(d) = obj.downcast_ref::<PyDType>() {
        return Ok(Value::DType(d.dtype));
    }
    if let Some(d) = dtype_from_py(obj, vm) {
        return Ok(Value::DType(d));
    }
    if let Some(d) = obj.downcast_ref::<PyDevice>() {
        return Ok(Value::Str(d.kind.to_owned()));
    }
    if obj.downcastable::<PyList>() || obj.downcastable::<PyTuple>() {
        return sequence_value(obj, vm);
    }
    if obj.downcastable::<PySlice>() || obj.downcastable::<PyEllipsis>() {
        return Ok(Value::Index(vec![index_item(obj, vm)?]));
    }
    if let Some(i) = obj.try_index_opt(vm) {
        return Ok(Value::Int(int_value(&*i?, vm)?));
    }
    Err(vm.new_type_error(format!(
        "an op argument cannot be of type '{}'",
        obj.class().name()
    )))
}

fn as_bool(obj: &PyObject, vm: &VirtualMachine) -> Option<bool> {
    if obj.is(&vm.ctx.true_value) {
        Some(true)
    } else if obj.is(&vm.ctx.false_value) {
        Some(false)
    } else {
        None
    }
}

fn int_value(i: &Py<PyInt>, vm: &VirtualMachine) -> PyResult<i64> {
    i.try_to_primitive::<i64>(vm)
        .map_err(|_| vm.new_runtime_error("Overflow when unpacking long"))
}

/// A list or tuple: all tensors make a `Tensor[]`, all ints an `int[]`; an index expression
/// (slices, `None`, `...`) makes an `Index[]`.
fn sequence_value(obj: &PyObject, vm: &VirtualMachine) -> PyResult<IValue> {
    let items: Vec<PyObjectRef> = obj.to_owned().try_to_value(vm)?;
    if items.is_empty() {
        return Ok(Value::IntList(Vec::new()));
    }
    if items.iter().all(|x| as_tensor(x).is_some()) {
        return Ok(Value::TensorList(
            items.iter().filter_map(|x| as_tensor(x)).collect(),
        ));
    }
    let is_index_only = |x: &PyObjectRef| {
        vm.is_none(x) || x.downcastable::<PySlice>() || x.downcastable::<PyEllipsis>()
    };
    if items.iter().any(is_index_only) {
        return Ok(Value::Index(
            items
                .iter()
                .map(|x| index_item(x, vm))
                .collect::<PyResult<_>>()?,
        ));
    }
    let mut ints = Vec::with_capacity(items.len());
    for (pos, x) in items.iter().enumerate() {
        let int = if as_tensor(x).is_some() {
            // A 0-dim integer tensor counts as an int (PyTorch's IntArrayRef parsing).
            x.try_index_opt(vm).and_then(Result::ok)
        } else if x.downcastable::<PyFloat>() {
            None
        } else {
            x.try_index_opt(vm).and_then(Result::ok)
        };
        match int {
            Some(i) => ints.push(int_value(&i, vm)?),
            None => {
                return Err(vm.new_type_error(format!(
                    "expected a sequence of ints or of Tensors, but found element of type {} at pos {pos}",
                    x.class().name()
                )));
            }
        }
    }
    Ok(Value::IntList(ints))
}

/// The index expression of `x[key]` / `x[key] = v` as an `Index[]` value: a tuple is one item per
/// element; anything else is a single item. Lists become index tensors, as in PyTorch.
pub fn py_to_index(key: &PyObject, vm: &VirtualMachine) -> PyResult<IValue> {
    let items = if key.class().is(vm.ctx.types.tuple_type) || list_as_tuple(key, vm) {
        let elems: Vec<PyObjectRef> = key.to_owned().try_to_value(vm)?;
        elems
            .iter()
            .map(|x| index_item(x, vm))
            .collect::<PyResult<_>>()?
    } else {
        vec![index_item(key, vm)?]
    };
    Ok(Value::Index(items))
}

/// PyTorch's `treatSequenceAsTuple` (NumPy's old heuristic, still applied by PyTorch 2.15): a
/// list index shorter than 32 holding a tensor, a sequence, a slice, `...` or `None` indexes
/// like the tuple of its items (`x[[i, j]]` is `x[i, j]`).
pub fn list_as_tuple(key: &PyObject, vm: &VirtualMachine) -> bool {
    let Some(l) = key.downcast_ref::<PyList>() else {
        return false;
    };
    let items = l.borrow_vec();
    items.len() < 32
        && items.iter().any(|o| {
            as_tensor(o).is_some()
                || o.downcastable::<PyList>()
                || o.downcastable::<PyTuple>()
                || o.downcastable::<PySlice>()
                || o.downcastable::<PyEllipsis>()
                || vm.is_none(o)
        })
}

fn index_item(obj: &PyObject, vm: &VirtualMachine) -> PyResult<IndexItem<rynamo_tensor::Tensor>> {
    if let Some(t) = as_tensor(obj) {
        // PyTorch (`applySlicing`) indexes with a 0-d integer tensor as with its value: a
        // `select`, so the result is a view of the indexed tensor, not an advanced-index copy.
        if t.ndim() == 0 && t.dtype().is_integral(false) && t.dtype() != DType::UInt8 {
            let i = t
                .item()
                .map_err(|e| crate::ops::tensor_err(e, vm))?
                .to_i64();
            return Ok(IndexItem::Int(i));
        }
        if t.dtype() == DType::UInt8 && t.ndim() > 0 {
            // The kernels read a uint8 index as a mask, as PyTorch still does (deprecated, with
            // this warning; PyTorch 2.15 gives none for a 0-d one).
            vm.import("warnings", 0)?.get_attr("warn", vm)?.call(
                (vm.ctx.new_str(
                    "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.",
                ),),
                vm,
            )?;
        }
        return Ok(IndexItem::Tensor(t));
    }
    if vm.is_none(obj) {
        return Ok(IndexItem::None);
    }
    if obj.downcastable::<PyEllipsis>() {
        return Ok(IndexItem::Ellipsis);
    }
    if let Some(b) = as_bool(obj, vm) {
        return Ok(IndexItem::Bool(b));
    }
    if let Some(s) = obj.downcast_ref::<PySlice>() {
        let bound = |v: Option<&PyObjectRef>| -> PyResult<Option<i64>> {
            match v {
                Some(v) if !vm.is_none(v) => Ok(Some(int_value(&*v.try_index(vm)?, vm)?)),
                _ => Ok(None),
            }
        };
        return Ok(IndexItem::Slice {
            start: bound(s.start.as_ref())?,
            stop: bound(Some(&s.stop))?,
            step: bound(s.step.as_ref())?,
        });
    }
    if obj.downcastable::<PyList>() || obj.downcastable::<PyTuple>() {
        // PyTorch's `indexing_tensor_from_data`: a list of bools (or uint8) is a mask; any other
        // list, the empty one included, is an int64 index.
        let t = crate::creation::tensor_from_data(obj, None, vm)?;
        let t = match t.dtype() {
            DType::Bool | DType::UInt8 | DType::Int64 => t,
            _ => t.to_dtype(DType::Int64),
        };
        return Ok(IndexItem::Tensor(t));
    }
    if !obj.downcastable::<PyFloat>()
        && let Some(i) = obj.try_index_opt(vm)
    {
        return Ok(IndexItem::Int(int_value(&*i?, vm)?));
    }
    Err(vm.new_index_error(format!(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got {})",
        obj.class().name()
    )))
}
