//! Building the values a [`Recon`] recipe describes, after one graph run: graph outputs wrapped
//! as tensors (each output once), constants, frame reads, containers, objects and cells, shared
//! objects built once per [`Recon::Def`]. The recipes themselves come from `reconstruct.rs`.

use rustpython_vm::builtins::{PyList, PyStr};
use rustpython_vm::{AsObject, PyObjectRef, PyResult, VirtualMachine};
use rynamo_tensor::Tensor;

use super::bridge;
use super::reconstruct::Recon;
use super::source::FrameValues;

/// Runtime context for building values after one graph run.
pub struct Builder<'a> {
    /// Graph outputs of this run.
    pub outputs: &'a [Tensor],
    /// Already-wrapped outputs (the same output twice is the same object).
    pub wrapped: Vec<Option<PyObjectRef>>,
    /// The frame.
    pub frame: &'a FrameValues,
    /// Shared objects built so far, by [`Recon::Def`] id.
    pub shared: Vec<Option<PyObjectRef>>,
}

impl Builder<'_> {
    /// Sets a rebuilt object's attributes, in the order the trace stored them.
    fn set_attrs(
        &mut self,
        obj: &PyObjectRef,
        attrs: &[(PyObjectRef, Recon)],
        vm: &VirtualMachine,
    ) -> PyResult<()> {
        for (name, v) in attrs {
            let v = self.build(v, vm)?;
            // `object.__setattr__`: the attributes the trace stored, without the class's own
            // hook (a frozen dataclass refuses stores after `__init__`).
            vm.ctx
                .types
                .object_type
                .as_object()
                .get_attr("__setattr__", vm)?
                .call((obj.clone(), name.clone(), v), vm)?;
        }
        Ok(())
    }

    /// Builds a value.
    pub fn build(&mut self, r: &Recon, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
        Ok(match r {
            Recon::Output(i) => {
                if let Some(Some(o)) = self.wrapped.get(*i) {
                    return Ok(o.clone());
                }
                let t = self
                    .outputs
                    .get(*i)
                    .cloned()
                    .ok_or_else(|| vm.new_runtime_error("backend returned too few outputs"))?;
                let o = bridge::wrap_tensor(t, vm);
                if self.wrapped.len() <= *i {
                    self.wrapped.resize(*i + 1, None);
                }
                self.wrapped[*i] = Some(o.clone());
                o
            }
            Recon::Const(c) => c.clone(),
            Recon::Source(s) => s.eval(self.frame, vm)?,
            Recon::SymInt(f) => {
                let objs = f
                    .leaves
                    .iter()
                    .map(|(src, _)| src.eval(self.frame, vm))
                    .collect::<PyResult<Vec<_>>>()?;
                let leaf = |k: usize| super::sym_guard::leaf_value(&objs[k], f.leaves[k].1, vm);
                match f.eval(&leaf) {
                    Some(super::sym::Num::Int(v)) => vm.ctx.new_int(v).into(),
                    Some(super::sym::Num::Float(v)) => vm.ctx.new_float(v).into(),
                    None => {
                        return Err(
                            vm.new_runtime_error("a symbolic value has no value for these inputs")
                        );
                    }
                }
            }
            Recon::Tuple(items) => {
                let v = items
                    .iter()
                    .map(|i| self.build(i, vm))
                    .collect::<PyResult<Vec<_>>>()?;
                vm.ctx.new_tuple(v).into()
            }
            Recon::List(items) => {
                let v = items
                    .iter()
                    .map(|i| self.build(i, vm))
                    .collect::<PyResult<Vec<_>>>()?;
                vm.ctx.new_list(v).into()
            }
            Recon::NamedTuple(cls, items) => {
                let v = items
                    .iter()
                    .map(|i| self.build(i, vm))
                    .collect::<PyResult<Vec<_>>>()?;
                super::variables::named_tuple::build(cls, v, vm)?
            }
            Recon::Set(items) => {
                let list = vm.ctx.new_list(items.clone());
                vm.ctx.types.set_type.as_object().call((list,), vm)?
            }
            Recon::Dict(items) => {
                let d = vm.ctx.new_dict();
                for (k, v) in items {
                    d.set_item(&**k, self.build(v, vm)?, vm)?;
                }
                d.into()
            }
            Recon::Deque(..) | Recon::TypedDict(..) => {
                let obj = self.empty_container(r, vm)?;
                self.fill(&obj, r, vm)?;
                obj
            }
            Recon::DictView(dict, view) => {
                let d = self.build(dict, vm)?;
                vm.call_method(&d, view.method(), ())?
            }
            Recon::Def(id, inner) => {
                // Register the container before building its items (it may contain itself).
                let (obj, fill): (PyObjectRef, bool) = match &**inner {
                    Recon::List(_) => (vm.ctx.new_list(Vec::new()).into(), true),
                    Recon::Dict(_) => (vm.ctx.new_dict().into(), true),
                    Recon::Deque(..) | Recon::TypedDict(..) => {
                        (self.empty_container(inner, vm)?, true)
                    }
                    Recon::NewObject(cls, _) => (new_instance(cls, vm)?, true),
                    Recon::Cell(_) => (new_cell(None, vm)?, true),
                    other => (self.build(other, vm)?, false),
                };
                if self.shared.len() <= *id {
                    self.shared.resize(*id + 1, None);
                }
                self.shared[*id] = Some(obj.clone());
                if fill {
                    match &**inner {
                        Recon::List(items) => {
                            let v = items
                                .iter()
                                .map(|i| self.build(i, vm))
                                .collect::<PyResult<Vec<_>>>()?;
                            if let Some(l) = obj.downcast_ref::<PyList>() {
                                *l.borrow_vec_mut() = v;
                            }
                        }
                        Recon::Dict(items) => {
                            for (k, v) in items {
                                let v = self.build(v, vm)?;
                                obj.set_item(&**k, v, vm)?;
                            }
                        }
                        Recon::NewObject(_, attrs) => self.set_attrs(&obj, attrs, vm)?,
                        Recon::Deque(..) | Recon::TypedDict(..) => self.fill(&obj, inner, vm)?,
                        Recon::Cell(Some(v)) => {
                            let v = self.build(v, vm)?;
                            obj.set_attr("cell_contents", v, vm)?;
                        }
                        _ => {}
                    }
                }
                obj
            }
            Recon::Cell(v) => {
                let v = match v {
                    Some(v) => Some(self.build(v, vm)?),
                    None => None,
                };
                new_cell(v, vm)?
            }
            Recon::Function {
                code,
                globals,
                defaults,
                kwdefaults,
                closure,
                annotate,
                annotations,
            } => {
                let defaults = defaults
                    .iter()
                    .map(|d| self.build(d, vm))
                    .collect::<PyResult<Vec<_>>>()?;
                let closure = closure
                    .iter()
                    .map(|c| self.build(c, vm))
                    .collect::<PyResult<Vec<_>>>()?;
                let defaults: PyObjectRef = if defaults.is_empty() {
                    vm.ctx.none()
                } else {
                    vm.ctx.new_tuple(defaults).into()
                };
                let closure: PyObjectRef = if closure.is_empty() {
                    vm.ctx.none()
                } else {
                    vm.ctx.new_tuple(closure).into()
                };
                let name = code.get_attr("co_name", vm)?;
                let f = vm
                    .ctx
                    .types
                    .function_type
                    .as_object()
                    .call((code.clone(), globals.clone(), name, defaults, closure), vm)?;
                // `MAKE_FUNCTION` takes the qualified name from the code object; RustPython's
                // `FunctionType(..., name)` sets `__qualname__` to `name` (CPython keeps
                // `co_qualname`), which would lose the `f.<locals>.` prefix in reprs and errors.
                f.set_attr("__qualname__", code.get_attr("co_qualname", vm)?, vm)?;
                if !kwdefaults.is_empty() {
                    let d = vm.ctx.new_dict();
                    for (k, v) in kwdefaults {
                        d.set_item(k.as_str(), self.build(v, vm)?, vm)?;
                    }
                    f.set_attr("__kwdefaults__", d, vm)?;
                }
                if let Some(a) = annotations {
                    f.set_attr("__annotations__", self.build(a, vm)?, vm)?;
                }
                if let Some(a) = annotate {
                    f.set_attr("__annotate__", self.build(a, vm)?, vm)?;
                }
                f
            }
            Recon::NewObject(cls, attrs) => {
                // `recon_of` always wraps it in a `Def`; built the same way if not.
                let obj = new_instance(cls, vm)?;
                self.set_attrs(&obj, attrs, vm)?;
                obj
            }
            Recon::Ref(id) => self
                .shared
                .get(*id)
                .cloned()
                .flatten()
                .ok_or_else(|| vm.new_runtime_error("shared object used before it was built"))?,
            Recon::Attr(value, name) => {
                let obj = self.build(value, vm)?;
                let name = name
                    .clone()
                    .downcast::<PyStr>()
                    .map_err(|_| vm.new_type_error("attribute name"))?;
                obj.get_attr(&name, vm)?
            }
            Recon::Partial(f, args, kwargs) => {
                let f = self.build(f, vm)?;
                let mut all = vec![f];
                for a in args {
                    all.push(self.build(a, vm)?);
                }
                let mut pairs = Vec::with_capacity(kwargs.len());
                for (k, v) in kwargs {
                    pairs.push((k.clone(), self.build(v, vm)?));
                }
                let kw: rustpython_vm::function::KwArgs = pairs.into_iter().collect();
                let partial =
                    super::bridge::import_module("functools", vm)?.get_attr("partial", vm)?;
                partial.call(rustpython_vm::function::FuncArgs::new(all, kw), vm)?
            }
            Recon::BoundMethod(parts) => {
                let f = self.build(&parts[0], vm)?;
                let zelf = self.build(&parts[1], vm)?;
                rustpython_vm::PyPayload::into_pyobject(
                    rustpython_vm::builtins::PyBoundMethod::new(zelf, f),
                    vm,
                )
            }
            Recon::Exception(cls, args, kwargs) => {
                let args = args
                    .iter()
                    .map(|a| self.build(a, vm))
                    .collect::<PyResult<Vec<_>>>()?;
                let kwargs = kwargs
                    .iter()
                    .map(|(k, a)| Ok((k.clone(), self.build(a, vm)?)))
                    .collect::<PyResult<rustpython_vm::function::KwArgs>>()?;
                cls.call(rustpython_vm::function::FuncArgs::new(args, kwargs), vm)?
            }
            Recon::Slice(parts) => {
                let s = rustpython_vm::builtins::PySlice {
                    start: Some(self.build(&parts[0], vm)?),
                    stop: self.build(&parts[1], vm)?,
                    step: Some(self.build(&parts[2], vm)?),
                };
                rustpython_vm::PyPayload::into_pyobject(s, vm)
            }
        })
    }
}

impl Builder<'_> {
    /// An empty deque or `collections` dict for a [`Recon::Deque`] / [`Recon::TypedDict`].
    fn empty_container(&mut self, r: &Recon, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
        match r {
            Recon::Deque(maxlen, _) => {
                let maxlen: PyObjectRef = match maxlen {
                    Some(n) => vm.ctx.new_int(*n).into(),
                    None => vm.ctx.none(),
                };
                bridge::import_module("collections", vm)?
                    .get_attr("deque", vm)?
                    .call((vm.ctx.new_tuple(Vec::new()), maxlen), vm)
            }
            Recon::TypedDict(cls, Some(factory), _) => {
                let f = self.build(factory, vm)?;
                cls.call((f,), vm)
            }
            Recon::TypedDict(cls, None, _) => cls.call((), vm),
            _ => Err(vm.new_runtime_error("not a container recipe")),
        }
    }

    /// Puts a deque's or dict's items into the container made by [`Self::empty_container`].
    fn fill(&mut self, obj: &PyObjectRef, r: &Recon, vm: &VirtualMachine) -> PyResult<()> {
        match r {
            Recon::Deque(_, items) => {
                for i in items {
                    let v = self.build(i, vm)?;
                    vm.call_method(obj, "append", (v,))?;
                }
            }
            Recon::TypedDict(_, _, items) => {
                for (k, v) in items {
                    let v = self.build(v, vm)?;
                    obj.set_item(&**k, v, vm)?;
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// `cls.__new__(cls)`: an instance whose attributes the recipe sets next.
fn new_instance(cls: &PyObjectRef, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
    vm.ctx
        .types
        .object_type
        .as_object()
        .get_attr("__new__", vm)?
        .call((cls.clone(),), vm)
}

/// A new closure cell (`types.CellType(value)`, or an empty one).
fn new_cell(value: Option<PyObjectRef>, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
    let cell_type = super::bridge::import_module("types", vm)?.get_attr("CellType", vm)?;
    match value {
        Some(v) => cell_type.call((v,), vm),
        None => cell_type.call((), vm),
    }
}
