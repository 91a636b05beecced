//! Building and unpacking containers, slices and strings (`BUILD_*`, `LIST_APPEND`,
//! `DICT_UPDATE`, `UNPACK_*`, f-string formatting on constants).

use std::cell::RefCell;
use std::rc::Rc;

use super::super::bytecode::Instr;
use super::super::container_methods::set_dict_item;
use super::super::exc::{GraphBreak, GraphBreakKind};
use super::super::symbolic_convert::{Flow, Step, Tracer};
use super::super::variables::builder::wrap_unguarded;
use super::super::variables::{DictVar, Kind, ListVar, Vt};

impl Tracer<'_> {
    /// The tracked list at stack depth `i` (1 = top) for `LIST_APPEND i` and kin.
    fn stack_at(&self, i: u32) -> Result<Vt, GraphBreak> {
        self.stack
            .len()
            .checked_sub(i as usize)
            .and_then(|p| self.stack.get(p))
            .cloned()
            .ok_or_else(|| GraphBreak::new(GraphBreakKind::UnsupportedConstruct, "stack underflow"))
    }

    pub(crate) fn build_tuple(&mut self, ins: &Instr) -> Step {
        let items = self.pop_n(ins.arg as usize)?;
        // A tuple of constants is itself a constant (hashable, usable as an op argument).
        if let Some(consts) = items
            .iter()
            .map(|i| i.as_const().cloned())
            .collect::<Option<Vec<_>>>()
        {
            self.push(Vt::constant(self.vm.ctx.new_tuple(consts).into()));
        } else {
            self.push(Vt::new(Kind::Tuple(items)));
        }
        Ok(Flow::Next)
    }

    pub(crate) fn build_list(&mut self, ins: &Instr) -> Step {
        let items = self.pop_n(ins.arg as usize)?;
        self.push(Vt::new(Kind::List(Rc::new(RefCell::new(ListVar {
            items,
            mutated: false,
            ..Default::default()
        })))));
        Ok(Flow::Next)
    }

    pub(crate) fn build_map(&mut self, ins: &Instr) -> Step {
        let flat = self.pop_n(2 * ins.arg as usize)?;
        let mut items = Vec::with_capacity(ins.arg as usize);
        for pair in flat.chunks(2) {
            let key = self.dict_key(&pair[0])?;
            set_dict_item(&mut items, key, pair[1].clone(), self.vm);
        }
        self.push(Vt::new(Kind::Dict(Rc::new(RefCell::new(DictVar {
            items,
            mutated: false,
            ..Default::default()
        })))));
        Ok(Flow::Next)
    }

    pub(crate) fn build_slice(&mut self, ins: &Instr) -> Step {
        let step = if ins.arg == 3 {
            self.pop()?
        } else {
            Vt::constant(self.vm.ctx.none())
        };
        let stop = self.pop()?;
        let start = self.pop()?;
        let s = self.make_slice(start, stop, step)?;
        self.push(s);
        Ok(Flow::Next)
    }

    pub(crate) fn build_string(&mut self, ins: &Instr) -> Step {
        let parts = self.pop_n(ins.arg as usize)?;
        let mut s = String::new();
        for p in parts {
            let c = p.as_const().ok_or_else(|| {
                GraphBreak::new(
                    GraphBreakKind::UnsupportedOperation,
                    "f-string of a non-constant",
                )
            })?;
            s.push_str(
                c.str(self.vm)
                    .map_err(|_| GraphBreak::new(GraphBreakKind::UnsupportedOperation, "str()"))?
                    .expect_str(),
            );
        }
        self.push(Vt::constant(self.vm.ctx.new_str(s).into()));
        Ok(Flow::Next)
    }

    pub(crate) fn format_simple(&mut self, _ins: &Instr) -> Step {
        let v = self.pop()?;
        let c = self.const_or_break(&v, "f-string formatting")?;
        let s = self
            .vm
            .format(&c, self.vm.ctx.new_str(""))
            .map_err(|_| GraphBreak::new(GraphBreakKind::UnsupportedOperation, "format()"))?;
        self.push(Vt::constant(s.into()));
        Ok(Flow::Next)
    }

    pub(crate) fn format_with_spec(&mut self, _ins: &Instr) -> Step {
        let spec = self.pop()?;
        let v = self.pop()?;
        let c = self.const_or_break(&v, "f-string formatting")?;
        let spec = self.const_or_break(&spec, "f-string format spec")?;
        let spec = spec
            .downcast::<rustpython_vm::builtins::PyStr>()
            .map_err(|_| GraphBreak::new(GraphBreakKind::UnsupportedOperation, "format spec"))?;
        let s = self
            .vm
            .format(&c, spec)
            .map_err(|_| GraphBreak::new(GraphBreakKind::UnsupportedOperation, "format()"))?;
        self.push(Vt::constant(s.into()));
        Ok(Flow::Next)
    }

    pub(crate) fn convert_value(&mut self, ins: &Instr) -> Step {
        let v = self.pop()?;
        let c = self.const_or_break(&v, "f-string conversion")?;
        let vm = self.vm;
        let s = match ins.arg {
            1 => c.str(vm),
            2 => c.repr(vm),
            3 => c.ascii(vm).map(|a| vm.ctx.new_str(a.to_string())),
            _ => c.str(vm),
        }
        .map_err(|_| GraphBreak::new(GraphBreakKind::UnsupportedOperation, "str()/repr()"))?;
        self.push(Vt::constant(s.into()));
        Ok(Flow::Next)
    }

    fn const_or_break(&self, v: &Vt, what: &str) -> Result<rustpython_vm::PyObjectRef, GraphBreak> {
        if let Kind::Exception(e) = &v.kind
            && let Some(real) = e.materialize(self.vm)
        {
            // Formatting an exception made from constants gives a constant.
            return Ok(real);
        }
        if let Kind::Tuple(items) | Kind::NamedTuple(_, items) = &v.kind
            && items.iter().any(|i| matches!(i.kind, Kind::SymInt(_)))
            && let Some(real) = self.python_value(v)
        {
            // A `torch.Size` of dynamic sizes formats as its values (specialised).
            return Ok(real);
        }
        v.as_const().cloned().ok_or_else(|| {
            let kind = if v.as_tensor().is_some() {
                GraphBreakKind::TensorToPython
            } else {
                GraphBreakKind::UnsupportedOperation
            };
            GraphBreak::new(kind, format!("{what} of {}", v.describe()))
        })
    }

    pub(crate) fn list_append(&mut self, ins: &Instr) -> Step {
        let v = self.pop()?;
        let target = self.stack_at(ins.arg)?;
        let Kind::List(l) = &target.kind else {
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedConstruct,
                "LIST_APPEND target",
            ));
        };
        l.borrow_mut().items.push(v);
        Ok(Flow::Next)
    }

    pub(crate) fn list_extend(&mut self, ins: &Instr) -> Step {
        let v = self.pop()?;
        let target = self.stack_at(ins.arg)?;
        let Kind::List(l) = &target.kind else {
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedConstruct,
                "LIST_EXTEND target",
            ));
        };
        let items = self.unpack_iterable(&v)?;
        l.borrow_mut().items.extend(items);
        Ok(Flow::Next)
    }

    pub(crate) fn map_add(&mut self, ins: &Instr) -> Step {
        let value = self.pop()?;
        let key = self.pop()?;
        let target = self.stack_at(ins.arg)?;
        let Kind::Dict(d) = &target.kind else {
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedConstruct,
                "MAP_ADD target",
            ));
        };
        let d = d.clone();
        let key = self.dict_key(&key)?;
        set_dict_item(&mut d.borrow_mut().items, key, value, self.vm);
        Ok(Flow::Next)
    }

    pub(crate) fn dict_update(&mut self, ins: &Instr) -> Step {
        let other = self.pop()?;
        let target = self.stack_at(ins.arg)?;
        let Kind::Dict(d) = &target.kind else {
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedConstruct,
                "DICT_UPDATE target",
            ));
        };
        let Kind::Dict(o) = &other.kind else {
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedOperation,
                format!("** of {}", other.describe()),
            ));
        };
        let more = o.borrow().items.clone();
        let mut dm = d.borrow_mut();
        for (k, v) in more {
            set_dict_item(&mut dm.items, k, v, self.vm);
        }
        Ok(Flow::Next)
    }

    pub(crate) fn unpack_sequence(&mut self, ins: &Instr) -> Step {
        let seq = self.pop()?;
        let items = self.unpack_iterable(&seq)?;
        if items.len() != ins.arg as usize {
            return Err(GraphBreak::new(
                GraphBreakKind::OpError,
                format!("cannot unpack {} values into {}", items.len(), ins.arg),
            ));
        }
        // Pushed so that the first item ends on top.
        for v in items.into_iter().rev() {
            self.push(v);
        }
        Ok(Flow::Next)
    }

    pub(crate) fn unpack_ex(&mut self, ins: &Instr) -> Step {
        let seq = self.pop()?;
        let items = self.unpack_iterable(&seq)?;
        let before = (ins.arg & 0xff) as usize;
        let after = (ins.arg >> 8) as usize;
        if items.len() < before + after {
            return Err(GraphBreak::new(
                GraphBreakKind::OpError,
                "not enough values to unpack",
            ));
        }
        let mid_end = items.len() - after;
        let mut out = items[..before].to_vec();
        out.push(Vt::new(Kind::List(Rc::new(RefCell::new(ListVar {
            items: items[before..mid_end].to_vec(),
            mutated: false,
            ..Default::default()
        })))));
        out.extend(items[mid_end..].iter().cloned());
        for v in out.into_iter().rev() {
            self.push(v);
        }
        Ok(Flow::Next)
    }

    pub(crate) fn call_intrinsic_1(&mut self, ins: &Instr) -> Step {
        // CPython 3.14: 5 UNARY_POSITIVE, 6 LIST_TO_TUPLE.
        let v = self.pop()?;
        let r = match ins.arg {
            5 => match &v.kind {
                Kind::Tensor(_) => v,
                Kind::Const(c) => wrap_unguarded(
                    self.vm
                        .import("operator", 0)
                        .and_then(|m| m.get_attr("pos", self.vm))
                        .and_then(|f| f.call((c.clone(),), self.vm))
                        .map_err(|_| {
                            GraphBreak::new(GraphBreakKind::UnsupportedOperation, "unary +")
                        })?,
                    self.vm,
                ),
                _ => {
                    return Err(GraphBreak::new(
                        GraphBreakKind::UnsupportedOperation,
                        "unary +",
                    ));
                }
            },
            6 => match &v.kind {
                Kind::List(l) => {
                    let items = l.borrow().items.clone();
                    match items
                        .iter()
                        .map(|i| i.as_const().cloned())
                        .collect::<Option<Vec<_>>>()
                    {
                        Some(c) => Vt::constant(self.vm.ctx.new_tuple(c).into()),
                        None => Vt::new(Kind::Tuple(items)),
                    }
                }
                _ => {
                    return Err(GraphBreak::new(
                        GraphBreakKind::UnsupportedConstruct,
                        "LIST_TO_TUPLE",
                    ));
                }
            },
            other => {
                return Err(GraphBreak::new(
                    GraphBreakKind::UnsupportedOpcode,
                    format!("CALL_INTRINSIC_1 {other}"),
                ));
            }
        };
        self.push(r);
        Ok(Flow::Next)
    }
}
