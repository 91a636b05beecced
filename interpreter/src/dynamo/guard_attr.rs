//! How a guard-tree node reads `obj.name`: straight from the instance `__dict__` when the
//! object's class is known not to intercept the read, else through the full attribute protocol.
//!
//! Why: a compiled module's guards read a few hundred attributes per call (`_modules`,
//! `_parameters`, the four hook dicts of every submodule). Through `getattr`, a class with a
//! `__getattr__` (every `nn.Module`) costs three MRO lookups and a call layer before the instance
//! dict is reached; Dynamo's guard accessors read the dict directly (`GetGenericDictGuardAccessor`).
//!
//! Soundness: the shortcut gives `getattr`'s answer exactly when the class's `__getattribute__`
//! is `object`'s and no class in its MRO holds a data descriptor named `name` (those outrank the
//! instance dict). That is verified on the slow path and remembered with the class's identity
//! and version tag; RustPython gives a class a new tag (or 0) whenever it or a base is modified,
//! so a remembered verification is used only while the class is unchanged. A name missing from
//! the instance dict takes the slow path (`__getattr__`, class attributes).

use std::cell::Cell;
use std::sync::atomic::Ordering;

use rustpython_vm::builtins::PyStrRef;
use rustpython_vm::{AsObject, PyObject, PyObjectRef, VirtualMachine};

/// The class (address, version tag) a node's attribute was last verified for; (0, 0): none.
#[derive(Clone, Debug, Default)]
pub struct AttrShortcut(Cell<(usize, u32)>);

impl AttrShortcut {
    /// `obj.name`, or `None` when reading it raises.
    pub fn read(
        &self,
        obj: &PyObject,
        name: &PyStrRef,
        vm: &VirtualMachine,
    ) -> Option<PyObjectRef> {
        let cls = obj.class();
        let key = (
            cls as *const _ as usize,
            cls.tp_version_tag.load(Ordering::Acquire),
        );
        if key.1 != 0
            && self.0.get() == key
            && let Some(v) = obj
                .dict()
                .and_then(|d| d.get_item_opt(name.as_object(), vm).ok().flatten())
        {
            return Some(v);
        }
        let value = obj.get_attr(name, vm).ok()?;
        if key.1 != 0 && self.0.get() != key && dict_read_is_exact(obj, name, vm) {
            // The lookups above may have assigned the tag: remember the one now current.
            self.0
                .set((key.0, cls.tp_version_tag.load(Ordering::Acquire)));
        }
        Some(value)
    }
}

/// Whether `obj.__dict__[name]`, when present, is what `getattr(obj, name)` returns.
fn dict_read_is_exact(obj: &PyObject, name: &PyStrRef, vm: &VirtualMachine) -> bool {
    let cls = obj.class();
    let getattribute = vm.ctx.intern_str("__getattribute__");
    let generic = match (
        cls.get_attr(getattribute),
        vm.ctx.types.object_type.get_attr(getattribute),
    ) {
        (Some(a), Some(b)) => a.is(&b),
        _ => false,
    };
    let Some(text) = name.to_str() else {
        return false;
    };
    generic
        && cls
            .get_attr(vm.ctx.intern_str(text))
            .is_none_or(|attr| attr.class().slots.descr_set.load().is_none())
}
