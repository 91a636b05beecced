//! Wrapping frame values as trackers (Dynamo's `VariableBuilder`): each kind of Python value
//! gets the tracker and the guards that make reusing the compiled code sound.
//!
//! | value | tracker | guard |
//! |---|---|---|
//! | tensor | graph input | TENSOR_MATCH (dtype, shape, strides, requires_grad), aliasing |
//! | None, bool, int, float, str | constant | EQUALS_MATCH (type and value) |
//! | int argument that changed between compiles | SymInt of a 0-d int64 graph input | TYPE_MATCH |
//! | tuple / list | tuple / list of wrapped items | TYPE_MATCH, LENGTH |
//! | dict | dict of wrapped values | TYPE_MATCH, DICT_KEYS |
//! | function, class, module | by identity | ID_MATCH |
//! | nn.Module | by type; what the trace reads from it guarded through its sources | TYPE_MATCH |
//! | registry op (`torch.add`) | the op | none (the `torch` namespace is trusted) |
//! | other objects | object | TYPE_MATCH; attribute reads add their own guards |

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use rustpython_vm::builtins::{PyDict, PyFunction, PyList, PyModule, PyTuple, PyType};
use rustpython_vm::{AsObject, PyObject, PyObjectRef, VirtualMachine};

use super::super::bridge;
use super::super::guards::{Check, ConstValue};
use super::super::output_graph::OutputGraph;
use super::super::source::{Key, Source};
use super::{DictVar, Kind, ListVar, Vt};

/// Whether `obj` is an immutable value Dynamo treats as a trace-time constant without guards of
/// its own (numbers, strings, dtypes, ...; the caller guards where it came from).
pub fn is_literal(obj: &PyObject, vm: &VirtualMachine) -> bool {
    ConstValue::of(obj, vm).is_some()
        || obj.class().is(vm.ctx.types.float_type)
        || obj.class().is(vm.ctx.types.int_type)
        || obj.class().is(vm.ctx.types.bytes_type)
        || obj.is(&vm.ctx.ellipsis)
        || obj.is(&vm.ctx.not_implemented)
        || bridge::dtype_of(obj).is_some()
        || bridge::is_device(obj)
        || bridge::is_format_singleton(obj, vm)
        || obj.class().is(vm.ctx.types.range_type)
        || obj.class().is(vm.ctx.types.slice_type)
        || obj.class().is(vm.ctx.types.complex_type)
        || obj.downcast_ref::<rynamo_shims::PySize>().is_some()
        || super::super::inspect_signature::is_inspect_value(obj, vm)
        || (obj.class().is(vm.ctx.types.frozenset_type)
            && vm
                .extract_elements_with(obj, Ok)
                .is_ok_and(|items| items.iter().all(|i| is_literal(i, vm))))
}

/// Whether every element of a tuple is a literal (then the tuple is one constant).
fn is_literal_tuple(obj: &PyObject, vm: &VirtualMachine) -> bool {
    obj.downcast_ref::<PyTuple>().is_some_and(|t| {
        t.as_slice()
            .iter()
            .all(|x| is_literal(x, vm) || is_literal_tuple(x, vm))
    })
}

/// Wraps a value read from `source`, adding its guards.
pub fn wrap(
    out: &mut OutputGraph,
    obj: PyObjectRef,
    source: Rc<Source>,
    vm: &VirtualMachine,
) -> Vt {
    if let Some((meta, rg)) = bridge::tensor_meta(&obj) {
        let marks = super::super::shape_env::Marks::of(&obj, meta.shape.len(), vm);
        return out.tensor_input(&obj, meta, rg, &source, &marks);
    }
    if let Some(v) = ConstValue::of(&obj, vm) {
        // An int argument that changed between compiles is dynamic (`shape_env.rs`).
        if let ConstValue::Int(i) = v
            && read_from_arguments(&source)
            && let Some(vt) = out.int_input(&obj, i, &source, vm)
        {
            return vt;
        }
        out.guards.add(&source, Check::Equals(v));
        return Vt::with_source(Kind::Const(obj), source);
    }
    if is_literal(&obj, vm)
        || (obj.class().is(vm.ctx.types.tuple_type) && is_literal_tuple(&obj, vm))
    {
        // dtypes, devices and memory formats are singletons: identity; other literals: type and equality through
        // the repr-stable EQUALS path is not available, so identity of the value.
        if bridge::dtype_of(&obj).is_some() || bridge::is_format_singleton(&obj, vm) {
            out.guards.add(&source, Check::IdMatch { obj: obj.clone() });
        } else if obj.class().is(vm.ctx.types.tuple_type) {
            wrap_literal_tuple_guards(out, &obj, &source, vm);
        } else {
            // A range, big int, bytes, complex, slice or device: its value, not just its type
            // (the trace unrolled `for i in range(n)` or folded arithmetic on it).
            out.guards
                .add(&source, Check::ValueMatch { obj: obj.clone() });
        }
        return Vt::with_source(Kind::Const(obj), source);
    }
    if let Some((overloads, surface)) = bridge::op_function(&obj) {
        return Vt::with_source(
            Kind::TorchOp {
                overloads,
                surface,
                obj,
            },
            source,
        );
    }
    if obj.class().is(vm.ctx.types.tuple_type)
        && let Some(t) = obj.downcast_ref::<PyTuple>()
    {
        out.guards.add(
            &source,
            Check::TypeMatch {
                ty: obj.class().to_owned().into(),
            },
        );
        out.guards.add(&source, Check::Length(t.len()));
        let items = t
            .as_slice()
            .iter()
            .enumerate()
            .map(|(i, x)| wrap(out, x.clone(), source.item(Key::Int(i as i64)), vm))
            .collect();
        return Vt::with_source(Kind::Tuple(items), source);
    }
    let is_container = obj.class().is(vm.ctx.types.list_type)
        || is_dict(&obj, vm)
        || obj.class().is(vm.ctx.types.set_type);
    let addr = &*obj as *const PyObject as usize;
    if is_container && let Some((_, seen)) = out.containers.get(&addr) {
        let seen = seen.clone();
        if let Some(first) = &seen.source
            && *first != source
        {
            out.guards.add_alias(first, &source);
        }
        return seen;
    }
    let vt = wrap_uncached(out, obj.clone(), source, vm);
    if is_container && matches!(vt.kind, Kind::List(_) | Kind::Dict(_) | Kind::Set(_)) {
        out.containers.insert(addr, (obj, vt.clone()));
    }
    vt
}

/// Whether `source` reads the frame's locals (an argument, or an item of one: `L['args'][1]`),
/// where PyTorch makes ints that change between calls dynamic.
fn read_from_arguments(source: &Source) -> bool {
    match source {
        Source::Local { .. } => true,
        Source::Item(base, _) => read_from_arguments(base),
        _ => false,
    }
}

/// Registers a list or dict tracker before its items are wrapped, so an item that is the
/// container itself (`l.append(l)`), or holds it, wraps to this same tracker (with an alias
/// guard on its own source) instead of wrapping the container again, forever.
fn register_container(out: &mut OutputGraph, obj: &PyObjectRef, vt: &Vt) {
    let addr = &**obj as *const PyObject as usize;
    out.containers.insert(addr, (obj.clone(), vt.clone()));
}

fn wrap_uncached(
    out: &mut OutputGraph,
    obj: PyObjectRef,
    source: Rc<Source>,
    vm: &VirtualMachine,
) -> Vt {
    if obj.class().is(vm.ctx.types.list_type)
        && let Some(l) = obj.downcast_ref::<PyList>()
    {
        out.guards.add(
            &source,
            Check::TypeMatch {
                ty: obj.class().to_owned().into(),
            },
        );
        let snapshot = l.borrow_vec().to_vec();
        out.guards.add(&source, Check::Length(snapshot.len()));
        let list = Rc::new(RefCell::new(ListVar::default()));
        let vt = Vt::with_source(Kind::List(list.clone()), source.clone());
        register_container(out, &obj, &vt);
        let items = snapshot
            .into_iter()
            .enumerate()
            .map(|(i, x)| wrap(out, x, source.item(Key::Int(i as i64)), vm))
            .collect();
        list.borrow_mut().items = items;
        return vt;
    }
    if is_dict(&obj, vm)
        && let Some(d) = obj.downcast_ref::<PyDict>()
    {
        // One snapshot of the pairs: the keys the guard checks are the ones wrapped.
        let pairs = d.items_vec();
        let keys: Option<Vec<(ConstValue, Key)>> = pairs
            .iter()
            .map(|(k, _)| {
                let ck = ConstValue::of(k, vm)?;
                let key = match &ck {
                    ConstValue::Int(i) => Key::Int(*i),
                    ConstValue::Str(s) => Key::Str(s.clone()),
                    _ => return None,
                };
                Some((ck, key))
            })
            .collect();
        let Some(keys) = keys else {
            return opaque(out, obj, source, vm);
        };
        out.guards.add(
            &source,
            Check::TypeMatch {
                ty: obj.class().to_owned().into(),
            },
        );
        out.guards.add(
            &source,
            Check::DictKeys(keys.iter().map(|(ck, _)| ck.clone()).collect()),
        );
        let dict = Rc::new(RefCell::new(DictVar::default()));
        let vt = Vt::with_source(Kind::Dict(dict.clone()), source.clone());
        register_container(out, &obj, &vt);
        let items = pairs
            .into_iter()
            .zip(keys)
            .map(|((k, v), (_, key))| (k, wrap(out, v, source.item(key), vm)))
            .collect();
        dict.borrow_mut().items = items;
        return vt;
    }
    if obj.class().is(vm.ctx.types.set_type)
        && let Ok(items) = vm.extract_elements_with(&obj, Ok)
        && items.iter().all(|i| is_literal(i, vm))
    {
        // The trace works on a copy (mutations replay on the real set); the guard compares
        // with a second copy that nothing mutates.
        let copy = || vm.ctx.types.set_type.as_object().call((obj.clone(),), vm);
        if let (Ok(work), Ok(snapshot)) = (copy(), copy()) {
            out.guards.add(
                &source,
                Check::TypeMatch {
                    ty: obj.class().to_owned().into(),
                },
            );
            out.guards.add(&source, Check::ValueMatch { obj: snapshot });
            return Vt::with_source(Kind::Set(work), source);
        }
    }
    if super::named_tuple::fields(obj.class().as_object(), vm).is_some()
        && let Some(t) = obj.downcast_ref::<PyTuple>()
    {
        out.guards.add(
            &source,
            Check::TypeMatch {
                ty: obj.class().to_owned().into(),
            },
        );
        out.guards.add(&source, Check::Length(t.len()));
        let items = t
            .as_slice()
            .iter()
            .enumerate()
            .map(|(i, x)| wrap(out, x.clone(), source.item(Key::Int(i as i64)), vm))
            .collect();
        return Vt::with_source(
            Kind::NamedTuple(obj.class().to_owned().into(), items),
            source,
        );
    }
    if let Some(p) = wrap_partial(out, &obj, &source, vm) {
        return p;
    }
    if obj.downcast_ref::<PyFunction>().is_some() {
        // Dynamo's CLOSURE_MATCH: the code object, not the function, so a closure made anew on
        // each call (a nested helper) reuses the entry; what inlining reads from the function
        // (defaults, closure cells, globals) is guarded through its own sources.
        match obj.get_attr("__code__", vm) {
            Ok(code) => out
                .guards
                .add(&source.attr("__code__"), Check::IdMatch { obj: code }),
            Err(_) => out.guards.add(&source, Check::IdMatch { obj: obj.clone() }),
        }
        return Vt::with_source(Kind::Function(obj), source);
    }
    if obj.downcast_ref::<PyModule>().is_some() {
        out.guards.add(&source, Check::IdMatch { obj: obj.clone() });
        return Vt::with_source(Kind::Module(obj), source);
    }
    if obj.downcast_ref::<PyType>().is_some() {
        out.guards.add(&source, Check::IdMatch { obj: obj.clone() });
        if let Some(name) = builtin_type_name(&obj, vm) {
            return Vt::with_source(Kind::Builtin(obj, name), source);
        }
        return Vt::with_source(Kind::Class(obj), source);
    }
    if let Some(name) = builtin_function_name(&obj, vm) {
        out.guards.add(&source, Check::IdMatch { obj: obj.clone() });
        return Vt::with_source(Kind::Builtin(obj, name), source);
    }
    if bridge::is_nn_module(&obj, vm) {
        // By type, as PyTorch guards the modules it inlines (`UnspecializedNNModuleVariable`):
        // another instance of the class (a layer of a stack, a module built anew per call)
        // reuses the entry. What the trace reads from the module (attributes, parameters,
        // children, hooks, registries) is guarded through its own sources.
        out.guards.add(
            &source,
            Check::TypeMatch {
                ty: obj.class().to_owned().into(),
            },
        );
        return Vt::with_source(Kind::NNModule(obj), source);
    }
    if let Some(g) = super::ctx_manager::wrap_existing(out, &obj, &source, vm) {
        return g;
    }
    if let Some(e) = super::error_on_graph_break::wrap_existing(out, &obj, &source, vm) {
        return e;
    }
    if let Some(bound) = bound_method_parts(&obj, vm) {
        let (func, zelf) = bound;
        let fsrc = source.attr("__func__");
        let ssrc = source.attr("__self__");
        let f = wrap(out, func.clone(), fsrc, vm);
        let s = wrap(out, zelf, ssrc, vm);
        if let Kind::GradMode(_) | Kind::ErrorOnGraphBreak(_) = s.kind
            && let Some(name) = super::ctx_manager::method_name(&func, vm)
        {
            return Vt::with_source(Kind::Method(Box::new(s), name.into()), source);
        }
        return Vt::with_source(Kind::BoundMethod(Box::new(f), Box::new(s)), source);
    }
    opaque(out, obj, source, vm)
}

fn wrap_literal_tuple_guards(
    out: &mut OutputGraph,
    obj: &PyObject,
    source: &Rc<Source>,
    vm: &VirtualMachine,
) {
    let Some(t) = obj.downcast_ref::<PyTuple>() else {
        return;
    };
    out.guards.add(
        source,
        Check::TypeMatch {
            ty: obj.class().to_owned().into(),
        },
    );
    out.guards.add(source, Check::Length(t.len()));
    for (i, x) in t.as_slice().iter().enumerate() {
        let s = source.item(Key::Int(i as i64));
        if let Some(v) = ConstValue::of(x, vm) {
            out.guards.add(&s, Check::Equals(v));
        } else if x.class().is(vm.ctx.types.tuple_type) {
            wrap_literal_tuple_guards(out, x, &s, vm);
        } else {
            out.guards.add(&s, Check::IdMatch { obj: x.clone() });
        }
    }
}

/// A `functools.partial` from the frame: its function, arguments and keywords wrapped through
/// their own sources (`L['p'].func`, `L['p'].args[0]`, `L['p'].keywords['k']`).
fn wrap_partial(
    out: &mut OutputGraph,
    obj: &PyObjectRef,
    source: &Rc<Source>,
    vm: &VirtualMachine,
) -> Option<Vt> {
    let cls = obj.class();
    let is_partial = super::super::polyfills::module_of(cls.as_object(), vm).as_deref()
        == Some("functools")
        && &*cls.name() == "partial";
    if !is_partial {
        return None;
    }
    let func = obj.get_attr("func", vm).ok()?;
    let args = obj.get_attr("args", vm).ok()?;
    let args = args.downcast_ref::<PyTuple>()?.as_slice().to_vec();
    let kw = obj.get_attr("keywords", vm).ok()?;
    let kw = kw.downcast_ref::<PyDict>()?;
    let mut keywords = Vec::new();
    let mut keys = Vec::new();
    for (k, v) in kw.items_vec() {
        let name = k
            .downcast_ref::<rustpython_vm::builtins::PyStr>()?
            .to_str()?
            .to_owned();
        keys.push(ConstValue::Str(name.as_str().into()));
        keywords.push((name, v));
    }
    out.guards.add(
        source,
        Check::TypeMatch {
            ty: cls.to_owned().into(),
        },
    );
    let args_src = source.attr("args");
    out.guards.add(&args_src, Check::Length(args.len()));
    let kw_src = source.attr("keywords");
    out.guards.add(&kw_src, Check::DictKeys(keys));
    let func = wrap(out, func, source.attr("func"), vm);
    let args = args
        .into_iter()
        .enumerate()
        .map(|(i, a)| wrap(out, a, args_src.item(Key::Int(i as i64)), vm))
        .collect();
    let keywords = keywords
        .into_iter()
        .map(|(k, v)| {
            let vt = wrap(out, v, kw_src.item(Key::Str(k.as_str().into())), vm);
            (k, vt)
        })
        .collect();
    Some(Vt::with_source(
        Kind::Partial(Rc::new(super::PartialVar {
            func,
            args,
            keywords,
        })),
        source.clone(),
    ))
}

/// Any other object: guarded by type; its attributes are read (and guarded) on access.
fn opaque(out: &mut OutputGraph, obj: PyObjectRef, source: Rc<Source>, _vm: &VirtualMachine) -> Vt {
    out.guards.add(
        &source,
        Check::TypeMatch {
            ty: obj.class().to_owned().into(),
        },
    );
    Vt::with_source(Kind::Object(obj), source)
}

/// Wraps a value that has no source (a trace-time result, e.g. an attribute of a constant).
pub fn wrap_unguarded(obj: PyObjectRef, vm: &VirtualMachine) -> Vt {
    if is_literal(&obj, vm)
        || (obj.class().is(vm.ctx.types.tuple_type) && is_literal_tuple(&obj, vm))
    {
        return Vt::constant(obj);
    }
    if let Some((overloads, surface)) = bridge::op_function(&obj) {
        return Vt::new(Kind::TorchOp {
            overloads,
            surface,
            obj,
        });
    }
    if obj.downcast_ref::<PyFunction>().is_some() {
        return Vt::new(Kind::Function(obj));
    }
    if obj.downcast_ref::<PyModule>().is_some() {
        return Vt::new(Kind::Module(obj));
    }
    if obj.downcast_ref::<PyType>().is_some() {
        if let Some(name) = builtin_type_name(&obj, vm) {
            return Vt::new(Kind::Builtin(obj, name));
        }
        return Vt::new(Kind::Class(obj));
    }
    if let Some(name) = builtin_function_name(&obj, vm) {
        return Vt::new(Kind::Builtin(obj, name));
    }
    if bridge::is_nn_module(&obj, vm) {
        return Vt::new(Kind::NNModule(obj));
    }
    if let Some((func, zelf)) = bound_method_parts(&obj, vm) {
        let f = wrap_unguarded(func, vm);
        let s = wrap_unguarded(zelf, vm);
        return Vt::new(Kind::BoundMethod(Box::new(f), Box::new(s)));
    }
    Vt::new(Kind::Object(obj))
}

/// Wraps a value a trace-time call just created (`sorted(...)`, `"a b".split()`, `dict(a=1)`):
/// a new list or dict is nobody else's, so it becomes a tracked container whose items the
/// trace can iterate and mutate; anything else is [`wrap_unguarded`].
pub fn wrap_fresh(obj: PyObjectRef, vm: &VirtualMachine) -> Vt {
    wrap_fresh_in(obj, &mut HashMap::new(), vm)
}

/// [`wrap_fresh`], with the trackers of the lists and dicts wrapped so far by address: one
/// object reached twice is one tracker, and a container that holds itself (a constant-folded
/// copy of a self-referential list) wraps in one pass.
fn wrap_fresh_in(obj: PyObjectRef, seen: &mut HashMap<usize, Vt>, vm: &VirtualMachine) -> Vt {
    let addr = &*obj as *const PyObject as usize;
    if let Some(vt) = seen.get(&addr) {
        return vt.clone();
    }
    if obj.class().is(vm.ctx.types.list_type)
        && let Some(l) = obj.downcast_ref::<PyList>()
    {
        let list = Rc::new(RefCell::new(ListVar::default()));
        let vt = Vt::new(Kind::List(list.clone()));
        seen.insert(addr, vt.clone());
        let snapshot = l.borrow_vec().to_vec();
        let items = snapshot
            .into_iter()
            .map(|x| wrap_fresh_in(x, seen, vm))
            .collect();
        list.borrow_mut().items = items;
        return vt;
    }
    if is_dict(&obj, vm)
        && let Some(d) = obj.downcast_ref::<PyDict>()
        && d.keys_vec().iter().all(|k| ConstValue::of(k, vm).is_some())
    {
        let dict = Rc::new(RefCell::new(DictVar::default()));
        let vt = Vt::new(Kind::Dict(dict.clone()));
        seen.insert(addr, vt.clone());
        let items = d
            .items_vec()
            .into_iter()
            .map(|(k, v)| (k, wrap_fresh_in(v, seen, vm)))
            .collect();
        dict.borrow_mut().items = items;
        return vt;
    }
    if obj.class().is(vm.ctx.types.set_type) {
        return Vt::new(Kind::Set(obj));
    }
    wrap_unguarded(obj, vm)
}

/// The name of a builtin type (`list`, `dict`, `range`, `int`, ...), if `obj` is one.
fn builtin_type_name(obj: &PyObject, vm: &VirtualMachine) -> Option<Rc<str>> {
    let module = obj.get_attr("__module__", vm).ok()?;
    let module = module
        .downcast_ref::<rustpython_vm::builtins::PyStr>()?
        .to_str()?
        .to_owned();
    if module != "builtins" {
        return None;
    }
    let name = obj.get_attr("__name__", vm).ok()?;
    name.downcast_ref::<rustpython_vm::builtins::PyStr>()?
        .to_str()
        .map(Rc::from)
}

/// The name of a builtin function (`len`, `print`, `isinstance`, ...), if `obj` is one.
fn builtin_function_name(obj: &PyObject, vm: &VirtualMachine) -> Option<Rc<str>> {
    if !obj.class().is(vm.ctx.types.builtin_function_or_method_type) {
        return None;
    }
    // A bound method of a builtin object (e.g. `[].append`) has a non-module `__self__`.
    if let Ok(zelf) = obj.get_attr("__self__", vm)
        && zelf.downcast_ref::<PyModule>().is_none()
        && !vm.is_none(&zelf)
    {
        return None;
    }
    let name = obj.get_attr("__name__", vm).ok()?;
    name.downcast_ref::<rustpython_vm::builtins::PyStr>()?
        .to_str()
        .map(Rc::from)
}

/// `(function, self)` of a bound Python method.
fn bound_method_parts(obj: &PyObject, vm: &VirtualMachine) -> Option<(PyObjectRef, PyObjectRef)> {
    if !obj.class().is(vm.ctx.types.bound_method_type) {
        return None;
    }
    let func = obj.get_attr("__func__", vm).ok()?;
    let zelf = obj.get_attr("__self__", vm).ok()?;
    Some((func, zelf))
}

/// A `dict` or a `collections.OrderedDict` (exact types): tracked as a dict. Dicts keep insertion
/// order, so the trace needs nothing OrderedDict-specific for the reads and stores it models
/// (`nn.Module` keeps its hooks, parameters and submodules in OrderedDicts); its own methods
/// (`move_to_end`, ...) are not modelled and break.
fn is_dict(obj: &PyObjectRef, vm: &VirtualMachine) -> bool {
    let cls = obj.class();
    if cls.is(vm.ctx.types.dict_type) {
        return true;
    }
    cls.name().to_string() == "OrderedDict"
        && super::super::bridge::import_module("collections", vm)
            .and_then(|m| m.get_attr("OrderedDict", vm))
            .is_ok_and(|od| od.is(cls.as_object()))
}
