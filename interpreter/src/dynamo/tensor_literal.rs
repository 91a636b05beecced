//! `torch.tensor(data, ...)` with constant data inside a compiled region (Dynamo traces it as a
//! graph call with constant arguments): one `host_call` node that runs the real `torch.tensor`
//! on the constants each time the graph runs, so every call gets a fresh tensor, as in eager.

use std::cell::RefCell;
use std::rc::Rc;

use rustpython_vm::function::{FuncArgs, KwArgs};
use rustpython_vm::{AsObject, PyObjectRef};

use super::exc::{GraphBreak, GraphBreakKind};
use super::symbolic_convert::Tracer;
use super::variables::{Kind, ListVar, Vt};

/// The Python value of a tracker built only from constants (numbers, bools, nested lists and
/// tuples of them), or `None`. `within` holds the lists being converted around this one: a list
/// that holds itself is no tensor literal (and converting it would never end).
fn constant_value(
    vt: &Vt,
    within: &mut Vec<*const RefCell<ListVar>>,
    vm: &rustpython_vm::VirtualMachine,
) -> Option<PyObjectRef> {
    match &vt.kind {
        Kind::Const(c) => Some(c.clone()),
        // Inside a literal a SymInt (or SymFloat) is its value (the trace specialises it).
        Kind::SymInt(s) | Kind::SymFloat(s) => Some(s.concrete().clone()),
        Kind::Tuple(items) => {
            let items = items
                .iter()
                .map(|i| constant_value(i, within, vm))
                .collect::<Option<Vec<_>>>()?;
            Some(vm.ctx.new_tuple(items).into())
        }
        Kind::List(l) => {
            if within.contains(&Rc::as_ptr(l)) {
                return None;
            }
            within.push(Rc::as_ptr(l));
            let items = l
                .borrow()
                .items
                .iter()
                .map(|i| constant_value(i, within, vm))
                .collect::<Option<Vec<_>>>();
            within.pop();
            Some(vm.ctx.new_list(items?).into())
        }
        _ => None,
    }
}

/// Whether `v` is exactly representable in the integer dtype `d` (then the tensor holds `v`).
fn int_fits(d: rynamo_tensor::DType, v: i64) -> bool {
    use rynamo_tensor::DType;
    match d {
        DType::Int64 => true,
        DType::Int32 => i32::try_from(v).is_ok(),
        DType::Int16 => i16::try_from(v).is_ok(),
        DType::Int8 => i8::try_from(v).is_ok(),
        _ => false,
    }
}

impl Tracer<'_> {
    /// `torch.tensor(...)` when every argument is a constant; `None` to fall through (data from
    /// tensors or other trackers is not a literal).
    pub(crate) fn call_tensor_literal(
        &mut self,
        tensor_fn: &PyObjectRef,
        args: &[Vt],
        kwargs: &[(String, Vt)],
    ) -> Option<Result<Vt, GraphBreak>> {
        let vm = self.vm;
        if let [data] = args
            && data.as_tensor().is_some()
        {
            return Some(self.tensor_of_tensor(data, kwargs));
        }
        if let [data] = args
            && matches!(data.kind, Kind::SymInt(_) | Kind::SymFloat(_))
            && kwargs.iter().all(|(k, _)| k == "dtype")
        {
            // A SymInt's 0-d tensor stays symbolic: `torch.full((), n, dtype=torch.int64)`; a
            // SymFloat's takes the default dtype, as `torch.full((), n / 2)` infers it.
            let mut kw = kwargs.to_vec();
            if kw.is_empty() && matches!(data.kind, Kind::SymInt(_)) {
                let int64 = super::bridge::dtype_object(rynamo_tensor::DType::Int64, vm);
                kw.push(("dtype".into(), Vt::constant(int64)));
            }
            let full = super::bridge::torch_attr("full", vm).unwrap_or_else(|| vm.ctx.none());
            let size = Vt::constant(vm.ctx.new_tuple(Vec::new()).into());
            return Some(self.call_op_overloads(
                rynamo_graph::Op::overloads("full"),
                vec![size, data.clone()],
                kw,
                super::output_graph::FxTarget::Function(full),
            ));
        }
        let pos = args
            .iter()
            .map(|a| constant_value(a, &mut Vec::new(), vm))
            .collect::<Option<Vec<_>>>()?;
        let kw = kwargs
            .iter()
            .map(|(k, v)| constant_value(v, &mut Vec::new(), vm).map(|v| (k.clone(), v)))
            .collect::<Option<Vec<_>>>()?;
        // Keyword arguments are bound into a `functools.partial`, the callee the node calls.
        let func = if kw.is_empty() {
            tensor_fn.clone()
        } else {
            let partial = super::bridge::import_module("functools", vm)
                .and_then(|m| m.get_attr("partial", vm))
                .ok()?;
            partial
                .call(
                    FuncArgs {
                        args: vec![tensor_fn.clone()],
                        kwargs: kw.into_iter().collect::<KwArgs>(),
                    },
                    vm,
                )
                .ok()?
        };
        let int_data = match pos.as_slice() {
            [d] if d.class().is(vm.ctx.types.int_type) => d.try_to_value::<i64>(vm).ok(),
            _ => None,
        };
        let args = pos.into_iter().map(Vt::constant).collect();
        let out = self.call_allowed_in_graph(&func, "tensor", args, Vec::new());
        if let (Ok(Kind::Tensor(t)), Some(v)) = (out.as_ref().map(|o| &o.kind), int_data)
            && t.meta().shape.is_empty()
            && int_fits(t.meta().dtype, v)
        {
            self.out.int_constants.insert(t.value, v);
        }
        Some(out)
    }
}

impl Tracer<'_> {
    /// `torch.tensor(t, dtype=None)` of a tensor: a copy (eager warns and copies), detached,
    /// in the requested dtype; other keywords as `take_call_options` honours them.
    fn tensor_of_tensor(&mut self, data: &Vt, kwargs: &[(String, Vt)]) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let mut dtype = None;
        let mut rest = Vec::new();
        for (k, v) in kwargs {
            match k.as_str() {
                "dtype" if !v.as_const().is_some_and(|c| vm.is_none(c)) => dtype = Some(v.clone()),
                "dtype" => {}
                _ => rest.push((k.clone(), v.clone())),
            }
        }
        if rest
            .iter()
            .any(|(k, _)| !matches!(k.as_str(), "device" | "requires_grad" | "pin_memory"))
        {
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedCall,
                "torch.tensor(tensor) with these keywords",
            ));
        }
        self.take_call_options(rynamo_graph::Op::overloads("clone"), &mut rest)?;
        let copy = self.call_tensor_method(data.clone(), "clone", Vec::new(), Vec::new())?;
        let mut out = match dtype {
            Some(d) => self.call_tensor_method(copy, "to", vec![d], Vec::new())?,
            None => copy,
        };
        if let Kind::Tensor(t) = &mut out.kind {
            t.requires_grad = false;
        }
        Ok(out)
    }
}
