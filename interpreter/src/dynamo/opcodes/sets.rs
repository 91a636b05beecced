//! Sets of constants. A set made during the trace is a real Python `set` that only the trace can
//! see ([`Kind::Set`] without a source): building, adding, set algebra and membership run on it
//! at trace time, and the value is rebuilt as a new set after the graph. A set read from the
//! frame is a copy guarded by value; mutating it mutates the copy and records a side effect that
//! replays the final contents on the real set.

use rustpython_vm::{AsObject, PyObjectRef};

use super::super::bytecode::Instr;
use super::super::exc::{GraphBreak, GraphBreakKind};
use super::super::symbolic_convert::{Flow, Step, Tracer};
use super::super::variables::builder::wrap_fresh;
use super::super::variables::{Kind, Vt};

/// Set methods that change the receiver.
const MUTATING: &[&str] = &[
    "add",
    "discard",
    "remove",
    "pop",
    "clear",
    "update",
    "difference_update",
    "intersection_update",
    "symmetric_difference_update",
];

fn unsupported(what: impl Into<String>) -> GraphBreak {
    GraphBreak::new(GraphBreakKind::UnsupportedOperation, what)
}

impl Tracer<'_> {
    /// A new trace-local set of `items` (constants only).
    pub(crate) fn new_set(&self, items: &[Vt]) -> Result<Vt, GraphBreak> {
        let consts = items
            .iter()
            .map(|i| i.as_const().cloned())
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| unsupported("set of non-constants"))?;
        let list = self.vm.ctx.new_list(consts);
        let s = self
            .vm
            .ctx
            .types
            .set_type
            .as_object()
            .call((list,), self.vm)
            .map_err(|_| unsupported("unhashable set item"))?;
        Ok(Vt::new(Kind::Set(s)))
    }

    pub(crate) fn build_set(&mut self, ins: &Instr) -> Step {
        let items = self.pop_n(ins.arg as usize)?;
        let s = self.new_set(&items)?;
        self.push(s);
        Ok(Flow::Next)
    }

    /// The trace-local set at stack depth `i` (1 = top), for `SET_ADD i` / `SET_UPDATE i`.
    fn local_set_at(&self, i: u32) -> Result<PyObjectRef, GraphBreak> {
        let v = self
            .stack
            .len()
            .checked_sub(i as usize)
            .and_then(|p| self.stack.get(p))
            .ok_or_else(|| {
                GraphBreak::new(GraphBreakKind::UnsupportedConstruct, "stack underflow")
            })?;
        match (&v.kind, &v.source) {
            (Kind::Set(s), None) => Ok(s.clone()),
            _ => Err(GraphBreak::new(
                GraphBreakKind::UnsupportedConstruct,
                "SET_ADD/SET_UPDATE target",
            )),
        }
    }

    pub(crate) fn set_add(&mut self, ins: &Instr) -> Step {
        let item = self.pop()?;
        let s = self.local_set_at(ins.arg)?;
        let c = item
            .as_const()
            .cloned()
            .ok_or_else(|| unsupported("set comprehension of non-constants"))?;
        self.vm
            .call_method(&s, "add", (c,))
            .map_err(|_| unsupported("unhashable set item"))?;
        Ok(Flow::Next)
    }

    pub(crate) fn set_update(&mut self, ins: &Instr) -> Step {
        let other = self.pop()?;
        let s = self.local_set_at(ins.arg)?;
        let items = self.unpack_iterable(&other)?;
        let more = self.new_set(&items)?;
        let Kind::Set(more) = &more.kind else {
            return Err(unsupported("set update"));
        };
        self.vm
            .call_method(&s, "update", (more.clone(),))
            .map_err(|_| unsupported("set update"))?;
        Ok(Flow::Next)
    }

    /// A set operand as a Python object: a set tracker's object, or a constant (a frozenset).
    fn set_operand(&self, v: &Vt) -> Option<PyObjectRef> {
        match &v.kind {
            Kind::Set(s) => Some(s.clone()),
            Kind::Const(c) => Some(c.clone()),
            _ => None,
        }
    }

    /// `a <op> b` where one side is a set tracker (`|`, `&`, `-`, `^`, their in-place forms, and
    /// comparisons): computed on the objects. `None` when the operands are not sets of constants.
    pub(crate) fn set_binary(
        &mut self,
        op: &str,
        lhs: &Vt,
        rhs: &Vt,
    ) -> Option<Result<Vt, GraphBreak>> {
        if !matches!(lhs.kind, Kind::Set(_)) && !matches!(rhs.kind, Kind::Set(_)) {
            return None;
        }
        let (a, b) = (self.set_operand(lhs)?, self.set_operand(rhs)?);
        let vm = self.vm;
        let r = vm
            .import("operator", 0)
            .and_then(|m| m.get_attr(&vm.ctx.new_str(op), vm))
            .and_then(|f| f.call((a.clone(), b), vm));
        Some(match r {
            // In-place operators return the receiver itself: keep its tracker (and identity).
            Ok(r) if r.is(&a) => {
                self.out.side_effects.record_set(lhs);
                Ok(lhs.clone())
            }
            Ok(r) => Ok(wrap_fresh(r, vm)),
            Err(_) => Err(unsupported(format!("`{op}` on sets"))),
        })
    }

    /// `s.name(*args)` for a set tracker.
    pub(crate) fn set_method(
        &mut self,
        recv: &Vt,
        name: &str,
        args: Vec<Vt>,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let Kind::Set(s) = &recv.kind else {
            return Err(unsupported("set method"));
        };
        let mut objs = Vec::with_capacity(args.len());
        for a in &args {
            objs.push(match &a.kind {
                Kind::Set(o) | Kind::Const(o) => o.clone(),
                _ => {
                    let items = self.unpack_iterable(a)?;
                    let tmp = self.new_set(&items)?;
                    let Kind::Set(o) = tmp.kind else {
                        return Err(unsupported("set method argument"));
                    };
                    o
                }
            });
        }
        let r = vm
            .call_method(s, name, objs)
            .map_err(|e| unsupported(format!("set.{name} raised {}", e.class().name())))?;
        if MUTATING.contains(&name) {
            // A set from the frame: the trace's copy changed; replay it on the real set.
            self.out.side_effects.record_set(recv);
        }
        Ok(wrap_fresh(r, vm))
    }
}
