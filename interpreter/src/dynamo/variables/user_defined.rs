//! Instances of user classes made inside the compiled region (Dynamo's
//! `UserDefinedObjectVariable` for a new object): `Point(x, y)`, a dataclass output, a small
//! helper object. The trace makes a placeholder with `object.__new__(cls)` and inlines
//! `__init__` on it; attribute stores go to the side-effect overlay, never to the placeholder.
//! When the object outlives the trace (returned, stored, live at a break) it is rebuilt for
//! real on every run: `cls.__new__(cls)`, then its attributes set in order, so each call gets a
//! fresh object as in eager.
//!
//! **Invariant:** a placeholder never reaches user code: every recipe for it is
//! [`Recon::NewObject`](super::super::reconstruct::Recon::NewObject).

use rustpython_vm::builtins::{PyFunction, PyType};
use rustpython_vm::{AsObject, PyObjectRef, VirtualMachine};

use std::rc::Rc;

use super::super::exc::{GraphBreak, GraphBreakKind};
use super::super::output_graph::NewObject;
use super::super::source::Source;
use super::super::symbolic_convert::Tracer;
use super::builder::wrap_unguarded;
use super::{Kind, Vt};

/// Whether instances of `cls` can be made in the trace: a plain Python class (metaclass `type`,
/// `object.__new__`, no attribute hooks), not an `nn.Module` or an exception.
fn is_plain_class(cls: &PyObjectRef, vm: &VirtualMachine) -> bool {
    let Some(ty) = cls.downcast_ref::<PyType>() else {
        return false;
    };
    // A class statement's class (heap type) whose metaclass is `type` or `abc.ABCMeta` (which
    // only adds abstract-method bookkeeping: `object.__new__` refuses abstract classes itself).
    let abc_meta = super::super::bridge::import_module("abc", vm)
        .and_then(|m| m.get_attr("ABCMeta", vm))
        .ok();
    let plain_meta =
        cls.class().is(vm.ctx.types.type_type) || abc_meta.is_some_and(|m| cls.class().is(&m));
    if !plain_meta
        || !ty
            .slots
            .flags
            .has_feature(rustpython_vm::types::PyTypeFlags::HEAPTYPE)
    {
        return false;
    }
    let object_attr =
        |name: &'static str| vm.ctx.types.object_type.as_object().get_attr(name, vm).ok();
    let same_as_object = |name: &'static str| match (cls.get_attr(name, vm).ok(), object_attr(name))
    {
        (Some(a), Some(b)) => a.is(&b),
        _ => false,
    };
    // A Python `__setattr__`/`__delattr__` (a frozen dataclass's) is inlined on stores.
    let python_or_object = |name: &'static str| {
        same_as_object(name)
            || cls
                .get_attr(name, vm)
                .is_ok_and(|f| f.downcast_ref::<PyFunction>().is_some())
    };
    let hooks_free = same_as_object("__new__")
        && python_or_object("__setattr__")
        && same_as_object("__getattribute__")
        && python_or_object("__delattr__")
        && cls.get_attr("__getattr__", vm).is_err();
    let excluded = cls
        .real_is_subclass(vm.ctx.exceptions.base_exception_type.as_object(), vm)
        .unwrap_or(true)
        || super::super::bridge::torch_attr("nn", vm)
            .and_then(|nn| nn.get_attr("Module", vm).ok())
            .is_some_and(|m| cls.real_is_subclass(&m, vm).unwrap_or(true));
    hooks_free && !excluded
}

/// The class's own Python `__setattr__` (`__delattr__` for a delete), when it has one.
pub fn python_store_hook(
    cls: &PyObjectRef,
    delete: bool,
    vm: &VirtualMachine,
) -> Option<PyObjectRef> {
    let name = if delete { "__delattr__" } else { "__setattr__" };
    let f = cls.get_attr(name, vm).ok()?;
    f.downcast_ref::<PyFunction>()?;
    Some(f)
}

impl Tracer<'_> {
    /// `cls(*args, **kwargs)` for a plain user class: a tracked new object; `None` when the
    /// class is not one Dynamo can construct (the caller reports the call as unsupported).
    pub(crate) fn construct_user_object(
        &mut self,
        cls: &PyObjectRef,
        cls_source: Option<Rc<Source>>,
        args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
    ) -> Option<Result<Vt, GraphBreak>> {
        let vm = self.vm;
        if !is_plain_class(cls, vm) {
            return None;
        }
        let init = cls.get_attr("__init__", vm).ok()?;
        let object_init = vm
            .ctx
            .types
            .object_type
            .as_object()
            .get_attr("__init__", vm)
            .ok()?;
        let python_init = init.downcast_ref::<PyFunction>().is_some();
        let trivial_init = init.is(&object_init) && args.is_empty() && kwargs.is_empty();
        if !(python_init || trivial_init) {
            return None;
        }
        let placeholder = vm
            .ctx
            .types
            .object_type
            .as_object()
            .get_attr("__new__", vm)
            .and_then(|new| new.call((cls.clone(),), vm))
            .ok()?;
        self.out.new_objects.insert(
            placeholder.as_object() as *const _ as usize,
            NewObject {
                placeholder: placeholder.clone(),
                cls: cls.clone(),
                cls_source,
            },
        );
        let obj = Vt::new(Kind::Object(placeholder));
        if python_init {
            let mut all = vec![obj.clone()];
            all.extend(args);
            let r = match self.call_vt(wrap_unguarded(init, vm), all, kwargs) {
                Ok(r) => r,
                Err(e) => return Some(Err(e)),
            };
            if !r.as_const().is_some_and(|c| vm.is_none(c)) {
                return Some(Err(GraphBreak::new(
                    GraphBreakKind::UnsupportedCall,
                    "__init__() should return None",
                )));
            }
        }
        Some(Ok(obj))
    }
}

impl Tracer<'_> {
    /// `obj.name` on an object made in the trace (not in the attribute overlay): resolved on the
    /// class without running descriptors on the placeholder, whose attributes are not set.
    /// Methods bind to the tracker, properties run their getter traced, static and class methods
    /// unwrap; other descriptors break.
    pub(crate) fn new_object_class_attr(
        &mut self,
        obj: &Vt,
        info: &NewObject,
        name: &str,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let missing = || {
            GraphBreak::new(
                GraphBreakKind::UnsupportedOperation,
                format!(
                    "attribute '{name}' of a new {} object",
                    info.cls.class().name()
                ),
            )
        };
        let cls = info.cls.downcast_ref::<PyType>().ok_or_else(missing)?;
        if name == "__class__" {
            return Ok(match &info.cls_source {
                Some(src) => super::builder::wrap(self.out, info.cls.clone(), src.clone(), vm),
                None => wrap_unguarded(info.cls.clone(), vm),
            });
        }
        // An object made in the trace has only the attributes the trace stored (looked up
        // before this) and its class's: anything else is eager's AttributeError.
        let raw = cls
            .get_attr(vm.ctx.intern_str(name))
            .ok_or_else(|| super::super::attribute::attr_missing(obj, name, vm))?;
        let wrapped = |tr: &mut Self, v: PyObjectRef| match &info.cls_source {
            Some(src) => super::builder::wrap(tr.out, v, src.attr(name), vm),
            None => wrap_unguarded(v, vm),
        };
        let ty = raw.class();
        if raw.downcast_ref::<PyFunction>().is_some() {
            let f = wrapped(self, raw);
            return Ok(Vt::new(Kind::BoundMethod(
                Box::new(f),
                Box::new(obj.clone()),
            )));
        }
        if ty.is(vm.ctx.types.property_type) {
            let fget = raw.get_attr("fget", vm).map_err(|_| missing())?;
            if vm.is_none(&fget) {
                return Err(missing());
            }
            return self.call_vt(wrap_unguarded(fget, vm), vec![obj.clone()], Vec::new());
        }
        if is_cached_property(&raw, vm) {
            return self.cached_property_get(obj, cls, &raw, name);
        }
        if ty.is(vm.ctx.types.staticmethod_type) {
            let f = raw.get_attr("__func__", vm).map_err(|_| missing())?;
            return Ok(wrap_unguarded(f, vm));
        }
        if ty.is(vm.ctx.types.classmethod_type) {
            let f = raw.get_attr("__func__", vm).map_err(|_| missing())?;
            let cls_vt = match &info.cls_source {
                Some(src) => super::builder::wrap(self.out, info.cls.clone(), src.clone(), vm),
                None => wrap_unguarded(info.cls.clone(), vm),
            };
            return Ok(Vt::new(Kind::BoundMethod(
                Box::new(wrap_unguarded(f, vm)),
                Box::new(cls_vt),
            )));
        }
        if let Some(get) = ty.get_attr(vm.ctx.intern_str("__get__")) {
            // A descriptor class written in Python (`torch.distributions.utils.lazy_property`):
            // its `__get__(descriptor, obj, cls)` runs inlined, as PyTorch inlines it. Native
            // descriptors break.
            if get.downcast_ref::<PyFunction>().is_none() {
                return Err(missing());
            }
            let cls_vt = match &info.cls_source {
                Some(src) => super::builder::wrap(self.out, info.cls.clone(), src.clone(), vm),
                None => wrap_unguarded(info.cls.clone(), vm),
            };
            let descriptor = wrapped(self, raw);
            return self.call_vt(
                wrap_unguarded(get, vm),
                vec![descriptor, obj.clone(), cls_vt],
                Vec::new(),
            );
        }
        Ok(wrapped(self, raw))
    }

    /// `obj.name` where the class attribute is a `functools.cached_property` and the object was
    /// made in the trace without the value cached (a stored attribute is found before the class
    /// is consulted): what its lock-free `__get__` (CPython 3.12 on, and RustPython's) does,
    /// traced as PyTorch traces it there: the function runs inlined on the object and the value
    /// goes into the object's `__dict__` under `attrname`, so the next read finds it. Anything
    /// `__get__` would refuse (no `__dict__`, no `attrname`) or that is not plainly cached
    /// breaks.
    fn cached_property_get(
        &mut self,
        obj: &Vt,
        cls: &PyType,
        prop: &PyObjectRef,
        name: &str,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let unsupported = |why: &str| {
            GraphBreak::new(
                GraphBreakKind::UnsupportedOperation,
                format!("functools.cached_property '{name}': {why}"),
            )
        };
        let Kind::Object(o) = &obj.kind else {
            return Err(unsupported("not a plain object"));
        };
        let attrname = prop
            .get_attr("attrname", vm)
            .ok()
            .and_then(|a| {
                a.downcast_ref::<rustpython_vm::builtins::PyStr>()
                    .and_then(|s| s.to_str().map(str::to_owned))
            })
            .ok_or_else(|| unsupported("no attrname (eager raises TypeError)"))?;
        if cls.get_attr(vm.ctx.intern_str("__dict__")).is_none() {
            return Err(unsupported(
                "instances without __dict__ (eager raises TypeError)",
            ));
        }
        let func = prop
            .get_attr("func", vm)
            .map_err(|_| unsupported("no func"))?;
        let value = self.call_vt(wrap_unguarded(func, vm), vec![obj.clone()], Vec::new())?;
        self.out
            .side_effects
            .set_attr(o.as_object(), &attrname, Some(value.clone()));
        Ok(value)
    }
}

/// Whether `obj` is a `functools.cached_property`.
fn is_cached_property(obj: &PyObjectRef, vm: &VirtualMachine) -> bool {
    super::super::bridge::import_module("functools", vm)
        .and_then(|m| m.get_attr("cached_property", vm))
        .is_ok_and(|c| obj.class().is(&c))
}
