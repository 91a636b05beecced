//! `memory_format=` (`torch.contiguous_format`, `torch.channels_last`, `torch.channels_last_3d`,
//! `torch.preserve_format`): which strides a result gets, and `is_contiguous(memory_format=)`.
//!
//! Channels-last is a stride order, not a different op: a tensor is brought into it by permuting
//! channels last, copying contiguously and permuting back, all through the registry (so autograd
//! records the copy and compiled code sees ordinary ops).

use rustpython_vm::{PyObject, PyResult, VirtualMachine};
use rynamo_graph::{Op, Value};
use rynamo_tensor::Tensor;

use crate::call::run;

/// A `torch.memory_format` object's name (`"channels_last"`), or `None` for Python `None`.
pub(crate) fn name_of(obj: &PyObject, vm: &VirtualMachine) -> PyResult<Option<String>> {
    if vm.is_none(obj) {
        return Ok(None);
    }
    let name = obj
        .get_attr("_name", vm)
        .ok()
        .and_then(|n| {
            n.downcast_ref::<rustpython_vm::builtins::PyStr>()
                .map(|s| s.to_string())
        })
        .filter(|n| {
            matches!(
                n.as_str(),
                "contiguous_format" | "preserve_format" | "channels_last" | "channels_last_3d"
            )
        });
    match name {
        Some(n) => Ok(Some(n)),
        None => Err(vm.new_type_error(format!(
            "memory_format must be torch.memory_format, not {}",
            obj.class().name()
        ))),
    }
}

/// The dims from outermost to innermost stride of a channels-last layout of rank `ndim`
/// (`N, H, W, C` for 4-D; `N, D, H, W, C` for 5-D).
fn channels_last_order(ndim: usize) -> Vec<usize> {
    let mut order = vec![0];
    order.extend(2..ndim);
    order.push(1);
    order
}

/// Whether `shape`/`strides` are dense in the stride order of `format` (size-1 dims may have any
/// stride), as ATen's `is_contiguous(memory_format)`: false for channels-last at another rank.
pub(crate) fn is_contiguous_as(t: &Tensor, format: &str) -> bool {
    let (shape, strides) = (t.shape(), t.strides());
    let order = match format {
        "channels_last" if shape.len() == 4 => channels_last_order(4),
        "channels_last_3d" if shape.len() == 5 => channels_last_order(5),
        "channels_last" | "channels_last_3d" => return false,
        _ => return t.is_contiguous(),
    };
    let mut expected = 1isize;
    for &d in order.iter().rev() {
        if shape[d] != 1 {
            if strides[d] != expected {
                return false;
            }
            expected *= shape[d] as isize;
        }
    }
    true
}

/// `t` with the strides `format` asks for (a copy through the registry when they differ;
/// `preserve_format` keeps `t`).
pub(crate) fn apply(t: Tensor, format: &str, vm: &VirtualMachine) -> PyResult<Tensor> {
    let rank = match format {
        "preserve_format" => return Ok(t),
        "channels_last" => 4,
        "channels_last_3d" => 5,
        _ => {
            if t.is_contiguous() {
                return Ok(t);
            }
            return Ok(run(Op::Contiguous, &[Value::Tensor(t)], None, vm)?.remove(0));
        }
    };
    if t.ndim() != rank {
        return Err(vm.new_runtime_error(format!(
            "required rank {rank} tensor to use {format} format"
        )));
    }
    if is_contiguous_as(&t, format) {
        return Ok(t);
    }
    let order = channels_last_order(rank);
    let mut back = vec![0i64; rank];
    for (i, &d) in order.iter().enumerate() {
        back[d] = i as i64;
    }
    let order: Vec<i64> = order.iter().map(|&d| d as i64).collect();
    let p = run(
        Op::Permute,
        &[Value::Tensor(t), Value::IntList(order)],
        None,
        vm,
    )?
    .remove(0);
    let c = run(Op::Contiguous, &[Value::Tensor(p)], None, vm)?.remove(0);
    Ok(run(
        Op::Permute,
        &[Value::Tensor(c), Value::IntList(back)],
        None,
        vm,
    )?
    .remove(0))
}
