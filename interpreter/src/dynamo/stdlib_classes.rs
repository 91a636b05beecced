//! Standard-library classes instantiated inside the compiled region (Dynamo's `DequeVariable`,
//! `OrderedDictVariable`, `DefaultDictVariable`, `CounterVariable`; `variables/lists.py` and
//! `dicts.py`): `collections.deque(...)`, `OrderedDict(...)`, `defaultdict(factory, ...)` and
//! `Counter(...)` become tracked containers that keep their class; `enum` lookups by value or
//! name; `operator.methodcaller`; `functools.lru_cache` wrappers, traced through `__wrapped__`.

use std::cell::RefCell;
use std::rc::Rc;

use rustpython_vm::builtins::{PyDict, PyStr};
use rustpython_vm::{AsObject, PyObjectRef};

use super::bridge;
use super::exc::{GraphBreak, GraphBreakKind};
use super::symbolic_convert::Tracer;
use super::variables::builder::wrap_unguarded;
use super::variables::{DictVar, Kind, ListVar, Vt};

fn bad(what: &str) -> GraphBreak {
    GraphBreak::new(
        GraphBreakKind::UnsupportedCall,
        format!("{what} with these arguments"),
    )
}

impl Tracer<'_> {
    /// `collections.<name>(*args, **kwargs)`; `None` when `name` is not a modelled class.
    pub(crate) fn construct_collection(
        &mut self,
        cls: &PyObjectRef,
        name: &str,
        args: &[Vt],
        kwargs: &[(String, Vt)],
    ) -> Option<Result<Vt, GraphBreak>> {
        Some(match name {
            "deque" => self.make_deque(args, kwargs),
            "OrderedDict" => self.make_typed_dict(cls, None, args, kwargs),
            "defaultdict" => {
                let (factory, rest) = match args.split_first() {
                    Some((f, rest)) => (f.clone(), rest),
                    None => (Vt::constant(self.vm.ctx.none()), args),
                };
                if !factory.as_const().is_some_and(|c| self.vm.is_none(c))
                    && !self.callable_tracker(&factory)
                {
                    // Eager raises TypeError("first argument must be callable or None").
                    return Some(Err(bad("defaultdict")));
                }
                self.make_typed_dict(cls, Some(factory), rest, kwargs)
            }
            "Counter" => self.make_counter(cls, args, kwargs),
            _ => return None,
        })
    }

    fn callable_tracker(&self, v: &Vt) -> bool {
        matches!(
            v.kind,
            Kind::Function(_)
                | Kind::NestedFunction(_)
                | Kind::BoundMethod(..)
                | Kind::Partial(_)
                | Kind::Builtin(..)
                | Kind::Class(_)
                | Kind::TorchOp { .. }
        )
    }

    /// `deque(iterable=(), maxlen=None)`: the last `maxlen` items.
    fn make_deque(&mut self, args: &[Vt], kwargs: &[(String, Vt)]) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let mut iterable = args.first().cloned();
        let mut maxlen = args.get(1).cloned();
        if args.len() > 2 {
            return Err(bad("deque"));
        }
        for (k, v) in kwargs {
            match k.as_str() {
                "iterable" if iterable.is_none() => iterable = Some(v.clone()),
                "maxlen" if maxlen.is_none() => maxlen = Some(v.clone()),
                _ => return Err(bad("deque")),
            }
        }
        let maxlen = match maxlen.as_ref().and_then(|m| m.as_const()) {
            None if maxlen.is_none() => None,
            Some(c) if vm.is_none(c) => None,
            Some(c) => Some(c.try_to_value::<usize>(vm).map_err(|_| bad("deque"))?),
            None => return Err(bad("deque")),
        };
        let mut items = match &iterable {
            Some(it) => self.unpack_iterable(it)?,
            None => Vec::new(),
        };
        if let Some(n) = maxlen
            && items.len() > n
        {
            items.drain(..items.len() - n);
        }
        Ok(Vt::new(Kind::List(Rc::new(RefCell::new(ListVar {
            items,
            mutated: false,
            deque: Some(maxlen),
        })))))
    }

    /// `OrderedDict(...)` / `defaultdict(factory, ...)`: `dict(...)`'s items, with the class.
    fn make_typed_dict(
        &mut self,
        cls: &PyObjectRef,
        factory: Option<Vt>,
        args: &[Vt],
        kwargs: &[(String, Vt)],
    ) -> Result<Vt, GraphBreak> {
        let dict = self.call_builtin(
            &self.vm.ctx.types.dict_type.to_owned().into(),
            "dict",
            args.to_vec(),
            kwargs.to_vec(),
        )?;
        let Kind::Dict(d) = dict.kind else {
            return Err(bad("dict"));
        };
        let items = d.borrow().items.clone();
        Ok(Vt::new(Kind::Dict(Rc::new(RefCell::new(DictVar {
            items,
            mutated: false,
            cls: Some(cls.clone()),
            default_factory: factory,
        })))))
    }

    /// `Counter(...)` of constants: counted by Python's own Counter while tracing.
    fn make_counter(
        &mut self,
        cls: &PyObjectRef,
        args: &[Vt],
        kwargs: &[(String, Vt)],
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let a = super::variables::python_value::python_values(args, vm)
            .ok_or_else(|| bad("Counter"))?;
        let kvals: Vec<Vt> = kwargs.iter().map(|(_, v)| v.clone()).collect();
        let kw = super::variables::python_value::python_values(&kvals, vm)
            .ok_or_else(|| bad("Counter"))?;
        let kw: rustpython_vm::function::KwArgs =
            kwargs.iter().map(|(k, _)| k.clone()).zip(kw).collect();
        let real = cls
            .call(rustpython_vm::function::FuncArgs::new(a, kw), vm)
            .map_err(|_| bad("Counter"))?;
        let d = real
            .downcast_ref::<PyDict>()
            .ok_or_else(|| bad("Counter"))?;
        let items = d
            .items_vec()
            .into_iter()
            .map(|(k, v)| (k, wrap_unguarded(v, vm)))
            .collect();
        Ok(Vt::new(Kind::Dict(Rc::new(RefCell::new(DictVar {
            items,
            mutated: false,
            cls: Some(cls.clone()),
            default_factory: None,
        })))))
    }

    /// `operator.methodcaller(name, *args, **kwargs)(obj)`: `obj.name(*args, **kwargs)`.
    pub(crate) fn call_methodcaller(
        &mut self,
        mc: &PyObjectRef,
        args: Vec<Vt>,
    ) -> Option<Result<Vt, GraphBreak>> {
        let vm = self.vm;
        if mc.class().name().to_string() != "methodcaller"
            || super::polyfills::module_of(mc.class().as_object(), vm).as_deref()
                != Some("operator")
        {
            return None;
        }
        let [target] = <[Vt; 1]>::try_from(args).ok()?;
        // `repr` is the stable way in: `operator.methodcaller('name', arg, key=value)`; the
        // parts come from the object's own pickling state instead.
        let reduced = vm.call_method(mc, "__reduce__", ()).ok()?;
        let parts = vm.extract_elements_with(&reduced, Ok).ok()?;
        let (ctor, call_args) = (parts.first()?.clone(), parts.get(1)?.clone());
        let call_args = vm.extract_elements_with(&call_args, Ok).ok()?;
        // Without keywords: `(methodcaller, (name, *args))`; with: `(partial(methodcaller,
        // name, **kw), args)`.
        let (name, pos, kw): (PyObjectRef, Vec<PyObjectRef>, Vec<(String, PyObjectRef)>) =
            if ctor.is(mc.class().as_object()) {
                let (n, rest) = call_args.split_first()?;
                (n.clone(), rest.to_vec(), Vec::new())
            } else {
                let pargs = ctor.get_attr("args", vm).ok()?;
                let n = vm.extract_elements_with(&pargs, Ok).ok()?.first()?.clone();
                let kwd = ctor.get_attr("keywords", vm).ok()?;
                let kwd = kwd.downcast_ref::<PyDict>()?;
                let kw = kwd
                    .items_vec()
                    .into_iter()
                    .filter_map(|(k, v)| Some((k.downcast_ref::<PyStr>()?.to_str()?.to_owned(), v)))
                    .collect();
                (n, call_args, kw)
            };
        let name = name.downcast_ref::<PyStr>()?.to_str()?.to_owned();
        Some((|| {
            let method = self.get_attr(target, &name)?;
            let pos = pos.into_iter().map(|a| wrap_unguarded(a, vm)).collect();
            let kw = kw
                .into_iter()
                .map(|(k, v)| (k, wrap_unguarded(v, vm)))
                .collect();
            self.call_vt(method, pos, kw)
        })())
    }

    /// A `functools.lru_cache` / `cache` wrapper: Dynamo ignores the cache and traces the
    /// wrapped function, with PyTorch's warning.
    pub(crate) fn call_lru_cache_wrapper(
        &mut self,
        wrapper: &PyObjectRef,
        callee: &Vt,
        args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
    ) -> Option<Result<Vt, GraphBreak>> {
        let vm = self.vm;
        if wrapper.class().name().to_string() != "_lru_cache_wrapper" {
            return None;
        }
        let wrapped = wrapper.get_attr("__wrapped__", vm).ok()?;
        let f = match &callee.source {
            Some(src) => {
                super::variables::builder::wrap(self.out, wrapped, src.attr("__wrapped__"), vm)
            }
            None => wrap_unguarded(wrapped, vm),
        };
        let msg = "Dynamo detected a call to a `functools.lru_cache`-wrapped function. Dynamo ignores the cache wrapper and directly traces the wrapped function. Silent incorrectness is only a *potential* risk, not something we have observed.";
        if let Ok(warn) = bridge::import_module("warnings", vm).and_then(|w| w.get_attr("warn", vm))
        {
            let _ = warn.call((vm.ctx.new_str(msg),), vm);
        }
        Some(self.call_vt(f, args, kwargs))
    }

    /// `Color(value)` / `Color[name]` of an `enum.Enum` class: members are fixed when the class
    /// is made, so the lookup is made for real (a missing one raises as eager does).
    pub(crate) fn enum_lookup(
        &mut self,
        cls: &PyObjectRef,
        key: &Vt,
        by_name: bool,
    ) -> Option<Result<Vt, GraphBreak>> {
        let vm = self.vm;
        let enum_meta = bridge::import_module("enum", vm)
            .and_then(|m| m.get_attr("EnumMeta", vm))
            .ok()?;
        if !cls
            .class()
            .as_object()
            .real_is_subclass(&enum_meta, vm)
            .unwrap_or(false)
        {
            return None;
        }
        let k = key.as_const()?.clone();
        let r = if by_name {
            cls.get_item(&*k, vm)
        } else {
            cls.call((k,), vm)
        };
        Some(match r {
            Ok(member) => Ok(wrap_unguarded(member, vm)),
            Err(_) => Err(bad("enum lookup")),
        })
    }
}
