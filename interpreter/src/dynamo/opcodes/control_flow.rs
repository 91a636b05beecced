//! Jumps and loops. Branches on trace-time values are folded (only the taken side is traced);
//! a branch on a tensor's value is a data-dependent graph break. Loops over known iterables
//! are unrolled.

use std::cell::RefCell;
use std::rc::Rc;

use rustpython_vm::bytecode::Instruction;

use super::super::bytecode::Instr;
use super::super::exc::{GraphBreak, GraphBreakKind};
use super::super::symbolic_convert::{Flow, Step, Tracer};
use super::super::variables::{Kind, NestedFn, Vt};

impl Tracer<'_> {
    pub(crate) fn pop_jump_if(&mut self, ins: &Instr) -> Step {
        // Peek first: on a data-dependent break the stack must still hold the tested value.
        let v = self.stack.last().cloned().ok_or_else(|| {
            GraphBreak::new(GraphBreakKind::UnsupportedConstruct, "stack underflow")
        })?;
        let b = self.truth(&v)?;
        self.pop()?;
        let jump_if = matches!(ins.op, Instruction::PopJumpIfTrue { .. });
        if b == jump_if {
            Ok(Flow::Jump(self.target_pos(ins)?))
        } else {
            Ok(Flow::Next)
        }
    }

    pub(crate) fn pop_jump_if_none(&mut self, ins: &Instr) -> Step {
        let v = self.stack.last().cloned().ok_or_else(|| {
            GraphBreak::new(GraphBreakKind::UnsupportedConstruct, "stack underflow")
        })?;
        let is_none = match &v.kind {
            Kind::Const(c) => self.vm.is_none(c),
            Kind::Null => {
                return Err(GraphBreak::new(
                    GraphBreakKind::UnsupportedConstruct,
                    "jump on NULL",
                ));
            }
            _ => false,
        };
        self.pop()?;
        let jump_if_none = matches!(ins.op, Instruction::PopJumpIfNone { .. });
        if is_none == jump_if_none {
            Ok(Flow::Jump(self.target_pos(ins)?))
        } else {
            Ok(Flow::Next)
        }
    }

    pub(crate) fn jump(&mut self, ins: &Instr) -> Step {
        Ok(Flow::Jump(self.target_pos(ins)?))
    }

    pub(crate) fn get_iter(&mut self, _ins: &Instr) -> Step {
        let x = self.pop()?;
        let it = self.make_iter(x)?;
        self.push(it);
        Ok(Flow::Next)
    }

    /// The next item of an unrolled iterator or a traced generator (`None`: exhausted).
    pub(crate) fn iter_next(&mut self, it: &Vt, what: &str) -> Result<Option<Vt>, GraphBreak> {
        match &it.kind {
            Kind::Iter(state) => {
                let mut s = state.borrow_mut();
                let v = s.items.get(s.pos).cloned();
                if v.is_some() {
                    s.pos += 1;
                }
                Ok(v)
            }
            Kind::Generator(g) => self.gen_next(g),
            _ => Err(GraphBreak::new(
                GraphBreakKind::UnsupportedOperation,
                format!("{what} {}", it.describe()),
            )),
        }
    }

    pub(crate) fn for_iter(&mut self, ins: &Instr) -> Step {
        let it = self.stack.last().cloned().ok_or_else(|| {
            GraphBreak::new(GraphBreakKind::UnsupportedConstruct, "stack underflow")
        })?;
        match self.iter_next(&it, "FOR_ITER over")? {
            Some(v) => {
                self.push(v);
                Ok(Flow::Next)
            }
            None => {
                // Exhausted: skip the END_FOR at the target, iterator still on the stack for
                // POP_ITER (CPython 3.14).
                let target = self.target_pos(ins)?;
                let skip = self
                    .bc
                    .instrs
                    .get(target)
                    .is_some_and(|i| matches!(i.op, Instruction::EndFor));
                Ok(Flow::Jump(if skip { target + 1 } else { target }))
            }
        }
    }

    pub(crate) fn make_function(&mut self, _ins: &Instr) -> Step {
        let code = self.pop()?;
        let code = code
            .as_const()
            .and_then(|c| c.clone().downcast::<rustpython_vm::builtins::PyCode>().ok())
            .ok_or_else(|| {
                GraphBreak::new(
                    GraphBreakKind::UnsupportedConstruct,
                    "MAKE_FUNCTION without code",
                )
            })?;
        let nf = NestedFn {
            code,
            defaults: Vec::new(),
            kwdefaults: Vec::new(),
            closure: Vec::new(),
            cell_sources: Vec::new(),
            globals: self.globals.clone().into(),
            annotate: None,
            annotations: None,
        };
        self.push(Vt::new(Kind::NestedFunction(Rc::new(nf))));
        Ok(Flow::Next)
    }

    pub(crate) fn set_function_attribute(&mut self, ins: &Instr) -> Step {
        let func = self.pop()?;
        let attr = self.pop()?;
        let Kind::NestedFunction(nf) = &func.kind else {
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedConstruct,
                "SET_FUNCTION_ATTRIBUTE target",
            ));
        };
        let mut nf = (**nf).clone();
        match ins.arg {
            // defaults
            1 => {
                nf.defaults = self.unpack_iterable(&attr)?;
            }
            // kwdefaults
            2 => {
                let Kind::Dict(d) = &attr.kind else {
                    return Err(GraphBreak::new(
                        GraphBreakKind::UnsupportedConstruct,
                        "kwdefaults",
                    ));
                };
                nf.kwdefaults = d
                    .borrow()
                    .items
                    .iter()
                    .map(|(k, v)| {
                        (
                            k.str(self.vm).map(|s| s.to_string()).unwrap_or_default(),
                            v.clone(),
                        )
                    })
                    .collect();
            }
            // Not needed to run the function, but part of it once it escapes the graph
            // (`inspect.signature`, `typing.get_type_hints`).
            4 => nf.annotations = Some(attr),
            16 => nf.annotate = Some(attr),
            // closure: a tuple of cells
            8 => {
                let cells = self.unpack_iterable(&attr)?;
                nf.cell_sources = cells.iter().map(|c| c.source.clone()).collect();
                nf.closure = cells
                    .into_iter()
                    .map(|c| match c.kind {
                        Kind::Cell(cell) => cell,
                        // The compiled frame's own cells are plain values while it is traced.
                        _ => Rc::new(RefCell::new(Some(c))),
                    })
                    .collect();
            }
            other => {
                return Err(GraphBreak::new(
                    GraphBreakKind::UnsupportedConstruct,
                    format!("SET_FUNCTION_ATTRIBUTE {other}"),
                ));
            }
        }
        self.push(Vt::new(Kind::NestedFunction(Rc::new(nf))));
        Ok(Flow::Next)
    }
}
