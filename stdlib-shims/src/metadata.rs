//! Tensor metadata from Python: shape, sizes, strides, dtype, device, layout predicates, and
//! the transposes `T`/`mT`. Reading metadata never touches data or dispatches an op, except the
//! transposes, which are views made by the registry.

use rustpython_vm::function::{FuncArgs, OptionalArg};
use rustpython_vm::{Py, PyObjectRef, PyPayload, PyRef, PyResult, VirtualMachine, pyclass};
use rynamo_graph::{Op, Value};

use crate::dtype::{PyDevice, dtype_object};
use crate::ops::to_py_err;
use crate::size::new_size;
use crate::tensor::{PyTensor, call_op1};

/// The optional `dim` of `size(dim=None)` / `stride(dim=None)`, positional or by keyword.
#[derive(rustpython_vm::FromArgs)]
pub(crate) struct DimArg {
    #[pyarg(any, optional)]
    dim: OptionalArg<Option<i64>>,
}

#[pyclass]
pub(crate) trait PyTensorMetadata: PyPayload {
    #[pygetset]
    fn shape(zelf: &Py<PyTensor>, vm: &VirtualMachine) -> PyObjectRef {
        new_size(zelf.tensor().shape(), vm)
    }

    #[pymethod]
    fn size(zelf: &Py<PyTensor>, dim: DimArg, vm: &VirtualMachine) -> PyResult {
        match dim.dim.flatten() {
            None => Ok(Self::shape(zelf, vm)),
            Some(d) => {
                let n = zelf
                    .tensor()
                    .size(d)
                    .map_err(|e| to_py_err(&e.into(), vm))?;
                Ok(vm.ctx.new_int(n).into())
            }
        }
    }

    #[pymethod]
    fn dim(zelf: &Py<PyTensor>) -> usize {
        zelf.tensor().ndim()
    }

    #[pymethod]
    fn ndimension(zelf: &Py<PyTensor>) -> usize {
        Self::dim(zelf)
    }

    #[pygetset]
    fn ndim(zelf: &Py<PyTensor>) -> usize {
        Self::dim(zelf)
    }

    #[pymethod]
    fn numel(zelf: &Py<PyTensor>) -> usize {
        zelf.tensor().numel()
    }

    #[pymethod]
    fn nelement(zelf: &Py<PyTensor>) -> usize {
        Self::numel(zelf)
    }

    #[pygetset]
    fn dtype(zelf: &Py<PyTensor>) -> PyObjectRef {
        dtype_object(zelf.tensor().dtype())
    }

    #[pygetset]
    fn device(_zelf: &Py<PyTensor>, vm: &VirtualMachine) -> PyObjectRef {
        PyDevice::CPU.into_ref(&vm.ctx).into()
    }

    #[pygetset]
    fn is_cpu(_zelf: &Py<PyTensor>) -> bool {
        true
    }

    #[pygetset]
    fn is_cuda(_zelf: &Py<PyTensor>) -> bool {
        false
    }

    #[pygetset]
    fn is_meta(_zelf: &Py<PyTensor>) -> bool {
        false
    }

    #[pygetset]
    fn is_sparse(_zelf: &Py<PyTensor>) -> bool {
        false
    }

    #[pygetset]
    fn is_quantized(_zelf: &Py<PyTensor>) -> bool {
        false
    }

    #[pygetset]
    fn is_nested(_zelf: &Py<PyTensor>) -> bool {
        false
    }

    #[pygetset]
    fn is_mkldnn(_zelf: &Py<PyTensor>) -> bool {
        false
    }

    #[pymethod]
    fn element_size(zelf: &Py<PyTensor>) -> usize {
        zelf.tensor().dtype().itemsize()
    }

    #[pygetset]
    fn itemsize(zelf: &Py<PyTensor>) -> usize {
        Self::element_size(zelf)
    }

    #[pygetset]
    fn nbytes(zelf: &Py<PyTensor>) -> usize {
        let t = zelf.tensor();
        t.numel() * t.dtype().itemsize()
    }

    #[pymethod]
    fn stride(zelf: &Py<PyTensor>, dim: DimArg, vm: &VirtualMachine) -> PyResult {
        let t = zelf.tensor();
        match dim.dim.flatten() {
            None => {
                let items: Vec<PyObjectRef> = t
                    .strides()
                    .iter()
                    .map(|&s| vm.ctx.new_int(s).into())
                    .collect();
                Ok(vm.ctx.new_tuple(items).into())
            }
            Some(d) => {
                let i = rynamo_tensor::layout::wrap_dim(d, t.ndim())
                    .map_err(|e| to_py_err(&e.into(), vm))?;
                Ok(vm.ctx.new_int(t.strides()[i]).into())
            }
        }
    }

    #[pymethod]
    fn storage_offset(zelf: &Py<PyTensor>) -> usize {
        zelf.tensor().offset()
    }

    #[pymethod]
    fn is_contiguous(zelf: &Py<PyTensor>, args: FuncArgs, vm: &VirtualMachine) -> PyResult<bool> {
        let t = zelf.tensor();
        let arg = args
            .args
            .first()
            .cloned()
            .or_else(|| args.kwargs.get("memory_format").cloned());
        if args.args.len() + args.kwargs.len() > 1
            || args.kwargs.keys().any(|k| k.to_string() != "memory_format")
        {
            return Err(vm.new_type_error(
                "is_contiguous() takes at most 1 argument (memory_format)".to_owned(),
            ));
        }
        let format = match arg {
            Some(f) => crate::memory_format::name_of(&f, vm)?,
            None => None,
        };
        Ok(match format.as_deref() {
            None | Some("preserve_format") => t.is_contiguous(),
            Some(f) => crate::memory_format::is_contiguous_as(&t, f),
        })
    }

    #[pymethod]
    fn is_floating_point(zelf: &Py<PyTensor>) -> bool {
        zelf.tensor().dtype().is_floating_point()
    }

    #[pymethod]
    fn is_complex(zelf: &Py<PyTensor>) -> bool {
        zelf.tensor().dtype().is_complex()
    }

    #[pymethod]
    fn is_signed(zelf: &Py<PyTensor>) -> bool {
        zelf.tensor().dtype().is_signed()
    }

    #[pymethod]
    fn data_ptr(zelf: &Py<PyTensor>) -> usize {
        let t = zelf.tensor();
        t.storage().as_ptr() as usize + t.offset() * t.dtype().itemsize()
    }

    #[pygetset]
    fn _version(zelf: &Py<PyTensor>, vm: &VirtualMachine) -> PyResult<u64> {
        let t = zelf.tensor();
        if t.autograd().is_some_and(|m| m.is_inference()) {
            return Err(vm.new_runtime_error("Inference tensors do not track version counter."));
        }
        Ok(t.version())
    }

    #[pymethod]
    fn is_set_to(zelf: &Py<PyTensor>, other: PyRef<PyTensor>) -> bool {
        let (a, b) = (zelf.tensor(), other.tensor());
        a.shares_storage(&b)
            && a.offset() == b.offset()
            && a.shape() == b.shape()
            && a.strides() == b.strides()
    }

    // === Complex components ===

    /// `x.real`: a view of a complex tensor's real parts (writes through it change `x`); a
    /// real tensor's own values.
    #[pygetset]
    fn real(zelf: &Py<PyTensor>, vm: &VirtualMachine) -> PyResult {
        call_op1(Op::Real, vec![Value::Tensor(zelf.tensor())], vm)
    }

    #[pygetset(setter)]
    fn set_real(
        zelf: &Py<PyTensor>,
        value: rustpython_vm::function::PySetterValue<PyObjectRef>,
        vm: &VirtualMachine,
    ) -> PyResult<()> {
        set_component(zelf, Op::Real, value, vm)
    }

    /// `x.imag`: a view of a complex tensor's imaginary parts; an error for a real tensor.
    #[pygetset]
    fn imag(zelf: &Py<PyTensor>, vm: &VirtualMachine) -> PyResult {
        call_op1(Op::Imag, vec![Value::Tensor(zelf.tensor())], vm)
    }

    #[pygetset(setter)]
    fn set_imag(
        zelf: &Py<PyTensor>,
        value: rustpython_vm::function::PySetterValue<PyObjectRef>,
        vm: &VirtualMachine,
    ) -> PyResult<()> {
        set_component(zelf, Op::Imag, value, vm)
    }

    // === Transposes ===

    #[pygetset(name = "T")]
    fn t_prop(zelf: &Py<PyTensor>, vm: &VirtualMachine) -> PyResult {
        let t = zelf.tensor();
        let dims: Vec<i64> = (0..t.ndim() as i64).rev().collect();
        call_op1(
            Op::Permute,
            vec![Value::Tensor(t), Value::IntList(dims)],
            vm,
        )
    }

    #[pygetset(name = "mT")]
    fn mt_prop(zelf: &Py<PyTensor>, vm: &VirtualMachine) -> PyResult {
        let t = zelf.tensor();
        if t.ndim() < 2 {
            return Err(vm.new_runtime_error(format!(
                "tensor.mT is only supported on matrices or batches of matrices. Got {}-D tensor.",
                t.ndim()
            )));
        }
        call_op1(
            Op::Transpose,
            vec![Value::Tensor(t), Value::Int(-2), Value::Int(-1)],
            vm,
        )
    }

    #[pygetset(name = "H")]
    fn h_prop(zelf: &Py<PyTensor>, vm: &VirtualMachine) -> PyResult {
        Self::t_prop(zelf, vm)
    }

    #[pygetset(name = "mH")]
    fn mh_prop(zelf: &Py<PyTensor>, vm: &VirtualMachine) -> PyResult {
        Self::mt_prop(zelf, vm)
    }
}

impl PyTensorMetadata for PyTensor {}

/// `x.real = v` / `x.imag = v`: copies `v` (a tensor or a number) into the component view.
fn set_component(
    zelf: &Py<PyTensor>,
    view: Op,
    value: rustpython_vm::function::PySetterValue<PyObjectRef>,
    vm: &VirtualMachine,
) -> PyResult<()> {
    let rustpython_vm::function::PySetterValue::Assign(value) = value else {
        return Err(vm.new_type_error("can't delete attribute"));
    };
    let part = call_op1(view, vec![Value::Tensor(zelf.tensor())], vm)?;
    let part = crate::tensor::as_tensor(&part).expect("invariant: a view op returns a tensor");
    let v = match crate::args::py_to_value(&value, vm)? {
        Value::Int(i) => Value::Scalar(rynamo_tensor::Scalar::Int(i)),
        Value::Float(f) => Value::Scalar(rynamo_tensor::Scalar::Float(f)),
        Value::Bool(b) => Value::Scalar(rynamo_tensor::Scalar::Bool(b)),
        v => v,
    };
    let op = if matches!(v, Value::Tensor(_)) {
        Op::Copy_
    } else {
        Op::Fill_
    };
    call_op1(op, vec![Value::Tensor(part), v], vm)?;
    Ok(())
}
