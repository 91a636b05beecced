//! Calls while tracing: what each kind of callee does, and inlining of Python functions.
//!
//! | callee | traced as |
//! |---|---|
//! | registry op (`torch.add`, `F.relu`) | a graph node |
//! | tensor method (`x.add`) | a graph node, or a guarded constant for metadata |
//! | Python function, method, lambda, closure | inlined: a child tracer runs its bytecode |
//! | `nn.Module` | its `forward` (or `__call__` when it has hooks), inlined |
//! | builtin (`len`, `range`, `isinstance`, ...) | modelled in `builtins.rs` |
//! | `disable`d function, `graph_break()`, `print`, unknown natives | a graph break |

use std::cell::RefCell;
use std::rc::Rc;

use rustpython_vm::builtins::{PyCode, PyDict, PyDictRef, PyFunction, PyTuple};
use rustpython_vm::bytecode::CodeFlags;
use rustpython_vm::{AsObject, PyObject, PyObjectRef, PyRef};

use super::bridge;
use super::exc::{GraphBreak, GraphBreakKind};
use super::source::{Key, Source};
use super::symbolic_convert::{GlobalsSource, Tracer};
use super::variables::builder::{wrap, wrap_unguarded};
use super::variables::ctx_manager;
use super::variables::{DictVar, Kind, NestedFn, Vt};

/// A function to inline: its code, globals and closure, however it was reached.
struct Inline {
    code: PyRef<PyCode>,
    globals: PyDictRef,
    globals_source: GlobalsSource,
    defaults: Vec<Vt>,
    kwdefaults: Vec<(String, Vt)>,
    closure: Vec<Vt>,
}

impl Tracer<'_> {
    /// Calls `callee(*args, **kwargs)` while tracing.
    pub(crate) fn call_vt(
        &mut self,
        callee: Vt,
        mut args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
    ) -> Result<Vt, GraphBreak> {
        if let Kind::Function(o) | Kind::Object(o) | Kind::Builtin(o, _) = &callee.kind
            && super::host_call::is_allowed_in_graph(o, self.vm)
        {
            let name = o
                .get_attr("__name__", self.vm)
                .ok()
                .and_then(|n| n.str(self.vm).ok().map(|s| s.to_string()))
                .unwrap_or_else(|| "<callable>".into());
            return self.call_allowed_in_graph(&o.clone(), &name, args, kwargs);
        }
        if let Kind::Class(c) = &callee.kind
            && let Some(k) = ctx_manager::grad_ctx_kind(c, self.vm)
        {
            return self.construct_grad_ctx(&c.clone(), k, &args, &kwargs);
        }
        if let Kind::Class(c) = &callee.kind
            && super::variables::error_on_graph_break::is_manager_class(c, self.vm)
        {
            return self.construct_error_on_graph_break(&c.clone(), &args, &kwargs);
        }
        if let Kind::Function(o) | Kind::Object(o) | Kind::Builtin(o, _) = &callee.kind
            && let Some(f) = ctx_manager::grad_fn(o, self.vm)
            && kwargs.is_empty()
        {
            return self.call_grad_fn(f, &args);
        }
        if let Kind::Function(o) = &callee.kind
            && bridge::flag(o, "_rynamo_call_at_trace_time", self.vm)
        {
            return self.call_at_trace_time(o, &args, &kwargs);
        }
        if let Kind::Function(o) | Kind::Object(o) = &callee.kind
            && let Some(target) = super::nonstrict::nonstrict_target(o, self.vm)
        {
            let name = target
                .get_attr("__name__", self.vm)
                .ok()
                .and_then(|n| n.str(self.vm).ok().map(|s| s.to_string()))
                .unwrap_or_else(|| "<callable>".into());
            return self.call_nonstrict(&target, &name, args, kwargs);
        }
        if let Kind::Builtin(o, name) = &callee.kind
            && &**name == "tensor"
            && bridge::torch_attr("tensor", self.vm).is_some_and(|t| t.is(o))
            && let Some(r) = self.call_tensor_literal(&o.clone(), &args, &kwargs)
        {
            return r;
        }
        if let Kind::Function(o) = &callee.kind
            && let Some(r) = self.call_inspect_signature(&o.clone(), &args, &kwargs)
        {
            return r;
        }
        if let Kind::Class(c) = &callee.kind
            && let Some(m) = self.construct_builtin_module(&c.clone(), &args, &kwargs)
        {
            return Ok(m);
        }
        if let Kind::Class(c) | Kind::Builtin(c, _) = &callee.kind
            && super::variables::exceptions::is_plain_exception_class(c, self.vm)
        {
            // The exception is rebuilt after the graph ran by calling the class again; one
            // whose constructor rejects these arguments (`UnicodeDecodeError("x")`) would raise
            // there, after the frame's side effects, instead of here. Constructing it now (with
            // stand-ins for non-constant arguments) finds those: the call then runs in Python.
            if !kwargs.is_empty() || !self.constructs(c, &args) {
                return Err(unsupported_call(&callee));
            }
            return Ok(Vt::new(Kind::Exception(Rc::new(
                super::variables::exceptions::ExcVar {
                    cls: c.clone(),
                    args,
                },
            ))));
        }
        match callee.kind.clone() {
            Kind::TorchOp {
                overloads,
                surface,
                obj,
            } => self.call_torch_function(overloads, surface, obj, args, kwargs),
            Kind::Method(recv, name) => self.call_method(*recv, &name, args, kwargs),
            Kind::BoundMethod(f, zelf) => {
                args.insert(0, *zelf);
                self.call_vt(*f, args, kwargs)
            }
            Kind::Builtin(obj, name) => self.call_builtin(&obj, &name, args, kwargs),
            Kind::Function(f) => self.call_function(&callee, &f, args, kwargs),
            Kind::NestedFunction(nf) => self.call_nested(&nf, args, kwargs),
            Kind::NNModule(m) => self.call_module(callee.clone(), &m, args, kwargs),
            Kind::Class(c) if super::variables::named_tuple::fields(&c, self.vm).is_some() => self
                .construct_named_tuple(&c, args, kwargs)
                .unwrap_or_else(|| Err(unsupported_call(&callee))),
            Kind::Class(c)
                if args.len() == 1
                    && kwargs.is_empty()
                    && let Some(r) = self.enum_lookup(&c, &args[0], false) =>
            {
                r
            }
            Kind::Class(c) => match self.call_stdlib_class(&c, &args, &kwargs) {
                Some(r) => r,
                None => self
                    .construct_user_object(&c, callee.source.clone(), args, kwargs)
                    .unwrap_or_else(|| Err(unsupported_call(&callee))),
            },
            Kind::Partial(p) => self.call_partial(&p, args, kwargs),
            Kind::Object(o)
                if kwargs.is_empty()
                    && ["__setattr__", "__delattr__"].iter().any(|n| {
                        self.vm
                            .ctx
                            .types
                            .object_type
                            .as_object()
                            .get_attr(*n, self.vm)
                            .is_ok_and(|f| f.is(&o))
                    }) =>
            {
                let delete = o
                    .get_attr("__name__", self.vm)
                    .is_ok_and(|n| n.str(self.vm).is_ok_and(|s| s.to_string() == "__delattr__"));
                self.object_setattr(&args, delete)
            }
            // `object.__init__(self)` (from `super().__init__()`): nothing to do.
            Kind::Object(o)
                if args.len() == 1
                    && kwargs.is_empty()
                    && super::opcodes::super_attr::is_object_init(&o, self.vm) =>
            {
                Ok(Vt::constant(self.vm.ctx.none()))
            }
            Kind::Object(o) => {
                if let Some(r) = self.call_bound_builtin(&o, &args, &kwargs) {
                    return r;
                }
                if let Some(r) = self.call_methodcaller(&o, args.clone()) {
                    return r;
                }
                if let Some(r) =
                    self.call_lru_cache_wrapper(&o, &callee, args.clone(), kwargs.clone())
                {
                    return r;
                }
                if let Some(r) = self.call_getter(&o, args.clone()) {
                    if let Some(src) = &callee.source {
                        // The getter's keys were read off this object: it must stay the same.
                        self.out
                            .guards
                            .add(src, super::guards::Check::IdMatch { obj: o.clone() });
                    }
                    return r;
                }
                let call = o.class().as_object().get_attr("__call__", self.vm).ok();
                match call {
                    Some(f) if f.downcast_ref::<PyFunction>().is_some() => {
                        args.insert(0, callee.clone());
                        let f = match &callee.source {
                            Some(src) => {
                                wrap(self.out, f, src.attr("__class__").attr("__call__"), self.vm)
                            }
                            None => wrap_unguarded(f, self.vm),
                        };
                        self.call_vt(f, args, kwargs)
                    }
                    _ => Err(unsupported_call(&callee)),
                }
            }
            _ => Err(unsupported_call(&callee)),
        }
    }

    /// A Python function object: markers first (`disable`, `graph_break`, ...), then inline.
    fn call_function(
        &mut self,
        callee: &Vt,
        f: &PyObjectRef,
        args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let qual = f
            .get_attr("__qualname__", vm)
            .ok()
            .and_then(|q| q.str(vm).ok().map(|s| s.to_string()))
            .unwrap_or_default();
        if let Some(marker) = bridge::dynamo_marker(f, vm) {
            return self.call_marked(marker, callee, f, &qual, args, kwargs);
        }
        let Some(func) = f.downcast_ref::<PyFunction>() else {
            return Err(unsupported_call(callee));
        };
        let code: PyRef<PyCode> = f
            .get_attr("__code__", vm)
            .ok()
            .and_then(|c| c.downcast().ok())
            .ok_or_else(|| unsupported_call(callee))?;
        let globals: PyDictRef = f
            .get_attr("__globals__", vm)
            .ok()
            .and_then(|g| g.downcast().ok())
            .ok_or_else(|| unsupported_call(callee))?;
        let globals_source = if globals.is(&self.root_globals()) {
            GlobalsSource::Frame
        } else {
            match &callee.source {
                Some(src) => GlobalsSource::Dict(src.attr("__globals__")),
                None => GlobalsSource::None,
            }
        };
        let src = callee.source.clone();
        let defaults = match f
            .get_attr("__defaults__", vm)
            .ok()
            .and_then(|d| d.downcast::<PyTuple>().ok())
        {
            Some(t) => t
                .as_slice()
                .iter()
                .enumerate()
                .map(|(i, d)| match &src {
                    Some(s) => wrap(
                        self.out,
                        d.clone(),
                        s.attr("__defaults__").item(Key::Int(i as i64)),
                        vm,
                    ),
                    None => wrap_unguarded(d.clone(), vm),
                })
                .collect(),
            None => Vec::new(),
        };
        let kwdefaults = match f
            .get_attr("__kwdefaults__", vm)
            .ok()
            .and_then(|d| d.downcast::<PyDict>().ok())
        {
            Some(d) => d
                .items_vec()
                .into_iter()
                .filter_map(|(k, v)| {
                    let k = k.str(vm).ok()?.to_string();
                    let vt = match &src {
                        Some(s) => wrap(
                            self.out,
                            v,
                            s.attr("__kwdefaults__").item(Key::Str(k.as_str().into())),
                            vm,
                        ),
                        None => wrap_unguarded(v, vm),
                    };
                    Some((k, vt))
                })
                .collect(),
            None => Vec::new(),
        };
        let closure = match f
            .get_attr("__closure__", vm)
            .ok()
            .and_then(|c| c.downcast::<PyTuple>().ok())
        {
            Some(cells) => cells
                .as_slice()
                .iter()
                .enumerate()
                .map(|(i, cell)| {
                    let cell_src = src
                        .as_ref()
                        .map(|s| s.attr("__closure__").item(Key::Int(i as i64)));
                    let addr = cell.as_object() as *const PyObject as usize;
                    let symbolic = match self.out.cells.get(&addr) {
                        Some((_, c)) => c.clone(),
                        None => {
                            let content = cell.get_attr("cell_contents", vm).ok();
                            let vt = content.map(|c| match &cell_src {
                                Some(cs) => wrap(self.out, c, cs.attr("cell_contents"), vm),
                                None => wrap_unguarded(c, vm),
                            });
                            let c = Rc::new(RefCell::new(vt));
                            self.out.cells.insert(addr, (cell.clone(), c.clone()));
                            c
                        }
                    };
                    // The cell is real (shared with other closures): its source is where a
                    // nonlocal store into it is replayed; without one, such a store breaks.
                    let cell_src = cell_src.unwrap_or_else(|| Rc::new(Source::unreachable_cell()));
                    Vt::with_source(Kind::Cell(symbolic), cell_src)
                })
                .collect(),
            None => Vec::new(),
        };
        let _ = func;
        // PyTorch puts `torch.nn.functional`'s public functions into the graph as calls; Rynamo
        // inlines their Python. One that returns its input (`dropout` outside training) makes no
        // node here but is a call of PyTorch's graph (see `OutputGraph::op_count`).
        let graph_call = !qual.starts_with('_')
            && !qual.contains('.')
            && super::polyfills::module_of(f, vm).is_some_and(|m| m == "torch.nn.functional");
        let calls_before = self.out.op_count();
        let r = self.inline(
            Inline {
                code,
                globals,
                globals_source,
                defaults,
                kwdefaults,
                closure,
            },
            args,
            kwargs,
        )?;
        if graph_call && self.out.op_count() == calls_before && r.as_tensor().is_some() {
            self.out.identity_calls += 1;
        }
        Ok(r)
    }

    /// A function made during the trace (`MAKE_FUNCTION`).
    fn call_nested(
        &mut self,
        nf: &Rc<NestedFn>,
        args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
    ) -> Result<Vt, GraphBreak> {
        let globals: PyDictRef = nf.globals.clone().downcast().map_err(|_| {
            GraphBreak::new(
                GraphBreakKind::UnsupportedConstruct,
                "nested function globals",
            )
        })?;
        let globals_source = if globals.is(&self.root_globals()) {
            GlobalsSource::Frame
        } else {
            GlobalsSource::None
        };
        let closure = nf
            .closure
            .iter()
            .map(|c| Vt::new(Kind::Cell(c.clone())))
            .collect();
        self.inline(
            Inline {
                code: nf.code.clone(),
                globals,
                globals_source,
                defaults: nf.defaults.clone(),
                kwdefaults: nf.kwdefaults.clone(),
                closure,
            },
            args,
            kwargs,
        )
    }

    /// An `nn.Module` call: `forward` directly when no hooks are registered, else `__call__`.
    fn call_module(
        &mut self,
        callee: Vt,
        m: &PyObjectRef,
        mut args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let has_hooks = bridge::module_has_hooks(m, vm);
        // The module is guarded by type: how many hooks it has is guarded on its own dicts.
        if let Some(src) = &callee.source {
            for dict in bridge::MODULE_HOOK_DICTS {
                if let Ok(n) = m.get_attr(dict, vm).and_then(|d| d.length(vm)) {
                    self.out
                        .guards
                        .add(&src.attr(dict), super::guards::Check::Length(n));
                }
            }
        }
        let name = if has_hooks { "__call__" } else { "forward" };
        let f = m
            .class()
            .as_object()
            .get_attr(&vm.ctx.new_str(name), vm)
            .map_err(|_| unsupported_call(&callee))?;
        args.insert(0, callee);
        let f = wrap_unguarded(f, vm);
        self.call_vt(f, args, kwargs)
    }

    /// The globals dict of the compiled (root) frame.
    fn root_globals(&self) -> PyDictRef {
        self.out.frame.globals.clone()
    }

    /// Runs `inline`'s code in a child tracer with the call's arguments bound.
    fn inline(
        &mut self,
        f: Inline,
        args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
    ) -> Result<Vt, GraphBreak> {
        let flags = f.code.code.flags;
        if flags.intersects(CodeFlags::COROUTINE | CodeFlags::ASYNC_GENERATOR) {
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedConstruct,
                format!("inlining generator or coroutine {}", f.code.code.obj_name),
            ));
        }
        let locals = bind_arguments(
            &f.code,
            args,
            kwargs,
            &f.defaults,
            &f.kwdefaults,
            &f.closure,
            self.vm,
        )?;
        if flags.contains(CodeFlags::GENERATOR) {
            // Nothing of the body runs until the generator is first resumed.
            return Ok(self.make_generator(super::variables::GenState {
                code: f.code,
                globals: f.globals,
                globals_source: f.globals_source,
                locals,
                stack: Vec::new(),
                pos: 0,
                done: false,
                returned: None,
            }));
        }
        let mut child = self.child(f.code, locals, f.globals, f.globals_source)?;
        child.run()
    }

    /// Whether `cls(*args)` succeeds for a plain exception class: constants passed as they
    /// are, anything else as a fresh `object()` (built-in exception constructors that check
    /// their arguments check counts and constant types).
    fn constructs(&self, cls: &PyObjectRef, args: &[Vt]) -> bool {
        let vm = self.vm;
        let values: Option<Vec<PyObjectRef>> = args
            .iter()
            .map(|a| match a.as_const() {
                Some(c) => Some(c.clone()),
                None => vm.ctx.types.object_type.as_object().call((), vm).ok(),
            })
            .collect();
        values.is_some_and(|v| cls.call(v, vm).is_ok())
    }
}

/// Binds call arguments to a code object's parameters: the child frame's localsplus.
fn bind_arguments(
    code: &PyCode,
    args: Vec<Vt>,
    kwargs: Vec<(String, Vt)>,
    defaults: &[Vt],
    kwdefaults: &[(String, Vt)],
    closure: &[Vt],
    vm: &rustpython_vm::VirtualMachine,
) -> Result<Vec<Option<Vt>>, GraphBreak> {
    let c = &code.code;
    let slots = super::bytecode_analysis::Slots::of(code);
    let mut locals: Vec<Option<Vt>> = vec![None; slots.names.len()];
    let argc = c.arg_count as usize;
    let kwonly = c.kwonlyarg_count as usize;
    let has_varargs = c.flags.contains(CodeFlags::VARARGS);
    let has_varkw = c.flags.contains(CodeFlags::VARKEYWORDS);
    let fname = c.obj_name.to_string();
    let type_err = |msg: String| {
        GraphBreak::new(
            GraphBreakKind::UnsupportedCall,
            format!("{fname}(): {msg} (eager raises TypeError)"),
        )
    };
    let mut extra = Vec::new();
    for (i, a) in args.into_iter().enumerate() {
        if i < argc {
            locals[i] = Some(a);
        } else if has_varargs {
            extra.push(a);
        } else {
            return Err(type_err(format!("takes {argc} positional arguments")));
        }
    }
    let mut varkw: Vec<(PyObjectRef, Vt)> = Vec::new();
    for (k, v) in kwargs {
        let pos = c.varnames[..argc + kwonly]
            .iter()
            .position(|n| n.as_str() == k)
            .filter(|&p| p >= c.posonlyarg_count as usize);
        match pos {
            Some(p) if locals[p].is_some() => {
                return Err(type_err(format!("got multiple values for argument '{k}'")));
            }
            Some(p) => locals[p] = Some(v),
            None if has_varkw => varkw.push((vm.ctx.new_str(k).into(), v)),
            None => {
                return Err(type_err(format!(
                    "got an unexpected keyword argument '{k}'"
                )));
            }
        }
    }
    // Positional defaults fill the last parameters.
    let first_default = argc.saturating_sub(defaults.len());
    for i in 0..argc {
        if locals[i].is_none() {
            if i >= first_default {
                locals[i] = Some(defaults[i - first_default].clone());
            } else {
                return Err(type_err(format!(
                    "missing required argument '{}'",
                    c.varnames[i]
                )));
            }
        }
    }
    for (slot, name) in locals.iter_mut().zip(&c.varnames).skip(argc).take(kwonly) {
        if slot.is_none() {
            let name = name.as_str();
            match kwdefaults.iter().find(|(k, _)| k == name) {
                Some((_, v)) => *slot = Some(v.clone()),
                None => {
                    return Err(type_err(format!(
                        "missing required keyword-only argument '{name}'"
                    )));
                }
            }
        }
    }
    let mut next = argc + kwonly;
    if has_varargs {
        locals[next] = Some(Vt::new(Kind::Tuple(extra)));
        next += 1;
    }
    if has_varkw {
        locals[next] = Some(Vt::new(Kind::Dict(Rc::new(RefCell::new(DictVar {
            items: varkw,
            mutated: false,
            ..Default::default()
        })))));
    }
    // Free variables come from the closure, in order, at the end of localsplus.
    let nfree = c.freevars.len();
    let first_free = slots.names.len() - nfree;
    for (i, cell) in closure.iter().enumerate().take(nfree) {
        locals[first_free + i] = Some(cell.clone());
    }
    Ok(locals)
}

/// A break for calling something Dynamo does not trace.
pub fn unsupported_call(callee: &Vt) -> GraphBreak {
    GraphBreak::new(
        GraphBreakKind::UnsupportedCall,
        format!("call to {}", callee.describe()),
    )
}

/// The source of a module-level name, for marker lookups.
pub fn global_source(name: &str) -> Rc<Source> {
    Rc::new(Source::Global(name.into()))
}

/// A function carrying one of Dynamo's markers.
#[derive(Clone, Debug)]
pub enum Marker {
    /// Wrapped by `torch._dynamo.disable` / `torch.compiler.disable`, with its reason.
    Disabled(Option<String>),
    /// `torch._dynamo.graph_break`.
    GraphBreak,
    /// `torch.compiler.is_compiling` and kin: `True` while tracing.
    IsCompiling,
    /// `torch._dynamo.assume_constant_result`: called at trace time, result baked in.
    AssumeConstant,
    /// `torch._dynamo.forbid_in_graph`: tracing a call is an error.
    Forbidden,
}

impl Tracer<'_> {
    fn call_marked(
        &mut self,
        marker: Marker,
        callee: &Vt,
        f: &PyObjectRef,
        qual: &str,
        args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        match marker {
            Marker::Disabled(reason) => Err(GraphBreak::new(
                GraphBreakKind::DisabledFunction,
                format!(
                    "Skip calling function `{qual}` since it was wrapped with `torch.compiler.disable` (reason: {})",
                    reason.unwrap_or_else(|| "None".to_owned())
                ),
            )),
            Marker::GraphBreak => {
                let msg = args
                    .first()
                    .and_then(|a| a.as_const())
                    .map(|m| m.str(vm).map(|s| s.to_string()).unwrap_or_default());
                Err(GraphBreak::new(
                    GraphBreakKind::UserGraphBreak,
                    format!(
                        "Called `torch._dynamo.graph_break()` with args `[{}]`, kwargs `{{}}` (message: {})",
                        args.iter().map(Vt::describe).collect::<Vec<_>>().join(", "),
                        msg.unwrap_or_else(|| "None".into())
                    ),
                ))
            }
            Marker::IsCompiling => Ok(Vt::constant(vm.ctx.new_bool(true).into())),
            Marker::AssumeConstant => {
                let consts: Option<Vec<PyObjectRef>> =
                    args.iter().map(|a| a.as_const().cloned()).collect();
                let Some(consts) = consts.filter(|_| kwargs.is_empty()) else {
                    return Err(unsupported_call(callee));
                };
                let r = f.call(consts, vm).map_err(|e| {
                    GraphBreak::new(
                        GraphBreakKind::OpError,
                        format!(
                            "assume_constant_result function raised: {}",
                            super::fx::error_text(&e, vm)
                        ),
                    )
                })?;
                Ok(wrap_unguarded(r, vm))
            }
            Marker::Forbidden => Err(GraphBreak::new(
                GraphBreakKind::ForbiddenCallable,
                format!("Attempt to trace forbidden callable {qual}"),
            )),
        }
    }
}

impl Tracer<'_> {
    /// Calls a helper marked `_rynamo_call_at_trace_time` for real, with Dynamo off: a
    /// decorator-like helper (`nonstrict_trace(fn)` inside a compiled region), or an optimizer's
    /// `_init_group`, which creates missing state (as Dynamo's OptimizerVariable runs it). Its
    /// arguments must be real objects: functions, constants, or values read from the frame that
    /// the trace has not changed (the helper sees them as they were on entry).
    fn call_at_trace_time(
        &mut self,
        f: &PyObjectRef,
        args: &[Vt],
        kwargs: &[(String, Vt)],
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let real = |v: &Vt| -> Option<PyObjectRef> {
            match &v.kind {
                Kind::Function(o)
                | Kind::Const(o)
                | Kind::Object(o)
                | Kind::Builtin(o, _)
                | Kind::Class(o)
                | Kind::NNModule(o) => Some(o.clone()),
                Kind::Dict(d) if d.borrow().mutated => None,
                Kind::List(l) if l.borrow().mutated => None,
                Kind::Dict(_) | Kind::List(_) | Kind::Tensor(_) => v
                    .source
                    .as_ref()
                    .and_then(|s| s.eval(&self.out.frame, vm).ok()),
                _ => None,
            }
        };
        let a: Option<Vec<PyObjectRef>> = args.iter().map(real).collect();
        let k: Option<Vec<(String, PyObjectRef)>> = kwargs
            .iter()
            .map(|(n, v)| real(v).map(|o| (n.clone(), o)))
            .collect();
        let (Some(a), Some(k)) = (a, k) else {
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedCall,
                "trace-time helper called with traced values",
            ));
        };
        let r = crate::eval_frame::with_callback_state(
            crate::eval_frame::CallbackState::Disabled,
            vm,
            || {
                f.call(
                    rustpython_vm::function::FuncArgs::new(
                        a,
                        k.into_iter().collect::<rustpython_vm::function::KwArgs>(),
                    ),
                    vm,
                )
            },
        )
        .map_err(|e| {
            GraphBreak::new(
                GraphBreakKind::UnsupportedCall,
                format!(
                    "trace-time helper raised: {}",
                    super::fx::error_text(&e, vm)
                ),
            )
        })?;
        Ok(wrap_unguarded(r, vm))
    }
}
