//! Raising and handling exceptions inside traced code: `RAISE_VARARGS`, `RERAISE`,
//! `PUSH_EXC_INFO`, `CHECK_EXC_MATCH`, `POP_EXCEPT`, `WITH_EXCEPT_START`, and the unwinding to the
//! handler the exception table names (Dynamo's `exception_handler` in `symbolic_convert.py`).
//!
//! A raise returns [`GraphBreak::raised`]; [`Tracer::unwind`] turns it into a jump to the
//! handler covering the raising instruction (stack cut to the entry's depth, `lasti` pushed when
//! the entry asks for it, then the exception), exactly as CPython's frame evaluation does. With
//! no handler in this frame the exception propagates to the inlining caller's `CALL`, and past
//! the compiled frame it is an "Observed exception" break.

use std::rc::Rc;

use rustpython_vm::bytecode;

use super::super::bytecode::Instr;
use super::super::exc::{GraphBreak, GraphBreakKind};
use super::super::symbolic_convert::{Flow, Step, Tracer};
use super::super::variables::exceptions::{ExcVar, is_plain_exception_class};
use super::super::variables::{Kind, Vt};

fn unsupported(what: impl Into<String>) -> GraphBreak {
    GraphBreak::new(GraphBreakKind::UnsupportedConstruct, what)
}

impl Tracer<'_> {
    /// Where an exception raised by `ins` goes in this frame: the handler's position, with the
    /// stack and `exc_info` set up as CPython leaves them. `None`: no handler here.
    pub(crate) fn unwind(&mut self, ins: &Instr, exc: Vt) -> Option<Flow> {
        let table = bytecode::decode_exception_table(&self.code.code.exceptiontable);
        let entry = table
            .iter()
            .find(|e| ins.index >= e.start && ins.index < e.end)?;
        let target = self.bc.position(entry.target)?;
        self.stack.truncate(usize::from(entry.depth));
        if entry.push_lasti {
            self.push(Vt::constant(self.vm.ctx.new_int(ins.index).into()));
        }
        self.push(exc);
        Some(Flow::Jump(target))
    }

    /// `RAISE_VARARGS argc`: `raise`, `raise exc`, `raise exc from cause`.
    pub(crate) fn raise_varargs(&mut self, ins: &Instr) -> Step {
        let exc = match ins.arg {
            0 => self
                .exc_info
                .last()
                .cloned()
                .ok_or_else(|| unsupported("bare raise with no active exception"))?,
            1 => {
                let v = self.pop()?;
                self.as_exception(v)?
            }
            2 => {
                // The cause only matters once the exception leaves the compiled region, where
                // the real code raises it again.
                self.pop()?;
                let v = self.pop()?;
                self.as_exception(v)?
            }
            n => return Err(unsupported(format!("RAISE_VARARGS {n}"))),
        };
        Err(GraphBreak::raised(exc))
    }

    /// `RERAISE oparg`: raises the exception on top of the stack again.
    pub(crate) fn reraise(&mut self, _ins: &Instr) -> Step {
        let exc = self.pop()?;
        Err(GraphBreak::raised(exc))
    }

    /// `PUSH_EXC_INFO`: `[exc] -> [previous handled exception or None, exc]`.
    pub(crate) fn push_exc_info(&mut self, _ins: &Instr) -> Step {
        let exc = self.pop()?;
        let prev = self
            .exc_info
            .last()
            .cloned()
            .unwrap_or_else(|| Vt::constant(self.vm.ctx.none()));
        self.push(prev);
        self.exc_info.push(exc.clone());
        self.push(exc);
        Ok(Flow::Next)
    }

    /// `POP_EXCEPT`: pops the saved exception and makes it the handled one again.
    pub(crate) fn pop_except(&mut self, _ins: &Instr) -> Step {
        self.pop()?;
        self.exc_info.pop();
        Ok(Flow::Next)
    }

    /// `CHECK_EXC_MATCH`: `[exc, types] -> [exc, isinstance(exc, types)]`.
    pub(crate) fn check_exc_match(&mut self, _ins: &Instr) -> Step {
        let types = self.pop()?;
        let exc = self
            .stack
            .last()
            .cloned()
            .ok_or_else(|| unsupported("CHECK_EXC_MATCH on an empty stack"))?;
        let Kind::Exception(e) = &exc.kind else {
            return Err(unsupported(format!("except on {}", exc.describe())));
        };
        let types = self.class_object(&types)?;
        let hit = e
            .matches(&types, self.vm)
            .ok_or_else(|| unsupported("except clause on a non-class"))?;
        self.push(Vt::constant(self.vm.ctx.new_bool(hit).into()));
        Ok(Flow::Next)
    }

    /// `WITH_EXCEPT_START`: an exception leaves a `with` block; calls the manager's `__exit__`
    /// (stack `[..., exit, self_or_null, lasti, prev_exc, exc]`). Only grad-mode and
    /// `error_on_graph_break` managers are traced, and their `__exit__` never swallows the
    /// exception.
    pub(crate) fn with_except_start(&mut self, _ins: &Instr) -> Step {
        let n = self.stack.len();
        if n < 5 {
            return Err(unsupported("WITH_EXCEPT_START on a short stack"));
        }
        let exit = self.stack[n - 5].clone();
        match &exit.kind {
            Kind::Method(recv, name) if &**name == "__exit__" => {
                let r = match &recv.kind {
                    Kind::GradMode(g) => {
                        let (recv, g) = ((**recv).clone(), g.clone());
                        self.call_grad_ctx_method(&recv, &g, "__exit__")?
                    }
                    Kind::ErrorOnGraphBreak(e) => {
                        let e = e.clone();
                        self.call_error_on_graph_break_method(&e, "__exit__")?
                    }
                    _ => {
                        return Err(unsupported("exception through an untraced context manager"));
                    }
                };
                self.push(r);
                Ok(Flow::Next)
            }
            // A traced user manager's `__exit__(type, value, traceback)`: its result decides
            // whether the exception is swallowed (the bytecode tests it next).
            Kind::BoundMethod(..) => {
                let exc = self.stack[n - 1].clone();
                let Kind::Exception(e) = &exc.kind else {
                    return Err(unsupported("WITH_EXCEPT_START without an exception"));
                };
                let cls = super::super::variables::builder::wrap_unguarded(e.cls.clone(), self.vm);
                let none = Vt::constant(self.vm.ctx.none());
                let r = self.call_vt(exit, vec![cls, exc, none], Vec::new())?;
                self.push(r);
                Ok(Flow::Next)
            }
            _ => Err(unsupported(format!(
                "exception through the `with` block of {}",
                exit.describe()
            ))),
        }
    }

    /// The exception `raise v` raises: an exception made in the trace, or a plain exception
    /// class (instantiated without arguments, as `raise ValueError` does).
    fn as_exception(&self, v: Vt) -> Result<Vt, GraphBreak> {
        match &v.kind {
            Kind::Exception(_) => Ok(v),
            Kind::Class(c) | Kind::Builtin(c, _) if is_plain_exception_class(c, self.vm) => {
                Ok(Vt::new(Kind::Exception(Rc::new(ExcVar {
                    cls: c.clone(),
                    args: Vec::new(),
                }))))
            }
            _ => Err(unsupported(format!("raise {}", v.describe()))),
        }
    }
}
