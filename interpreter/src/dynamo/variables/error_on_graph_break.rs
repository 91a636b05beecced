//! `torch._dynamo.error_on_graph_break(value)` used inside a compiled region (Dynamo's
//! `ErrorOnGraphBreakVariable`): its `with` block switches, for the trace, whether a graph break
//! raises `Unsupported` ([`OutputGraph::error_on_graph_break`]). The block is traced, not run, so
//! the manager is modelled rather than entered: the real one flips `torch._dynamo.config`, which
//! the trace reads only when it starts.
//!
//! A break inside a block compiles and resumes as any other (Dynamo's `ErrorOnGraphBreakVariable`
//! is a `ContextWrappingVariable`): the graph so far sets the config to the block's setting after
//! it runs ([`OutputGraph::error_on_graph_break_at_start`]), the break's instruction runs in
//! Python, and the resume function receives the block's `__exit__` as the bound method of a real
//! manager whose `prev` is the setting before the block, which it traces ([`wrap_existing`]) or
//! runs.
//!
//! A break records the setting where it happened ([`GraphBreak::error_on_graph_break`]), so a
//! break inside a block of an inlined function raises even after restart analysis moves the break
//! to the compiled frame's call instruction, outside the block.
//!
//! [`OutputGraph::error_on_graph_break`]: super::super::output_graph::OutputGraph::error_on_graph_break
//! [`OutputGraph::error_on_graph_break_at_start`]: super::super::output_graph::OutputGraph::error_on_graph_break_at_start
//! [`GraphBreak::error_on_graph_break`]: super::super::exc::GraphBreak::error_on_graph_break

use std::cell::Cell;
use std::rc::Rc;

use rustpython_vm::{AsObject, PyObject, PyObjectRef, PyResult, VirtualMachine};

use super::super::bridge;
use super::super::exc::{GraphBreak, GraphBreakKind};
use super::super::guards::Check;
use super::super::output_graph::OutputGraph;
use super::super::source::Source;
use super::super::symbolic_convert::Tracer;
use super::{Kind, Vt, builder};

/// An `error_on_graph_break(value)` manager made during the trace.
#[derive(Debug)]
pub struct ErrorOnGraphBreakVar {
    /// Its class (`torch._dynamo.decorators._ErrorOnGraphBreak`), to rebuild a real one.
    pub cls: PyObjectRef,
    /// The setting inside the block.
    pub value: bool,
    /// The setting its `__exit__` restores (recorded by `__enter__`).
    pub prev: Cell<Option<bool>>,
}

/// Whether `cls` is the manager class `error_on_graph_break(value)` returns (the Python side
/// marks it with `_rynamo_error_on_graph_break`).
pub fn is_manager_class(cls: &PyObject, vm: &VirtualMachine) -> bool {
    bridge::flag(cls, "_rynamo_error_on_graph_break", vm)
}

/// A real manager equivalent to `e` (for values rebuilt after the graph): `cls(value)`, with the
/// `prev` its traced `__enter__` recorded.
pub fn rebuild(e: &ErrorOnGraphBreakVar, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
    let obj = e.cls.call((vm.ctx.new_bool(e.value),), vm)?;
    if let Some(prev) = e.prev.get() {
        obj.set_attr("prev", vm.ctx.new_bool(prev), vm)?;
    }
    Ok(obj)
}

/// A real manager from the frame (a resume function gets the `__exit__` of the block it resumes
/// inside): guarded on its type, its `value` and, once entered, the `prev` its `__exit__`
/// restores.
pub fn wrap_existing(
    out: &mut OutputGraph,
    obj: &PyObjectRef,
    source: &Rc<Source>,
    vm: &VirtualMachine,
) -> Option<Vt> {
    if !is_manager_class(obj.class().as_object(), vm) {
        return None;
    }
    let flag = |name: &str| -> Option<(PyObjectRef, Option<bool>)> {
        let v = obj.get_attr(&vm.ctx.new_str(name), vm).ok()?;
        let b = if vm.is_none(&v) {
            None
        } else if v.class().is(vm.ctx.types.bool_type) {
            Some(v.clone().try_to_bool(vm).ok()?)
        } else {
            return None;
        };
        Some((v, b))
    };
    let (value_obj, value) = flag("value")?;
    let (prev_obj, prev) = flag("prev")?;
    let value = value?;
    out.guards.add(
        source,
        Check::TypeMatch {
            ty: obj.class().to_owned().into(),
        },
    );
    let _ = builder::wrap(out, value_obj, source.attr("value"), vm);
    let _ = builder::wrap(out, prev_obj, source.attr("prev"), vm);
    Some(Vt::with_source(
        Kind::ErrorOnGraphBreak(Rc::new(ErrorOnGraphBreakVar {
            cls: obj.class().to_owned().into(),
            value,
            prev: Cell::new(prev),
        })),
        source.clone(),
    ))
}

fn unsupported(msg: impl Into<String>) -> GraphBreak {
    GraphBreak::new(GraphBreakKind::UnsupportedConstruct, msg)
}

impl Tracer<'_> {
    /// `_ErrorOnGraphBreak(value)`, for a constant `bool` value.
    pub(crate) fn construct_error_on_graph_break(
        &mut self,
        cls: &PyObjectRef,
        args: &[Vt],
        kwargs: &[(String, Vt)],
    ) -> Result<Vt, GraphBreak> {
        let arg = match (args, kwargs) {
            ([a], []) => a,
            ([], [(k, a)]) if k == "value" => a,
            _ => return Err(unsupported("error_on_graph_break takes one argument")),
        };
        let value = arg
            .as_const()
            .filter(|c| c.class().is(self.vm.ctx.types.bool_type))
            .map(|c| c.clone().try_to_bool(self.vm))
            .and_then(Result::ok)
            .ok_or_else(|| unsupported("error_on_graph_break of a non-constant or non-bool"))?;
        Ok(Vt::new(Kind::ErrorOnGraphBreak(Rc::new(
            ErrorOnGraphBreakVar {
                cls: cls.clone(),
                value,
                prev: Cell::new(None),
            },
        ))))
    }

    /// `__enter__` / `__exit__` of an `error_on_graph_break` manager: switch the trace's
    /// setting, then restore it.
    pub(crate) fn call_error_on_graph_break_method(
        &mut self,
        e: &ErrorOnGraphBreakVar,
        name: &str,
    ) -> Result<Vt, GraphBreak> {
        match name {
            "__enter__" => {
                e.prev.set(Some(self.out.error_on_graph_break));
                self.out.error_on_graph_break = e.value;
            }
            "__exit__" => {
                self.out.error_on_graph_break = e.prev.get().ok_or_else(|| {
                    unsupported("__exit__ of an error_on_graph_break manager that was not entered")
                })?;
            }
            _ => {
                return Err(unsupported(format!(
                    "error_on_graph_break manager method {name}"
                )));
            }
        }
        Ok(Vt::constant(self.vm.ctx.none()))
    }
}
