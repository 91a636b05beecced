//! Side effects after a graph ran: the trace's mutations as [`Replay`] recipes, and applying
//! them to the real objects. Every stored value is built before the first store, and the frame's
//! result in between (Dynamo's `codegen_suffix` order), so values read before the frame's own
//! mutations stay as read.

use std::rc::Rc;

use rustpython_vm::builtins::{PyList, PyStr};
use rustpython_vm::{PyObjectRef, PyResult, VirtualMachine};

use super::bridge;
use super::exc::{GraphBreak, GraphBreakKind};
use super::output_graph::OutputGraph;
use super::reconstruct::{Builder, OutputSet, Recon, recon_of};
use super::side_effects::SideEffect;
use super::source::Source;

/// A side effect with its values as recipes.
#[derive(Clone, Debug)]
pub enum Replay {
    /// `setattr(source, name, value)`.
    SetAttr(Rc<Source>, PyObjectRef, Recon),
    /// `delattr(source, name)`.
    DelAttr(Rc<Source>, PyObjectRef),
    /// `globals[name] = value`.
    SetGlobal(PyObjectRef, Recon),
    /// `del globals[name]`.
    DelGlobal(PyObjectRef),
    /// `source[:] = items`.
    ListContents(Rc<Source>, Vec<Recon>),
    /// `source.clear(); source.update(items)`.
    DictContents(Rc<Source>, Vec<(PyObjectRef, Recon)>),
    /// `source.name(*args, **kwargs)` (an in-place view method of a frame tensor).
    CallMethod(
        Rc<Source>,
        PyObjectRef,
        Vec<PyObjectRef>,
        Vec<(String, PyObjectRef)>,
    ),
    /// `torch._C._set_grad_enabled(mode)`.
    SetGradEnabled(bool),
    /// `torch._C._set_inference_mode(mode)`.
    SetInferenceMode(bool),
    /// `source.clear(); source.update(items)` for a set.
    SetContents(Rc<Source>, Vec<PyObjectRef>),
    /// `torch._dynamo.config.error_on_graph_break = value` (see
    /// [`OutputGraph::error_on_graph_break_at_start`]).
    SetErrorOnGraphBreak(bool),
    /// The CPU autocast state (see [`OutputGraph::autocast_after`]).
    SetAutocast(rynamo_shims::autocast::State),
}

/// The recipes of a trace's side effects.
pub fn replays(
    out: &OutputGraph,
    outputs: &mut OutputSet,
    vm: &VirtualMachine,
) -> Result<Vec<Replay>, GraphBreak> {
    let mut r = Vec::new();
    for e in out.side_effects.effects() {
        // Only the last grad-mode (inference-mode) switch is observable after the graph.
        if let SideEffect::SetGradEnabled(_) = e {
            r.retain(|p| !matches!(p, Replay::SetGradEnabled(_)));
        }
        if let SideEffect::SetInferenceMode(_) = e {
            r.retain(|p| !matches!(p, Replay::SetInferenceMode(_)));
        }
        r.push(match e {
            SideEffect::StoreAttr {
                target,
                name,
                value,
            } => Replay::SetAttr(
                target.clone(),
                vm.ctx.new_str(&**name).into(),
                recon_of(value, out, outputs, vm)?,
            ),
            SideEffect::DeleteAttr { target, name } => {
                Replay::DelAttr(target.clone(), vm.ctx.new_str(&**name).into())
            }
            SideEffect::DeleteGlobal { name } => Replay::DelGlobal(vm.ctx.new_str(&**name).into()),
            SideEffect::StoreGlobal { name, value } => Replay::SetGlobal(
                vm.ctx.new_str(&**name).into(),
                recon_of(value, out, outputs, vm)?,
            ),
            SideEffect::ListContents { target, list } => Replay::ListContents(
                target.clone(),
                list.borrow()
                    .items
                    .iter()
                    .map(|i| recon_of(i, out, outputs, vm))
                    .collect::<Result<_, _>>()?,
            ),
            SideEffect::DictContents { target, dict } => Replay::DictContents(
                target.clone(),
                dict.borrow()
                    .items
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), recon_of(v, out, outputs, vm)?)))
                    .collect::<Result<_, GraphBreak>>()?,
            ),
            SideEffect::TensorMethod {
                target,
                name,
                args,
                kwargs,
            } => Replay::CallMethod(
                target.clone(),
                vm.ctx.new_str(&**name).into(),
                args.clone(),
                kwargs.clone(),
            ),
            SideEffect::SetGradEnabled(mode) => Replay::SetGradEnabled(*mode),
            SideEffect::SetInferenceMode(mode) => Replay::SetInferenceMode(*mode),
            SideEffect::SetContents { target, set } => Replay::SetContents(
                target.clone(),
                vm.extract_elements_with(set, Ok).map_err(|_| {
                    GraphBreak::new(GraphBreakKind::UnsupportedConstruct, "set contents")
                })?,
            ),
        });
    }
    if let Some(s) = &out.autocast_after {
        r.push(Replay::SetAutocast(s.clone()));
    }
    if out.error_on_graph_break != out.error_on_graph_break_at_start {
        r.push(Replay::SetErrorOnGraphBreak(out.error_on_graph_break));
    }
    Ok(r)
}

impl Builder<'_> {
    /// Builds the values side effects store, in order, before any is applied: the trace read
    /// them before its own mutations (`v = o.a; del o.a; o.b = v`), so reading their sources
    /// after earlier stores could see a changed or deleted value. Run before building the
    /// frame's result (which may refer to objects these define), then [`Self::apply`].
    pub fn prepare(
        &mut self,
        effects: &[Replay],
        vm: &VirtualMachine,
    ) -> PyResult<Vec<Vec<PyObjectRef>>> {
        let mut values = Vec::with_capacity(effects.len());
        for e in effects {
            values.push(match e {
                Replay::SetAttr(_, _, v) | Replay::SetGlobal(_, v) => vec![self.build(v, vm)?],
                Replay::ListContents(_, items) => items
                    .iter()
                    .map(|i| self.build(i, vm))
                    .collect::<PyResult<Vec<_>>>()?,
                Replay::DictContents(_, items) => items
                    .iter()
                    .map(|(_, v)| self.build(v, vm))
                    .collect::<PyResult<Vec<_>>>()?,
                _ => Vec::new(),
            });
        }
        Ok(values)
    }

    /// Applies side effects, in order, with the values [`Self::prepare`] built.
    pub fn apply(
        &self,
        effects: &[Replay],
        values: Vec<Vec<PyObjectRef>>,
        vm: &VirtualMachine,
    ) -> PyResult<()> {
        for (e, built) in effects.iter().zip(values) {
            self.apply_one(e, built, vm)?;
        }
        Ok(())
    }

    /// Applies one side effect.
    fn apply_one(&self, e: &Replay, built: Vec<PyObjectRef>, vm: &VirtualMachine) -> PyResult<()> {
        let attr_name = |name: &PyObjectRef| {
            name.clone()
                .downcast::<PyStr>()
                .map_err(|_| vm.new_type_error("attribute name"))
        };
        let mut built = built.into_iter();
        let missing = || vm.new_runtime_error("internal: replay value missing");
        match e {
            Replay::SetAttr(src, name, _) => {
                let obj = src.eval(self.frame, vm)?;
                let v = built.next().ok_or_else(missing)?;
                obj.set_attr(&attr_name(name)?, v, vm)?;
            }
            Replay::DelAttr(src, name) => {
                let obj = src.eval(self.frame, vm)?;
                obj.del_attr(&attr_name(name)?, vm)?;
            }
            Replay::SetGlobal(name, _) => {
                let v = built.next().ok_or_else(missing)?;
                self.frame.globals.set_item(&**name, v, vm)?;
            }
            Replay::DelGlobal(name) => self.frame.globals.del_item(&**name, vm)?,
            Replay::ListContents(src, _) => {
                let obj = src.eval(self.frame, vm)?;
                let list = obj
                    .downcast_ref::<PyList>()
                    .ok_or_else(|| vm.new_type_error("expected a list"))?;
                *list.borrow_vec_mut() = built.collect();
            }
            Replay::CallMethod(src, name, args, kwargs) => {
                let obj = src.eval(self.frame, vm)?;
                let method = obj.get_attr(&attr_name(name)?, vm)?;
                let kwargs: rustpython_vm::function::KwArgs =
                    kwargs.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                // Traced only where eager keeps no autograd history for the change (the
                // tensor does not require grad, or grad mode was off): replayed with grad mode
                // off, whatever the mode is after the graph.
                let mode = bridge::grad_enabled();
                bridge::set_grad_enabled(false);
                let r = method.call(
                    rustpython_vm::function::FuncArgs::new(args.clone(), kwargs),
                    vm,
                );
                bridge::set_grad_enabled(mode);
                r?;
            }
            Replay::SetGradEnabled(mode) => bridge::set_grad_enabled(*mode),
            Replay::SetInferenceMode(mode) => bridge::set_inference_mode(*mode),
            Replay::SetErrorOnGraphBreak(v) => super::config::set_error_on_graph_break(*v, vm)?,
            Replay::SetAutocast(s) => super::autocast::set_state(s),
            Replay::SetContents(src, items) => {
                let obj = src.eval(self.frame, vm)?;
                vm.call_method(&obj, "clear", ())?;
                vm.call_method(&obj, "update", (vm.ctx.new_list(items.clone()),))?;
            }
            Replay::DictContents(src, items) => {
                let obj = src.eval(self.frame, vm)?;
                vm.call_method(&obj, "clear", ())?;
                for ((k, _), v) in items.iter().zip(built.by_ref()) {
                    obj.set_item(&**k, v, vm)?;
                }
            }
        }
        Ok(())
    }
}
