//! `torch` functions answered at trace time (Dynamo's `variables/torch.py`: its
//! `constant_fold_functions` and the `handle_is_tensor` / `handle_numel` rules): their results
//! depend only on constants and on what the guards already pin, tensor dtypes and shapes
//! (TENSOR_MATCH) and the default dtype (`GLOBAL_STATE`). Each becomes a constant, no graph node.

use rustpython_vm::{AsObject, PyObjectRef};
use rynamo_tensor::Tensor;

use super::super::bridge;
use super::super::exc::GraphBreak;
use super::super::symbolic_convert::Tracer;
use super::Vt;

/// The `torch` functions folded here.
const FOLDED: &[&str] = &[
    "result_type",
    "promote_types",
    "can_cast",
    "broadcast_shapes",
    "get_default_dtype",
    "is_tensor",
    "is_floating_point",
    "numel",
];

impl Tracer<'_> {
    /// `torch.<name>(*args)` folded to a constant, or `None` when `obj` is not one of these
    /// functions or an argument is not known at trace time (the caller then breaks as before).
    pub(crate) fn call_torch_folded(
        &mut self,
        obj: &PyObjectRef,
        name: &str,
        args: &[Vt],
        kwargs: &[(String, Vt)],
    ) -> Option<Result<Vt, GraphBreak>> {
        let vm = self.vm;
        if !FOLDED.contains(&name) || !bridge::torch_attr(name, vm).is_some_and(|f| f.is(obj)) {
            return None;
        }
        // `torch.numel(input=x)` and friends: the one tensor by keyword is the positional call.
        let moved;
        let (args, kwargs) = match (args, kwargs) {
            ([], [(k, v)]) if k == "input" && matches!(name, "numel" | "is_floating_point") => {
                moved = [v.clone()];
                (&moved[..], &[][..])
            }
            _ => (args, kwargs),
        };
        let kw: Vec<(String, PyObjectRef)> = kwargs
            .iter()
            .map(|(k, v)| v.as_const().map(|c| (k.clone(), c.clone())))
            .collect::<Option<_>>()?;
        match (name, args) {
            ("is_tensor", [x]) if kw.is_empty() => {
                // `isinstance(x, torch.Tensor)`, which the isinstance rule decides for any tracker.
                let isinstance = vm.builtins.get_attr("isinstance", vm).ok()?;
                let tensor = Vt::constant(bridge::tensor_class(vm)?);
                Some(self.call_builtin(&isinstance, "isinstance", vec![x.clone(), tensor], vec![]))
            }
            ("numel", [x]) if kw.is_empty() => {
                let t = x.as_tensor()?;
                self.out.specialise(t.value, None);
                let n: usize = t.meta().shape.iter().product();
                Some(Ok(Vt::constant(vm.ctx.new_int(n).into())))
            }
            ("is_floating_point", [x]) if kw.is_empty() => {
                let floating = x.as_tensor()?.meta().dtype.is_floating_point();
                Some(Ok(Vt::constant(vm.ctx.new_bool(floating).into())))
            }
            _ => {
                // The real function on the constants, each tensor replaced by an empty stand-in
                // of its dtype and dimensionality (all `result_type` reads of a tensor).
                let values = args
                    .iter()
                    .map(|a| match a.as_tensor() {
                        Some(t) => {
                            let shape: &[usize] =
                                if t.meta().shape.is_empty() { &[] } else { &[0] };
                            Some(bridge::wrap_tensor(
                                Tensor::zeros(shape, t.meta().dtype),
                                vm,
                            ))
                        }
                        None => a.as_const().cloned(),
                    })
                    .collect::<Option<Vec<_>>>()?;
                Some(self.fold(obj, values, kw))
            }
        }
    }
}
