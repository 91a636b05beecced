//! Attribute reads on trackers (`LOAD_ATTR`).
//!
//! Tensors answer metadata (`shape`, `dtype`, `ndim`, ...) as guarded constants and turn methods
//! into bound tensor methods; modules, `nn.Module`s and user objects are read through the real
//! object, with a guard on the attribute's source; constants are read for real (they are
//! immutable).

use std::rc::Rc;

use rustpython_vm::builtins::{PyStr, PyType};
use rustpython_vm::{AsObject, PyObjectRef};

use super::bridge;
use super::exc::{GraphBreak, GraphBreakKind};
use super::source::Key;
use super::symbolic_convert::Tracer;
use super::variables::builder::{wrap, wrap_unguarded};
use super::variables::exceptions::raise_builtin;
use super::variables::{Kind, Vt};

/// Whether `c` is a built-in type whose instances are immutable (`str.isalnum(ch)`, an unbound
/// method of one, is then a pure function of constants).
pub(crate) fn is_immutable_builtin_type(
    c: &PyObjectRef,
    vm: &rustpython_vm::VirtualMachine,
) -> bool {
    let t = &vm.ctx.types;
    [
        t.str_type,
        t.int_type,
        t.float_type,
        t.bool_type,
        t.complex_type,
        t.bytes_type,
        t.tuple_type,
        t.frozenset_type,
        t.range_type,
    ]
    .iter()
    .any(|ty| c.is(*ty))
}

/// Whether `c` is `list`, `dict` or `set` (`set.difference(a, b)` is `a.difference(b)`).
pub(crate) fn is_container_type(c: &PyObjectRef, vm: &rustpython_vm::VirtualMachine) -> bool {
    let t = &vm.ctx.types;
    [t.list_type, t.dict_type, t.set_type]
        .iter()
        .any(|ty| c.is(*ty))
}

/// Classmethods of built-in types that only build a new value from their arguments.
pub(crate) const PURE_CLASSMETHODS: &[&str] = &["fromkeys", "maketrans", "from_bytes", "fromhex"];

/// Tensor attributes that are metadata (no graph node).
const TENSOR_META_ATTRS: &[&str] = &[
    "shape",
    "dtype",
    "device",
    "ndim",
    "is_cuda",
    "requires_grad",
    "is_leaf",
    "layout",
    "is_cpu",
    "is_sparse",
    "is_quantized",
    "is_meta",
    "is_nested",
    "is_mkldnn",
    "itemsize",
    "nbytes",
    "grad_fn",
];

/// The registry (`_parameters`, `_buffers` or `_modules`) an `nn.Module`'s attribute `name` was
/// read from, when it was: normal lookup missed (not in the instance `__dict__`, no class
/// attribute) and the class's `__getattr__` is `nn.Module`'s, which searches them in that order.
/// Such attributes are sourced as Dynamo sources them, `L['self']._modules['fc']._parameters
/// ['weight']` (graph inputs `L_self_modules_fc_parameters_weight_`): guards and the inputs of
/// every call then read plain dicts instead of running `__getattr__` (issue 31).
fn registry_holding(
    obj: &Vt,
    name: &str,
    vm: &rustpython_vm::VirtualMachine,
) -> Option<&'static str> {
    let Kind::NNModule(o) = &obj.kind else {
        return None;
    };
    let cls = o.class();
    let module_getattr = bridge::torch_attr("nn", vm)?
        .get_attr("Module", vm)
        .ok()?
        .get_attr("__getattr__", vm)
        .ok()?;
    if !cls
        .get_attr(vm.ctx.intern_str("__getattr__"))?
        .is(&module_getattr)
        || cls.get_attr(vm.ctx.intern_str(name)).is_some()
    {
        return None;
    }
    if o.dict()?.get_item_opt(name, vm).ok()?.is_some() {
        return None;
    }
    bridge::module_registry(o, name, vm)
}

impl Tracer<'_> {
    /// `obj.name` while tracing.
    pub(crate) fn get_attr(&mut self, obj: Vt, name: &str) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        match &obj.kind {
            Kind::Tensor(t) => {
                if TENSOR_META_ATTRS.contains(&name) {
                    return self.tensor_meta_attr(t, name);
                }
                match name {
                    "T" | "mT" | "data" => self.tensor_property(obj.clone(), name),
                    "real" | "imag" => self.tensor_component(obj.clone(), name),
                    _ => self.tensor_other_attr(&obj, name),
                }
            }
            Kind::Const(c) => {
                // Constants are immutable values of fixed types: a missing attribute is missing.
                let v = c
                    .get_attr(&vm.ctx.new_str(name), vm)
                    .map_err(|e| self.real_attr_failed(&obj, name, &e, true))?;
                // An immutable Signature's read-only mapping of its parameters.
                if name == "parameters" && super::inspect_signature::is_signature(c, vm) {
                    return Ok(Vt::constant(v));
                }
                if v.is_callable() && v.downcast_ref::<PyType>().is_none() {
                    // A method of an immutable value (`"a b".split`, `(5).__abs__`): called for
                    // real later.
                    return Ok(Vt::new(Kind::Method(Box::new(obj.clone()), name.into())));
                }
                Ok(wrap_unguarded(v, vm))
            }
            // An attribute of a SymInt or SymFloat (`n.bit_length()`, `(n / 2).is_integer()`)
            // is its value's: the value is used, so its symbols are specialised.
            Kind::SymInt(s) | Kind::SymFloat(s) => {
                let value = Vt::constant(s.concrete().clone());
                self.get_attr(value, name)
            }
            // A `torch.Size` holding SymInts (`x.shape` of dynamic sizes): its methods see the
            // sizes as values (specialised), as the constant `torch.Size` they were.
            Kind::NamedTuple(cls, items)
                if items.iter().any(|i| matches!(i.kind, Kind::SymInt(_)))
                    && cls.is(bridge::make_size(&[], vm).class()) =>
            {
                let size = self
                    .python_value(&obj)
                    .ok_or_else(|| attr_unmodelled(&obj, name))?;
                self.get_attr(Vt::constant(size), name)
            }
            Kind::NamedTuple(cls, items) => {
                let (cls, items) = (cls.clone(), items.clone());
                self.named_tuple_attr(&obj, &cls, &items, name)
            }
            Kind::Tuple(_)
            | Kind::List(_)
            | Kind::Dict(_)
            | Kind::Set(_)
            | Kind::Iter(_)
            | Kind::DictView(..) => self.container_attr(&obj, name),
            // `value` and `prev` of an `error_on_graph_break` manager (the decorator form reads
            // `self.value`), as the trace has them (`prev` changes when it is entered).
            Kind::ErrorOnGraphBreak(e) => match name {
                "value" => Ok(Vt::constant(vm.ctx.new_bool(e.value).into())),
                "prev" => Ok(Vt::constant(match e.prev.get() {
                    Some(p) => vm.ctx.new_bool(p).into(),
                    None => vm.ctx.none(),
                })),
                _ => Err(attr_unmodelled(&obj, name)),
            },
            Kind::Exception(e) => match name {
                "args" => Ok(Vt::new(Kind::Tuple(e.args.clone()))),
                "__class__" => Ok(wrap_unguarded(e.cls.clone(), vm)),
                _ => {
                    // A fresh exception has only what its class gives it.
                    let cls = e.cls.clone();
                    self.fixed_class_attr(&obj, &cls, name)
                }
            },
            Kind::GradMode(g) => match name {
                "__enter__" | "__exit__" | "clone" => {
                    Ok(Vt::new(Kind::Method(Box::new(obj.clone()), name.into())))
                }
                "prev" if g.prev.get().is_some() => Ok(Vt::constant(
                    vm.ctx.new_bool(g.prev.get().unwrap_or_default()).into(),
                )),
                "mode" => Ok(Vt::constant(vm.ctx.new_bool(g.mode).into())),
                _ => Err(attr_unmodelled(&obj, name)),
            },
            Kind::Module(m) => {
                // The torch namespace is trusted (Dynamo does not guard torch.* either).
                let trusted = is_torch_module(m, vm);
                let v = m
                    .get_attr(&vm.ctx.new_str(name), vm)
                    .map_err(|e| self.real_attr_failed(&obj, name, &e, trusted))?;
                if trusted {
                    return Ok(wrap_unguarded(v, vm));
                }
                Ok(match &obj.source {
                    Some(src) => wrap(self.out, v, src.attr(name), vm),
                    None => wrap_unguarded(v, vm),
                })
            }
            Kind::NNModule(o) | Kind::Object(o) => {
                if let Some(stored) = self.out.side_effects.get_attr(o.as_object(), name) {
                    // Stored or deleted in this trace: the overlay is the answer.
                    return stored.ok_or_else(|| attr_missing(&obj, name, vm));
                }
                if obj.source.is_none()
                    && let Some(info) = self
                        .out
                        .new_objects
                        .get(&(o.as_object() as *const _ as usize))
                        .cloned()
                {
                    return self.new_object_class_attr(&obj, &info, name);
                }
                let built = obj.source.is_none() && self.is_built_module(o);
                let v = match o.get_attr(&vm.ctx.new_str(name), vm) {
                    Ok(v) => v,
                    Err(e) if built => return self.built_module_missing_attr(&obj, name, &e),
                    Err(e) => return Err(self.real_attr_failed(&obj, name, &e, false)),
                };
                if built && let Some(d) = self.built_module_dict(o, name, &v) {
                    return Ok(d);
                }
                // A bound method of this object: keep the receiver's tracker (and its source).
                if v.class().is(vm.ctx.types.bound_method_type)
                    && let Ok(zelf) = v.get_attr("__self__", vm)
                    && zelf.is(o)
                    && let Ok(func) = v.get_attr("__func__", vm)
                {
                    // Guarded through the object, so rebinding the method on the class
                    // recompiles instead of running the old body.
                    let f = match &obj.source {
                        Some(src) => wrap(self.out, func, src.attr(name).attr("__func__"), vm),
                        None => wrap_unguarded(func, vm),
                    };
                    return Ok(Vt::new(Kind::BoundMethod(
                        Box::new(f),
                        Box::new(obj.clone()),
                    )));
                }
                Ok(match &obj.source {
                    Some(src) => {
                        let src = match registry_holding(&obj, name, vm) {
                            Some(reg) => src.attr(reg).item(Key::Str(name.into())),
                            None => src.attr(name),
                        };
                        wrap(self.out, v, src, vm)
                    }
                    None => wrap_unguarded(v, vm),
                })
            }
            Kind::Class(c)
            | Kind::Function(c)
            | Kind::Builtin(c, _)
            | Kind::TorchOp { obj: c, .. } => {
                // Built-in functions and types cannot gain attributes; registry ops are trusted.
                let fixed = matches!(obj.kind, Kind::Builtin(..) | Kind::TorchOp { .. })
                    || c.downcast_ref::<PyType>().is_some_and(|t| {
                        !t.slots
                            .flags
                            .has_feature(rustpython_vm::types::PyTypeFlags::HEAPTYPE)
                    });
                let v = c
                    .get_attr(&vm.ctx.new_str(name), vm)
                    .map_err(|e| self.real_attr_failed(&obj, name, &e, fixed))?;
                // `Point._make(...)` of a namedtuple class; the pure classmethods of built-in
                // types (`dict.fromkeys`); methods of `torch.Tensor` called unbound
                // (`torch.Tensor.add(x, 1)`): called by name on the class tracker.
                let namedtuple_make =
                    name == "_make" && super::variables::named_tuple::fields(c, vm).is_some();
                let pure_classmethod = matches!(obj.kind, Kind::Builtin(..))
                    && (PURE_CLASSMETHODS.contains(&name)
                        || ((is_immutable_builtin_type(c, vm) || is_container_type(c, vm))
                            && v.is_callable()
                            && v.downcast_ref::<PyType>().is_none()));
                let tensor_method = bridge::tensor_class(vm).is_some_and(|t| t.is(c))
                    && v.is_callable()
                    && v.downcast_ref::<PyType>().is_none();
                if namedtuple_make || pure_classmethod || tensor_method {
                    return Ok(Vt::new(Kind::Method(Box::new(obj.clone()), name.into())));
                }
                Ok(match &obj.source {
                    Some(src) => wrap(self.out, v, src.attr(name), vm),
                    None => wrap_unguarded(v, vm),
                })
            }
            Kind::Partial(p) => match name {
                "func" => Ok(p.func.clone()),
                "args" => Ok(Vt::new(Kind::Tuple(p.args.clone()))),
                "keywords" => {
                    let items = p
                        .keywords
                        .iter()
                        .map(|(k, v)| (vm.ctx.new_str(k.as_str()).into(), v.clone()))
                        .collect();
                    Ok(Vt::new(Kind::Dict(Rc::new(std::cell::RefCell::new(
                        super::variables::DictVar {
                            items,
                            mutated: false,
                            ..Default::default()
                        },
                    )))))
                }
                "__call__" => Ok(obj.clone()),
                _ => {
                    // A partial made in the trace has an empty `__dict__`: only what
                    // `functools.partial` itself defines exists.
                    let cls = bridge::import_module("functools", vm)
                        .and_then(|m| m.get_attr("partial", vm))
                        .map_err(|_| attr_unmodelled(&obj, name))?;
                    self.fixed_class_attr(&obj, &cls, name)
                }
            },
            Kind::BoundMethod(f, s) => match name {
                "__self__" => Ok((**s).clone()),
                "__func__" => Ok((**f).clone()),
                _ => self.get_attr((**f).clone(), name),
            },
            Kind::NestedFunction(nf) => match nested_function_attr(nf, name, vm) {
                Some(v) => Ok(v),
                // A function made in the trace has only what the function type defines (stores
                // on it break the graph); those it defines but are not modelled break.
                None if vm
                    .ctx
                    .types
                    .function_type
                    .as_object()
                    .get_attr(&vm.ctx.new_str(name), vm)
                    .is_ok() =>
                {
                    Err(attr_unmodelled(&obj, name))
                }
                None => Err(attr_missing(&obj, name, vm)),
            },
            _ => Err(attr_unmodelled(&obj, name)),
        }
    }

    /// A real `getattr` failed with `err`. An `AttributeError` is the traced program's
    /// AttributeError when the answer cannot change: the object is immutable (`fixed`), or it
    /// came from the frame and a `HASATTR` guard now pins the attribute's absence. Anything else
    /// (another exception, an object only the trace knows) is not modelled.
    pub(crate) fn real_attr_failed(
        &mut self,
        obj: &Vt,
        name: &str,
        err: &rustpython_vm::builtins::PyBaseExceptionRef,
        fixed: bool,
    ) -> GraphBreak {
        let vm = self.vm;
        if !err.fast_isinstance(vm.ctx.exceptions.attribute_error) {
            return attr_unmodelled(obj, name);
        }
        if fixed {
            return attr_missing(obj, name, vm);
        }
        match &obj.source {
            Some(src) => {
                self.out.guards.add(
                    src,
                    super::guards::Check::HasAttr {
                        name: name.to_owned(),
                        present: false,
                    },
                );
                attr_missing(obj, name, vm)
            }
            None => attr_unmodelled(obj, name),
        }
    }

    /// `obj.name` for a value made in the trace whose only attributes are its class's (a fresh
    /// exception, a `functools.partial`): a missing one raises AttributeError, plain data on
    /// the class is read, functions bind; descriptors and anything else are not modelled.
    fn fixed_class_attr(
        &mut self,
        obj: &Vt,
        cls: &PyObjectRef,
        name: &str,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let Some(ty) = cls.downcast_ref::<PyType>() else {
            return Err(attr_unmodelled(obj, name));
        };
        let Some(raw) = ty.get_attr(vm.ctx.intern_str(name)) else {
            return Err(attr_missing(obj, name, vm));
        };
        let w = wrap_unguarded(raw.clone(), vm);
        if matches!(w.kind, Kind::Const(_)) {
            return Ok(w);
        }
        if raw
            .downcast_ref::<rustpython_vm::builtins::PyFunction>()
            .is_some()
        {
            return Ok(Vt::new(Kind::BoundMethod(
                Box::new(wrap_unguarded(raw, vm)),
                Box::new(obj.clone()),
            )));
        }
        Err(attr_unmodelled(obj, name))
    }

    /// Data attributes of tracked containers: a deque's `maxlen`, a defaultdict's
    /// `default_factory`, a view's `mapping`.
    fn container_data_attr(&mut self, obj: &Vt, name: &str) -> Option<Result<Vt, GraphBreak>> {
        let vm = self.vm;
        match (&obj.kind, name) {
            (Kind::List(l), "maxlen") => {
                let maxlen = l.borrow().deque?;
                Some(Ok(Vt::constant(match maxlen {
                    Some(n) => vm.ctx.new_int(n).into(),
                    None => vm.ctx.none(),
                })))
            }
            (Kind::Dict(d), "default_factory") => {
                let d = d.borrow();
                d.cls.as_ref()?.get_attr("default_factory", vm).ok()?;
                Some(Ok(d
                    .default_factory
                    .clone()
                    .unwrap_or_else(|| Vt::constant(vm.ctx.none()))))
            }
            _ => None,
        }
    }

    /// An attribute of a list, tuple, dict, set, iterator or dict view: a method when the
    /// value's type defines it (called later, by name, on the tracker), its class for
    /// `__class__`, an AttributeError when the type lacks it (these built-in types cannot gain
    /// attributes, and their instances have no `__dict__`).
    fn container_attr(&mut self, obj: &Vt, name: &str) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let ty = self.type_of(obj)?;
        if name == "__class__" {
            return Ok(wrap_unguarded(ty, vm));
        }
        if let Some(r) = self.container_data_attr(obj, name) {
            return r;
        }
        let Some(t) = ty.downcast_ref::<PyType>() else {
            return Err(attr_unmodelled(obj, name));
        };
        match t.get_attr(vm.ctx.intern_str(name)) {
            None => Err(attr_missing(obj, name, vm)),
            Some(raw) if raw.is_callable() => {
                Ok(Vt::new(Kind::Method(Box::new(obj.clone()), name.into())))
            }
            Some(_) => Err(attr_unmodelled(obj, name)),
        }
    }

    fn tensor_meta_attr(
        &mut self,
        t: &super::variables::TensorVar,
        name: &str,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        if name == "shape" {
            return Ok(self.out.sizes_of(t, vm));
        }
        if name == "nbytes" {
            self.out.specialise(t.value, None);
        }
        let v: PyObjectRef = match name {
            "shape" => bridge::make_size(&t.meta().shape, vm),
            "dtype" => bridge::dtype_object(t.meta().dtype, vm),
            "device" => bridge::device_object(vm),
            "ndim" => vm.ctx.new_int(t.meta().shape.len()).into(),
            "is_cuda" => vm.ctx.new_bool(false).into(),
            "requires_grad" => vm.ctx.new_bool(t.requires_grad).into(),
            // A tensor that does not require grad is a leaf; one the graph computed that does
            // has a grad_fn, so it is not. An input that requires grad may be either (its
            // guards do not say): not modelled.
            "is_leaf" if !t.requires_grad => vm.ctx.new_bool(true).into(),
            "is_leaf" if !self.out.inputs.iter().any(|i| i.value == t.value) => {
                vm.ctx.new_bool(false).into()
            }
            "grad_fn" if !t.requires_grad => vm.ctx.none(),
            "is_cpu" => vm.ctx.new_bool(true).into(),
            // Rynamo's tensors are dense, strided and on the CPU.
            "is_sparse" | "is_quantized" | "is_meta" | "is_nested" | "is_mkldnn" => {
                vm.ctx.new_bool(false).into()
            }
            "itemsize" => vm.ctx.new_int(t.meta().dtype.itemsize()).into(),
            "nbytes" => vm
                .ctx
                .new_int(t.meta().shape.iter().product::<usize>() * t.meta().dtype.itemsize())
                .into(),
            "layout" => bridge::torch_attr("strided", vm).unwrap_or_else(|| vm.ctx.none()),
            _ => {
                return Err(GraphBreak::new(
                    GraphBreakKind::UnmodelledAttribute,
                    format!("Tensor.{name} of a tensor made in the graph that requires grad"),
                ));
            }
        };
        Ok(Vt::constant(v))
    }

    /// Any other attribute of a tensor. One its class defines (a method, a property) is read
    /// or called on the tensor later; an instance attribute of a tensor from the frame
    /// (`x.tag = 1` before the call) is read now, guarded through its source; anything else
    /// raises AttributeError in the trace, as eager does, so a traced `except AttributeError`
    /// catches it, and otherwise it is an "Observed exception" break and the real code
    /// raises it (never a recipe that fails when the compiled code rebuilds it).
    fn tensor_other_attr(&mut self, obj: &Vt, name: &str) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        // The tensor itself when it came from the frame (its class may be a subclass such as
        // `nn.Parameter`, and it may carry instance attributes); tensors made in the trace are
        // plain `torch.Tensor`s without any (storing attributes on them breaks the graph).
        let real = match &obj.source {
            Some(src) => Some(
                src.eval(&self.out.frame, vm)
                    .map_err(|_| attr_unmodelled(obj, name))?,
            ),
            None => None,
        };
        if let Some(r) = &real
            && let Some(Some(stored)) = self.out.side_effects.get_attr(r.as_object(), name)
        {
            // Stored earlier in this trace (`p.grad = None`), replayed after the graph.
            return Ok(stored);
        }
        let cls = match &real {
            Some(r) => r.class().to_owned(),
            None => bridge::tensor_class(vm)
                .and_then(|c| c.downcast::<PyType>().ok())
                .ok_or_else(|| attr_unmodelled(obj, name))?,
        };
        let py_name = vm.ctx.new_str(name);
        if let Some(raw) = cls.lookup_ref(&py_name, vm) {
            // A method is called on the tensor later; a property (`grad`, `names`, ...) is
            // data this tracker does not model, never a method to call.
            let data = raw.class().is(vm.ctx.types.getset_type)
                || raw.class().is(vm.ctx.types.property_type)
                || !raw.is_callable();
            if !data {
                return Ok(Vt::new(Kind::Method(Box::new(obj.clone()), name.into())));
            }
            if let (Some(r), Some(src)) = (&real, &obj.source)
                && let Ok(v) = r.get_attr(&py_name, vm)
            {
                // A property of a tensor from the frame (`x.grad`), guarded through its source.
                return Ok(wrap(self.out, v, src.attr(name), vm));
            }
            return Err(attr_unmodelled(obj, name));
        }
        if let (Some(r), Some(src)) = (&real, &obj.source)
            && let Ok(v) = r.get_attr(&py_name, vm)
        {
            return Ok(wrap(self.out, v, src.attr(name), vm));
        }
        Err(raise_builtin(
            vm.ctx.exceptions.attribute_error,
            vm.ctx
                .new_str(format!(
                    "'{}' object has no attribute '{name}'",
                    cls.slot_name()
                ))
                .into(),
        ))
    }

    /// `x.real` / `x.imag`: the registry's component views (`torch.real` / `torch.imag`), which
    /// raise PyTorch's errors for real tensors where eager does.
    fn tensor_component(&mut self, obj: Vt, name: &str) -> Result<Vt, GraphBreak> {
        let op = if name == "real" {
            rynamo_graph::Op::Real
        } else {
            rynamo_graph::Op::Imag
        };
        let func = bridge::import_module("torch", self.vm)
            .and_then(|t| t.get_attr(&self.vm.ctx.new_str(name), self.vm))
            .map_err(|_| {
                GraphBreak::new(GraphBreakKind::UnsupportedOperation, "torch.real missing")
            })?;
        let target = super::output_graph::FxTarget::Function(func);
        self.call_op_overloads(&[op], vec![obj], vec![], target)
    }

    fn tensor_property(&mut self, obj: Vt, name: &str) -> Result<Vt, GraphBreak> {
        match name {
            // `x.data`: a new object sharing the data, detached (see `detach`).
            "data" => self.call_tensor_method(obj, "detach", vec![], vec![]),
            "T" => {
                let ndim = obj.as_tensor().map_or(0, |t| t.meta().shape.len());
                let dims: Vec<i64> = (0..ndim as i64).rev().collect();
                let dims = Vt::constant(
                    self.vm
                        .ctx
                        .new_tuple(
                            dims.into_iter()
                                .map(|d| self.vm.ctx.new_int(d).into())
                                .collect(),
                        )
                        .into(),
                );
                self.call_tensor_method(obj, "permute", vec![dims], vec![])
            }
            _ => {
                let a = Vt::constant(self.vm.ctx.new_int(-2).into());
                let b = Vt::constant(self.vm.ctx.new_int(-1).into());
                self.call_tensor_method(obj, "transpose", vec![a, b], vec![])
            }
        }
    }
}

/// An attribute of a function made in the trace, as `MAKE_FUNCTION` would have set it on the
/// real function (RustPython's `PyFunction::new`, like CPython's): `__name__` from `co_name`,
/// `__qualname__` from `co_qualname` (`f.<locals>.g`), `__module__` from the defining globals'
/// `__name__`, `__doc__` from the first constant when the code has a docstring, `__defaults__`
/// as the tuple of the traced defaults. Attribute stores on such a function break the graph, so
/// these cannot have changed since it was made. Anything else is not modelled (`None`).
fn nested_function_attr(
    nf: &super::variables::NestedFn,
    name: &str,
    vm: &rustpython_vm::VirtualMachine,
) -> Option<Vt> {
    use rustpython_vm::bytecode::CodeFlags;
    let code = &nf.code.code;
    let obj: PyObjectRef = match name {
        "__name__" => vm.ctx.new_str(code.obj_name.as_str()).into(),
        "__qualname__" => vm.ctx.new_str(code.qualname.as_str()).into(),
        "__module__" => nf
            .globals
            .get_item("__name__", vm)
            .unwrap_or_else(|_| vm.ctx.none()),
        "__doc__" => match code.constants.first() {
            Some(c) if code.flags.contains(CodeFlags::HAS_DOCSTRING) => c.as_object().to_owned(),
            _ => vm.ctx.none(),
        },
        "__defaults__" if nf.defaults.is_empty() => vm.ctx.none(),
        "__defaults__" => return Some(Vt::new(Kind::Tuple(nf.defaults.clone()))),
        _ => return None,
    };
    Some(wrap_unguarded(obj, vm))
}

/// An attribute Dynamo cannot answer for: a break (GB0018), never a guessed value or absence.
pub(crate) fn attr_unmodelled(obj: &Vt, name: &str) -> GraphBreak {
    GraphBreak::new(
        GraphBreakKind::UnmodelledAttribute,
        format!("attribute '{name}' of {}", obj.describe()),
    )
}

/// The traced program raising `AttributeError` for a missing attribute, as eager would (so a
/// traced `hasattr`, `getattr` default or `except AttributeError` sees it).
pub(crate) fn attr_missing(obj: &Vt, name: &str, vm: &rustpython_vm::VirtualMachine) -> GraphBreak {
    let what = match &obj.kind {
        Kind::Const(c) | Kind::Object(c) | Kind::NNModule(c) => {
            format!("'{}' object", c.class().name())
        }
        Kind::Class(c) | Kind::Builtin(c, _) => match c.downcast_ref::<PyType>() {
            Some(t) => format!("type object '{}'", t.name()),
            None => format!("'{}' object", c.class().name()),
        },
        Kind::Module(m) => format!(
            "module '{}'",
            m.get_attr("__name__", vm)
                .ok()
                .and_then(|n| n.str(vm).ok().map(|s| s.to_string()))
                .unwrap_or_default()
        ),
        _ => format!("'{}' object", obj.describe()),
    };
    raise_builtin(
        vm.ctx.exceptions.attribute_error,
        vm.ctx
            .new_str(format!("{what} has no attribute '{name}'"))
            .into(),
    )
}

/// Whether a module is `torch` or one of its submodules.
pub fn is_torch_module(m: &PyObjectRef, vm: &rustpython_vm::VirtualMachine) -> bool {
    m.get_attr("__name__", vm)
        .ok()
        .and_then(|n| {
            n.downcast_ref::<PyStr>()
                .and_then(|s| s.to_str().map(str::to_owned))
        })
        .is_some_and(|n| n == "torch" || n.starts_with("torch."))
}

/// A name as an `Rc<str>`.
pub fn rc(name: &str) -> Rc<str> {
    Rc::from(name)
}
