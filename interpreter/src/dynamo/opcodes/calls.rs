//! `CALL`, `CALL_KW` and `CALL_FUNCTION_EX` (CPython 3.14 stack layouts).

use rustpython_vm::builtins::PyStr;

use super::super::bytecode::Instr;
use super::super::exc::{GraphBreak, GraphBreakKind};
use super::super::symbolic_convert::{Flow, Step, Tracer};
use super::super::variables::{Kind, Vt};

impl Tracer<'_> {
    /// Pops `[callable, self_or_null, *args]` and returns the callable and the full arguments.
    fn pop_call(&mut self, nargs: usize) -> Result<(Vt, Vec<Vt>), GraphBreak> {
        let mut args = self.pop_n(nargs)?;
        let self_or_null = self.pop()?;
        let callable = self.pop()?;
        if !self_or_null.is_null() {
            args.insert(0, self_or_null);
        }
        Ok((callable, args))
    }

    pub(crate) fn call(&mut self, ins: &Instr) -> Step {
        let (callable, args) = self.pop_call(ins.arg as usize)?;
        let v = self.call_vt(callable, args, Vec::new())?;
        self.push(v);
        Ok(Flow::Next)
    }

    pub(crate) fn call_kw(&mut self, ins: &Instr) -> Step {
        let names = self.pop()?;
        let names: Vec<String> = names
            .as_const()
            .and_then(|c| {
                c.downcast_ref::<rustpython_vm::builtins::PyTuple>()
                    .map(|t| t.as_slice().to_vec())
            })
            .ok_or_else(|| GraphBreak::new(GraphBreakKind::UnsupportedConstruct, "CALL_KW names"))?
            .iter()
            .map(|n| {
                n.downcast_ref::<PyStr>()
                    .and_then(|s| s.to_str().map(str::to_owned))
                    .unwrap_or_default()
            })
            .collect();
        let (callable, mut args) = self.pop_call(ins.arg as usize)?;
        let kw_vals = args.split_off(args.len() - names.len());
        let kwargs = names.into_iter().zip(kw_vals).collect();
        let v = self.call_vt(callable, args, kwargs)?;
        self.push(v);
        Ok(Flow::Next)
    }

    pub(crate) fn call_function_ex(&mut self, _ins: &Instr) -> Step {
        // Stack: callable, self_or_null, args (a tuple), kwargs (a dict or NULL).
        let kwargs = self.pop()?;
        let args = self.pop()?;
        let self_or_null = self.pop()?;
        let callable = self.pop()?;
        let mut positional = self.unpack_iterable(&args)?;
        if !self_or_null.is_null() {
            positional.insert(0, self_or_null);
        }
        let kw = match &kwargs.kind {
            Kind::Null => Vec::new(),
            Kind::Dict(d) => d
                .borrow()
                .items
                .iter()
                .map(|(k, v)| {
                    k.downcast_ref::<PyStr>()
                        .and_then(|s| s.to_str().map(|s| (s.to_owned(), v.clone())))
                        .ok_or_else(|| {
                            GraphBreak::new(
                                GraphBreakKind::UnsupportedConstruct,
                                "non-string keyword",
                            )
                        })
                })
                .collect::<Result<_, _>>()?,
            Kind::Const(c) if self.vm.is_none(c) => Vec::new(),
            _ => {
                return Err(GraphBreak::new(
                    GraphBreakKind::UnsupportedOperation,
                    format!("** of {}", kwargs.describe()),
                ));
            }
        };
        let v = self.call_vt(callable, positional, kw)?;
        self.push(v);
        Ok(Flow::Next)
    }
}
