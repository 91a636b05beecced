//! Grad-mode context managers: `torch.no_grad()`, `torch.enable_grad()` and
//! `torch.set_grad_enabled(mode)` and `torch.inference_mode()` (Dynamo's `GradModeVariable` and
//! `InferenceModeVariable` in `variables/ctx_manager.py`), plus `torch.is_grad_enabled()`,
//! `torch._C._set_grad_enabled()` and `torch.is_inference_mode_enabled()`.
//!
//! The tracer keeps the grad mode the traced code would see ([`OutputGraph::grad_enabled`]):
//! entering a block switches it, `is_grad_enabled()` folds to it, and every switch is a side
//! effect, so after the graph runs the runtime grad mode is what eager execution would have left.
//! `with` blocks of these managers are re-entered by resume functions: at a break inside one,
//! the block's `__exit__` on the stack is rebuilt as the bound method of a real manager whose
//! `prev` is the mode before the block, so the resumed code restores it on exit as eager would.
//!
//! **Invariant:** the grad and inference modes at frame entry are guarded (`GLOBAL_STATE`), so
//! every mode the trace computes is a constant for the cache entry.

use std::cell::Cell;
use std::rc::Rc;

use rustpython_vm::{AsObject, PyObject, PyObjectRef, PyResult, VirtualMachine};

use super::super::bridge;
use super::super::exc::{GraphBreak, GraphBreakKind};
use super::super::output_graph::OutputGraph;
use super::super::side_effects::SideEffect;
use super::super::source::Source;
use super::super::symbolic_convert::Tracer;
use super::{Kind, Vt};

/// Which grad-mode manager.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GradCtxKind {
    /// `torch.no_grad()`.
    NoGrad,
    /// `torch.enable_grad()`.
    EnableGrad,
    /// `torch.set_grad_enabled(mode)`: sets the mode when constructed, restores it on exit.
    SetGradEnabled,
    /// `torch.inference_mode()`: inference mode on and grad mode off inside; its `prev` is the
    /// pair `(inference mode, grad mode)` before the block.
    InferenceMode,
}

impl GradCtxKind {
    const ALL: [(GradCtxKind, &'static str); 4] = [
        (GradCtxKind::NoGrad, "no_grad"),
        (GradCtxKind::EnableGrad, "enable_grad"),
        (GradCtxKind::SetGradEnabled, "set_grad_enabled"),
        (GradCtxKind::InferenceMode, "inference_mode"),
    ];
}

/// A grad-mode manager object seen by the trace.
#[derive(Debug)]
pub struct GradModeVar {
    /// Its class (`torch.no_grad`, ...).
    pub cls: PyObjectRef,
    /// Which manager.
    pub kind: GradCtxKind,
    /// The grad mode inside its block.
    pub mode: bool,
    /// The grad mode its `__exit__` restores (set by `__enter__`, or at construction for
    /// `set_grad_enabled`).
    pub prev: Cell<Option<bool>>,
    /// For `inference_mode`: the inference mode its `__exit__` restores (set by `__enter__`).
    pub prev_inference: Cell<Option<bool>>,
}

/// The manager kind of a class, if it is one of the grad-mode managers.
pub fn grad_ctx_kind(cls: &PyObject, vm: &VirtualMachine) -> Option<GradCtxKind> {
    GradCtxKind::ALL.iter().find_map(|(k, name)| {
        bridge::torch_attr(name, vm)
            .filter(|c| c.is(cls))
            .map(|_| *k)
    })
}

/// `torch._C` grad-mode functions the trace evaluates itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GradFn {
    /// `torch.is_grad_enabled()`.
    IsEnabled,
    /// `torch._C._set_grad_enabled(mode)`.
    SetEnabled,
    /// `torch.is_inference_mode_enabled()`.
    IsInferenceEnabled,
}

/// Which grad-mode function `f` is, if any.
pub fn grad_fn(f: &PyObject, vm: &VirtualMachine) -> Option<GradFn> {
    let c = bridge::import_module("torch._C", vm).ok()?;
    let is = |name: &str| c.get_attr(&vm.ctx.new_str(name), vm).is_ok_and(|g| g.is(f));
    if is("is_grad_enabled") {
        Some(GradFn::IsEnabled)
    } else if is("_set_grad_enabled") {
        Some(GradFn::SetEnabled)
    } else if is("is_inference_mode_enabled") {
        Some(GradFn::IsInferenceEnabled)
    } else {
        None
    }
}

/// Wraps an existing grad-mode manager object read from `source` (a decorator's `self`, a
/// manager made before the compiled call): guarded by type and by the attributes the trace reads.
pub fn wrap_existing(
    out: &mut OutputGraph,
    obj: &PyObjectRef,
    source: &Rc<Source>,
    vm: &VirtualMachine,
) -> Option<Vt> {
    let kind = grad_ctx_kind(obj.class().as_object(), vm)?;
    let flag = |name: &str| {
        obj.get_attr(&vm.ctx.new_str(name), vm)
            .ok()
            .and_then(|v| v.try_to_bool(vm).ok())
    };
    if kind == GradCtxKind::InferenceMode {
        return wrap_inference_mode(out, obj, source, vm);
    }
    let mode = match kind {
        GradCtxKind::NoGrad => false,
        GradCtxKind::EnableGrad => true,
        GradCtxKind::SetGradEnabled => {
            let m = flag("mode")?;
            let _ = super::builder::wrap(out, vm.ctx.new_bool(m).into(), source.attr("mode"), vm);
            m
        }
        GradCtxKind::InferenceMode => unreachable!("handled above"),
    };
    out.guards.add(
        source,
        super::super::guards::Check::TypeMatch {
            ty: obj.class().to_owned().into(),
        },
    );
    // An entered manager (a resume function's `__exit__` receiver) restores `prev`.
    let prev = flag("prev");
    if let Some(p) = prev {
        let _ = super::builder::wrap(out, vm.ctx.new_bool(p).into(), source.attr("prev"), vm);
    }
    Some(Vt::with_source(
        Kind::GradMode(Rc::new(GradModeVar {
            cls: obj.class().to_owned().into(),
            kind,
            mode,
            prev: Cell::new(prev),
            prev_inference: Cell::new(None),
        })),
        source.clone(),
    ))
}

/// An existing `inference_mode` object: guarded on its type, its `mode` (only `True` is
/// traced) and, once entered, the `(inference, grad)` pair its `__exit__` restores.
fn wrap_inference_mode(
    out: &mut OutputGraph,
    obj: &PyObjectRef,
    source: &Rc<Source>,
    vm: &VirtualMachine,
) -> Option<Vt> {
    let mode = obj.get_attr("mode", vm).ok()?;
    if !mode.clone().try_to_bool(vm).ok()? {
        return None;
    }
    let _ = super::builder::wrap(out, mode, source.attr("mode"), vm);
    out.guards.add(
        source,
        super::super::guards::Check::TypeMatch {
            ty: obj.class().to_owned().into(),
        },
    );
    let (prev_inference, prev) = match obj.get_attr("prev", vm) {
        Ok(p) => {
            let pair: Vec<PyObjectRef> = p.try_to_value(vm).ok()?;
            let [inf, grad] = <[PyObjectRef; 2]>::try_from(pair).ok()?;
            let prev_src = source.attr("prev");
            let flags = (
                inf.clone().try_to_bool(vm).ok()?,
                grad.clone().try_to_bool(vm).ok()?,
            );
            let _ = super::builder::wrap(
                out,
                inf,
                prev_src.item(super::super::source::Key::Int(0)),
                vm,
            );
            let _ = super::builder::wrap(
                out,
                grad,
                prev_src.item(super::super::source::Key::Int(1)),
                vm,
            );
            (Some(flags.0), Some(flags.1))
        }
        Err(_) => (None, None),
    };
    Some(Vt::with_source(
        Kind::GradMode(Rc::new(GradModeVar {
            cls: obj.class().to_owned().into(),
            kind: GradCtxKind::InferenceMode,
            mode: false,
            prev: Cell::new(prev),
            prev_inference: Cell::new(prev_inference),
        })),
        source.clone(),
    ))
}

/// The name of a grad-mode manager's method the trace models (`__enter__`, `__exit__`, `clone`).
pub fn method_name(func: &PyObject, vm: &VirtualMachine) -> Option<&'static str> {
    let name = func.get_attr("__name__", vm).ok()?;
    let name = name.str(vm).ok()?;
    ["__enter__", "__exit__", "clone"]
        .into_iter()
        .find(|n| *n == name.to_string())
}

/// A real manager object equivalent to `g` (for values rebuilt after the graph): made without
/// running `__init__` (`set_grad_enabled.__init__` would switch the mode), with `prev` and `mode`
/// set as the traced `__enter__` left them.
pub fn rebuild(g: &GradModeVar, current: bool, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
    let obj = vm.call_method(
        vm.ctx.types.object_type.as_object(),
        "__new__",
        (g.cls.clone(),),
    )?;
    if g.kind == GradCtxKind::InferenceMode {
        obj.set_attr("mode", vm.ctx.new_bool(true), vm)?;
        if let (Some(inf), Some(grad)) = (g.prev_inference.get(), g.prev.get()) {
            let pair = vm.ctx.new_tuple(vec![
                vm.ctx.new_bool(inf).into(),
                vm.ctx.new_bool(grad).into(),
            ]);
            obj.set_attr("prev", pair, vm)?;
        }
        return Ok(obj);
    }
    obj.set_attr("prev", vm.ctx.new_bool(g.prev.get().unwrap_or(current)), vm)?;
    obj.set_attr("mode", vm.ctx.new_bool(g.mode), vm)?;
    Ok(obj)
}

fn bad(msg: impl Into<String>) -> GraphBreak {
    GraphBreak::new(GraphBreakKind::UnsupportedConstruct, msg)
}

impl Tracer<'_> {
    /// Switches the traced inference mode (a side effect replayed after the graph).
    fn set_inference(&mut self, enabled: bool) {
        self.out.inference_mode = enabled;
        self.out
            .side_effects
            .push(SideEffect::SetInferenceMode(enabled));
    }

    /// Switches the traced grad mode (a side effect replayed after the graph).
    fn set_grad(&mut self, enabled: bool) {
        self.out.grad_enabled = enabled;
        self.out
            .side_effects
            .push(SideEffect::SetGradEnabled(enabled));
    }

    /// `torch.no_grad()`, `torch.enable_grad()`, `torch.set_grad_enabled(mode)`.
    pub(crate) fn construct_grad_ctx(
        &mut self,
        cls: &PyObjectRef,
        kind: GradCtxKind,
        args: &[Vt],
        kwargs: &[(String, Vt)],
    ) -> Result<Vt, GraphBreak> {
        let mode = match kind {
            GradCtxKind::NoGrad | GradCtxKind::EnableGrad => {
                if !args.is_empty() || !kwargs.is_empty() {
                    // `torch.no_grad(fn)` decorates: not a manager.
                    return Err(bad("grad-mode manager called with arguments"));
                }
                kind == GradCtxKind::EnableGrad
            }
            GradCtxKind::InferenceMode => {
                let on = match (args, kwargs) {
                    ([], []) => true,
                    ([a], []) | ([], [(_, a)]) => a
                        .as_const()
                        .and_then(|c| c.clone().try_to_bool(self.vm).ok())
                        .ok_or_else(|| bad("inference_mode on a non-constant mode"))?,
                    _ => return Err(bad("inference_mode takes one argument")),
                };
                if !on {
                    return Err(bad("inference_mode(False)"));
                }
                false
            }
            GradCtxKind::SetGradEnabled => {
                let arg = match (args, kwargs) {
                    ([a], []) => a,
                    ([], [(k, a)]) if k == "mode" => a,
                    _ => return Err(bad("set_grad_enabled takes one argument")),
                };
                arg.as_const()
                    .and_then(|c| c.clone().try_to_bool(self.vm).ok())
                    .ok_or_else(|| bad("set_grad_enabled on a non-constant mode"))?
            }
        };
        let g = GradModeVar {
            cls: cls.clone(),
            kind,
            mode,
            prev: Cell::new(None),
            prev_inference: Cell::new(None),
        };
        if kind == GradCtxKind::SetGradEnabled {
            // Eager switches the mode at construction already.
            g.prev.set(Some(self.out.grad_enabled));
            self.set_grad(mode);
        }
        Ok(Vt::new(Kind::GradMode(Rc::new(g))))
    }

    /// `torch.is_grad_enabled()` / `torch._C._set_grad_enabled(mode)`.
    pub(crate) fn call_grad_fn(&mut self, f: GradFn, args: &[Vt]) -> Result<Vt, GraphBreak> {
        match (f, args) {
            (GradFn::IsEnabled, []) => Ok(Vt::constant(
                self.vm.ctx.new_bool(self.out.grad_enabled).into(),
            )),
            (GradFn::IsInferenceEnabled, []) => Ok(Vt::constant(
                self.vm.ctx.new_bool(self.out.inference_mode).into(),
            )),
            (GradFn::SetEnabled, [m]) => {
                let mode = m
                    .as_const()
                    .and_then(|c| c.clone().try_to_bool(self.vm).ok())
                    .ok_or_else(|| bad("_set_grad_enabled on a non-constant mode"))?;
                self.set_grad(mode);
                Ok(Vt::constant(self.vm.ctx.none()))
            }
            _ => Err(bad("grad-mode function called with unexpected arguments")),
        }
    }

    /// `__enter__`, `__exit__` and `clone` of a grad-mode manager.
    pub(crate) fn call_grad_ctx_method(
        &mut self,
        recv: &Vt,
        g: &Rc<GradModeVar>,
        name: &str,
    ) -> Result<Vt, GraphBreak> {
        let none = Vt::constant(self.vm.ctx.none());
        match name {
            "__enter__" => {
                // `set_grad_enabled` recorded `prev` when it was constructed (and switched).
                let prev = match (g.kind, g.prev.get()) {
                    (GradCtxKind::SetGradEnabled, Some(p)) => p,
                    _ => self.out.grad_enabled,
                };
                g.prev.set(Some(prev));
                let inference = g.kind == GradCtxKind::InferenceMode;
                if inference {
                    g.prev_inference.set(Some(self.out.inference_mode));
                }
                if let Some(src) = &recv.source {
                    // The real object's `__exit__` reads `prev` if it runs after a break.
                    let value: PyObjectRef = if inference {
                        self.vm
                            .ctx
                            .new_tuple(vec![
                                self.vm.ctx.new_bool(self.out.inference_mode).into(),
                                self.vm.ctx.new_bool(prev).into(),
                            ])
                            .into()
                    } else {
                        self.vm.ctx.new_bool(prev).into()
                    };
                    self.out.side_effects.push(SideEffect::StoreAttr {
                        target: src.clone(),
                        name: "prev".into(),
                        value: Vt::constant(value),
                    });
                }
                if inference {
                    self.set_inference(true);
                }
                self.set_grad(g.mode);
                Ok(none)
            }
            "__exit__" => {
                let prev = g
                    .prev
                    .get()
                    .ok_or_else(|| bad("__exit__ of a grad-mode manager that was not entered"))?;
                if let Some(inf) = g.prev_inference.get() {
                    self.set_inference(inf);
                }
                self.set_grad(prev);
                Ok(none)
            }
            "clone" => Ok(Vt::new(Kind::GradMode(Rc::new(GradModeVar {
                cls: g.cls.clone(),
                kind: g.kind,
                mode: g.mode,
                prev: Cell::new(None),
                prev_inference: Cell::new(None),
            })))),
            _ => Err(bad(format!("grad-mode manager method {name}"))),
        }
    }

    /// `LOAD_SPECIAL`: `__enter__` / `__exit__` of a `with` statement's manager. Only managers
    /// Dynamo models (and can rebuild at a break) are traced; any other is a graph break.
    pub(crate) fn load_special(
        &mut self,
        ins: &super::super::bytecode::Instr,
    ) -> Result<super::super::symbolic_convert::Flow, GraphBreak> {
        let name = match ins.arg {
            0 => "__enter__",
            1 => "__exit__",
            _ => return Err(bad("async with")),
        };
        let recv = self
            .stack
            .last()
            .cloned()
            .ok_or_else(|| bad("empty stack"))?;
        if let Kind::Object(o) = &recv.kind
            && o.class()
                .lookup_ref(&self.vm.ctx.new_str(name), self.vm)
                .is_some_and(|f| {
                    f.downcast_ref::<rustpython_vm::builtins::PyFunction>()
                        .is_some()
                })
        {
            // A manager whose `__enter__`/`__exit__` are Python functions (a user class,
            // `contextlib.nullcontext`, a `@contextmanager` function's manager): the bound
            // method, inlined when the block calls it.
            let m = self.get_attr(recv.clone(), name)?;
            self.pop()?;
            self.push(m);
            self.push(Vt::new(Kind::Null));
            return Ok(super::super::symbolic_convert::Flow::Next);
        }
        if !matches!(recv.kind, Kind::GradMode(_) | Kind::ErrorOnGraphBreak(_)) {
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedContextManager,
                format!("with {}", recv.describe()),
            ));
        }
        self.pop()?;
        self.push(Vt::new(Kind::Method(Box::new(recv), name.into())));
        self.push(Vt::new(Kind::Null));
        Ok(super::super::symbolic_convert::Flow::Next)
    }
}
