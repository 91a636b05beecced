//! Python values equal to trackers made only of constants (Dynamo's `as_python_constant`):
//! what builtins and comparisons fold on at trace time (`len([1, 2])`, `xs == [1, 2]`,
//! `str((1, 2))`).
//!
//! Lists and dicts are mutable and shared, so the trackers can form a graph with cycles
//! (`l.append(l)`). Each list or dict tracker becomes one new object however often it is reached
//! (across all the values converted together), made before its items: aliasing survives
//! (`l == l` compares one object with itself, as in Python) and a container that holds itself
//! becomes a new one that does (`repr` gives `[1, [...]]`), where a plain recursive copy would
//! never end.

use std::collections::HashMap;
use std::rc::Rc;

use rustpython_vm::{PyObjectRef, VirtualMachine};

use super::{Kind, Vt};

/// Fresh Python values equal to `vts`, converted together (one object per shared list or dict);
/// `None` if any of them holds something other than constants, tuples, named tuples, lists,
/// dicts and sets.
pub fn python_values(vts: &[Vt], vm: &VirtualMachine) -> Option<Vec<PyObjectRef>> {
    let mut conv = Converter::new(vm);
    vts.iter().map(|v| conv.convert(v)).collect()
}

/// Converts trackers one at a time, sharing the objects made for lists and dicts between
/// them (for callers that stop at the first value that does not convert).
pub struct Converter<'vm> {
    vm: &'vm VirtualMachine,
    /// The objects made so far for lists and dicts, by tracker address.
    made: HashMap<usize, PyObjectRef>,
}

impl<'vm> Converter<'vm> {
    /// A converter that has made nothing yet.
    pub fn new(vm: &'vm VirtualMachine) -> Self {
        Self {
            vm,
            made: HashMap::new(),
        }
    }

    /// A fresh Python value equal to `v`, or `None` if it holds anything else.
    pub fn convert(&mut self, v: &Vt) -> Option<PyObjectRef> {
        let vm = self.vm;
        Some(match &v.kind {
            Kind::Const(c) => c.clone(),
            Kind::SymInt(s) | Kind::SymFloat(s) => s.concrete().clone(),
            Kind::Tuple(t) => vm.ctx.new_tuple(self.convert_all(t)?).into(),
            Kind::NamedTuple(cls, t) => {
                super::named_tuple::build(cls, self.convert_all(t)?, vm).ok()?
            }
            Kind::Set(s) => s.clone(),
            Kind::List(l) if l.borrow().deque.is_some() => {
                // A deque: made from its converted items (a deque holding itself is not
                // converted).
                let addr = Rc::as_ptr(l) as usize;
                if let Some(obj) = self.made.get(&addr) {
                    return Some(obj.clone());
                }
                let (tracked, maxlen) = {
                    let l = l.borrow();
                    (l.items.clone(), l.deque.flatten())
                };
                let items = self.convert_all(&tracked)?;
                let deque = super::super::bridge::import_module("collections", vm)
                    .and_then(|m| m.get_attr("deque", vm))
                    .ok()?;
                let maxlen = match maxlen {
                    Some(n) => vm.ctx.new_int(n).into(),
                    None => vm.ctx.none(),
                };
                let obj = deque.call((vm.ctx.new_list(items), maxlen), vm).ok()?;
                self.made.insert(addr, obj.clone());
                obj
            }
            Kind::DictView(d, view) => {
                let dict = self.convert(&Vt::new(Kind::Dict(d.clone())))?;
                vm.call_method(&dict, view.method(), ()).ok()?
            }
            Kind::List(l) => {
                let addr = Rc::as_ptr(l) as usize;
                if let Some(obj) = self.made.get(&addr) {
                    return Some(obj.clone());
                }
                let list = vm.ctx.new_list(Vec::new());
                self.made.insert(addr, list.clone().into());
                // The items are copied out first: a nested item may be this same list.
                let tracked = l.borrow().items.clone();
                *list.borrow_vec_mut() = self.convert_all(&tracked)?;
                list.into()
            }
            Kind::Dict(d) => {
                let addr = Rc::as_ptr(d) as usize;
                if let Some(obj) = self.made.get(&addr) {
                    return Some(obj.clone());
                }
                let (cls, factory) = {
                    let d = d.borrow();
                    (d.cls.clone(), d.default_factory.clone())
                };
                let dict: PyObjectRef = match (cls, factory) {
                    (None, _) => vm.ctx.new_dict().into(),
                    (Some(c), None) => c.call((), vm).ok()?,
                    // A defaultdict keeps its factory (its repr shows it): only a real one.
                    (Some(c), Some(f)) => {
                        let f = match &f.kind {
                            Kind::Const(o)
                            | Kind::Builtin(o, _)
                            | Kind::Class(o)
                            | Kind::Function(o) => o.clone(),
                            _ => return None,
                        };
                        c.call((f,), vm).ok()?
                    }
                };
                self.made.insert(addr, dict.clone());
                let tracked = d.borrow().items.clone();
                for (k, x) in &tracked {
                    let x = self.convert(x)?;
                    dict.set_item(&**k, x, vm).ok()?;
                }
                dict
            }
            _ => return None,
        })
    }

    fn convert_all(&mut self, items: &[Vt]) -> Option<Vec<PyObjectRef>> {
        items.iter().map(|i| self.convert(i)).collect()
    }
}
