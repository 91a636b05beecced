//! Generators, traced lazily: calling a generator function makes a [`GenState`]; each `next`
//! (a `FOR_ITER`, `next()`, a consuming builtin) resumes its frame in a child tracer until the
//! next `YIELD_VALUE` or its return. The body therefore runs interleaved with its consumer, as in
//! Python, and side effects keep their order.

use std::cell::RefCell;
use std::rc::Rc;

use super::super::bytecode::Instr;
use super::super::exc::{GraphBreak, GraphBreakKind};
use super::super::symbolic_convert::{Flow, Step, Tracer};
use super::super::variables::{GenState, Kind, Vt};

/// Most items one generator may yield while traced (an endless generator is a break, not a hang).
const MAX_YIELDS: usize = 10_000;

impl Tracer<'_> {
    /// A generator object for a generator function's bound frame.
    pub(crate) fn make_generator(&mut self, state: GenState) -> Vt {
        Vt::new(Kind::Generator(Rc::new(RefCell::new(state))))
    }

    /// Resumes a generator: `Some(item)`, or `None` once it has returned.
    pub(crate) fn gen_next(&mut self, g: &Rc<RefCell<GenState>>) -> Result<Option<Vt>, GraphBreak> {
        let st = g.borrow().clone();
        if st.done {
            return Ok(None);
        }
        let vm = self.vm;
        let mut child = self.child(st.code, st.locals, st.globals, st.globals_source)?;
        child.stack = st.stack;
        child.pos = st.pos;
        child.is_generator = true;
        // PEP 479: a StopIteration escaping a generator's body is a RuntimeError.
        let ran = child.run().map_err(|e| {
            if e.is_raised(vm.ctx.exceptions.stop_iteration, vm) {
                super::super::variables::exceptions::raise_builtin(
                    vm.ctx.exceptions.runtime_error,
                    vm.ctx.new_str("generator raised StopIteration").into(),
                )
            } else {
                e
            }
        })?;
        let yielded = child.yielded.take();
        let (locals, stack, pos) = (
            std::mem::take(&mut child.locals),
            std::mem::take(&mut child.stack),
            child.pos,
        );
        drop(child);
        let mut s = g.borrow_mut();
        match yielded {
            Some(v) => {
                s.locals = locals;
                s.stack = stack;
                s.pos = pos;
                Ok(Some(v))
            }
            None => {
                s.done = true;
                s.returned = Some(ran);
                s.locals.clear();
                s.stack.clear();
                Ok(None)
            }
        }
    }

    /// `GET_YIELD_FROM_ITER`: the iterator `yield from` delegates to (a generator stays itself).
    pub(crate) fn get_yield_from_iter(&mut self, ins: &Instr) -> Step {
        if matches!(self.stack.last().map(|v| &v.kind), Some(Kind::Generator(_))) {
            return Ok(Flow::Next);
        }
        self.get_iter(ins)
    }

    /// `SEND delta`: `[iter, sent] -> [iter, item]` while the delegate yields; once it is
    /// exhausted, `[iter, returned value]` and a jump to the `END_SEND`.
    pub(crate) fn send(&mut self, ins: &Instr) -> Step {
        let sent = self.pop()?;
        if !sent.as_const().is_some_and(|c| self.vm.is_none(c)) {
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedConstruct,
                "send() of a value into a delegated generator",
            ));
        }
        let it = self
            .stack
            .last()
            .cloned()
            .ok_or_else(|| GraphBreak::new(GraphBreakKind::UnsupportedConstruct, "SEND"))?;
        let next = self.iter_next(&it, "yield from")?;
        let returned = match &it.kind {
            Kind::Generator(g) => g.borrow().returned.clone(),
            _ => None,
        };
        match next {
            Some(v) => {
                self.push(v);
                Ok(Flow::Next)
            }
            None => {
                self.push(returned.unwrap_or_else(|| Vt::constant(self.vm.ctx.none())));
                Ok(Flow::Jump(self.target_pos(ins)?))
            }
        }
    }

    /// `END_SEND`: `[iter, value] -> [value]`.
    pub(crate) fn end_send(&mut self, _ins: &Instr) -> Step {
        let v = self.pop()?;
        self.pop()?;
        self.push(v);
        Ok(Flow::Next)
    }

    /// Everything a generator still yields (a consumer that exhausts it, as `list(gen)` does).
    pub(crate) fn gen_drain(&mut self, g: &Rc<RefCell<GenState>>) -> Result<Vec<Vt>, GraphBreak> {
        let mut out = Vec::new();
        while let Some(v) = self.gen_next(g)? {
            out.push(v);
            if out.len() > MAX_YIELDS {
                return Err(GraphBreak::new(
                    GraphBreakKind::UnsupportedConstruct,
                    format!("generator yielded more than {MAX_YIELDS} items while traced"),
                ));
            }
        }
        Ok(out)
    }
}
