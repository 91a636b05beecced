//! In-place tensor semantics while tracing. A tensor object keeps its identity through an
//! in-place op, so every tracker of it (every alias: `y = x`, list items, attributes) must see
//! the op's effect:
//! - data: `x.add_(1)` is a graph node whose output the object reads from then on
//!   ([`OutputGraph::set_current`]);
//! - layout: an in-place view method (`x.unsqueeze_(0)`, `x.t_()`, ...) changes the object's
//!   shape and strides, never its data. It is traced as its functional view (`unsqueeze`) plus a
//!   rebinding of the object to that view, with the new layout in the cell all trackers of the
//!   object share (`TensorVar::relayout`). A frame tensor (a graph input) is the caller's
//!   object: the method is replayed on it after the graph (`SideEffect::TensorMethod`), so the
//!   caller sees the new shape, as after eager code.

use rustpython_vm::PyObjectRef;

use super::exc::{GraphBreak, GraphBreakKind};
use super::output_graph::OutputGraph;
use super::side_effects::SideEffect;
use super::symbolic_convert::Tracer;
use super::variables::python_value::python_values;
use super::variables::{TensorVar, Vt};

/// The in-place view methods of `torch.Tensor` (written over `Tensor._set_view_` in
/// `torch/_tensor.py`) and the out-of-place view each one is.
const INPLACE_VIEWS: &[(&str, &str)] = &[
    ("unsqueeze_", "unsqueeze"),
    ("squeeze_", "squeeze"),
    ("t_", "t"),
    ("transpose_", "transpose"),
    ("swapdims_", "transpose"),
    ("swapaxes_", "transpose"),
    ("as_strided_", "as_strided"),
];

/// Whether `Tensor.<name>` is an in-place view method.
pub fn is_inplace_view(name: &str) -> bool {
    INPLACE_VIEWS.iter().any(|(n, _)| *n == name)
}

impl Tracer<'_> {
    /// `x.unsqueeze_(0)` and the other in-place view methods on the tracked tensor `recv`.
    pub(crate) fn call_inplace_view(
        &mut self,
        recv: Vt,
        name: &str,
        args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
    ) -> Result<Vt, GraphBreak> {
        let Some(t) = recv.as_tensor().cloned() else {
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedOperation,
                "in-place view method of a non-tensor",
            ));
        };
        if t.requires_grad && self.out.grad_enabled {
            // Eager refuses a leaf (or a view of one) and rebases a non-leaf's history; the
            // trace knows neither which one it holds nor models the rebase: it runs eagerly.
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedOperation,
                format!("Tensor.{name}() of a tensor that requires grad"),
            ));
        }
        let input = self.out.inputs.iter().find(|i| i.value == t.value);
        let replay = match input {
            None => None,
            Some(input) => {
                // The caller's object changes too: the method is replayed on it, which needs
                // its arguments as values.
                let values = python_values(&args, self.vm);
                let kw_values = python_values(
                    &kwargs.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>(),
                    self.vm,
                );
                let (Some(values), Some(kw_values)) = (values, kw_values) else {
                    return Err(GraphBreak::new(
                        GraphBreakKind::UnsupportedOperation,
                        format!("Tensor.{name}() of an input with non-constant arguments"),
                    ));
                };
                let kwargs: Vec<(String, PyObjectRef)> = kwargs
                    .iter()
                    .map(|(k, _)| k.clone())
                    .zip(kw_values)
                    .collect();
                Some(SideEffect::TensorMethod {
                    target: input.source.clone(),
                    name: name.into(),
                    args: values,
                    kwargs,
                })
            }
        };
        let functional = INPLACE_VIEWS
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(name, |(_, f)| f);
        let nodes_before = self.out.op_count();
        let view = self.call_tensor_method(recv.clone(), functional, args, kwargs)?;
        let Some(v) = view.as_tensor() else {
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedOperation,
                format!("Tensor.{functional}() did not give a tensor"),
            ));
        };
        // Only now, with nothing left to fail, does the object change.
        self.out.set_current(&t, v.value);
        t.relayout(v.meta());
        self.out.relayouted.insert(t.value);
        if let Some(effect) = replay {
            self.out.side_effects.push(effect);
            self.out.input_relayouts += self.out.op_count() - nodes_before;
        }
        Ok(recv)
    }
}

/// A tensor tracker's value id after in-place updates.
impl OutputGraph {
    /// The graph value a tensor tracker currently reads (after in-place ops on any alias).
    pub fn current_value(&self, t: &TensorVar) -> rynamo_graph::ValueId {
        let mut v = t.value;
        while let Some(next) = self.inplace_updates.get(&v) {
            v = *next;
        }
        v
    }

    /// Records that the tensor `t` (all its aliases) now reads `new`.
    pub fn set_current(&mut self, t: &TensorVar, new: rynamo_graph::ValueId) {
        let cur = self.current_value(t);
        if cur != new {
            self.inplace_updates.insert(cur, new);
        }
    }
}
