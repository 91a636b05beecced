//! Builtins and container methods while tracing (Dynamo's `BuiltinVariable` and the list/dict/
//! tuple trackers' `call_method`).
//!
//! On constants, a builtin runs for real (it is pure on immutable values). On tracked values it
//! is modelled: `len` of a list is its length, `isinstance` of a tensor is known, `range` and
//! `enumerate` produce unrolled iterators. Anything else is a graph break, never a guess.

use std::cell::RefCell;
use std::rc::Rc;

use rustpython_vm::builtins::PyStr;
use rustpython_vm::{AsObject, PyObjectRef};

use super::bridge;
use super::container_methods::set_dict_item;
use super::exc::{GraphBreak, GraphBreakKind};
use super::symbolic_convert::Tracer;
use super::variables::builder::{wrap_fresh, wrap_unguarded};
use super::variables::{Kind, ListVar, Vt};

/// Builtins that are pure functions of their (constant) arguments.
const PURE_ON_CONSTANTS: &[&str] = &[
    "abs",
    "all",
    "any",
    "bool",
    "chr",
    "divmod",
    "float",
    "hash",
    "int",
    "len",
    "max",
    "min",
    "ord",
    "pow",
    "repr",
    "round",
    "sorted",
    "str",
    "sum",
    "tuple",
    "list",
    "range",
    "slice",
    "frozenset",
    "set",
    "bin",
    "hex",
    "oct",
    "format",
    "isinstance",
    "issubclass",
    "callable",
    "zip",
    "enumerate",
    "reversed",
    "getattr",
    "hasattr",
    "type",
    "dict",
    "complex",
    "id",
    "iter",
];

/// Builtins that only exist for their effect on the outside world.
const IO_BUILTINS: &[&str] = &[
    "print",
    "input",
    "open",
    "breakpoint",
    "exec",
    "eval",
    "compile",
    "exit",
    "quit",
    "setattr",
    "delattr",
    "globals",
    "locals",
    "vars",
    "dir",
    "next",
    "super",
];

impl Tracer<'_> {
    /// Constants of every tracker, if all are constants.
    pub(crate) fn all_consts(&self, vts: &[Vt]) -> Option<Vec<PyObjectRef>> {
        vts.iter().map(|v| v.as_const().cloned()).collect()
    }

    /// Calls a real Python callable with constant arguments (trace-time folding).
    pub(crate) fn fold(
        &self,
        f: &PyObjectRef,
        args: Vec<PyObjectRef>,
        kwargs: Vec<(String, PyObjectRef)>,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let kwargs = kwargs
            .into_iter()
            .collect::<rustpython_vm::function::KwArgs>();
        let r = f
            .call(rustpython_vm::function::FuncArgs::new(args, kwargs), vm)
            .map_err(|e| {
                let msg = super::fx::error_text(&e, vm);
                GraphBreak::new(
                    GraphBreakKind::OpError,
                    format!("constant folding raised {}: {msg}", e.class().name()),
                )
            })?;
        Ok(wrap_fresh(r, vm))
    }

    /// `name(*args, **kwargs)` for a builtin function or type.
    pub(crate) fn call_builtin(
        &mut self,
        obj: &PyObjectRef,
        name: &str,
        args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        if matches!(name, "_run_backward" | "_run_grad")
            && obj
                .get_attr("__module__", vm)
                .is_ok_and(|m| m.str(vm).is_ok_and(|m| m.to_string() == "_rynamo_autograd"))
        {
            // `torch.autograd.backward` / `grad` reached through the Python wrappers.
            return Err(GraphBreak::new(
                GraphBreakKind::AutogradCall,
                format!("call to torch.autograd ({name})"),
            ));
        }
        if let Some(r) = self.call_stdlib_function(obj, name, &args, &kwargs) {
            return r;
        }
        if let Some(r) = self.call_torch_folded(obj, name, &args, &kwargs) {
            return r;
        }
        if let (
            "str" | "repr",
            [
                Vt {
                    kind: Kind::Exception(e),
                    ..
                },
            ],
        ) = (name, args.as_slice())
            && kwargs.is_empty()
            && let Some(real) = e.materialize(vm)
        {
            // An exception made from constants formats to a constant.
            return self.fold(obj, vec![real], Vec::new());
        }
        if IO_BUILTINS.contains(&name) && !matches!(name, "next" | "setattr" | "delattr") {
            return Err(GraphBreak::new(
                GraphBreakKind::BuiltinCall,
                format!(
                    "builtin `{name}` with argument types [{}]",
                    args.iter().map(Vt::describe).collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        let kw_consts: Option<Vec<(String, PyObjectRef)>> = kwargs
            .iter()
            .map(|(k, v)| v.as_const().map(|c| (k.clone(), c.clone())))
            .collect();
        if let ("int", [x]) = (name, args.as_slice())
            && matches!(x.kind, Kind::SymInt(_))
            && kwargs.is_empty()
        {
            // `int()` of a size is the size, still symbolic (as Dynamo's SymNodeVariable).
            return Ok(x.clone());
        }
        if let ("int", [x]) = (name, args.as_slice())
            && kwargs.is_empty()
            && let Some(v) = self.sym_float_fn(super::sym::FloatFn::Trunc, x)
        {
            // `int(n / 2)`: PyTorch's `torch.sym_int`, toward zero.
            return Ok(v);
        }
        if let ("abs", [x]) = (name, args.as_slice())
            && let Some(v) = self.sym_unary(x, true)
        {
            return Ok(v);
        }
        if matches!(name, "max" | "min")
            && args.len() >= 2
            && kwargs.is_empty()
            && let Some(v) = self.sym_min_max(name == "max", &args)
        {
            // `max(n, 2)` of SymInts and ints stays symbolic (PyTorch's `torch.sym_max`).
            return Ok(v);
        }
        if let ("float", [x]) = (name, args.as_slice())
            && kwargs.is_empty()
            && let Some(v) = self.sym_to_float(x)
        {
            // `float(n)` of a SymInt is a SymFloat (PyTorch's `torch.sym_float`).
            return Ok(v);
        }
        if PURE_ON_CONSTANTS.contains(&name)
            && let (Some(consts), Some(kw)) = (self.all_consts(&args), kw_consts.clone())
            && !matches!(name, "iter" | "enumerate" | "zip" | "reversed")
        {
            return self.fold(obj, consts, kw);
        }
        // Containers of constants fold too, on fresh copies of their values (`set([1, 2])`,
        // `bool([1])`, `str((1, 2))`); only builtins that neither keep nor expose their
        // argument's identity qualify. Not `tuple`: its items are the argument's own objects
        // (`tuple(l)[0] is l[0]`), which the copies are not; it unpacks the trackers below.
        if matches!(
            name,
            "bool" | "len" | "set" | "frozenset" | "str" | "repr" | "hash" | "format"
        ) && let (Some(values), Some(kw)) = (
            super::variables::python_value::python_values(&args, vm),
            kw_consts.clone(),
        ) {
            return self.fold(obj, values, kw);
        }
        if let Some(r) = self.call_iterator_builtin(name, &args, &kwargs) {
            return r;
        }
        match name {
            "len" => {
                let [x] = args.as_slice() else {
                    return Err(bad_args(name));
                };
                let n = match &x.kind {
                    Kind::Tuple(items) | Kind::NamedTuple(_, items) => items.len(),
                    Kind::List(l) => l.borrow().items.len(),
                    Kind::Dict(d) | Kind::DictView(d, _) => d.borrow().items.len(),
                    Kind::Set(s) => s.length(vm).map_err(|_| bad_args(name))?,
                    Kind::Tensor(t) => {
                        if t.meta().shape.is_empty() {
                            return Err(GraphBreak::new(
                                GraphBreakKind::OpError,
                                "len() of a 0-d tensor",
                            ));
                        }
                        return Ok(self.out.size_of(&t.clone(), 0, vm));
                    }
                    Kind::NNModule(_)
                        if let Some(r) = self.built_module_dunder(x, "__len__", Vec::new()) =>
                    {
                        return r;
                    }
                    Kind::NNModule(m) => {
                        self.guard_module_children(x)?;
                        m.length(vm).map_err(|_| bad_args(name))?
                    }
                    _ => return Err(bad_args(name)),
                };
                Ok(Vt::constant(vm.ctx.new_int(n).into()))
            }
            "type" => {
                let [x] = args.as_slice() else {
                    return Err(bad_args(name));
                };
                Ok(wrap_unguarded(self.type_of(x)?, vm))
            }
            "hasattr" | "getattr" => {
                let (x, attr) = match args.as_slice() {
                    [x, a] | [x, a, _] => (
                        x.clone(),
                        a.as_const().and_then(|a| {
                            a.downcast_ref::<PyStr>()
                                .and_then(|s| s.to_str().map(str::to_owned))
                        }),
                    ),
                    _ => return Err(bad_args(name)),
                };
                let attr = attr.ok_or_else(|| bad_args(name))?;
                if name == "hasattr" && args.len() != 2 {
                    return Err(bad_args(name));
                }
                let got = self.get_attr(x, &attr);
                // Only the traced program's own AttributeError means "absent" (what eager's
                // hasattr and getattr default catch); any other break means Dynamo does not
                // know, and breaks instead of answering.
                let absent = |e: &GraphBreak| e.is_raised(vm.ctx.exceptions.attribute_error, vm);
                match (name, got) {
                    ("hasattr", Ok(_)) => Ok(Vt::constant(vm.ctx.new_bool(true).into())),
                    ("hasattr", Err(e)) if absent(&e) => {
                        Ok(Vt::constant(vm.ctx.new_bool(false).into()))
                    }
                    (_, Ok(v)) => Ok(v),
                    (_, Err(e)) => match args.get(2) {
                        Some(default) if absent(&e) => Ok(default.clone()),
                        _ => Err(e),
                    },
                }
            }
            "setattr" => {
                let [x, a, v] = args.as_slice() else {
                    return Err(bad_args(name));
                };
                let attr = a
                    .as_const()
                    .and_then(|a| {
                        a.downcast_ref::<PyStr>()
                            .and_then(|s| s.to_str().map(str::to_owned))
                    })
                    .ok_or_else(|| bad_args(name))?;
                self.set_attr(x.clone(), &attr, Some(v.clone()))?;
                Ok(Vt::constant(vm.ctx.none()))
            }
            "delattr" => {
                let [x, a] = args.as_slice() else {
                    return Err(bad_args(name));
                };
                let attr = a
                    .as_const()
                    .and_then(|a| {
                        a.downcast_ref::<PyStr>()
                            .and_then(|s| s.to_str().map(str::to_owned))
                    })
                    .ok_or_else(|| bad_args(name))?;
                // `del x.attr` needs the attribute to exist, as eager's delattr does.
                self.get_attr(x.clone(), &attr)?;
                self.set_attr(x.clone(), &attr, None)?;
                Ok(Vt::constant(vm.ctx.none()))
            }
            "iter" => {
                let [x] = args.as_slice() else {
                    return Err(bad_args(name));
                };
                self.make_iter(x.clone())
            }
            "next" => {
                let (it, default) = match args.as_slice() {
                    [it] => (it, None),
                    [it, d] => (it, Some(d.clone())),
                    _ => return Err(bad_args(name)),
                };
                // An exhausted iterator raises StopIteration in the trace, as eager does (a
                // traced `except StopIteration` catches it).
                let exhausted = |_what: &str| match &default {
                    Some(d) => Ok(d.clone()),
                    None => Err(super::variables::exceptions::raise_builtin_noargs(
                        vm.ctx.exceptions.stop_iteration,
                    )),
                };
                if let Kind::Generator(g) = &it.kind {
                    return match self.gen_next(&g.clone())? {
                        Some(v) => Ok(v),
                        None => exhausted("generator"),
                    };
                }
                let Kind::Iter(it) = &it.kind else {
                    return Err(bad_args(name));
                };
                let mut it = it.borrow_mut();
                match it.items.get(it.pos).cloned() {
                    Some(v) => {
                        it.pos += 1;
                        Ok(v)
                    }
                    None => exhausted("iterator"),
                }
            }
            "range" => {
                let consts = self.all_consts(&args).ok_or_else(|| bad_args(name))?;
                self.fold(obj, consts, vec![])
            }
            "list" | "tuple" => {
                // `tuple(t)` of a tuple is `t` itself.
                if let ("tuple", [t]) = (name, args.as_slice())
                    && matches!(t.kind, Kind::Tuple(_))
                {
                    return Ok(t.clone());
                }
                let items = match args.as_slice() {
                    [] => Vec::new(),
                    [x] => self.unpack_iterable(x)?,
                    _ => return Err(bad_args(name)),
                };
                Ok(if name == "list" {
                    Vt::new(Kind::List(Rc::new(RefCell::new(ListVar {
                        items,
                        mutated: false,
                        ..Default::default()
                    }))))
                } else {
                    Vt::new(Kind::Tuple(items))
                })
            }
            "dict" => self.build_dict_call(args, kwargs),
            "min" | "max" | "sum" | "any" | "all" | "sorted" | "abs" => {
                self.reduce_builtin(obj, name, args, kwargs)
            }
            "bool" | "int" | "float" => {
                if let Some(x) = args.first()
                    && x.as_tensor().is_some()
                {
                    let kind = if name == "bool" {
                        GraphBreakKind::DataDependentBranch
                    } else {
                        GraphBreakKind::TensorToPython
                    };
                    return Err(GraphBreak::new(kind, format!("{name}() of a tensor")));
                }
                if let ("bool", [x]) = (name, args.as_slice()) {
                    // Truth as the condition of an `if` would take it.
                    let t = self.truth(x)?;
                    return Ok(Vt::constant(vm.ctx.new_bool(t).into()));
                }
                Err(bad_args(name))
            }
            "callable" => {
                let [x] = args.as_slice() else {
                    return Err(bad_args(name));
                };
                let c = self.is_callable(x)?;
                Ok(Vt::constant(vm.ctx.new_bool(c).into()))
            }
            "id" => {
                let [x] = args.as_slice() else {
                    return Err(bad_args(name));
                };
                self.id_of(x)
            }
            "isinstance" | "issubclass" => {
                // Checks whose answer needs more than the type (ABCs, tuples of them): asked
                // of the real objects (classes are real; the instance's type is known).
                let [x, cls] = args.as_slice() else {
                    return Err(bad_args(name));
                };
                let cls = self.class_object(cls)?;
                let sub = match (name, &x.kind) {
                    ("issubclass", Kind::Class(c) | Kind::Builtin(c, _) | Kind::Const(c)) => {
                        c.clone()
                    }
                    ("issubclass", _) => return Err(bad_args(name)),
                    _ => self.type_of(x)?,
                };
                let f = vm
                    .builtins
                    .get_attr("issubclass", vm)
                    .map_err(|_| bad_args(name))?;
                self.fold(&f, vec![sub, cls], Vec::new())
            }
            "map" | "filter" => {
                // Dynamo's polyfills: lazy generators, traced like any generator function.
                let f = bridge::import_module("torch._dynamo.polyfills", vm)
                    .and_then(|m| m.get_attr(&vm.ctx.new_str(name), vm))
                    .map_err(|_| bad_args(name))?;
                if !kwargs.is_empty() || args.len() < 2 {
                    return Err(bad_args(name));
                }
                self.call_vt(wrap_unguarded(f, vm), args, Vec::new())
            }
            _ => Err(GraphBreak::new(
                GraphBreakKind::BuiltinCall,
                format!(
                    "builtin `{name}` with argument types [{}]",
                    args.iter().map(Vt::describe).collect::<Vec<_>>().join(", ")
                ),
            )),
        }
    }

    fn build_dict_call(
        &mut self,
        args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let mut items: Vec<(PyObjectRef, Vt)> = Vec::new();
        if let Some(src) = args.first() {
            match &src.kind {
                Kind::Dict(d) => items.extend(d.borrow().items.iter().cloned()),
                _ => {
                    for pair in self.unpack_iterable(src)? {
                        let Kind::Tuple(kv) = &pair.kind else {
                            return Err(bad_args("dict"));
                        };
                        let [k, v] = kv.as_slice() else {
                            return Err(bad_args("dict"));
                        };
                        let k = k.as_const().cloned().ok_or_else(|| bad_args("dict"))?;
                        items.push((k, v.clone()));
                    }
                }
            }
        }
        for (k, v) in kwargs {
            let key: PyObjectRef = vm.ctx.new_str(k).into();
            set_dict_item(&mut items, key, v, vm);
        }
        Ok(Vt::new(Kind::Dict(Rc::new(RefCell::new(
            super::variables::DictVar {
                items,
                mutated: false,
                ..Default::default()
            },
        )))))
    }

    /// The type of a tracked value.
    pub(crate) fn type_of(&self, x: &Vt) -> Result<PyObjectRef, GraphBreak> {
        let vm = self.vm;
        Ok(match &x.kind {
            // A tensor from the frame may be a subclass (`nn.Parameter`): its own class, fixed
            // by the TENSOR_MATCH guard's type check on its source.
            Kind::Tensor(_) => match x
                .source
                .as_ref()
                .and_then(|s| s.eval(&self.out.frame, vm).ok())
            {
                Some(real) => real.class().to_owned().into(),
                None => bridge::tensor_class(vm).ok_or_else(|| bad_args("type"))?,
            },
            Kind::Partial(_) => bridge::import_module("functools", vm)
                .and_then(|m| m.get_attr("partial", vm))
                .map_err(|_| bad_args("type"))?,
            Kind::NestedFunction(_) => vm.ctx.types.function_type.to_owned().into(),
            Kind::BoundMethod(..) => vm.ctx.types.bound_method_type.to_owned().into(),
            Kind::Generator(_) => vm.ctx.types.generator_type.to_owned().into(),
            Kind::DictView(d, view) => {
                let real = vm.ctx.new_dict();
                let _ = d;
                vm.call_method(real.as_object(), view.method(), ())
                    .map_err(|_| bad_args("type"))?
                    .class()
                    .to_owned()
                    .into()
            }
            Kind::Const(c)
            | Kind::Object(c)
            | Kind::NNModule(c)
            | Kind::Function(c)
            | Kind::Module(c)
            | Kind::Class(c)
            | Kind::Builtin(c, _) => c.class().to_owned().into(),
            Kind::Tuple(_) => vm.ctx.types.tuple_type.to_owned().into(),
            Kind::NamedTuple(cls, _) => cls.clone(),
            Kind::List(l) => match &l.borrow().deque {
                Some(_) => bridge::import_module("collections", vm)
                    .and_then(|m| m.get_attr("deque", vm))
                    .map_err(|_| bad_args("type"))?,
                None => vm.ctx.types.list_type.to_owned().into(),
            },
            Kind::Dict(d) => match &d.borrow().cls {
                Some(c) => c.clone(),
                None => vm.ctx.types.dict_type.to_owned().into(),
            },
            Kind::Set(_) => vm.ctx.types.set_type.to_owned().into(),
            Kind::Slice(_) => vm.ctx.types.slice_type.to_owned().into(),
            Kind::Exception(e) => e.cls.clone(),
            _ => return Err(bad_args("type")),
        })
    }

    /// A class (or tuple of classes) argument of `isinstance`.
    pub(crate) fn class_object(&self, cls: &Vt) -> Result<PyObjectRef, GraphBreak> {
        match &cls.kind {
            Kind::Class(c) | Kind::Builtin(c, _) | Kind::Const(c) => Ok(c.clone()),
            Kind::Tuple(items) => {
                let objs = items
                    .iter()
                    .map(|i| self.class_object(i))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(self.vm.ctx.new_tuple(objs).into())
            }
            _ => Err(bad_args("isinstance")),
        }
    }
}

pub(crate) fn bad_args(name: &str) -> GraphBreak {
    GraphBreak::new(
        GraphBreakKind::UnsupportedOperation,
        format!("`{name}` with these argument types is not modelled"),
    )
}

impl Tracer<'_> {
    /// `callable(x)`: what the value's type says (`__call__` on the class), for every kind the
    /// trace can name; anything else is not modelled.
    fn is_callable(&self, x: &Vt) -> Result<bool, GraphBreak> {
        Ok(match &x.kind {
            Kind::Function(_)
            | Kind::NestedFunction(_)
            | Kind::BoundMethod(..)
            | Kind::Partial(_)
            | Kind::TorchOp { .. }
            | Kind::Builtin(..)
            | Kind::Class(_)
            | Kind::NNModule(_)
            | Kind::Method(..)
            | Kind::GradMode(_)
            | Kind::ErrorOnGraphBreak(_) => true,
            Kind::Tensor(_)
            | Kind::SymInt(_)
            | Kind::SymFloat(_)
            | Kind::Tuple(_)
            | Kind::NamedTuple(..)
            | Kind::List(_)
            | Kind::Dict(_)
            | Kind::Set(_)
            | Kind::Slice(_)
            | Kind::Iter(_)
            | Kind::Generator(_)
            | Kind::Exception(_)
            | Kind::DictView(..)
            | Kind::Cell(_) => false,
            // The class decides (instances of classes with `__call__` are callable); a class
            // whose instances are callable only through `__getattr__` tricks does not exist.
            Kind::Const(o) | Kind::Object(o) | Kind::Module(o) => o.is_callable(),
            Kind::Null => return Err(bad_args("callable")),
        })
    }

    /// `id(x)`: the real object's id for objects the frame holds (pinned by an ID_MATCH guard on
    /// the source, as Dynamo does), and for constants; objects made in the trace have no id yet.
    fn id_of(&mut self, x: &Vt) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let real = match (&x.kind, &x.source) {
            (Kind::Const(c), _) => c.clone(),
            (
                Kind::Object(o)
                | Kind::NNModule(o)
                | Kind::Function(o)
                | Kind::Class(o)
                | Kind::Module(o)
                | Kind::Builtin(o, _)
                | Kind::TorchOp { obj: o, .. },
                _,
            ) if !self
                .out
                .new_objects
                .contains_key(&(o.as_object() as *const _ as usize))
                && !self
                    .out
                    .built_modules
                    .contains_key(&(o.as_object() as *const _ as usize)) =>
            {
                if let Some(src) = &x.source {
                    self.out
                        .guards
                        .add(src, super::guards::Check::IdMatch { obj: o.clone() });
                }
                o.clone()
            }
            (Kind::Tensor(_) | Kind::List(_) | Kind::Dict(_) | Kind::Set(_), Some(src)) => {
                let o = src.eval(&self.out.frame, vm).map_err(|_| bad_args("id"))?;
                self.out
                    .guards
                    .add(src, super::guards::Check::IdMatch { obj: o.clone() });
                o
            }
            _ => {
                return Err(GraphBreak::new(
                    GraphBreakKind::BuiltinCall,
                    format!(
                        "id() of {}, which only exists once the graph runs",
                        x.describe()
                    ),
                ));
            }
        };
        Ok(Vt::constant(vm.ctx.new_int(real.get_id()).into()))
    }
}
