//! `torch.tensor(data)`: nested Python sequences of numbers to a tensor, with PyTorch's shape
//! checks and dtype inference.

use rustpython_vm::builtins::{PyFloat, PyInt, PyList, PyTuple};
use rustpython_vm::{AsObject, PyObject, PyObjectRef, PyResult, VirtualMachine};
use rynamo_tensor::{Category, DType, Scalar, Tensor};

use crate::ops::tensor_err;
use crate::tensor::as_tensor;

/// Builds a tensor from `data`: a number, a tensor (copied), or nested lists/tuples of numbers
/// and one-element tensors. Without `dtype`, floats give the default dtype, else ints give
/// int64, else bools give bool.
pub fn tensor_from_data(
    data: &PyObject,
    dtype: Option<DType>,
    vm: &VirtualMachine,
) -> PyResult<Tensor> {
    if let Some(t) = as_tensor(data) {
        let t = match dtype {
            Some(d) if d != t.dtype() => t.to_dtype(d),
            _ => t.deep_clone(),
        };
        return Ok(t);
    }
    let mut shape = Vec::new();
    let mut values = Vec::new();
    walk(data, 0, &mut shape, &mut values, vm)?;
    let dtype = dtype.unwrap_or_else(|| infer_dtype(&values));
    Tensor::from_scalars(&values, &shape, Some(dtype)).map_err(|e| tensor_err(e, vm))
}

/// PyTorch's inference for `torch.tensor`: the highest category present decides.
fn infer_dtype(values: &[Scalar]) -> DType {
    match values.iter().map(|s| s.category()).max() {
        Some(Category::Bool) => DType::Bool,
        Some(Category::Int) => DType::Int64,
        Some(Category::Float) | None => crate::state::default_dtype(),
    }
}

fn is_sequence(obj: &PyObject) -> bool {
    obj.downcastable::<PyList>() || obj.downcastable::<PyTuple>()
}

/// Records the shape from the first element at each depth and checks the rest against it.
fn walk(
    obj: &PyObject,
    depth: usize,
    shape: &mut Vec<usize>,
    values: &mut Vec<Scalar>,
    vm: &VirtualMachine,
) -> PyResult<()> {
    if !is_sequence(obj) {
        if depth < shape.len() {
            return Err(vm.new_value_error(format!(
                "expected sequence of length {} at dim {depth} (got {})",
                shape[depth],
                obj.class().name()
            )));
        }
        values.push(scalar_from_py(obj, vm)?);
        return Ok(());
    }
    let items: Vec<PyObjectRef> = obj.to_owned().try_to_value(vm)?;
    if depth == shape.len() {
        if !values.is_empty() {
            // A sequence where earlier siblings were numbers.
            return Err(vm.new_type_error(format!(
                "not a sequence: expected a number at dim {depth}, got {}",
                obj.class().name()
            )));
        }
        shape.push(items.len());
    } else if shape[depth] != items.len() {
        return Err(vm.new_value_error(format!(
            "expected sequence of length {} at dim {depth} (got {})",
            shape[depth],
            items.len()
        )));
    }
    for item in &items {
        walk(item, depth + 1, shape, values, vm)?;
    }
    Ok(())
}

/// One element: a Python number or a one-element tensor.
pub(crate) fn scalar_from_py(obj: &PyObject, vm: &VirtualMachine) -> PyResult<Scalar> {
    if obj.is(&vm.ctx.true_value) {
        return Ok(Scalar::Bool(true));
    }
    if obj.is(&vm.ctx.false_value) {
        return Ok(Scalar::Bool(false));
    }
    if let Some(i) = obj.downcast_ref::<PyInt>() {
        let v = i
            .try_to_primitive::<i64>(vm)
            .map_err(|_| vm.new_runtime_error("Overflow when unpacking long"))?;
        return Ok(Scalar::Int(v));
    }
    if let Some(f) = obj.downcast_ref::<PyFloat>() {
        return Ok(Scalar::Float(f.to_f64()));
    }
    if let Some(t) = as_tensor(obj) {
        if t.numel() != 1 {
            return Err(
                vm.new_value_error("only one element tensors can be converted to Python scalars")
            );
        }
        return t.item().map_err(|e| tensor_err(e, vm));
    }
    if let Some(i) = obj.try_index_opt(vm) {
        let v = i?
            .try_to_primitive::<i64>(vm)
            .map_err(|_| vm.new_runtime_error("Overflow when unpacking long"))?;
        return Ok(Scalar::Int(v));
    }
    if let Some(f) = obj.try_float_opt(vm) {
        return Ok(Scalar::Float(f?.to_f64()));
    }
    Err(vm.new_type_error(format!("new(): invalid data type '{}'", obj.class().name())))
}
