//! Generators, traced lazily: calling a generator function makes a [`GenState`]; each `next`
//! (a `FOR_ITER`, `next()`, a consuming builtin) resumes its frame in a child tracer until the
//! next `YIELD_VALUE` or its return. The body therefore runs interleaved with its consumer, as in
//! Python, and side effects keep their order.

use std::cell::RefCell;
use std::rc::Rc;

use super::super::exc::{GraphBreak, GraphBreakKind};
use super::super::symbolic_convert::Tracer;
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
        let mut child = self.child(st.code, st.locals, st.globals, st.globals_source)?;
        child.stack = st.stack;
        child.pos = st.pos;
        child.is_generator = true;
        child.run()?;
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
                s.locals.clear();
                s.stack.clear();
                Ok(None)
            }
        }
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
