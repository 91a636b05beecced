//! Tensor operators: arithmetic, bitwise and shifts (with reflected and in-place forms),
//! comparisons, unary operators, and the scalar conversions `bool()`, `int()`, `float()`,
//! `operator.index()`.
//!
//! RustPython calls a binary slot with the operands in source order whichever side is the
//! tensor, and the registry's schemas take `Tensor|Scalar` on both sides, so `2 - x` is simply
//! `sub(2, x)`: reflected operators need no separate code. Which op an operator runs comes from
//! the registry's operator map (`rynamo_graph::PyOperator`), which Dynamo reads too.

use rustpython_vm::common::hash::{PyHash, hash_object_id};
use rustpython_vm::function::{Either, PyComparisonValue};
use rustpython_vm::protocol::{PyNumber, PyNumberMethods};
use rustpython_vm::types::{AsNumber, Comparable, Hashable, PyComparisonOp};
use rustpython_vm::{AsObject, Py, PyObject, PyObjectRef, PyResult, VirtualMachine};
use rynamo_graph::{IValue, Op, PyOperator, Value, registry};
use rynamo_tensor::{DType, Scalar, can_cast};

use crate::args::py_to_value;
use crate::ops::{bind_overload, tensor_err, to_py_err};
use crate::tensor::{PyTensor, as_tensor, call_op1};

/// An operand of a tensor operator: a tensor or a Python number; anything else makes the
/// operator return `NotImplemented` so Python can try the other side.
fn operand(obj: &PyObject, vm: &VirtualMachine) -> Option<IValue> {
    if obj.downcastable::<PyTensor>() {
        return as_tensor(obj).map(Value::Tensor);
    }
    let types = &vm.ctx.types;
    let cls = obj.class();
    let is_number = cls.fast_issubclass(types.int_type)
        || cls.fast_issubclass(types.float_type)
        || cls.fast_issubclass(types.complex_type);
    if is_number {
        py_to_value(obj, vm).ok()
    } else {
        None
    }
}

/// Binds an operator's operands; `None` (so the operator returns `NotImplemented`) when they
/// are not tensors and numbers or the schema rejects them. PyTorch turns an operator's
/// `TypeError` into `NotImplemented` the same way, so Python reports the unsupported operands.
fn bind_operands(op: Op, a: &PyObject, b: &PyObject, vm: &VirtualMachine) -> Option<Vec<IValue>> {
    let (x, y) = (operand(a, vm)?, operand(b, vm)?);
    bind_overload(&[op], vec![x, y], vec![])
        .ok()
        .map(|(_, args)| args)
}

/// `a <op> b` through the registry (the op the operator map gives).
fn binary(o: PyOperator, a: &PyObject, b: &PyObject, vm: &VirtualMachine) -> PyResult {
    let Some(ops) = o.ops() else {
        return Ok(vm.ctx.not_implemented());
    };
    let Some(args) = bind_operands(ops.op, a, b, vm) else {
        return Ok(vm.ctx.not_implemented());
    };
    call_op1(ops.op, args, vm)
}

/// `a <op>= b`: the registry's in-place op when the operator map names one (mutates `a` and
/// returns it); otherwise the out-of-place result is written back into `a` (with PyTorch's check
/// that its dtype casts into `a`'s).
fn inplace(o: PyOperator, a: &PyObject, b: &PyObject, vm: &VirtualMachine) -> PyResult {
    let Some(ops) = o.ops() else {
        return Ok(vm.ctx.not_implemented());
    };
    if let Some(ip) = ops.inplace {
        let Some(args) = bind_operands(ip, a, b, vm) else {
            return Ok(vm.ctx.not_implemented());
        };
        registry::call(ip, &args).map_err(|e| to_py_err(&e, vm))?;
        return Ok(a.to_owned());
    }
    let Some(args) = bind_operands(ops.op, a, b, vm) else {
        return Ok(vm.ctx.not_implemented());
    };
    let result = call_op1(ops.op, args, vm)?;
    let (Some(dst), Some(src)) = (as_tensor(a), as_tensor(&result)) else {
        return Ok(result);
    };
    if !can_cast(src.dtype(), dst.dtype()) {
        return Err(tensor_err(
            rynamo_tensor::Error::CannotCast {
                from: src.dtype(),
                to: dst.dtype(),
            },
            vm,
        ));
    }
    registry::call(Op::Copy_, &[Value::Tensor(dst), Value::Tensor(src)])
        .map_err(|e| to_py_err(&e, vm))?;
    Ok(a.to_owned())
}

fn unary(o: PyOperator, num: PyNumber<'_>, vm: &VirtualMachine) -> PyResult {
    let t = PyTensor::number_downcast(num).tensor();
    let op = o.ops().map(|ops| ops.op);
    let op = op.ok_or_else(|| vm.new_type_error(format!("bad operand for {}", o.name())))?;
    call_op1(op, vec![Value::Tensor(t)], vm)
}

/// The single element for `int()`/`float()`, with PyTorch's error for other sizes.
fn single(num: PyNumber<'_>, target: &str, vm: &VirtualMachine) -> PyResult<Scalar> {
    let t = PyTensor::number_downcast(num).tensor();
    if t.numel() != 1 {
        return Err(
            vm.new_value_error("only one element tensors can be converted to Python scalars")
        );
    }
    if t.dtype().is_complex() {
        // PyTorch converts through the real part and refuses a non-zero imaginary part.
        let (re, im) = rynamo_tensor::ops::complex::item(&t).map_err(|e| tensor_err(e, vm))?;
        if im != 0.0 {
            return Err(vm.new_runtime_error(format!(
                "value cannot be converted to type {target} without overflow"
            )));
        }
        return Ok(Scalar::Float(re));
    }
    t.item().map_err(|e| tensor_err(e, vm))
}

fn truth(num: PyNumber<'_>, vm: &VirtualMachine) -> PyResult<bool> {
    let t = PyTensor::number_downcast(num).tensor();
    match t.numel() {
        1 if t.dtype().is_complex() => {
            let (re, im) = rynamo_tensor::ops::complex::item(&t).map_err(|e| tensor_err(e, vm))?;
            Ok(re != 0.0 || im != 0.0)
        }
        1 => Ok(t.item().map_err(|e| tensor_err(e, vm))?.to_bool()),
        0 => Err(vm.new_runtime_error("Boolean value of Tensor with no values is ambiguous")),
        _ => {
            Err(vm
                .new_runtime_error("Boolean value of Tensor with more than one value is ambiguous"))
        }
    }
}

fn index(num: PyNumber<'_>, vm: &VirtualMachine) -> PyResult {
    let t = PyTensor::number_downcast(num).tensor();
    if t.numel() != 1 || !t.dtype().is_integral(true) {
        return Err(vm.new_type_error(
            "only integer tensors of a single element can be converted to an index",
        ));
    }
    let v = t.item().map_err(|e| tensor_err(e, vm))?.to_i64();
    Ok(vm.ctx.new_int(v).into())
}

impl AsNumber for PyTensor {
    fn as_number() -> &'static PyNumberMethods {
        static AS_NUMBER: PyNumberMethods = PyNumberMethods {
            add: Some(|a, b, vm| binary(PyOperator::Add, a, b, vm)),
            subtract: Some(|a, b, vm| binary(PyOperator::Sub, a, b, vm)),
            multiply: Some(|a, b, vm| binary(PyOperator::Mul, a, b, vm)),
            remainder: Some(|a, b, vm| binary(PyOperator::Mod, a, b, vm)),
            power: Some(|a, b, c, vm| {
                if !vm.is_none(c) {
                    return Err(vm.new_type_error("pow() 3rd argument not allowed for tensors"));
                }
                binary(PyOperator::Pow, a, b, vm)
            }),
            negative: Some(|num, vm| unary(PyOperator::Neg, num, vm)),
            positive: Some(|num, vm| {
                if PyTensor::number_downcast(num).meta().dtype == DType::Bool {
                    return Err(vm.new_runtime_error(
                        "The `+` operator, on a bool tensor is not supported.",
                    ));
                }
                Ok(num.obj.to_owned())
            }),
            absolute: Some(|num, vm| unary(PyOperator::Abs, num, vm)),
            boolean: Some(truth),
            invert: Some(|num, vm| unary(PyOperator::Invert, num, vm)),
            and: Some(|a, b, vm| binary(PyOperator::And, a, b, vm)),
            xor: Some(|a, b, vm| binary(PyOperator::Xor, a, b, vm)),
            or: Some(|a, b, vm| binary(PyOperator::Or, a, b, vm)),
            lshift: Some(|a, b, vm| binary(PyOperator::LShift, a, b, vm)),
            rshift: Some(|a, b, vm| binary(PyOperator::RShift, a, b, vm)),
            int: Some(|num, vm| Ok(vm.ctx.new_int(single(num, "int64_t", vm)?.to_i64()).into())),
            float: Some(|num, vm| Ok(vm.ctx.new_float(single(num, "double", vm)?.to_f64()).into())),
            inplace_add: Some(|a, b, vm| inplace(PyOperator::IAdd, a, b, vm)),
            inplace_subtract: Some(|a, b, vm| inplace(PyOperator::ISub, a, b, vm)),
            inplace_multiply: Some(|a, b, vm| inplace(PyOperator::IMul, a, b, vm)),
            inplace_remainder: Some(|a, b, vm| inplace(PyOperator::IMod, a, b, vm)),
            inplace_power: Some(|a, b, _c, vm| inplace(PyOperator::IPow, a, b, vm)),
            inplace_and: Some(|a, b, vm| inplace(PyOperator::IAnd, a, b, vm)),
            inplace_xor: Some(|a, b, vm| inplace(PyOperator::IXor, a, b, vm)),
            inplace_or: Some(|a, b, vm| inplace(PyOperator::IOr, a, b, vm)),
            inplace_lshift: Some(|a, b, vm| inplace(PyOperator::ILShift, a, b, vm)),
            inplace_rshift: Some(|a, b, vm| inplace(PyOperator::IRShift, a, b, vm)),
            floor_divide: Some(|a, b, vm| binary(PyOperator::FloorDiv, a, b, vm)),
            true_divide: Some(|a, b, vm| binary(PyOperator::TrueDiv, a, b, vm)),
            inplace_floor_divide: Some(|a, b, vm| inplace(PyOperator::IFloorDiv, a, b, vm)),
            inplace_true_divide: Some(|a, b, vm| inplace(PyOperator::ITrueDiv, a, b, vm)),
            index: Some(index),
            matrix_multiply: Some(|a, b, vm| binary(PyOperator::MatMul, a, b, vm)),
            inplace_matrix_multiply: Some(|a, b, vm| inplace(PyOperator::IMatMul, a, b, vm)),
            ..PyNumberMethods::NOT_IMPLEMENTED
        };
        &AS_NUMBER
    }
}

impl Comparable for PyTensor {
    /// Tensor comparisons return tensors, so this replaces the bool-valued default slot.
    fn slot_richcompare(
        zelf: &PyObject,
        other: &PyObject,
        op: PyComparisonOp,
        vm: &VirtualMachine,
    ) -> PyResult<Either<PyObjectRef, PyComparisonValue>> {
        let op = match op {
            PyComparisonOp::Lt => PyOperator::Lt,
            PyComparisonOp::Le => PyOperator::Le,
            PyComparisonOp::Eq => PyOperator::Eq,
            PyComparisonOp::Ne => PyOperator::Ne,
            PyComparisonOp::Gt => PyOperator::Gt,
            PyComparisonOp::Ge => PyOperator::Ge,
        };
        binary(op, zelf, other, vm).map(Either::A)
    }

    fn cmp(
        _zelf: &Py<Self>,
        _other: &PyObject,
        _op: PyComparisonOp,
        _vm: &VirtualMachine,
    ) -> PyResult<PyComparisonValue> {
        // Never reached: `slot_richcompare` above answers every comparison.
        Ok(PyComparisonValue::NotImplemented)
    }
}

impl Hashable for PyTensor {
    /// Tensors hash by identity, as in PyTorch (so they can key dicts and sit in sets).
    fn hash(zelf: &Py<Self>, _vm: &VirtualMachine) -> PyResult<PyHash> {
        Ok(hash_object_id(zelf.get_id()))
    }
}
