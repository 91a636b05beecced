//! Named tuples: `collections.namedtuple` classes (and `typing.NamedTuple`) and
//! `torch.return_types` structseqs. Tracked like tuples ([`Kind::NamedTuple`]) but keep their
//! class, so fields read by name, `type()` and the value rebuilt after the graph are right.

use rustpython_vm::builtins::{PyStr, PyTuple};
use rustpython_vm::{AsObject, PyObject, PyObjectRef, VirtualMachine};

use super::super::exc::{GraphBreak, GraphBreakKind};
use super::super::symbolic_convert::Tracer;
use super::{Kind, Vt};

/// The field names of a named-tuple class (a `tuple` subclass with string `_fields`).
pub fn fields(cls: &PyObject, vm: &VirtualMachine) -> Option<Vec<String>> {
    let ty = cls.downcast_ref::<rustpython_vm::builtins::PyType>()?;
    if ty.is(vm.ctx.types.tuple_type) || !ty.fast_issubclass(vm.ctx.types.tuple_type) {
        return None;
    }
    let f = cls.get_attr("_fields", vm).ok()?;
    let t = f.downcast_ref::<PyTuple>()?;
    t.as_slice()
        .iter()
        .map(|n| n.downcast_ref::<PyStr>()?.to_str().map(str::to_owned))
        .collect()
}

/// Whether `cls` is a `collections.namedtuple` class (built by field names, with defaults).
fn is_collections_namedtuple(cls: &PyObject, vm: &VirtualMachine) -> bool {
    fields(cls, vm).is_some() && cls.get_attr("_field_defaults", vm).is_ok()
}

/// Builds the Python value of a named tuple from its items (for reconstruction).
pub fn build(
    cls: &PyObject,
    items: Vec<PyObjectRef>,
    vm: &VirtualMachine,
) -> rustpython_vm::PyResult {
    let tuple: PyObjectRef = vm.ctx.new_tuple(items).into();
    if is_collections_namedtuple(cls, vm) {
        return vm.call_method(cls, "_make", (tuple,));
    }
    cls.to_owned().call((tuple,), vm)
}

impl Tracer<'_> {
    /// `cls(*args, **kwargs)` for a named-tuple class, or `None` if `cls` is not one.
    pub(crate) fn construct_named_tuple(
        &mut self,
        cls: &PyObjectRef,
        args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
    ) -> Option<Result<Vt, GraphBreak>> {
        let vm = self.vm;
        let names = fields(cls, vm)?;
        let bad = |why: &str| {
            GraphBreak::new(
                GraphBreakKind::UnsupportedCall,
                format!("{}(): {why} (eager raises TypeError)", cls.class().name()),
            )
        };
        if !is_collections_namedtuple(cls, vm) {
            // A structseq (`torch.return_types.max(seq)`): one iterable argument.
            let [seq] = args.as_slice() else {
                return Some(Err(bad("expects one sequence")));
            };
            if !kwargs.is_empty() {
                return Some(Err(bad("takes no keyword arguments")));
            }
            return Some(
                self.unpack_iterable(seq)
                    .map(|items| Vt::new(Kind::NamedTuple(cls.clone(), items))),
            );
        }
        let mut items: Vec<Option<Vt>> = vec![None; names.len()];
        if args.len() > names.len() {
            return Some(Err(bad("too many arguments")));
        }
        for (i, a) in args.into_iter().enumerate() {
            items[i] = Some(a);
        }
        for (k, v) in kwargs {
            let Some(i) = names.iter().position(|n| *n == k) else {
                return Some(Err(bad("unexpected keyword argument")));
            };
            if items[i].is_some() {
                return Some(Err(bad("multiple values for an argument")));
            }
            items[i] = Some(v);
        }
        let defaults = cls.get_attr("_field_defaults", vm).ok();
        let mut out = Vec::with_capacity(names.len());
        for (i, it) in items.into_iter().enumerate() {
            match it {
                Some(v) => out.push(v),
                None => {
                    let d = defaults
                        .as_ref()
                        .and_then(|d| d.get_item(names[i].as_str(), vm).ok());
                    match d {
                        Some(d) => out.push(super::builder::wrap_unguarded(d, vm)),
                        None => return Some(Err(bad("missing argument"))),
                    }
                }
            }
        }
        Some(Ok(Vt::new(Kind::NamedTuple(cls.clone(), out))))
    }

    /// `nt.name`: a field; `_replace`/`_asdict`/`_make` (modelled methods, called by name);
    /// otherwise the class's attribute: data, a function bound to the tuple, a classmethod
    /// bound to the class. Instances have no `__dict__` (`__slots__ = ()`), so a name the class
    /// lacks is eager's AttributeError.
    pub(crate) fn named_tuple_attr(
        &mut self,
        obj: &Vt,
        cls: &PyObjectRef,
        items: &[Vt],
        name: &str,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        if let Some(i) = fields(cls, vm).and_then(|f| f.iter().position(|n| n == name)) {
            return items.get(i).cloned().ok_or_else(|| {
                GraphBreak::new(GraphBreakKind::UnsupportedConstruct, "named tuple field")
            });
        }
        if name == "__class__" {
            return Ok(super::builder::wrap_unguarded(cls.clone(), vm));
        }
        if matches!(name, "_replace" | "_asdict" | "_make") && is_collections_namedtuple(cls, vm) {
            return Ok(Vt::new(Kind::Method(Box::new(obj.clone()), name.into())));
        }
        let Some(ty) = cls.downcast_ref::<rustpython_vm::builtins::PyType>() else {
            return Err(super::super::attribute::attr_unmodelled(obj, name));
        };
        let Some(attr) = ty.get_attr(vm.ctx.intern_str(name)) else {
            return Err(super::super::attribute::attr_missing(obj, name, vm));
        };
        if attr
            .downcast_ref::<rustpython_vm::builtins::PyFunction>()
            .is_some()
        {
            let f = super::builder::wrap_unguarded(attr, vm);
            return Ok(Vt::new(Kind::BoundMethod(
                Box::new(f),
                Box::new(obj.clone()),
            )));
        }
        if attr.class().is(vm.ctx.types.classmethod_type)
            && let Ok(f) = attr.get_attr("__func__", vm)
        {
            return Ok(Vt::new(Kind::BoundMethod(
                Box::new(super::builder::wrap_unguarded(f, vm)),
                Box::new(super::builder::wrap_unguarded(cls.clone(), vm)),
            )));
        }
        if attr.class().is(vm.ctx.types.staticmethod_type)
            && let Ok(f) = attr.get_attr("__func__", vm)
        {
            return Ok(super::builder::wrap_unguarded(f, vm));
        }
        let w = super::builder::wrap_unguarded(attr.clone(), vm);
        if matches!(w.kind, Kind::Const(_)) {
            return Ok(w);
        }
        if attr.is_callable() {
            // A tuple method (`count`, `index`): called by name on the tracker.
            return Ok(Vt::new(Kind::Method(Box::new(obj.clone()), name.into())));
        }
        Err(super::super::attribute::attr_unmodelled(obj, name))
    }

    /// `nt._replace(**kw)`, `nt._asdict()`, `cls._make(iterable)` of a `collections.namedtuple`.
    pub(crate) fn named_tuple_method(
        &mut self,
        cls: &PyObjectRef,
        items: &[Vt],
        name: &str,
        args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let names = fields(cls, vm).unwrap_or_default();
        let bad = || {
            GraphBreak::new(
                GraphBreakKind::UnsupportedCall,
                format!("namedtuple.{name}() with these arguments (eager raises)"),
            )
        };
        match name {
            "_replace" if args.is_empty() => {
                let mut out = items.to_vec();
                for (k, v) in kwargs {
                    let i = names.iter().position(|n| *n == k).ok_or_else(bad)?;
                    out[i] = v;
                }
                Ok(Vt::new(Kind::NamedTuple(cls.clone(), out)))
            }
            "_asdict" if args.is_empty() && kwargs.is_empty() => {
                let pairs = names
                    .iter()
                    .zip(items)
                    .map(|(n, v)| (vm.ctx.new_str(n.as_str()).into(), v.clone()))
                    .collect();
                Ok(Vt::new(Kind::Dict(std::rc::Rc::new(
                    std::cell::RefCell::new(super::DictVar {
                        items: pairs,
                        mutated: false,
                        ..Default::default()
                    }),
                ))))
            }
            "_make" if kwargs.is_empty() => {
                let [seq] = args.as_slice() else {
                    return Err(bad());
                };
                let items = self.unpack_iterable(seq)?;
                if items.len() != names.len() {
                    return Err(bad());
                }
                Ok(Vt::new(Kind::NamedTuple(cls.clone(), items)))
            }
            _ => Err(bad()),
        }
    }
}
