//! `IMPORT_NAME` and `IMPORT_FROM`: an `import` inside a compiled function. As in Dynamo, the
//! import runs for real while tracing (importing is idempotent once the module is in
//! `sys.modules`, and a first import's side effects would happen in eager mode too); the module
//! is a constant source, so attributes read from it are still guarded.

use std::rc::Rc;

use rustpython_vm::PyObjectRef;
use rustpython_vm::builtins::PyStr;

use super::super::bytecode::Instr;
use super::super::exc::{GraphBreak, GraphBreakKind};
use super::super::source::{ConstObj, Source};
use super::super::symbolic_convert::{Flow, Step, Tracer};
use super::super::variables::builder::wrap;
use super::super::variables::{Kind, Vt};

fn unsupported(what: String) -> GraphBreak {
    GraphBreak::new(GraphBreakKind::UnsupportedConstruct, what)
}

impl Tracer<'_> {
    /// `IMPORT_NAME namei`: pops `(level, fromlist)`, pushes the module `__import__` returns.
    pub(crate) fn import_name(&mut self, ins: &Instr) -> Step {
        let vm = self.vm;
        let fromlist = self.pop()?;
        let level = self.pop()?;
        let name = self.name(ins.arg)?;
        let (Some(fromlist), Some(level)) = (fromlist.as_const(), level.as_const()) else {
            return Err(unsupported(format!(
                "import {name} with non-constant operands"
            )));
        };
        let level = level
            .try_to_value::<usize>(vm)
            .map_err(|_| unsupported(format!("import {name}: bad level")))?;
        // A relative import resolves against the importing module's package (importlib's
        // `_resolve_name`), then imports that absolute name, as the real instruction would.
        let name = if level == 0 {
            name.to_string()
        } else {
            let package = self
                .globals
                .get_item_opt("__package__", vm)
                .ok()
                .flatten()
                .filter(|p| !vm.is_none(p))
                .and_then(|p| p.downcast_ref::<PyStr>().map(|s| s.to_string()))
                .filter(|p| !p.is_empty())
                .ok_or_else(|| {
                    unsupported(format!("relative import of {name} without __package__"))
                })?;
            let mut parts: Vec<&str> = package.split('.').collect();
            if level > parts.len() {
                return Err(unsupported(format!(
                    "relative import of {name} beyond the top package"
                )));
            }
            parts.truncate(parts.len() + 1 - level);
            let base = parts.join(".");
            if name.is_empty() {
                base
            } else {
                format!("{base}.{name}")
            }
        };
        let module = vm
            .import_from(&vm.ctx.new_str(name.as_str()), fromlist.clone(), 0)
            .map_err(|e| {
                let msg = super::super::fx::error_text(&e, vm);
                unsupported(format!("import {name} failed while tracing: {msg}"))
            })?;
        let v = self.module_vt(module);
        self.push(v);
        Ok(Flow::Next)
    }

    /// `IMPORT_FROM namei`: pushes `module.<name>` (or the submodule) and keeps the module.
    pub(crate) fn import_from(&mut self, ins: &Instr) -> Step {
        let vm = self.vm;
        let module = self
            .stack
            .last()
            .cloned()
            .ok_or_else(|| unsupported("value stack underflow".into()))?;
        let name = self.name(ins.arg)?;
        let attr = self.get_attr(module.clone(), &name);
        let v = match attr {
            Ok(v) => v,
            Err(_) => {
                // `from pkg import submodule` before `pkg.submodule` is set: sys.modules.
                let Kind::Module(m) = &module.kind else {
                    return Err(unsupported(format!("from ... import {name}")));
                };
                let full = m
                    .get_attr("__name__", vm)
                    .ok()
                    .and_then(|n| n.downcast_ref::<PyStr>().map(|s| s.to_string()))
                    .map(|p| format!("{p}.{name}"))
                    .ok_or_else(|| unsupported(format!("from ... import {name}")))?;
                let sub = super::super::bridge::import_module(&full, vm)
                    .map_err(|_| unsupported(format!("cannot import name '{name}'")))?;
                self.module_vt(sub)
            }
        };
        self.push(v);
        Ok(Flow::Next)
    }

    fn module_vt(&mut self, module: PyObjectRef) -> Vt {
        let src = Rc::new(Source::Const(ConstObj(module.clone())));
        wrap(self.out, module, src, self.vm)
    }
}
