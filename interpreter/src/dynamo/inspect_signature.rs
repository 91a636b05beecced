//! `inspect.signature(f)` of a Python function inside the compiled region. PyTorch traces
//! `inspect`'s Python code; Rynamo's `inspect` reads `sys.getrecursionlimit()` and mappingproxy
//! objects on the way, which the trace does not model. A function's signature is a function of
//! what the guards below pin (its code, defaults, keyword defaults and annotations, and the
//! absence of `__signature__` / `__wrapped__`), so the real `inspect.signature` runs once at
//! trace time and its result is a constant of the trace: a `Signature` is immutable, and so is
//! the mapping of its `parameters`. Anything else (a class, a builtin, a partial, a wrapped
//! function, keyword options) takes the traced path.

use rustpython_vm::builtins::{PyDict, PyFunction};
use rustpython_vm::{AsObject, PyObjectRef, VirtualMachine};

use super::exc::{GraphBreak, GraphBreakKind};
use super::guards::{Check, ConstValue};
use super::source::{Key, Source};
use super::symbolic_convert::Tracer;
use super::variables::{Kind, Vt};

/// `inspect.<name>`, when `inspect` imports.
fn inspect_attr(name: &'static str, vm: &VirtualMachine) -> Option<PyObjectRef> {
    super::bridge::import_module("inspect", vm)
        .and_then(|m| m.get_attr(name, vm))
        .ok()
}

/// Whether `obj` is an `inspect.Signature` (whose `parameters` mapping is then a constant).
pub fn is_signature(obj: &PyObjectRef, vm: &VirtualMachine) -> bool {
    inspect_class_is(obj, &["Signature"], vm)
}

/// Whether `obj` is an `inspect.Signature`, `Parameter` or parameter kind: immutable values
/// (Dynamo traces them as constants; their equality is by value).
pub fn is_inspect_value(obj: &rustpython_vm::PyObject, vm: &VirtualMachine) -> bool {
    inspect_class_is(obj, &["Signature", "Parameter", "_ParameterKind"], vm)
}

/// Whether `obj`'s class is `inspect.<one of names>`, read from the class's own module and
/// name (no import: `inspect` is only consulted when it is loaded).
fn inspect_class_is(obj: &rustpython_vm::PyObject, names: &[&str], vm: &VirtualMachine) -> bool {
    let cls = obj.class();
    if !names.contains(&cls.name().as_ref()) {
        return false;
    }
    let Some(inspect) = vm
        .sys_module
        .get_attr("modules", vm)
        .ok()
        .and_then(|m| m.get_item("inspect", vm).ok())
    else {
        return false;
    };
    let name = cls.name().to_string();
    inspect
        .get_attr(&vm.ctx.new_str(name), vm)
        .is_ok_and(|c| c.is(cls.as_object()))
}

impl Tracer<'_> {
    /// `inspect.signature(f)`: `None` when `callee` is not `inspect.signature` or the call is not
    /// one this models (then the caller traces `inspect`'s code).
    pub(crate) fn call_inspect_signature(
        &mut self,
        callee: &PyObjectRef,
        args: &[Vt],
        kwargs: &[(String, Vt)],
    ) -> Option<Result<Vt, GraphBreak>> {
        let vm = self.vm;
        if !inspect_attr("signature", vm).is_some_and(|s| s.is(callee)) || !kwargs.is_empty() {
            return None;
        }
        let [target] = args else {
            return None;
        };
        let (Kind::Function(f), Some(src)) = (&target.kind, &target.source) else {
            return None;
        };
        f.downcast_ref::<PyFunction>()?;
        // `__signature__` and `__wrapped__` redirect `inspect.signature`: not modelled here.
        for name in ["__signature__", "__wrapped__"] {
            if f.get_attr(name, vm).is_ok() {
                return None;
            }
        }
        let sig = match crate::eval_frame::with_callback_state(
            crate::eval_frame::CallbackState::Disabled,
            vm,
            || callee.call((f.clone(),), vm),
        ) {
            Ok(s) => s,
            Err(e) => {
                let msg = super::fx::error_text(&e, vm);
                return Some(Err(GraphBreak::new(
                    GraphBreakKind::OpError,
                    format!("inspect.signature raised {}: {msg}", e.class().name()),
                )));
            }
        };
        self.guard_signature_inputs(f, src)?;
        Some(Ok(Vt::constant(sig)))
    }

    /// Pins what `inspect.signature` of a Python function reads besides its code (which the
    /// function's own guard pins): `None` when one of them cannot be pinned.
    fn guard_signature_inputs(&mut self, f: &PyObjectRef, src: &std::rc::Rc<Source>) -> Option<()> {
        let vm = self.vm;
        self.out.guards.add(
            &src.attr("__code__"),
            Check::IdMatch {
                obj: f.get_attr("__code__", vm).ok()?,
            },
        );
        for name in ["__signature__", "__wrapped__"] {
            self.out.guards.add(
                src,
                Check::HasAttr {
                    name: name.into(),
                    present: false,
                },
            );
        }
        // A tuple (or None): replacing it makes another object; its items cannot change.
        self.out.guards.add(
            &src.attr("__defaults__"),
            Check::IdMatch {
                obj: f.get_attr("__defaults__", vm).ok()?,
            },
        );
        // Dicts change in place: the same dict, the same keys, the same value objects.
        for name in ["__kwdefaults__", "__annotations__"] {
            let d = f.get_attr(name, vm).ok()?;
            let dsrc = src.attr(name);
            self.out
                .guards
                .add(&dsrc, Check::IdMatch { obj: d.clone() });
            let Some(dict) = d.downcast_ref::<PyDict>() else {
                if vm.is_none(&d) {
                    continue;
                }
                return None;
            };
            let mut keys = Vec::new();
            for (k, v) in dict.items_vec() {
                let key = k.downcast_ref::<rustpython_vm::builtins::PyStr>()?;
                let key = key.to_str()?.to_owned();
                keys.push(ConstValue::of(&k, vm)?);
                self.out.guards.add(
                    &dsrc.item(Key::Str(key.as_str().into())),
                    Check::IdMatch { obj: v },
                );
            }
            self.out.guards.add(&dsrc, Check::DictKeys(keys));
        }
        Some(())
    }
}
