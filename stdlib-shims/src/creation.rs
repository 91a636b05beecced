//! `torch.tensor(data)`: nested Python sequences of numbers to a tensor, with PyTorch's shape
//! checks and dtype inference.

use rustpython_vm::builtins::{PyBytes, PyComplex, PyFloat, PyInt, PyStr};
use rustpython_vm::{AsObject, PyObject, PyObjectRef, PyResult, VirtualMachine};
use rynamo_tensor::{DType, Scalar, Tensor, promote_types};

use crate::ops::tensor_err;
use crate::tensor::as_tensor;

/// Builds a tensor from `data`: a number, a tensor (copied), or nested sequences of numbers and
/// one-element tensors. Without `dtype`, the elements' types promote as in PyTorch.
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
    let mut w = Walk::default();
    w.walk(data, 0, vm)?;
    if let Some(d) = dtype
        && w.py_complex
        && !d.is_complex()
    {
        // PyTorch converts each Python element with `float()`/`int()` semantics; `bool` takes
        // a complex's truth value.
        if d.is_floating_point() {
            return Err(vm.new_type_error("must be real number, not complex"));
        }
        if d != DType::Bool {
            return Err(vm.new_type_error("'complex' object cannot be interpreted as an integer"));
        }
    }
    // PyTorch's `infer_scalar_type`: the promotion of every element's type, where a Python float
    // is the default dtype, an int int64, a bool bool and a tensor its own dtype; an empty
    // sequence is the default dtype.
    let dtype = dtype.unwrap_or_else(|| w.dtype.unwrap_or_else(crate::state::default_dtype));
    if dtype.is_complex() || w.imags.iter().any(|&i| i != 0.0) {
        // Real and imaginary parts as float64 tensors, joined and cast once.
        let part = |v: &[Scalar]| Tensor::from_scalars(v, &w.shape, Some(DType::Float64));
        let imags: Vec<Scalar> = w.imags.iter().map(|&i| Scalar::Float(i)).collect();
        let joined = part(&w.values)
            .and_then(|re| {
                let im = part(&imags)?;
                rynamo_tensor::ops::complex::from_pair(&re, &im, false)
            })
            .map_err(|e| tensor_err(e, vm))?;
        return Ok(joined.to_dtype(dtype));
    }
    Tensor::from_scalars(&w.values, &w.shape, Some(dtype)).map_err(|e| tensor_err(e, vm))
}

/// The dtype a Python complex becomes: complex128 when the default dtype is float64, else
/// complex64 (PyTorch's default complex dtype follows the default float dtype).
pub(crate) fn default_complex() -> DType {
    if crate::state::default_dtype() == DType::Float64 {
        DType::Complex128
    } else {
        DType::Complex64
    }
}

/// What PyTorch's `PySequence_Check` sees as nested data: any sequence (lists, tuples, `range`,
/// `torch.Size`), but not strings (an error) nor tensors (one-element tensors are elements).
fn is_sequence(obj: &PyObject) -> bool {
    as_tensor(obj).is_none()
        && !obj.downcastable::<PyStr>()
        && !obj.downcastable::<PyBytes>()
        && obj.sequence_unchecked().check()
}

/// The state of one `torch.tensor(data)` walk: the shape (from the first element at each depth),
/// the elements in row-major order and their promoted dtype.
#[derive(Default)]
struct Walk {
    shape: Vec<usize>,
    values: Vec<Scalar>,
    /// The imaginary part of each element (0 for real ones).
    imags: Vec<f64>,
    dtype: Option<DType>,
    /// Whether an element was a Python `complex` (a real `dtype=` refuses it, as PyTorch's
    /// Python-level conversion does).
    py_complex: bool,
}

impl Walk {
    /// Records the shape from the first element at each depth and checks the rest against it.
    fn walk(&mut self, obj: &PyObject, depth: usize, vm: &VirtualMachine) -> PyResult<()> {
        if !is_sequence(obj) {
            if depth < self.shape.len() {
                return Err(vm.new_value_error(format!(
                    "expected sequence of length {} at dim {depth} (got {})",
                    self.shape[depth],
                    obj.class().name()
                )));
            }
            let (v, im, dt) = element(obj, vm)?;
            self.py_complex |= obj.downcastable::<PyComplex>();
            self.values.push(v);
            self.imags.push(im);
            self.dtype = Some(self.dtype.map_or(dt, |d| promote_types(d, dt)));
            return Ok(());
        }
        let items: Vec<PyObjectRef> = obj.to_owned().try_to_value(vm)?;
        if depth == self.shape.len() {
            if !self.values.is_empty() {
                // A sequence where earlier siblings were numbers.
                return Err(vm.new_type_error(format!(
                    "not a sequence: expected a number at dim {depth}, got {}",
                    obj.class().name()
                )));
            }
            self.shape.push(items.len());
        } else if self.shape[depth] != items.len() {
            return Err(vm.new_value_error(format!(
                "expected sequence of length {} at dim {depth} (got {})",
                self.shape[depth],
                items.len()
            )));
        }
        for item in &items {
            self.walk(item, depth + 1, vm)?;
        }
        Ok(())
    }
}

/// One element of `torch.tensor(data)` and the dtype it asks for, with PyTorch's errors.
fn element(obj: &PyObject, vm: &VirtualMachine) -> PyResult<(Scalar, f64, DType)> {
    if obj.downcastable::<PyStr>() || obj.downcastable::<PyBytes>() {
        return Err(vm.new_type_error(format!("new(): invalid data type '{}'", obj.class().name())));
    }
    if let Some(c) = obj.downcast_ref::<PyComplex>() {
        let z = c.to_complex();
        return Ok((Scalar::Float(z.re), z.im, default_complex()));
    }
    if let Some(t) = as_tensor(obj) {
        if t.dtype().is_complex() && t.numel() == 1 {
            let (re, im) = rynamo_tensor::ops::complex::item(&t).map_err(|e| tensor_err(e, vm))?;
            return Ok((Scalar::Float(re), im, t.dtype()));
        }
        let v = scalar_from_py(obj, vm)?;
        return Ok((v, 0.0, t.dtype()));
    }
    match scalar_opt(obj, vm)? {
        Some(v @ Scalar::Float(_)) => Ok((v, 0.0, crate::state::default_dtype())),
        Some(v) => Ok((v, 0.0, v.dtype())),
        None => {
            Err(vm.new_runtime_error(format!("Could not infer dtype of {}", obj.class().name())))
        }
    }
}

/// One element: a Python number or a one-element tensor.
pub(crate) fn scalar_from_py(obj: &PyObject, vm: &VirtualMachine) -> PyResult<Scalar> {
    scalar_opt(obj, vm)?.ok_or_else(|| {
        vm.new_type_error(format!("new(): invalid data type '{}'", obj.class().name()))
    })
}

/// [`scalar_from_py`], or `None` when `obj` is no number.
fn scalar_opt(obj: &PyObject, vm: &VirtualMachine) -> PyResult<Option<Scalar>> {
    if obj.is(&vm.ctx.true_value) {
        return Ok(Some(Scalar::Bool(true)));
    }
    if obj.is(&vm.ctx.false_value) {
        return Ok(Some(Scalar::Bool(false)));
    }
    if let Some(i) = obj.downcast_ref::<PyInt>() {
        let v = i
            .try_to_primitive::<i64>(vm)
            .map_err(|_| vm.new_runtime_error("Overflow when unpacking long"))?;
        return Ok(Some(Scalar::Int(v)));
    }
    if let Some(f) = obj.downcast_ref::<PyFloat>() {
        return Ok(Some(Scalar::Float(f.to_f64())));
    }
    if let Some(t) = as_tensor(obj) {
        if t.numel() != 1 {
            return Err(
                vm.new_value_error("only one element tensors can be converted to Python scalars")
            );
        }
        return t.item().map(Some).map_err(|e| tensor_err(e, vm));
    }
    if let Some(i) = obj.try_index_opt(vm) {
        let v = i?
            .try_to_primitive::<i64>(vm)
            .map_err(|_| vm.new_runtime_error("Overflow when unpacking long"))?;
        return Ok(Some(Scalar::Int(v)));
    }
    if let Some(f) = obj.try_float_opt(vm) {
        return Ok(Some(Scalar::Float(f?.to_f64())));
    }
    Ok(None)
}
