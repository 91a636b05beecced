//! Tensor methods that convert: dtype and device moves (`to`, `float()`, `type_as`), Python
//! scalars and lists (`item`, `tolist`), shape-of-another views (`view_as`), `new_*` factories
//! and `unbind`.
//!
//! Every conversion that makes a tensor goes through the registry (`to`, `view`, `zeros`, ...),
//! so it counts as a dispatch and matches what Dynamo records.

use rustpython_vm::builtins::{PyStr, PyStrRef};
use rustpython_vm::function::{FuncArgs, OptionalArg};
use rustpython_vm::{
    AsObject, Py, PyObject, PyObjectRef, PyPayload, PyRef, PyResult, VirtualMachine, pyclass,
};
use rynamo_graph::{IValue, Op, Value};
use rynamo_tensor::{DType, Scalar, Tensor};

use crate::dtype::{PyDevice, dtype_from_py};
use crate::ops::tensor_err;
use crate::tensor::{PyTensor, as_tensor, call_op1, wrap_tensor};

/// A Python number for a runtime scalar.
pub(crate) fn scalar_to_py(s: Scalar, vm: &VirtualMachine) -> PyObjectRef {
    match s {
        Scalar::Bool(b) => vm.ctx.new_bool(b).into(),
        Scalar::Int(i) => vm.ctx.new_int(i).into(),
        Scalar::Float(x) => vm.ctx.new_float(x).into(),
    }
}

/// `x.to(dtype)` semantics: the same object when nothing changes (PyTorch returns `self`),
/// else a converted tensor through the `to` op.
pub(crate) fn convert_to(
    zelf: &Py<PyTensor>,
    dtype: Option<DType>,
    copy: bool,
    vm: &VirtualMachine,
) -> PyResult {
    let t = zelf.tensor();
    if !copy && dtype.is_none_or(|d| d == t.dtype()) {
        return Ok(zelf.to_owned().into());
    }
    let dtype = dtype.map_or(Value::None, Value::DType);
    call_op1(Op::To, vec![Value::Tensor(t), dtype, Value::Bool(copy)], vm)
}

/// PyTorch's legacy type names (`x.type()`).
pub fn legacy_type_name(d: DType) -> &'static str {
    match d {
        DType::Bool => "torch.BoolTensor",
        DType::UInt8 => "torch.ByteTensor",
        DType::Int8 => "torch.CharTensor",
        DType::Int16 => "torch.ShortTensor",
        DType::Int32 => "torch.IntTensor",
        DType::Int64 => "torch.LongTensor",
        DType::Float16 => "torch.HalfTensor",
        DType::BFloat16 => "torch.BFloat16Tensor",
        DType::Float32 => "torch.FloatTensor",
        DType::Float64 => "torch.DoubleTensor",
        DType::Complex64 => "torch.ComplexFloatTensor",
        DType::Complex128 => "torch.ComplexDoubleTensor",
    }
}

fn tolist(t: &Tensor, vm: &VirtualMachine) -> PyResult {
    if t.ndim() == 0 && !t.dtype().is_complex() {
        return Ok(scalar_to_py(t.item().map_err(|e| tensor_err(e, vm))?, vm));
    }
    let flat: Vec<PyObjectRef> = if t.dtype().is_complex() {
        rynamo_tensor::ops::complex::component_pairs(t)
            .chunks_exact(2)
            .map(|p| py_complex(p[0], p[1], vm))
            .collect()
    } else if t.dtype().is_floating_point() {
        t.to_vec::<f64>()
            .into_iter()
            .map(|x| vm.ctx.new_float(x).into())
            .collect()
    } else if t.dtype() == DType::Bool {
        t.to_vec::<u8>()
            .into_iter()
            .map(|x| vm.ctx.new_bool(x != 0).into())
            .collect()
    } else {
        t.to_vec::<i64>()
            .into_iter()
            .map(|x| vm.ctx.new_int(x).into())
            .collect()
    };
    Ok(nest(&flat, t.shape(), vm))
}

/// A Python `complex`.
pub(crate) fn py_complex(re: f64, im: f64, vm: &VirtualMachine) -> PyObjectRef {
    vm.ctx
        .new_complex(num_complex::Complex64::new(re, im))
        .into()
}

fn nest(flat: &[PyObjectRef], shape: &[usize], vm: &VirtualMachine) -> PyObjectRef {
    match shape {
        [] => flat.first().cloned().unwrap_or_else(|| vm.ctx.none()),
        [_] => vm.ctx.new_list(flat.to_vec()).into(),
        [n, rest @ ..] => {
            let step: usize = rest.iter().product();
            let items = (0..*n)
                .map(|i| nest(&flat[i * step..(i + 1) * step], rest, vm))
                .collect();
            vm.ctx.new_list(items).into()
        }
    }
}

/// Sizes given as `f(2, 3)`, `f((2, 3))` or `f(torch.Size([2, 3]))`.
fn sizes_arg(args: &[PyObjectRef], vm: &VirtualMachine) -> PyResult<Vec<i64>> {
    if let [one] = args
        && one.try_index_opt(vm).is_none()
    {
        let items: Vec<PyObjectRef> = one.clone().try_to_value(vm)?;
        return items
            .iter()
            .map(|x| x.try_index(vm)?.try_to_primitive(vm))
            .collect();
    }
    args.iter()
        .map(|x| x.try_index(vm)?.try_to_primitive(vm))
        .collect()
}

/// The common keywords of `new_*`: dtype (defaulting to `self`'s), device, requires_grad.
fn new_options(
    zelf: &Py<PyTensor>,
    args: &mut FuncArgs,
    vm: &VirtualMachine,
) -> PyResult<(DType, bool)> {
    let mut dtype = zelf.meta().dtype;
    if let Some(d) = args.kwargs.swap_remove("dtype")
        && !vm.is_none(&d)
    {
        dtype = dtype_from_py(&d, vm)
            .ok_or_else(|| vm.new_type_error("dtype must be a torch.dtype"))?;
    }
    if let Some(d) = args.kwargs.swap_remove("device")
        && let Some(d) = PyDevice::from_py(&d, vm)?
    {
        d.check_cpu(vm)?;
    }
    let requires_grad = match args.kwargs.swap_remove("requires_grad") {
        Some(v) => v.try_to_bool(vm)?,
        None => false,
    };
    for key in ["layout", "pin_memory"] {
        args.kwargs.swap_remove(key);
    }
    if let Some((k, _)) = args.kwargs.iter().next() {
        return Err(vm.new_type_error(format!("got an unexpected keyword argument '{k}'")));
    }
    Ok((dtype, requires_grad))
}

fn new_factory(zelf: &Py<PyTensor>, op: Op, mut args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    let (dtype, requires_grad) = new_options(zelf, &mut args, vm)?;
    let (size_args, fill) = if op == Op::Full {
        match args.args.as_slice() {
            [size, fill] => (vec![size.clone()], Some(fill.clone())),
            _ => return Err(vm.new_type_error("new_full() takes a size and a fill_value")),
        }
    } else {
        (args.args, None)
    };
    let mut call_args: Vec<IValue> = vec![Value::IntList(sizes_arg(&size_args, vm)?)];
    if let Some(fill) = fill {
        // A Python complex has no `Scalar` form: it goes as the 0-dim complex tensor the op's
        // `Tensor|Scalar fill_value` takes.
        if fill.downcastable::<rustpython_vm::builtins::PyComplex>() {
            call_args.push(crate::ops::py_to_value(&fill, vm)?);
        } else {
            call_args.push(Value::Scalar(crate::creation::scalar_from_py(&fill, vm)?));
        }
    }
    call_args.push(Value::DType(dtype));
    let out = call_op1(op, call_args, vm)?;
    if let Some(t) = out.downcast_ref::<PyTensor>() {
        t.set_requires_grad(requires_grad);
    }
    Ok(out)
}

/// Parses `to(dtype)`, `to(device, dtype)`, `to(other)`, with `non_blocking`/`copy` flags and
/// `memory_format=`.
fn parse_to(
    args: FuncArgs,
    vm: &VirtualMachine,
) -> PyResult<(Option<DType>, bool, Option<String>)> {
    let mut dtype = None;
    let mut format = None;
    let mut flags = Vec::new();
    let mut copy = false;
    let mut take = |obj: &PyObject, dtype: &mut Option<DType>| -> PyResult<()> {
        if let Some(d) = dtype_from_py(obj, vm) {
            *dtype = Some(d);
        } else if let Some(t) = as_tensor(obj) {
            *dtype = Some(t.dtype());
        } else if let Some(dev) = PyDevice::from_py(obj, vm)? {
            dev.check_cpu(vm)?;
        } else if obj.class().is(vm.ctx.types.bool_type) {
            flags.push(obj.to_owned().try_to_bool(vm)?);
        } else if !vm.is_none(obj) {
            return Err(vm.new_type_error(format!(
                "to() received an invalid combination of arguments - got ({}, )",
                obj.class().name()
            )));
        }
        Ok(())
    };
    for a in &args.args {
        take(a, &mut dtype)?;
    }
    for (k, v) in &args.kwargs {
        match k.to_string().as_str() {
            "dtype" | "device" | "other" => take(v, &mut dtype)?,
            "copy" => copy = v.clone().try_to_bool(vm)?,
            "memory_format" => format = crate::memory_format::name_of(v, vm)?,
            "non_blocking" => {}
            other => {
                return Err(
                    vm.new_type_error(format!("to() got an unexpected keyword argument '{other}'"))
                );
            }
        }
    }
    // Positional flags are (non_blocking, copy).
    if flags.len() >= 2 {
        copy = copy || flags[1];
    }
    Ok((dtype, copy, format))
}

#[pyclass]
pub(crate) trait PyTensorConvert: PyPayload {
    #[pymethod]
    fn item(zelf: PyRef<PyTensor>, vm: &VirtualMachine) -> PyResult {
        let t = zelf.tensor();
        if t.dtype().is_complex() {
            let (re, im) = rynamo_tensor::ops::complex::item(&t).map_err(|e| tensor_err(e, vm))?;
            return Ok(py_complex(re, im, vm));
        }
        let s = crate::ops::guarded("Tensor.item", vm, || {
            t.item().map_err(|e| tensor_err(e, vm))
        })?;
        Ok(scalar_to_py(s, vm))
    }

    /// `complex(t)`: a one-element tensor of any dtype as a Python complex.
    #[pymethod]
    fn __complex__(zelf: PyRef<PyTensor>, vm: &VirtualMachine) -> PyResult {
        let t = zelf.tensor();
        if t.dtype().is_complex() {
            let (re, im) = rynamo_tensor::ops::complex::item(&t).map_err(|e| tensor_err(e, vm))?;
            return Ok(py_complex(re, im, vm));
        }
        let s = crate::ops::guarded("Tensor.__complex__", vm, || {
            t.item().map_err(|e| tensor_err(e, vm))
        })?;
        Ok(py_complex(s.to_f64(), 0.0, vm))
    }

    #[pymethod]
    fn tolist(zelf: PyRef<PyTensor>, vm: &VirtualMachine) -> PyResult {
        // The conversion runs kernels outside the dispatcher: see `ops::guarded`.
        let t = zelf.tensor();
        crate::ops::guarded("Tensor.tolist", vm, || tolist(&t, vm))
    }

    #[pymethod]
    fn to(zelf: PyRef<PyTensor>, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        let (dtype, copy, format) = parse_to(args, vm)?;
        let out = convert_to(&zelf, dtype, copy, vm)?;
        let Some(format) = format else {
            return Ok(out);
        };
        let t = out
            .downcast_ref::<PyTensor>()
            .expect("invariant: to() returns a tensor")
            .tensor();
        let before = t.strides().to_vec();
        let t = crate::memory_format::apply(t, &format, vm)?;
        if t.strides() == before.as_slice() {
            return Ok(out);
        }
        Ok(crate::tensor::wrap_tensor(t, vm))
    }

    /// `x.type()` is the legacy type name; `x.type(dtype)` converts.
    #[pymethod(name = "type")]
    fn type_(
        zelf: PyRef<PyTensor>,
        dtype: OptionalArg<PyObjectRef>,
        vm: &VirtualMachine,
    ) -> PyResult {
        let Some(d) = dtype.into_option().filter(|d| !vm.is_none(d)) else {
            return Ok(vm.ctx.new_str(legacy_type_name(zelf.meta().dtype)).into());
        };
        let target = match d.downcast_ref::<PyStr>() {
            Some(s) => DType::ALL
                .into_iter()
                .find(|&x| legacy_type_name(x) == s.to_string_lossy())
                .ok_or_else(|| {
                    vm.new_value_error(format!("invalid type: '{}'", s.to_string_lossy()))
                })?,
            // A dtype, or a legacy tensor type (`torch.DoubleTensor`), which carries its dtype.
            None => dtype_from_py(&d, vm)
                .or_else(|| {
                    let inner = d.get_attr("dtype", vm).ok()?;
                    dtype_from_py(&inner, vm)
                })
                .ok_or_else(|| vm.new_type_error("type(): dtype must be a torch.dtype"))?,
        };
        if target == zelf.meta().dtype {
            return Ok(zelf.into());
        }
        call_op1(
            Op::Type,
            vec![Value::Tensor(zelf.tensor()), Value::DType(target)],
            vm,
        )
    }

    #[pymethod]
    fn type_as(zelf: PyRef<PyTensor>, other: PyRef<PyTensor>, vm: &VirtualMachine) -> PyResult {
        convert_to(&zelf, Some(other.meta().dtype), false, vm)
    }

    #[pymethod]
    fn float(zelf: PyRef<PyTensor>, _args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        convert_to(&zelf, Some(DType::Float32), false, vm)
    }

    #[pymethod]
    fn double(zelf: PyRef<PyTensor>, _args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        convert_to(&zelf, Some(DType::Float64), false, vm)
    }

    #[pymethod]
    fn half(zelf: PyRef<PyTensor>, _args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        convert_to(&zelf, Some(DType::Float16), false, vm)
    }

    #[pymethod]
    fn bfloat16(zelf: PyRef<PyTensor>, _args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        convert_to(&zelf, Some(DType::BFloat16), false, vm)
    }

    #[pymethod]
    fn long(zelf: PyRef<PyTensor>, _args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        convert_to(&zelf, Some(DType::Int64), false, vm)
    }

    #[pymethod]
    fn int(zelf: PyRef<PyTensor>, _args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        convert_to(&zelf, Some(DType::Int32), false, vm)
    }

    #[pymethod]
    fn short(zelf: PyRef<PyTensor>, _args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        convert_to(&zelf, Some(DType::Int16), false, vm)
    }

    #[pymethod]
    fn char(zelf: PyRef<PyTensor>, _args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        convert_to(&zelf, Some(DType::Int8), false, vm)
    }

    #[pymethod]
    fn byte(zelf: PyRef<PyTensor>, _args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        convert_to(&zelf, Some(DType::UInt8), false, vm)
    }

    #[pymethod]
    fn bool(zelf: PyRef<PyTensor>, _args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        convert_to(&zelf, Some(DType::Bool), false, vm)
    }

    #[pymethod]
    fn view_as(zelf: PyRef<PyTensor>, other: PyRef<PyTensor>, vm: &VirtualMachine) -> PyResult {
        let shape = other.tensor().shape_i64().to_vec();
        call_op1(
            Op::View,
            vec![Value::Tensor(zelf.tensor()), Value::IntList(shape)],
            vm,
        )
    }

    #[pymethod]
    fn expand_as(zelf: PyRef<PyTensor>, other: PyRef<PyTensor>, vm: &VirtualMachine) -> PyResult {
        let shape = other.tensor().shape_i64().to_vec();
        call_op1(
            Op::Expand,
            vec![Value::Tensor(zelf.tensor()), Value::IntList(shape)],
            vm,
        )
    }

    #[pymethod]
    fn reshape_as(zelf: PyRef<PyTensor>, other: PyRef<PyTensor>, vm: &VirtualMachine) -> PyResult {
        let shape = other.tensor().shape_i64().to_vec();
        call_op1(
            Op::Reshape,
            vec![Value::Tensor(zelf.tensor()), Value::IntList(shape)],
            vm,
        )
    }

    #[pymethod]
    fn new_zeros(zelf: PyRef<PyTensor>, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        new_factory(&zelf, Op::Zeros, args, vm)
    }

    #[pymethod]
    fn new_ones(zelf: PyRef<PyTensor>, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        new_factory(&zelf, Op::Ones, args, vm)
    }

    #[pymethod]
    fn new_empty(zelf: PyRef<PyTensor>, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        new_factory(&zelf, Op::Empty, args, vm)
    }

    #[pymethod]
    fn new_full(zelf: PyRef<PyTensor>, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        new_factory(&zelf, Op::Full, args, vm)
    }

    #[pymethod]
    fn new_tensor(zelf: PyRef<PyTensor>, mut args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        let data = args
            .args
            .first()
            .cloned()
            .or_else(|| args.kwargs.swap_remove("data"))
            .ok_or_else(|| vm.new_type_error("new_tensor() missing required argument 'data'"))?;
        args.args.clear();
        let (dtype, requires_grad) = new_options(&zelf, &mut args, vm)?;
        let t = crate::creation::tensor_from_data(&data, Some(dtype), vm)?;
        let out = wrap_tensor(t, vm);
        if let Some(t) = out.downcast_ref::<PyTensor>() {
            t.set_requires_grad(requires_grad);
        }
        Ok(out)
    }

    /// `x.where(condition, y)` is `torch.where(condition, x, y)`.
    #[pymethod(name = "where")]
    fn where_(
        zelf: PyRef<PyTensor>,
        condition: PyRef<PyTensor>,
        other: PyObjectRef,
        vm: &VirtualMachine,
    ) -> PyResult {
        let args = vec![
            Value::Tensor(condition.tensor()),
            Value::Tensor(zelf.tensor()),
            crate::args::py_to_value(&other, vm)?,
        ];
        let (op, args) = crate::ops::bind_overload(&[Op::Where], args, vec![])
            .map_err(|e| crate::ops::to_py_err(&e, vm))?;
        call_op1(op, args, vm)
    }

    #[pymethod]
    fn unbind(zelf: PyRef<PyTensor>, dim: OptionalArg<i64>, vm: &VirtualMachine) -> PyResult {
        let t = zelf.tensor();
        let dim = dim.unwrap_or(0);
        let d = rynamo_tensor::layout::wrap_dim(dim, t.ndim()).map_err(|e| tensor_err(e, vm))?;
        let parts = (0..t.shape()[d] as i64)
            .map(|i| {
                call_op1(
                    Op::Select,
                    vec![Value::Tensor(t.clone()), Value::Int(dim), Value::Int(i)],
                    vm,
                )
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(vm.ctx.new_tuple(parts).into())
    }

    /// A 0-dim tensor formats as its value (`f"{x:.2f}"`); others only with an empty spec.
    #[pymethod]
    fn __format__(zelf: PyRef<PyTensor>, spec: PyStrRef, vm: &VirtualMachine) -> PyResult {
        let t = zelf.tensor();
        if t.ndim() == 0 {
            let v = if t.dtype().is_complex() {
                let (re, im) =
                    rynamo_tensor::ops::complex::item(&t).map_err(|e| tensor_err(e, vm))?;
                py_complex(re, im, vm)
            } else {
                scalar_to_py(t.item().map_err(|e| tensor_err(e, vm))?, vm)
            };
            return vm.call_method(&v, "__format__", (spec,));
        }
        if !spec.as_wtf8().is_empty() {
            return Err(vm.new_type_error(format!(
                "unsupported format string passed to {}.__format__",
                zelf.class().name()
            )));
        }
        Ok(zelf.as_object().str(vm)?.into())
    }
}

impl PyTensorConvert for PyTensor {}
