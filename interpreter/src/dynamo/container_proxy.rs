//! Container methods Dynamo does not model one by one (`deque.rotate`, `OrderedDict.move_to_end`,
//! `list.sort`, `Counter.most_common`, ...), traced by running the real method on a real proxy
//! container (Dynamo models each in `variables/lists.py` and `dicts.py`; running CPython's own
//! code gives exactly its semantics, edge cases and errors included).
//!
//! The proxy holds the constants themselves and, for every other item (a tensor, a nested list
//! the trace tracks, an object), a fresh token object. Tokens are only safe where the method
//! never looks at the items: a *structural* method (append, pop, rotate, move_to_end, ...) moves
//! tokens around, and its result and the container's new contents map back to the trackers
//! they stand for. Any other method (sort, remove, count, Counter arithmetic) compares or
//! combines items, so it needs every item to be a constant. A method that raises raises the
//! same exception in the trace (an `IndexError` from `pop()` on an empty deque).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use rustpython_vm::builtins::{PyDict, PyList, PyTuple};
use rustpython_vm::{AsObject, PyObject, PyObjectRef, VirtualMachine};

use super::bridge;
use super::exc::{GraphBreak, GraphBreakKind};
use super::symbolic_convert::Tracer;
use super::variables::builder::wrap_unguarded;
use super::variables::exceptions::ExcVar;
use super::variables::{DictVar, Kind, ListVar, Vt};

/// Methods that only move items around: tokens may stand for any item.
const STRUCTURAL: &[&str] = &[
    "append",
    "appendleft",
    "extend",
    "extendleft",
    "insert",
    "pop",
    "popleft",
    "popitem",
    "clear",
    "reverse",
    "copy",
    "rotate",
    "move_to_end",
    "setdefault",
    "get",
    "update",
    "__len__",
    "__getitem__",
    "__setitem__",
    "__delitem__",
];

/// Methods that exist on these containers but are not traced this way (they call user code,
/// or make objects the trace cannot track).
const REFUSED: &[&str] = &[
    "__init__",
    "__setattr__",
    "__reduce__",
    "__reduce_ex__",
    "__class_getitem__",
];

fn unmodelled(recv: &Vt, name: &str) -> GraphBreak {
    GraphBreak::new(
        GraphBreakKind::UnmodelledMethod,
        format!("{}.{name}()", recv.describe()),
    )
}

/// Real objects standing for trackers, and back.
struct Tokens {
    by_addr: HashMap<usize, Vt>,
}

impl Tokens {
    /// The real value for a tracker: constants as themselves; anything else a token when
    /// `allow` (structural methods), else `None`.
    fn real(&mut self, v: &Vt, allow: bool, vm: &VirtualMachine) -> Option<PyObjectRef> {
        match &v.kind {
            Kind::Const(c) => Some(c.clone()),
            Kind::Tuple(items) => {
                let items = items
                    .iter()
                    .map(|i| self.real(i, allow, vm))
                    .collect::<Option<Vec<_>>>()?;
                Some(vm.ctx.new_tuple(items).into())
            }
            _ if allow => {
                let tok = vm.ctx.types.object_type.as_object().call((), vm).ok()?;
                self.by_addr
                    .insert(tok.as_object() as *const PyObject as usize, v.clone());
                Some(tok)
            }
            _ => None,
        }
    }

    /// An argument: like an item, and a list or dict argument (`extend([x, y])`,
    /// `update({"a": x})`) as a real one of the same shape (methods do not keep arguments).
    fn arg(&mut self, v: &Vt, allow: bool, vm: &VirtualMachine) -> Option<PyObjectRef> {
        match &v.kind {
            Kind::List(l) if l.borrow().deque.is_none() => {
                let items = l
                    .borrow()
                    .items
                    .iter()
                    .map(|i| self.real(i, allow, vm))
                    .collect::<Option<Vec<_>>>()?;
                Some(vm.ctx.new_list(items).into())
            }
            Kind::Dict(d) if d.borrow().cls.is_none() => {
                let dict = vm.ctx.new_dict();
                for (k, x) in &d.borrow().items {
                    dict.set_item(&**k, self.real(x, allow, vm)?, vm).ok()?;
                }
                Some(dict.into())
            }
            _ => self.real(v, allow, vm),
        }
    }

    /// The tracker for a real value the method returned or left in the container.
    fn back(
        &self,
        o: &PyObjectRef,
        proxy: &PyObjectRef,
        recv: &Vt,
        vm: &VirtualMachine,
    ) -> Option<Vt> {
        if let Some(v) = self
            .by_addr
            .get(&(o.as_object() as *const PyObject as usize))
        {
            return Some(v.clone());
        }
        if o.is(proxy) {
            return Some(recv.clone());
        }
        let cls = o.class();
        if cls.is(vm.ctx.types.tuple_type) {
            let t = o.downcast_ref::<PyTuple>()?;
            let items = t
                .as_slice()
                .iter()
                .map(|i| self.back(i, proxy, recv, vm))
                .collect::<Option<Vec<_>>>()?;
            return Some(match items.iter().all(|i| i.as_const().is_some()) {
                true => Vt::constant(o.clone()),
                false => Vt::new(Kind::Tuple(items)),
            });
        }
        if cls.is(vm.ctx.types.list_type) {
            let l = o.downcast_ref::<PyList>()?;
            let items = l
                .borrow_vec()
                .iter()
                .map(|i| self.back(i, proxy, recv, vm))
                .collect::<Option<Vec<_>>>()?;
            return Some(Vt::new(Kind::List(Rc::new(RefCell::new(ListVar {
                items,
                mutated: false,
                ..Default::default()
            })))));
        }
        if let Some(d) = o.downcast_ref::<PyDict>() {
            let dict_cls = (!cls.is(vm.ctx.types.dict_type)).then(|| cls.to_owned().into());
            // A proxy defaultdict has no factory, so a copy of it would not be the real one's.
            if dict_cls.as_ref().is_some_and(|c: &PyObjectRef| {
                !is_modelled_dict_class(c, vm) || c.get_attr("default_factory", vm).is_ok()
            }) {
                return None;
            }
            let mut items = Vec::new();
            let _ = d;
            for (k, v) in dict_pairs(o, vm)? {
                if self
                    .by_addr
                    .contains_key(&(k.as_object() as *const PyObject as usize))
                {
                    return None;
                }
                items.push((k, self.back(&v, proxy, recv, vm)?));
            }
            return Some(Vt::new(Kind::Dict(Rc::new(RefCell::new(DictVar {
                items,
                cls: dict_cls,
                ..Default::default()
            })))));
        }
        if let Some(maxlen) = deque_maxlen(o, vm) {
            let items = vm
                .extract_elements_with(o, Ok)
                .ok()?
                .iter()
                .map(|i| self.back(i, proxy, recv, vm))
                .collect::<Option<Vec<_>>>()?;
            return Some(Vt::new(Kind::List(Rc::new(RefCell::new(ListVar {
                items,
                mutated: false,
                deque: Some(maxlen),
            })))));
        }
        let w = wrap_unguarded(o.clone(), vm);
        // Only immutable values may come back as they are (anything else could hold tokens).
        matches!(w.kind, Kind::Const(_)).then_some(w)
    }
}

/// A dict's pairs in its own iteration order (`items()`: an `OrderedDict` reordered by
/// `move_to_end` iterates in its order, not its storage's).
pub fn dict_pairs(d: &PyObject, vm: &VirtualMachine) -> Option<Vec<(PyObjectRef, PyObjectRef)>> {
    let items = vm.call_method(d, "items", ()).ok()?;
    vm.extract_elements_with(&items, |pair| {
        let kv: Vec<PyObjectRef> = vm.extract_elements_with(&pair, Ok)?;
        match <[PyObjectRef; 2]>::try_from(kv) {
            Ok([k, v]) => Ok((k, v)),
            Err(_) => Err(vm.new_type_error("dict item")),
        }
    })
    .ok()
}

/// `Some(maxlen)` when `o` is a `collections.deque`.
pub fn deque_maxlen(o: &PyObject, vm: &VirtualMachine) -> Option<Option<usize>> {
    let deque = bridge::import_module("collections", vm)
        .and_then(|m| m.get_attr("deque", vm))
        .ok()?;
    if !o.class().is(&deque) {
        return None;
    }
    let m = o.get_attr("maxlen", vm).ok()?;
    Some(if vm.is_none(&m) {
        None
    } else {
        m.try_to_value::<usize>(vm).ok()
    })
}

/// Whether `cls` is one of the dict classes the trace tracks (`OrderedDict`, `defaultdict`,
/// `Counter`).
pub fn is_modelled_dict_class(cls: &PyObject, vm: &VirtualMachine) -> bool {
    let Ok(m) = bridge::import_module("collections", vm) else {
        return false;
    };
    ["OrderedDict", "defaultdict", "Counter"]
        .iter()
        .any(|n| m.get_attr(*n, vm).is_ok_and(|c| c.is(cls)))
}

impl Tracer<'_> {
    /// `recv.name(*args, **kwargs)` on a tracked list, deque or dict, through a real proxy.
    pub(crate) fn proxy_method(
        &mut self,
        recv: &Vt,
        name: &str,
        args: &[Vt],
        kwargs: &[(String, Vt)],
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        if REFUSED.contains(&name) || name.starts_with("__i") {
            return Err(unmodelled(recv, name));
        }
        let allow = STRUCTURAL.contains(&name);
        let mut tokens = Tokens {
            by_addr: HashMap::new(),
        };
        let fail = || unmodelled(recv, name);
        let proxy = self.proxy_of(recv, &mut tokens, allow).ok_or_else(fail)?;
        // Only an argument the method consumes as an iterable (`extend([x, y])`, a slice
        // assignment's values) may be a copied container; anything the method stores
        // (`append(lst)`) must stay that very object: a token.
        let slice_store = name == "__setitem__"
            && args
                .first()
                .and_then(|i| i.as_const())
                .is_some_and(|c| c.class().is(vm.ctx.types.slice_type));
        let consumed = |i: usize| match name {
            "extend" | "extendleft" | "update" | "__init__" => i == 0,
            "__setitem__" => slice_store && i == 1,
            _ => false,
        };
        let a = args
            .iter()
            .enumerate()
            .map(|(i, v)| {
                if consumed(i) {
                    tokens.arg(v, allow, vm)
                } else {
                    tokens.real(v, allow, vm)
                }
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(fail)?;
        let kw = kwargs
            .iter()
            .map(|(k, v)| tokens.real(v, allow, vm).map(|o| (k.clone(), o)))
            .collect::<Option<rustpython_vm::function::KwArgs>>()
            .ok_or_else(fail)?;
        let method = proxy
            .get_attr(&vm.ctx.new_str(name), vm)
            .map_err(|_| fail())?;
        if !method.is_callable() {
            return Err(fail());
        }
        let before = self.contents(&proxy)?;
        let result = method.call(rustpython_vm::function::FuncArgs::new(a, kw), vm);
        let result = match result {
            Ok(r) => r,
            Err(e) => return Err(self.raised_from(&e, recv, name)),
        };
        let after = self.contents(&proxy)?;
        let changed =
            before.len() != after.len() || before.iter().zip(&after).any(|(x, y)| !x.is(y));
        if changed {
            self.write_back(recv, &proxy, &tokens)?;
        }
        tokens.back(&result, &proxy, recv, vm).ok_or_else(fail)
    }

    /// A real container equal to the tracker, tokens standing for non-constant items.
    fn proxy_of(&self, recv: &Vt, tokens: &mut Tokens, allow: bool) -> Option<PyObjectRef> {
        let vm = self.vm;
        match &recv.kind {
            Kind::List(l) => {
                let l = l.borrow();
                let items = l
                    .items
                    .iter()
                    .map(|i| tokens.real(i, allow, vm))
                    .collect::<Option<Vec<_>>>()?;
                let list: PyObjectRef = vm.ctx.new_list(items).into();
                match l.deque {
                    None => Some(list),
                    Some(maxlen) => {
                        let deque = bridge::import_module("collections", vm)
                            .and_then(|m| m.get_attr("deque", vm))
                            .ok()?;
                        let maxlen = match maxlen {
                            Some(n) => vm.ctx.new_int(n).into(),
                            None => vm.ctx.none(),
                        };
                        deque.call((list, maxlen), vm).ok()
                    }
                }
            }
            Kind::Dict(d) => {
                let d = d.borrow();
                let obj = match &d.cls {
                    Some(c) => c.call((), vm).ok()?,
                    None => vm.ctx.new_dict().into(),
                };
                for (k, v) in &d.items {
                    obj.set_item(&**k, tokens.real(v, allow, vm)?, vm).ok()?;
                }
                Some(obj)
            }
            _ => None,
        }
    }

    /// The proxy's items (for a dict, its keys and values alternating), to see whether the
    /// method changed it.
    fn contents(&self, proxy: &PyObjectRef) -> Result<Vec<PyObjectRef>, GraphBreak> {
        let vm = self.vm;
        let bad = || GraphBreak::new(GraphBreakKind::UnmodelledMethod, "container contents");
        if proxy.downcast_ref::<PyDict>().is_some() {
            return Ok(dict_pairs(proxy, vm)
                .ok_or_else(bad)?
                .into_iter()
                .flat_map(|(k, v)| [k, v])
                .collect());
        }
        vm.extract_elements_with(proxy, Ok).map_err(|_| bad())
    }

    /// Stores the proxy's new contents into the tracker (and logs the mutation).
    fn write_back(
        &mut self,
        recv: &Vt,
        proxy: &PyObjectRef,
        tokens: &Tokens,
    ) -> Result<(), GraphBreak> {
        let vm = self.vm;
        let bad = || GraphBreak::new(GraphBreakKind::UnmodelledMethod, "container write-back");
        match &recv.kind {
            Kind::List(l) => {
                let items = vm
                    .extract_elements_with(proxy, Ok)
                    .map_err(|_| bad())?
                    .iter()
                    .map(|o| tokens.back(o, proxy, recv, vm))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(bad)?;
                let mut l = l.borrow_mut();
                l.items = items;
                l.mutated = true;
            }
            Kind::Dict(d) => {
                let pairs = dict_pairs(proxy, vm).ok_or_else(bad)?;
                let mut items = Vec::with_capacity(pairs.len());
                for (k, v) in pairs {
                    items.push((k, tokens.back(&v, proxy, recv, vm).ok_or_else(bad)?));
                }
                let mut d = d.borrow_mut();
                d.items = items;
                d.mutated = true;
            }
            _ => return Err(bad()),
        }
        self.out.side_effects.record_container(recv);
        Ok(())
    }

    /// The exception a proxy method raised, raised by the trace when it is made of constants
    /// (`IndexError('pop from an empty deque')`, `KeyError('k')`); otherwise not modelled.
    fn raised_from(
        &self,
        e: &rustpython_vm::builtins::PyBaseExceptionRef,
        recv: &Vt,
        name: &str,
    ) -> GraphBreak {
        let vm = self.vm;
        let args: Option<Vec<Vt>> = e
            .args()
            .as_slice()
            .iter()
            .map(|a| {
                let w = wrap_unguarded(a.clone(), vm);
                matches!(w.kind, Kind::Const(_)).then_some(w)
            })
            .collect();
        match args {
            Some(args) => GraphBreak::raised(Vt::new(Kind::Exception(Rc::new(ExcVar {
                cls: e.class().to_owned().into(),
                args,
            })))),
            None => unmodelled(recv, name),
        }
    }
}
