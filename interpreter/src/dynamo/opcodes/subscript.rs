//! Subscripts: `obj[index]` (`BINARY_OP` subscription and `BINARY_SLICE`), slice objects, and
//! the subscript and slice stores and deletes (`STORE_SUBSCR`, `STORE_SLICE`, `DELETE_SUBSCR`).

use std::cell::RefCell;
use std::rc::Rc;

use rustpython_vm::{AsObject, PyObjectRef};

use super::super::bytecode::Instr;
use super::super::container_methods::key_eq;
use super::super::exc::{GraphBreak, GraphBreakKind};
use super::super::symbolic_convert::{Flow, Step, Tracer};
use super::super::variables::exceptions::raise_builtin;
use super::super::variables::{Kind, ListVar, Vt};
use super::binary::{is_int_index, unsupported};

impl Tracer<'_> {
    /// `obj[index]`.
    pub(crate) fn getitem(&mut self, obj: Vt, index: Vt) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        if obj.as_tensor().is_some() {
            return self.tensor_getitem(obj, index);
        }
        // A SymInt indexing or slicing a Python container is used as its value (specialised).
        let index = match &index.kind {
            Kind::SymInt(s) => Vt::constant(s.concrete().clone()),
            Kind::Slice(parts) if parts.iter().any(|p| matches!(p.kind, Kind::SymInt(_))) => {
                let conc = |v: &Vt| match &v.kind {
                    Kind::SymInt(s) => Vt::constant(s.concrete().clone()),
                    _ => v.clone(),
                };
                let [a, b, step] = &**parts;
                let (a, b, step) = (conc(a), conc(b), conc(step));
                self.make_slice(a, b, step)?
            }
            _ => index,
        };
        let seq_index = |items: &[Vt], index: &Vt, what: &str| -> Result<Vt, GraphBreak> {
            match &index.kind {
                Kind::Const(c) if c.class().is(vm.ctx.types.slice_type) => {
                    // Slice through a real list of positions, so every slice form is right.
                    let pos: PyObjectRef = vm
                        .ctx
                        .new_list((0..items.len()).map(|i| vm.ctx.new_int(i).into()).collect())
                        .into();
                    let picked = pos
                        .get_item(&**c, vm)
                        .map_err(|_| unsupported("getitem", &obj, index))?;
                    let picked: Vec<usize> = vm
                        .extract_elements_with(&picked, |p| p.try_to_value::<usize>(vm))
                        .map_err(|_| unsupported("getitem", &obj, index))?;
                    Ok(Vt::new(Kind::Tuple(
                        picked.into_iter().map(|i| items[i].clone()).collect(),
                    )))
                }
                Kind::Const(c) => {
                    let i = c
                        .try_to_value::<i64>(vm)
                        .map_err(|_| unsupported("getitem", &obj, index))?;
                    let n = items.len() as i64;
                    let j = if i < 0 { i + n } else { i };
                    if j < 0 || j >= n {
                        return Err(raise_builtin(
                            vm.ctx.exceptions.index_error,
                            vm.ctx.new_str(format!("{what} index out of range")).into(),
                        ));
                    }
                    Ok(items[j as usize].clone())
                }
                _ => Err(unsupported("getitem", &obj, index)),
            }
        };
        match &obj.kind {
            Kind::Tuple(items) | Kind::NamedTuple(_, items) => seq_index(items, &index, "tuple"),
            Kind::List(l) if l.borrow().deque.is_some() && !is_int_index(&index, vm) => {
                Err(raise_builtin(
                    vm.ctx.exceptions.type_error,
                    vm.ctx
                        .new_str("sequence index must be integer, not 'slice'")
                        .into(),
                ))
            }
            Kind::List(l) => {
                let items = l.borrow().items.clone();
                let r = seq_index(&items, &index, "list")?;
                // A list slice is a new list.
                Ok(match r.kind {
                    Kind::Tuple(items)
                        if index
                            .as_const()
                            .is_some_and(|c| c.class().is(vm.ctx.types.slice_type)) =>
                    {
                        Vt::new(Kind::List(Rc::new(RefCell::new(ListVar {
                            items,
                            mutated: false,
                            ..Default::default()
                        }))))
                    }
                    _ => r,
                })
            }
            Kind::Dict(d) => {
                let key = self.dict_key(&index)?;
                let found = d
                    .borrow()
                    .items
                    .iter()
                    .find(|(k, _)| key_eq(k, &key, vm))
                    .map(|(_, v)| v.clone());
                if let Some(v) = found {
                    return Ok(v);
                }
                self.dict_missing(&obj, d, key)
            }
            Kind::Const(c) => {
                let i = index
                    .as_const()
                    .ok_or_else(|| unsupported("getitem", &obj, &index))?;
                self.fold_operator("getitem", vec![c.clone(), i.clone()])
            }
            Kind::Class(c) if let Some(r) = self.enum_lookup(&c.clone(), &index, true) => r,
            Kind::NNModule(_)
                if let Some(r) =
                    self.built_module_dunder(&obj, "__getitem__", vec![index.clone()]) =>
            {
                r
            }
            Kind::NNModule(m) => {
                // nn.Sequential / ModuleList / ModuleDict indexing: the child, read through the
                // module's `_modules` (guarded: the children and their order are pinned).
                let i = index
                    .as_const()
                    .ok_or_else(|| unsupported("getitem", &obj, &index))?;
                let child = m
                    .get_item(&**i, vm)
                    .map_err(|_| unsupported("getitem", &obj, &index))?;
                self.guard_module_children(&obj)?;
                let key = m
                    .get_attr("_modules", vm)
                    .ok()
                    .and_then(|mods| {
                        let d = mods.downcast_ref::<rustpython_vm::builtins::PyDict>()?;
                        d.items_vec()
                            .into_iter()
                            .find(|(_, v)| v.is(&child))
                            .and_then(|(k, _)| k.str(vm).ok().map(|s| s.to_string()))
                    })
                    .ok_or_else(|| unsupported("getitem", &obj, &index))?;
                let src = obj
                    .source
                    .clone()
                    .ok_or_else(|| unsupported("getitem", &obj, &index))?;
                Ok(super::super::variables::builder::wrap(
                    self.out,
                    child,
                    src.attr("_modules")
                        .item(super::super::source::Key::Str(key.as_str().into())),
                    vm,
                ))
            }
            Kind::Object(o) if let Some(r) = self.frame_dict_item(&o.clone(), &obj, &index) => r,
            _ => Err(unsupported("getitem", &obj, &index)),
        }
    }

    pub(crate) fn binary_slice(&mut self, _ins: &Instr) -> Step {
        let stop = self.pop()?;
        let start = self.pop()?;
        let obj = self.pop()?;
        let none = Vt::constant(self.vm.ctx.none());
        let slice = self.make_slice(start, stop, none)?;
        let v = self.getitem(obj, slice)?;
        self.push(v);
        Ok(Flow::Next)
    }

    /// A slice tracker: a real slice constant when its parts are constants.
    pub(crate) fn make_slice(&mut self, start: Vt, stop: Vt, step: Vt) -> Result<Vt, GraphBreak> {
        let sym = |v: &Vt| matches!(v.kind, Kind::SymInt(_));
        if sym(&start) || sym(&stop) || sym(&step) {
            // SymInt bounds stay symbolic (`x[:, :T]`).
            return Ok(Vt::new(Kind::Slice(Box::new([start, stop, step]))));
        }
        if let (Some(a), Some(b), Some(c)) = (start.as_const(), stop.as_const(), step.as_const()) {
            let s = rustpython_vm::builtins::PySlice {
                start: Some(a.clone()),
                stop: b.clone(),
                step: Some(c.clone()),
            };
            return Ok(Vt::constant(rustpython_vm::PyPayload::into_pyobject(
                s, self.vm,
            )));
        }
        Ok(Vt::new(Kind::Slice(Box::new([start, stop, step]))))
    }

    pub(crate) fn store_slice(&mut self, _ins: &Instr) -> Step {
        let stop = self.pop()?;
        let start = self.pop()?;
        let obj = self.pop()?;
        let value = self.pop()?;
        let none = Vt::constant(self.vm.ctx.none());
        let slice = self.make_slice(start, stop, none)?;
        self.setitem(obj, slice, value)?;
        Ok(Flow::Next)
    }

    pub(crate) fn store_subscr(&mut self, _ins: &Instr) -> Step {
        let index = self.pop()?;
        let obj = self.pop()?;
        let value = self.pop()?;
        self.setitem(obj, index, value)?;
        Ok(Flow::Next)
    }

    pub(crate) fn setitem(&mut self, obj: Vt, index: Vt, value: Vt) -> Result<(), GraphBreak> {
        let vm = self.vm;
        match &obj.kind {
            Kind::Tensor(_) => self.tensor_setitem(obj, index, value),
            Kind::List(_) if !is_int_index(&index, vm) => {
                // Slice assignment (and anything else a real list decides): on a real proxy.
                self.proxy_method(&obj, "__setitem__", &[index, value], &[])
                    .map(|_| ())
            }
            Kind::List(l) => {
                let i = index
                    .as_const()
                    .and_then(|c| c.try_to_value::<i64>(vm).ok())
                    .ok_or_else(|| unsupported("setitem", &obj, &index))?;
                let mut lm = l.borrow_mut();
                let n = lm.items.len() as i64;
                let j = if i < 0 { i + n } else { i };
                if j < 0 || j >= n {
                    return Err(raise_builtin(
                        vm.ctx.exceptions.index_error,
                        vm.ctx.new_str("list assignment index out of range").into(),
                    ));
                }
                lm.items[j as usize] = value;
                lm.mutated = true;
                drop(lm);
                self.out.side_effects.record_container(&obj);
                Ok(())
            }
            Kind::Dict(d) => {
                let key = self.dict_key(&index)?;
                let mut dm = d.borrow_mut();
                super::super::container_methods::set_dict_item(&mut dm.items, key, value, vm);
                dm.mutated = true;
                drop(dm);
                self.out.side_effects.record_container(&obj);
                Ok(())
            }
            _ => Err(GraphBreak::new(
                GraphBreakKind::UntrackableStore,
                format!("STORE_SUBSCR on {}", obj.describe()),
            )),
        }
    }

    pub(crate) fn delete_subscr(&mut self, _ins: &Instr) -> Step {
        let index = self.pop()?;
        let obj = self.pop()?;
        let vm = self.vm;
        match &obj.kind {
            Kind::Dict(d) => {
                let key = self.dict_key(&index)?;
                let mut dm = d.borrow_mut();
                let pos = dm.items.iter().position(|(k, _)| key_eq(k, &key, vm));
                let Some(pos) = pos else {
                    return Err(raise_builtin(vm.ctx.exceptions.key_error, key.clone()));
                };
                dm.items.remove(pos);
                dm.mutated = true;
            }
            Kind::List(_) if !is_int_index(&index, vm) => {
                self.proxy_method(&obj, "__delitem__", &[index], &[])?;
                return Ok(Flow::Next);
            }
            Kind::List(l) => {
                let i = index
                    .as_const()
                    .and_then(|c| c.try_to_value::<i64>(vm).ok())
                    .ok_or_else(|| unsupported("delitem", &obj, &index))?;
                let mut lm = l.borrow_mut();
                let n = lm.items.len() as i64;
                let j = if i < 0 { i + n } else { i };
                if j < 0 || j >= n {
                    return Err(raise_builtin(
                        vm.ctx.exceptions.index_error,
                        vm.ctx.new_str("list assignment index out of range").into(),
                    ));
                }
                lm.items.remove(j as usize);
                lm.mutated = true;
            }
            _ => {
                return Err(GraphBreak::new(
                    GraphBreakKind::UntrackableStore,
                    format!("DELETE_SUBSCR on {}", obj.describe()),
                ));
            }
        }
        self.out.side_effects.record_container(&obj);
        Ok(Flow::Next)
    }
}
