//! `torch.nn` modules built inside the compiled region (`act = nn.ReLU()`, `nn.Dropout(0.1)`,
//! `nn.Sequential(nn.ReLU(), nn.Tanh())`). PyTorch inlines their `__init__` and the module is a
//! value of the trace; Rynamo builds it for real at trace time, with Dynamo off, when the result
//! is the same on every call: a class of `torch.nn` (whose `__init__` only files its
//! arguments), constant arguments (or modules built this way), and no parameters or buffers
//! afterwards (their initialisation draws random numbers on every eager call). The module is
//! then read and called like any module without a source; its attributes are its arguments.
//!
//! **Invariant:** the trace-time module never leaves the trace: eager makes a new one per call,
//! so one that is returned, stored or live at a break is rebuilt by calling its class again on
//! the same arguments (`reconstruct.rs`), `id()` of one breaks, and a store into one breaks (it
//! has no source), so it never differs from the one the class builds. Its dicts (`_modules`,
//! read by `Sequential.forward`) are trace-local copies, one per object and attribute
//! (`OutputGraph::built_module_dicts`); once the trace changes one (`seq.append(m)`), a built
//! module leaving the trace breaks instead of being rebuilt.

use rustpython_vm::{AsObject, PyObjectRef};

use super::symbolic_convert::Tracer;
use super::variables::{Kind, Vt};

/// The positional and keyword arguments of a module's construction.
pub type CallArgs = (Vec<Vt>, Vec<(String, Vt)>);

/// A module built at trace time: the object, and how to build it again.
#[derive(Clone, Debug)]
pub struct BuiltModule {
    /// The module (kept alive, so its address is not reused).
    pub module: PyObjectRef,
    /// Its class.
    pub cls: PyObjectRef,
    /// The positional and keyword arguments (constants and built modules); `None` when the
    /// module is a child its parent's `__init__` made (then it cannot be rebuilt alone).
    pub args: Option<CallArgs>,
}

impl Tracer<'_> {
    /// `cls(*args, **kwargs)` for a parameter-free `torch.nn` module class; `None` when the
    /// call is not one this models (the caller takes its usual path).
    pub(crate) fn construct_builtin_module(
        &mut self,
        cls: &PyObjectRef,
        args: &[Vt],
        kwargs: &[(String, Vt)],
    ) -> Option<Vt> {
        let vm = self.vm;
        let module_cls = super::bridge::torch_attr("nn", vm)?
            .get_attr("Module", vm)
            .ok()?;
        if !cls.real_is_subclass(&module_cls, vm).unwrap_or(false) {
            return None;
        }
        let home = super::polyfills::module_of(cls, vm)?;
        if !home.starts_with("torch.nn.") {
            return None;
        }
        let real = |v: &Vt| -> Option<PyObjectRef> {
            match &v.kind {
                Kind::Const(c) => Some(c.clone()),
                Kind::NNModule(m) if v.source.is_none() && self.is_built_module(m) => {
                    Some(m.clone())
                }
                _ => None,
            }
        };
        let pos = args.iter().map(real).collect::<Option<Vec<_>>>()?;
        let kw = kwargs
            .iter()
            .map(|(k, v)| real(v).map(|v| (k.clone(), v)))
            .collect::<Option<Vec<_>>>()?;
        // Building one that turns out to have parameters draws their initial values: the
        // generator is put back, so the eager construction that follows draws the same.
        let rng = super::bridge::torch_attr("get_rng_state", vm)?
            .call((), vm)
            .ok()?;
        let restore = || {
            super::bridge::torch_attr("set_rng_state", vm)
                .is_some_and(|f| f.call((rng.clone(),), vm).is_ok())
        };
        let made = crate::eval_frame::with_callback_state(
            crate::eval_frame::CallbackState::Disabled,
            vm,
            || {
                cls.call(
                    rustpython_vm::function::FuncArgs::new(
                        pos,
                        kw.into_iter().collect::<rustpython_vm::function::KwArgs>(),
                    ),
                    vm,
                )
            },
        );
        if !restore() {
            return None;
        }
        let made = made.ok()?;
        // Parameters or buffers (this module's or a child's) were initialised: not a constant.
        let empty = |method: &str| {
            vm.call_method(&made, method, ())
                .and_then(|it| vm.extract_elements_with(&it, Ok))
                .is_ok_and(|items: Vec<PyObjectRef>| items.is_empty())
        };
        if !empty("parameters") || !empty("buffers") {
            return None;
        }
        // Children its `__init__` made itself never leave the trace either (they cannot be
        // rebuilt alone: no arguments recorded).
        let children = vm
            .call_method(&made, "modules", ())
            .and_then(|it| vm.extract_elements_with(&it, Ok))
            .ok()?;
        for c in children {
            self.out
                .built_modules
                .entry(c.as_object() as *const _ as usize)
                .or_insert_with(|| BuiltModule {
                    module: c.clone(),
                    cls: c.class().to_owned().into(),
                    args: None,
                });
        }
        self.out.built_modules.insert(
            made.as_object() as *const _ as usize,
            BuiltModule {
                module: made.clone(),
                cls: cls.clone(),
                args: Some((args.to_vec(), kwargs.to_vec())),
            },
        );
        Some(Vt::new(Kind::NNModule(made)))
    }

    /// `m.name` for a built module `m` whose attribute is the dict `value`: the trace's copy of
    /// it, the same tracker on every read (so changes made through one read are seen by the
    /// next); `None` for anything else.
    pub(crate) fn built_module_dict(
        &mut self,
        m: &PyObjectRef,
        name: &str,
        value: &PyObjectRef,
    ) -> Option<Vt> {
        if !self.is_built_module(m) || !value.class().is(self.vm.ctx.types.dict_type) {
            return None;
        }
        let key = (m.as_object() as *const _ as usize, name.to_owned());
        if let Some(d) = self.out.built_module_dicts.get(&key) {
            return Some(Vt::new(Kind::Dict(d.clone())));
        }
        let vt = super::variables::builder::wrap_fresh(value.clone(), self.vm);
        let Kind::Dict(d) = &vt.kind else {
            return None;
        };
        self.out.built_module_dicts.insert(key, d.clone());
        Some(vt)
    }

    /// `m.name` that the real built module `m` lacks: `Module.__getattr__` looks in
    /// `_parameters`, `_buffers` and `_modules`, which the trace may have changed in its copies
    /// (`seq.append(m)` adds a child); anything else is the trace's AttributeError (the module
    /// has no source, so nothing outside the trace can add to it).
    pub(crate) fn built_module_missing_attr(
        &mut self,
        m: &Vt,
        name: &str,
        err: &rustpython_vm::builtins::PyBaseExceptionRef,
    ) -> Result<Vt, super::exc::GraphBreak> {
        let Kind::NNModule(o) = &m.kind else {
            return Err(self.real_attr_failed(m, name, err, false));
        };
        if !err.fast_isinstance(self.vm.ctx.exceptions.attribute_error) {
            return Err(self.real_attr_failed(m, name, err, false));
        }
        let addr = o.as_object() as *const _ as usize;
        for table in ["_parameters", "_buffers", "_modules"] {
            let Some(d) = self.out.built_module_dicts.get(&(addr, table.to_owned())) else {
                continue;
            };
            let found = d
                .borrow()
                .items
                .iter()
                .find(|(k, _)| {
                    k.downcast_ref::<rustpython_vm::builtins::PyStr>()
                        .and_then(|s| s.to_str())
                        == Some(name)
                })
                .map(|(_, v)| v.clone());
            if let Some(v) = found {
                return Ok(v);
            }
        }
        Err(super::attribute::attr_missing(m, name, self.vm))
    }

    /// `type(m).<dunder>(m, *args)` inlined for a built container module (`len`, iteration,
    /// indexing of an `nn.Sequential` made in the trace): its Python code reads the trace's copy
    /// of `_modules`, so children added in the trace are seen. `None` for other modules.
    pub(crate) fn built_module_dunder(
        &mut self,
        m: &Vt,
        dunder: &'static str,
        args: Vec<Vt>,
    ) -> Option<Result<Vt, super::exc::GraphBreak>> {
        let Kind::NNModule(o) = &m.kind else {
            return None;
        };
        if m.source.is_some() || !self.is_built_module(o) {
            return None;
        }
        let f = o.class().as_object().get_attr(dunder, self.vm).ok()?;
        f.downcast_ref::<rustpython_vm::builtins::PyFunction>()?;
        let mut all = vec![m.clone()];
        all.extend(args);
        let f = super::variables::builder::wrap_unguarded(f, self.vm);
        Some(self.call_vt(f, all, Vec::new()))
    }

    /// Whether `m` is a module [`construct_builtin_module`](Self::construct_builtin_module) made.
    pub(crate) fn is_built_module(&self, m: &PyObjectRef) -> bool {
        self.out
            .built_modules
            .contains_key(&(m.as_object() as *const _ as usize))
    }
}
