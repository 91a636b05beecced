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
use super::symbolic_convert::Tracer;
use super::variables::builder::{wrap, wrap_unguarded};
use super::variables::exceptions::raise_builtin;
use super::variables::{Kind, Vt};

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
];

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
                    _ => self.tensor_other_attr(&obj, name),
                }
            }
            Kind::Const(c) => {
                let v = c
                    .get_attr(&vm.ctx.new_str(name), vm)
                    .map_err(|_| attr_error(&obj, name))?;
                if v.class().is(vm.ctx.types.builtin_function_or_method_type) {
                    // A method of an immutable value (`"a b".split`): called for real later.
                    return Ok(Vt::new(Kind::Method(Box::new(obj.clone()), name.into())));
                }
                Ok(wrap_unguarded(v, vm))
            }
            Kind::NamedTuple(cls, items) => {
                let (cls, items) = (cls.clone(), items.clone());
                self.named_tuple_attr(&obj, &cls, &items, name)
            }
            Kind::Tuple(_) | Kind::List(_) | Kind::Dict(_) | Kind::Set(_) | Kind::Iter(_) => {
                Ok(Vt::new(Kind::Method(Box::new(obj.clone()), name.into())))
            }
            // `value` and `prev` of an `error_on_graph_break` manager (the decorator form reads
            // `self.value`), as the trace has them (`prev` changes when it is entered).
            Kind::ErrorOnGraphBreak(e) => match name {
                "value" => Ok(Vt::constant(vm.ctx.new_bool(e.value).into())),
                "prev" => Ok(Vt::constant(match e.prev.get() {
                    Some(p) => vm.ctx.new_bool(p).into(),
                    None => vm.ctx.none(),
                })),
                _ => Err(attr_error(&obj, name)),
            },
            Kind::Exception(e) => match name {
                "args" => Ok(Vt::new(Kind::Tuple(e.args.clone()))),
                _ => Err(attr_error(&obj, name)),
            },
            Kind::GradMode(g) => match name {
                "__enter__" | "__exit__" | "clone" => {
                    Ok(Vt::new(Kind::Method(Box::new(obj.clone()), name.into())))
                }
                "prev" if g.prev.get().is_some() => Ok(Vt::constant(
                    vm.ctx.new_bool(g.prev.get().unwrap_or_default()).into(),
                )),
                "mode" => Ok(Vt::constant(vm.ctx.new_bool(g.mode).into())),
                _ => Err(attr_error(&obj, name)),
            },
            Kind::Module(m) => {
                let v = m
                    .get_attr(&vm.ctx.new_str(name), vm)
                    .map_err(|_| attr_error(&obj, name))?;
                // The torch namespace is trusted (Dynamo does not guard torch.* either).
                if is_torch_module(m, vm) {
                    return Ok(wrap_unguarded(v, vm));
                }
                Ok(match &obj.source {
                    Some(src) => wrap(self.out, v, src.attr(name), vm),
                    None => wrap_unguarded(v, vm),
                })
            }
            Kind::NNModule(o) | Kind::Object(o) => {
                if let Some(stored) = self.out.side_effects.get_attr(o.as_object(), name) {
                    return stored.ok_or_else(|| attr_error(&obj, name));
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
                let v = o
                    .get_attr(&vm.ctx.new_str(name), vm)
                    .map_err(|_| attr_error(&obj, name))?;
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
                    Some(src) => wrap(self.out, v, src.attr(name), vm),
                    None => wrap_unguarded(v, vm),
                })
            }
            Kind::Class(c)
            | Kind::Function(c)
            | Kind::Builtin(c, _)
            | Kind::TorchOp { obj: c, .. } => {
                let v = c
                    .get_attr(&vm.ctx.new_str(name), vm)
                    .map_err(|_| attr_error(&obj, name))?;
                Ok(match &obj.source {
                    Some(src) => wrap(self.out, v, src.attr(name), vm),
                    None => wrap_unguarded(v, vm),
                })
            }
            Kind::Partial(p) => match name {
                "func" => Ok(p.func.clone()),
                "args" => Ok(Vt::new(Kind::Tuple(p.args.clone()))),
                _ => Err(attr_error(&obj, name)),
            },
            Kind::BoundMethod(f, s) => match name {
                "__self__" => Ok((**s).clone()),
                "__func__" => Ok((**f).clone()),
                _ => self.get_attr((**f).clone(), name),
            },
            Kind::NestedFunction(nf) => {
                nested_function_attr(nf, name, vm).ok_or_else(|| attr_error(&obj, name))
            }
            _ => Err(attr_error(&obj, name)),
        }
    }

    fn tensor_meta_attr(
        &mut self,
        t: &super::variables::TensorVar,
        name: &str,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let v: PyObjectRef = match name {
            "shape" => bridge::make_size(&t.meta.shape, vm),
            "dtype" => bridge::dtype_object(t.meta.dtype, vm),
            "device" => bridge::device_object(vm),
            "ndim" => vm.ctx.new_int(t.meta.shape.len()).into(),
            "is_cuda" => vm.ctx.new_bool(false).into(),
            "requires_grad" => vm.ctx.new_bool(t.requires_grad).into(),
            "is_leaf" => vm.ctx.new_bool(true).into(),
            "layout" => bridge::torch_attr("strided", vm).unwrap_or_else(|| vm.ctx.none()),
            _ => {
                return Err(GraphBreak::new(
                    GraphBreakKind::UnsupportedOperation,
                    format!("Tensor.{name}"),
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
                    .map_err(|_| attr_error(obj, name))?,
            ),
            None => None,
        };
        let cls = match &real {
            Some(r) => r.class().to_owned(),
            None => bridge::tensor_class(vm)
                .and_then(|c| c.downcast::<PyType>().ok())
                .ok_or_else(|| attr_error(obj, name))?,
        };
        let py_name = vm.ctx.new_str(name);
        if cls.lookup_ref(&py_name, vm).is_some() {
            return Ok(Vt::new(Kind::Method(Box::new(obj.clone()), name.into())));
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

    fn tensor_property(&mut self, obj: Vt, name: &str) -> Result<Vt, GraphBreak> {
        match name {
            "data" => Ok(obj),
            "T" => {
                let ndim = obj.as_tensor().map_or(0, |t| t.meta.shape.len());
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

fn attr_error(obj: &Vt, name: &str) -> GraphBreak {
    GraphBreak::new(
        GraphBreakKind::UnsupportedOperation,
        format!("attribute '{name}' of {} could not be read", obj.describe()),
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
