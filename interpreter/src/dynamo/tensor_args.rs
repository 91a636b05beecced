//! Arguments of tensor calls that need translating before an op binds them (the eager
//! surface's argument handling, `rynamo_shims::call` and `args`): the keywords that steer a call
//! rather than bind to the schema (`device=`, `requires_grad=`, `layout=`, ...), and lists in an
//! index expression, which become index tensors.

use rustpython_vm::{AsObject, PyObjectRef};
use rynamo_graph::Op;
use rynamo_tensor::IndexItem;

use super::bridge;
use super::exc::{GraphBreak, GraphBreakKind};
use super::symbolic_convert::Tracer;
use super::variables::Vt;

/// Keywords of PyTorch's Python signatures that steer a call instead of binding to the op's
/// schema (the eager surface's `OPTION_KEYWORDS`, `rynamo_shims::call`).
const OPTION_KEYWORDS: &[&str] = &[
    "out",
    "device",
    "requires_grad",
    "layout",
    "pin_memory",
    "memory_format",
    "non_blocking",
    "generator",
];

impl Tracer<'_> {
    /// Removes the steering keywords the trace can honour, as eager does: a CPU `device=` (the
    /// only device), `requires_grad=False`, and default `layout`/`pin_memory`/`memory_format`/
    /// `non_blocking`/`out`/`generator` values. Any other value is a break (eager raises, or,
    /// for `requires_grad=True` on a creation op, PyTorch does not trace it either).
    pub(crate) fn take_call_options(
        &mut self,
        overloads: &[Op],
        kwargs: &mut Vec<(String, Vt)>,
    ) -> Result<(), GraphBreak> {
        let vm = self.vm;
        let in_schema = |name: &str| {
            overloads
                .iter()
                .any(|op| op.schema().params.iter().any(|p| p.name == name))
        };
        let mut i = 0;
        while i < kwargs.len() {
            let key = kwargs[i].0.clone();
            if !OPTION_KEYWORDS.contains(&key.as_str()) || in_schema(&key) {
                i += 1;
                continue;
            }
            let (_, value) = kwargs.remove(i);
            let c = value.as_const().cloned().ok_or_else(|| {
                GraphBreak::new(
                    GraphBreakKind::UnsupportedCall,
                    format!("{key}= of a value only known when the graph runs"),
                )
            })?;
            let honoured = vm.is_none(&c)
                || match key.as_str() {
                    "device" => device_is_cpu(&c, vm),
                    "requires_grad" | "pin_memory" | "non_blocking" => {
                        c.class().is(vm.ctx.types.bool_type) && !c.is(&vm.ctx.true_value)
                    }
                    "layout" => bridge::torch_attr("strided", vm).is_some_and(|s| s.is(&c)),
                    "memory_format" => {
                        bridge::torch_attr("contiguous_format", vm).is_some_and(|s| s.is(&c))
                    }
                    _ => false,
                };
            if !honoured {
                let why = if key == "requires_grad" {
                    "Attempted to use tensor creation function with requires_grad=True".to_owned()
                } else {
                    format!(
                        "{key}={} is not supported here",
                        c.repr(vm).map(|r| r.to_string()).unwrap_or_default()
                    )
                };
                return Err(GraphBreak::new(GraphBreakKind::UnsupportedCall, why));
            }
        }
        Ok(())
    }
}

/// Whether a `device=` value names the CPU (`"cpu"`, `"cpu:0"`, `torch.device("cpu")`).
pub(crate) fn device_is_cpu(c: &PyObjectRef, vm: &rustpython_vm::VirtualMachine) -> bool {
    if let Some(d) = c.downcast_ref::<rynamo_shims::PyDevice>() {
        return d.kind == "cpu";
    }
    c.downcast_ref::<rustpython_vm::builtins::PyStr>()
        .and_then(|s| rynamo_shims::PyDevice::parse(&s.to_string_lossy(), vm).ok())
        .is_some_and(|d| d.kind == "cpu")
}

impl Tracer<'_> {
    /// A list in an index (`x[:, [-1], :]`): an index tensor made from it, as eager does (a list
    /// of bools is a mask, any other list of ints an int64 index); a list holding anything else
    /// (tensors, floats) is not modelled.
    pub(crate) fn list_index(
        &mut self,
        p: &Vt,
    ) -> Result<IndexItem<rynamo_graph::ValueId>, GraphBreak> {
        let vm = self.vm;
        let bad = || {
            GraphBreak::new(
                GraphBreakKind::UnsupportedOperation,
                format!("index {}", p.describe()),
            )
        };
        let value = self.python_value(p).ok_or_else(bad)?;
        fn leaves(
            o: &PyObjectRef,
            vm: &rustpython_vm::VirtualMachine,
            out: &mut Vec<PyObjectRef>,
        ) -> bool {
            if o.class().is(vm.ctx.types.list_type) {
                return vm
                    .extract_elements_with(o, Ok)
                    .is_ok_and(|items: Vec<PyObjectRef>| items.iter().all(|i| leaves(i, vm, out)));
            }
            out.push(o.clone());
            true
        }
        let mut ls = Vec::new();
        if !leaves(&value, vm, &mut ls) {
            return Err(bad());
        }
        let all_bool = !ls.is_empty() && ls.iter().all(|o| o.class().is(vm.ctx.types.bool_type));
        let all_int = ls.iter().all(|o| o.class().is(vm.ctx.types.int_type));
        if !all_bool && !all_int {
            return Err(bad());
        }
        let dtype = if all_bool {
            rynamo_tensor::DType::Bool
        } else {
            rynamo_tensor::DType::Int64
        };
        let tensor_fn = bridge::torch_attr("tensor", vm).ok_or_else(bad)?;
        let kw = vec![(
            "dtype".to_owned(),
            Vt::constant(bridge::dtype_object(dtype, vm)),
        )];
        let t = self
            .call_tensor_literal(&tensor_fn, &[Vt::constant(value)], &kw)
            .ok_or_else(bad)??;
        let t = t.as_tensor().ok_or_else(bad)?;
        Ok(IndexItem::Tensor(self.out.current_value(t)))
    }
}
