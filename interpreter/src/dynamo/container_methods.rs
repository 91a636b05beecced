//! Methods of tracked non-tensor receivers while tracing (the list/dict/tuple/set trackers'
//! `call_method` in Dynamo): mutations change the trace's copy and are replayed on the real
//! container after the graph; anything not modelled is a graph break.

use std::cell::RefCell;
use std::rc::Rc;

use rustpython_vm::{AsObject, PyObjectRef, VirtualMachine};

use super::builtins::bad_args;
use super::exc::GraphBreak;
use super::symbolic_convert::Tracer;
use super::variables::{Kind, ListVar, ViewKind, Vt};

impl Tracer<'_> {
    /// `recv.name(*args, **kwargs)` for a tracked non-tensor receiver.
    pub(crate) fn call_method(
        &mut self,
        recv: Vt,
        name: &str,
        args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let none = || Vt::constant(vm.ctx.none());
        match &recv.kind {
            Kind::Tensor(_) => self.call_tensor_method(recv.clone(), name, args, kwargs),
            Kind::GradMode(g) => self.call_grad_ctx_method(&recv, &g.clone(), name),
            Kind::ErrorOnGraphBreak(e) => self.call_error_on_graph_break_method(&e.clone(), name),
            Kind::Const(c) => {
                let f = c
                    .get_attr(&vm.ctx.new_str(name), vm)
                    .map_err(|_| bad_args(name))?;
                self.fold_with_values(&f, name, &args, &kwargs)
            }
            // `dict.fromkeys(...)` and the like: a new value from constant arguments.
            // `set.difference(a, b)`: an unbound method of a container type on an instance of it.
            Kind::Builtin(c, _)
                if super::attribute::is_container_type(c, vm)
                    && !super::attribute::PURE_CLASSMETHODS.contains(&name)
                    && args
                        .first()
                        .is_some_and(|a| self.type_of(a).is_ok_and(|t| t.is(c))) =>
            {
                let mut args = args;
                let recv = args.remove(0);
                self.call_method(recv, name, args, kwargs)
            }
            // `str.isalnum(ch)`: an unbound method of an immutable built-in type on a constant.
            Kind::Builtin(c, _)
                if super::attribute::PURE_CLASSMETHODS.contains(&name)
                    || (super::attribute::is_immutable_builtin_type(c, vm)
                        && args.first().is_some_and(|a| a.as_const().is_some())) =>
            {
                let f = c
                    .get_attr(&vm.ctx.new_str(name), vm)
                    .map_err(|_| bad_args(name))?;
                self.fold_with_values(&f, name, &args, &kwargs)
            }
            // `torch.Tensor.add(x, 1)`: the method on its first argument.
            Kind::Class(c) | Kind::Builtin(c, _)
                if super::bridge::tensor_class(vm).is_some_and(|t| t.is(c)) =>
            {
                let mut args = args;
                if args.first().and_then(|a| a.as_tensor()).is_none() {
                    return Err(bad_args(name));
                }
                let recv = args.remove(0);
                self.call_tensor_method(recv, name, args, kwargs)
            }
            // A deque's methods (maxlen, rotate, the left end) all go through a real deque.
            Kind::List(l) if l.borrow().deque.is_some() => {
                self.proxy_method(&recv, name, &args, &kwargs)
            }
            Kind::List(_) if name == "sort" => self.list_sort(&recv, args, kwargs),
            Kind::List(_) if !kwargs.is_empty() => self.proxy_method(&recv, name, &args, &kwargs),
            Kind::List(l) => {
                let mut l_mut = l.borrow_mut();
                let r = match (name, args.as_slice()) {
                    ("append", [v]) => {
                        l_mut.items.push(v.clone());
                        none()
                    }
                    ("extend", [v]) => {
                        drop(l_mut);
                        let more = self.unpack_iterable(v)?;
                        let mut l_mut = l.borrow_mut();
                        l_mut.items.extend(more);
                        l_mut.mutated = true;
                        drop(l_mut);
                        self.out.side_effects.record_container(&recv);
                        return Ok(none());
                    }
                    ("insert", [i, v]) => {
                        let i = i
                            .as_const()
                            .and_then(|c| c.try_to_value::<i64>(vm).ok())
                            .ok_or_else(|| bad_args(name))?;
                        let len = l_mut.items.len() as i64;
                        let i = if i < 0 { (i + len).max(0) } else { i.min(len) } as usize;
                        l_mut.items.insert(i, v.clone());
                        none()
                    }
                    ("pop", rest) => {
                        let len = l_mut.items.len() as i64;
                        let i = match rest {
                            [] => len - 1,
                            [i] => i
                                .as_const()
                                .and_then(|c| c.try_to_value::<i64>(vm).ok())
                                .ok_or_else(|| bad_args(name))?,
                            _ => return Err(bad_args(name)),
                        };
                        let i = if i < 0 { i + len } else { i };
                        if i < 0 || i >= len {
                            return Err(super::variables::exceptions::raise_builtin(
                                self.vm.ctx.exceptions.index_error,
                                self.vm.ctx.new_str("pop index out of range").into(),
                            ));
                        }
                        l_mut.items.remove(i as usize)
                    }
                    ("clear", []) => {
                        l_mut.items.clear();
                        none()
                    }
                    ("reverse", []) => {
                        l_mut.items.reverse();
                        none()
                    }
                    ("copy", []) => {
                        let items = l_mut.items.clone();
                        return Ok(Vt::new(Kind::List(Rc::new(RefCell::new(ListVar {
                            items,
                            mutated: false,
                            ..Default::default()
                        })))));
                    }
                    ("index" | "count", [v]) => {
                        // On the items' values, when every item is a constant (or container
                        // of them): Python compares by ==.
                        let items = l_mut.items.clone();
                        drop(l_mut);
                        let values = items
                            .iter()
                            .map(|i| self.python_value(i))
                            .collect::<Option<Vec<_>>>()
                            .ok_or_else(|| bad_args(name))?;
                        let needle = self.python_value(v).ok_or_else(|| bad_args(name))?;
                        let list: PyObjectRef = vm.ctx.new_list(values).into();
                        let f = list
                            .get_attr(&vm.ctx.new_str(name), vm)
                            .map_err(|_| bad_args(name))?;
                        return self.fold(&f, vec![needle], vec![]);
                    }
                    _ => {
                        drop(l_mut);
                        return self.proxy_method(&recv, name, &args, &kwargs);
                    }
                };
                if !matches!(name, "copy" | "index" | "count") {
                    l_mut.mutated = true;
                }
                drop(l_mut);
                self.out.side_effects.record_container(&recv);
                Ok(r)
            }
            Kind::NamedTuple(cls, items) if matches!(name, "_replace" | "_asdict" | "_make") => {
                let (cls, items) = (cls.clone(), items.clone());
                self.named_tuple_method(&cls, &items, name, args, kwargs)
            }
            Kind::Class(c) if name == "_make" => {
                let c = c.clone();
                self.named_tuple_method(&c, &[], name, args, kwargs)
            }
            Kind::Tuple(items) | Kind::NamedTuple(_, items) => match (name, args.as_slice()) {
                ("index" | "count", [v])
                    if v.as_const().is_some() && items.iter().all(|i| i.as_const().is_some()) =>
                {
                    let t: PyObjectRef = vm
                        .ctx
                        .new_tuple(
                            items
                                .iter()
                                .map(|i| i.as_const().cloned().expect("checked"))
                                .collect(),
                        )
                        .into();
                    let f = t
                        .get_attr(&vm.ctx.new_str(name), vm)
                        .map_err(|_| bad_args(name))?;
                    self.fold(&f, vec![v.as_const().cloned().expect("checked")], vec![])
                }
                _ => Err(bad_args(name)),
            },
            Kind::Dict(d) => {
                let counter = d
                    .borrow()
                    .cls
                    .as_ref()
                    .is_some_and(|c| c.get_attr("most_common", vm).is_ok());
                if counter && !matches!(name, "keys" | "values" | "items") {
                    // A Counter adds, subtracts and sorts its counts: its own code does that.
                    return self.proxy_method(&recv, name, &args, &kwargs);
                }
                self.dict_method(&recv, d.clone(), name, args, kwargs)
            }
            Kind::DictView(d, view) => self.dict_view_method(&recv, d, *view, name, args, kwargs),
            Kind::Set(_) if kwargs.is_empty() => self.set_method(&recv, name, args),
            _ => Err(GraphBreak::new(
                super::exc::GraphBreakKind::UnmodelledMethod,
                format!("{}.{name}()", recv.describe()),
            )),
        }
    }

    /// Calls a method of an immutable value (or a pure classmethod) on the Python values of its
    /// arguments (constants, and fresh copies of containers of constants: these methods do not
    /// keep or change their arguments).
    fn fold_with_values(
        &mut self,
        f: &PyObjectRef,
        name: &str,
        args: &[Vt],
        kwargs: &[(String, Vt)],
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        // `dict.fromkeys(keys, value)` puts `value` itself into the result: a copy of a list
        // would not be the list the program holds.
        if name == "fromkeys" && args.iter().skip(1).any(|a| a.as_const().is_none()) {
            return Err(bad_args(name));
        }
        let mut all = args.to_vec();
        all.extend(kwargs.iter().map(|(_, v)| v.clone()));
        let values = super::variables::python_value::python_values(&all, vm)
            .ok_or_else(|| bad_args(name))?;
        let (pos, kw) = values.split_at(args.len());
        let kw = kwargs
            .iter()
            .zip(kw)
            .map(|((k, _), v)| (k.clone(), v.clone()))
            .collect();
        self.fold(f, pos.to_vec(), kw)
    }

    fn dict_method(
        &mut self,
        recv: &Vt,
        d: Rc<RefCell<super::variables::DictVar>>,
        name: &str,
        args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        if !kwargs.is_empty() && name != "update" {
            return self.proxy_method(recv, name, &args, &kwargs);
        }
        let find = |items: &[(PyObjectRef, Vt)], k: &PyObjectRef| {
            items.iter().position(|(kk, _)| key_eq(kk, k, vm))
        };
        let r = match (name, args.as_slice()) {
            // Live views: they read the dict's items whenever they are used, as in Python.
            ("keys", []) => return Ok(Vt::new(Kind::DictView(d, ViewKind::Keys))),
            ("values", []) => return Ok(Vt::new(Kind::DictView(d, ViewKind::Values))),
            ("items", []) => return Ok(Vt::new(Kind::DictView(d, ViewKind::Items))),
            ("get", [k]) | ("get", [k, _]) => {
                let key = self.dict_key(k)?;
                let items = &d.borrow().items;
                return Ok(match find(items, &key) {
                    Some(i) => items[i].1.clone(),
                    None => args
                        .get(1)
                        .cloned()
                        .unwrap_or_else(|| Vt::constant(vm.ctx.none())),
                });
            }
            ("__contains__", [k]) => {
                let key = self.dict_key(k)?;
                return Ok(Vt::constant(
                    vm.ctx
                        .new_bool(find(&d.borrow().items, &key).is_some())
                        .into(),
                ));
            }
            ("update", rest) if rest.len() <= 1 => {
                // `d.update(other_dict)`, `d.update(pairs)`, `d.update(**kw)`, in that order.
                let mut more = match rest.first().map(|o| &o.kind) {
                    None => Vec::new(),
                    Some(Kind::Dict(o)) => o.borrow().items.clone(),
                    Some(_) => {
                        let mut pairs = Vec::new();
                        for pair in self.unpack_iterable(&rest[0])? {
                            let kv = self.unpack_iterable(&pair)?;
                            let [k, v] = kv.as_slice() else {
                                return Err(bad_args(name));
                            };
                            pairs.push((self.dict_key(k)?, v.clone()));
                        }
                        pairs
                    }
                };
                for (k, v) in kwargs {
                    more.push((vm.ctx.new_str(k).into(), v));
                }
                let mut dm = d.borrow_mut();
                for (k, v) in more {
                    set_dict_item(&mut dm.items, k, v, vm);
                }
                dm.mutated = true;
                Vt::constant(vm.ctx.none())
            }
            ("popitem", []) => {
                let mut dm = d.borrow_mut();
                let Some((k, v)) = dm.items.pop() else {
                    return Err(super::variables::exceptions::raise_builtin(
                        vm.ctx.exceptions.key_error,
                        vm.ctx.new_str("popitem(): dictionary is empty").into(),
                    ));
                };
                dm.mutated = true;
                Vt::new(Kind::Tuple(vec![Vt::constant(k), v]))
            }
            ("pop", [k]) | ("pop", [k, _]) => {
                let key = self.dict_key(k)?;
                let mut dm = d.borrow_mut();
                match find(&dm.items, &key) {
                    Some(i) => {
                        dm.mutated = true;
                        dm.items.remove(i).1
                    }
                    None => args.get(1).cloned().ok_or_else(|| {
                        super::variables::exceptions::raise_builtin(
                            self.vm.ctx.exceptions.key_error,
                            key.clone(),
                        )
                    })?,
                }
            }
            ("setdefault", [k]) => {
                let none = Vt::constant(vm.ctx.none());
                return self.dict_method(recv, d, name, vec![k.clone(), none], kwargs);
            }
            ("setdefault", [k, v]) => {
                let key = self.dict_key(k)?;
                let mut dm = d.borrow_mut();
                match find(&dm.items, &key) {
                    Some(i) => dm.items[i].1.clone(),
                    None => {
                        dm.mutated = true;
                        dm.items.push((key, v.clone()));
                        v.clone()
                    }
                }
            }
            ("copy", []) => {
                // The same class and default factory (a copy of an OrderedDict is one).
                let copy = {
                    let d = d.borrow();
                    super::variables::DictVar {
                        items: d.items.clone(),
                        mutated: false,
                        cls: d.cls.clone(),
                        default_factory: d.default_factory.clone(),
                    }
                };
                return Ok(Vt::new(Kind::Dict(Rc::new(RefCell::new(copy)))));
            }
            ("clear", []) => {
                let mut dm = d.borrow_mut();
                dm.items.clear();
                dm.mutated = true;
                Vt::constant(vm.ctx.none())
            }
            _ => return self.proxy_method(recv, name, &args, &kwargs),
        };
        self.out.side_effects.record_container(recv);
        Ok(r)
    }

    /// A method of a dict view (`isdisjoint`, `__len__`, ...): on a real view of the dict's
    /// current contents (the keys alone for a keys view), which must be constants.
    fn dict_view_method(
        &mut self,
        recv: &Vt,
        d: &Rc<RefCell<super::variables::DictVar>>,
        view: ViewKind,
        name: &str,
        args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let real = self.real_dict_view(d, view).ok_or_else(|| bad_args(name))?;
        let f = real
            .get_attr(&vm.ctx.new_str(name), vm)
            .map_err(|_| bad_args(name))?;
        let mut all = args;
        all.extend(kwargs.iter().map(|(_, v)| v.clone()));
        let values = super::variables::python_value::python_values(&all, vm)
            .ok_or_else(|| bad_args(name))?;
        let _ = recv;
        let (pos, kw) = values.split_at(values.len() - kwargs.len());
        let kw = kwargs
            .iter()
            .zip(kw)
            .map(|((k, _), v)| (k.clone(), v.clone()))
            .collect();
        self.fold(&f, pos.to_vec(), kw)
    }

    /// A real view of a dict tracker's current contents: for a keys view the keys alone (its
    /// values may be tensors), otherwise the dict's Python value (constants only).
    pub(crate) fn real_dict_view(
        &self,
        d: &Rc<RefCell<super::variables::DictVar>>,
        view: ViewKind,
    ) -> Option<PyObjectRef> {
        let vm = self.vm;
        let dict: PyObjectRef = match view {
            ViewKind::Keys => {
                let real = vm.ctx.new_dict();
                for (k, _) in &d.borrow().items {
                    real.set_item(&**k, vm.ctx.none(), vm).ok()?;
                }
                real.into()
            }
            _ => self.python_value(&Vt::new(Kind::Dict(d.clone())))?,
        };
        vm.call_method(&dict, view.method(), ()).ok()
    }

    /// `lst.sort(key=None, reverse=False)`: ordered as `sorted` orders (Python's own sort over
    /// the constant keys), then stored back into the list.
    fn list_sort(
        &mut self,
        recv: &Vt,
        args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let Kind::List(l) = &recv.kind else {
            return Err(bad_args("sort"));
        };
        if !args.is_empty() {
            return Err(bad_args("sort"));
        }
        let sorted_fn = vm
            .builtins
            .get_attr("sorted", vm)
            .map_err(|_| bad_args("sort"))?;
        let snapshot = Vt::new(Kind::Tuple(l.borrow().items.clone()));
        let r = self.reduce_builtin(&sorted_fn, "sorted", vec![snapshot], kwargs)?;
        let Kind::List(sorted) = r.kind else {
            return Err(bad_args("sort"));
        };
        let items = sorted.borrow().items.clone();
        {
            let mut lm = l.borrow_mut();
            lm.items = items;
            lm.mutated = true;
        }
        self.out.side_effects.record_container(recv);
        Ok(Vt::constant(vm.ctx.none()))
    }
}

impl Tracer<'_> {
    /// `d[key]` for a key the dict lacks: a `defaultdict` calls its factory and stores the
    /// result, a `Counter` answers 0 (`__missing__`, nothing stored), a dict raises KeyError.
    pub(crate) fn dict_missing(
        &mut self,
        obj: &Vt,
        d: &Rc<RefCell<super::variables::DictVar>>,
        key: PyObjectRef,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let (cls, factory) = {
            let d = d.borrow();
            (d.cls.clone(), d.default_factory.clone())
        };
        if let Some(f) = factory.filter(|f| !f.as_const().is_some_and(|c| vm.is_none(c))) {
            let v = self.call_vt(f, Vec::new(), Vec::new())?;
            let mut dm = d.borrow_mut();
            set_dict_item(&mut dm.items, key, v.clone(), vm);
            dm.mutated = true;
            drop(dm);
            self.out.side_effects.record_container(obj);
            return Ok(v);
        }
        if cls.is_some_and(|c| c.get_attr("most_common", vm).is_ok()) {
            return Ok(Vt::constant(vm.ctx.new_int(0).into()));
        }
        Err(super::variables::exceptions::raise_builtin(
            vm.ctx.exceptions.key_error,
            key,
        ))
    }
}

/// Whether two dict keys are the same key, as a dict decides: the same object, or equal
/// values (a tensor or other identity-hashed key only matches itself).
pub fn key_eq(a: &PyObjectRef, b: &PyObjectRef, vm: &VirtualMachine) -> bool {
    if a.is(b) {
        return true;
    }
    if super::bridge::as_tensor(a).is_some() || super::bridge::as_tensor(b).is_some() {
        return false;
    }
    vm.bool_eq(a, b).unwrap_or(false)
}

impl Tracer<'_> {
    /// The real key object for a tracker used as a dict key: a constant, or an object the frame
    /// holds (a parameter, a module, a function), pinned by an ID_MATCH guard on its source;
    /// values made in the trace have no object to key by yet.
    pub(crate) fn dict_key(&mut self, v: &Vt) -> Result<PyObjectRef, GraphBreak> {
        let vm = self.vm;
        if let Some(c) = v.as_const() {
            return Ok(c.clone());
        }
        let real = match (&v.kind, &v.source) {
            (Kind::Tensor(_), Some(src)) => src.eval(&self.out.frame, vm).ok(),
            (
                Kind::Object(o)
                | Kind::NNModule(o)
                | Kind::Function(o)
                | Kind::Class(o)
                | Kind::Builtin(o, _)
                | Kind::Module(o),
                _,
            ) if !self
                .out
                .new_objects
                .contains_key(&(o.as_object() as *const _ as usize)) =>
            {
                Some(o.clone())
            }
            _ => None,
        };
        let real = real.ok_or_else(|| {
            GraphBreak::new(
                super::exc::GraphBreakKind::UnsupportedOperation,
                format!("dict key {}", v.describe()),
            )
        })?;
        if real.class().name().to_string() == "ndarray" || real.hash(vm).is_err() {
            return Err(GraphBreak::new(
                super::exc::GraphBreakKind::UnsupportedOperation,
                format!("unhashable dict key {}", v.describe()),
            ));
        }
        if let Some(src) = &v.source {
            self.out
                .guards
                .add(src, super::guards::Check::IdMatch { obj: real.clone() });
        }
        Ok(real)
    }
}

/// Sets `items[key] = value`, keeping insertion order.
pub fn set_dict_item(
    items: &mut Vec<(PyObjectRef, Vt)>,
    key: PyObjectRef,
    value: Vt,
    vm: &VirtualMachine,
) {
    match items.iter().position(|(k, _)| key_eq(k, &key, vm)) {
        Some(i) => items[i].1 = value,
        None => items.push((key, value)),
    }
}
