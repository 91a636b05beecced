//! Methods of tracked non-tensor receivers while tracing (the list/dict/tuple/set trackers'
//! `call_method` in Dynamo): mutations change the trace's copy and are replayed on the real
//! container after the graph; anything not modelled is a graph break.

use std::cell::RefCell;
use std::rc::Rc;

use rustpython_vm::{PyObjectRef, VirtualMachine};

use super::builtins::bad_args;
use super::exc::GraphBreak;
use super::symbolic_convert::Tracer;
use super::variables::{Kind, ListVar, Vt};

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
                let consts = self.all_consts(&args).ok_or_else(|| bad_args(name))?;
                let kw = kwargs
                    .iter()
                    .map(|(k, v)| v.as_const().map(|c| (k.clone(), c.clone())))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| bad_args(name))?;
                self.fold(&f, consts, kw)
            }
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
                    _ => return Err(bad_args(name)),
                };
                if !matches!(name, "copy" | "index" | "count") {
                    l_mut.mutated = true;
                }
                drop(l_mut);
                self.out.side_effects.record_container(&recv);
                Ok(r)
            }
            Kind::Tuple(items) => match (name, args.as_slice()) {
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
            Kind::Dict(d) => self.dict_method(&recv, d.clone(), name, args),
            Kind::Set(_) if kwargs.is_empty() => self.set_method(&recv, name, args),
            _ => Err(bad_args(name)),
        }
    }

    fn dict_method(
        &mut self,
        recv: &Vt,
        d: Rc<RefCell<super::variables::DictVar>>,
        name: &str,
        args: Vec<Vt>,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let key_of = |v: &Vt| v.as_const().cloned().ok_or_else(|| bad_args(name));
        let find = |items: &[(PyObjectRef, Vt)], k: &PyObjectRef| {
            items
                .iter()
                .position(|(kk, _)| vm.bool_eq(kk, k).unwrap_or(false))
        };
        let r = match (name, args.as_slice()) {
            ("keys", []) => {
                return Ok(Vt::new(Kind::Tuple(
                    d.borrow()
                        .items
                        .iter()
                        .map(|(k, _)| Vt::constant(k.clone()))
                        .collect(),
                )));
            }
            ("values", []) => {
                return Ok(Vt::new(Kind::Tuple(
                    d.borrow().items.iter().map(|(_, v)| v.clone()).collect(),
                )));
            }
            ("items", []) => {
                return Ok(Vt::new(Kind::Tuple(
                    d.borrow()
                        .items
                        .iter()
                        .map(|(k, v)| {
                            Vt::new(Kind::Tuple(vec![Vt::constant(k.clone()), v.clone()]))
                        })
                        .collect(),
                )));
            }
            ("get", [k]) | ("get", [k, _]) => {
                let key = key_of(k)?;
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
                let key = key_of(k)?;
                return Ok(Vt::constant(
                    vm.ctx
                        .new_bool(find(&d.borrow().items, &key).is_some())
                        .into(),
                ));
            }
            ("update", [other]) => {
                let Kind::Dict(o) = &other.kind else {
                    return Err(bad_args(name));
                };
                let more = o.borrow().items.clone();
                let mut dm = d.borrow_mut();
                for (k, v) in more {
                    set_dict_item(&mut dm.items, k, v, vm);
                }
                dm.mutated = true;
                Vt::constant(vm.ctx.none())
            }
            ("pop", [k]) | ("pop", [k, _]) => {
                let key = key_of(k)?;
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
            ("setdefault", [k, v]) => {
                let key = key_of(k)?;
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
                let items = d.borrow().items.clone();
                return Ok(Vt::new(Kind::Dict(Rc::new(RefCell::new(
                    super::variables::DictVar {
                        items,
                        mutated: false,
                    },
                )))));
            }
            ("clear", []) => {
                let mut dm = d.borrow_mut();
                dm.items.clear();
                dm.mutated = true;
                Vt::constant(vm.ctx.none())
            }
            _ => return Err(bad_args(name)),
        };
        self.out.side_effects.record_container(recv);
        Ok(r)
    }
}

/// Sets `items[key] = value`, keeping insertion order.
pub fn set_dict_item(
    items: &mut Vec<(PyObjectRef, Vt)>,
    key: PyObjectRef,
    value: Vt,
    vm: &VirtualMachine,
) {
    match items
        .iter()
        .position(|(k, _)| vm.bool_eq(k, &key).unwrap_or(false))
    {
        Some(i) => items[i].1 = value,
        None => items.push((key, value)),
    }
}
