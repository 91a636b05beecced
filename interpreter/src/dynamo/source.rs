//! Sources: where a traced value came from, so guards can re-read it on every call and the
//! generated code can reload it. Printed the way Dynamo prints them: `L['x']`, `G['w']`,
//! `L['self'].weight`, `L['xs'][0]`.

use std::fmt;
use std::rc::Rc;

use rustpython_vm::builtins::{PyDictRef, PyStrRef};
use rustpython_vm::{AsObject, PyObjectRef, PyResult, VirtualMachine};

/// A dict key or sequence index in an [`Source::Item`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    /// An integer index or key.
    Int(i64),
    /// A string key.
    Str(Rc<str>),
    /// An object key compared by identity (a parameter keying an optimizer's `state`), pinned
    /// by an ID_MATCH guard on the key's own source, whose text is kept for printing:
    /// `L['self'].state[L['self'].param_groups[0]['params'][0]]`.
    Obj(ConstObj, Rc<str>),
}

impl Key {
    pub(crate) fn to_py(&self, vm: &VirtualMachine) -> PyObjectRef {
        match self {
            Key::Int(i) => vm.ctx.new_int(*i).into(),
            Key::Str(s) => interned(s, vm).into(),
            Key::Obj(o, _) => o.0.clone(),
        }
    }
}

/// `name` as the interpreter's interned string. Names and string keys that guards and sources
/// read on every call are interned: attribute names stored by user code are (they come from code
/// objects), and a dict lookup whose key is the stored key object itself skips the string
/// comparison, a rich-compare call that was half of M1's guard time (`benchmarks.md`).
pub(crate) fn interned(name: &str, vm: &VirtualMachine) -> PyStrRef {
    vm.ctx.intern_str(name).to_owned()
}

/// Where a value lives, relative to a frame.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// A fast local (argument or variable): `L['x']`. `index` is its slot in `co_varnames`.
    Local {
        /// The variable name.
        name: Rc<str>,
        /// Its slot.
        index: u32,
    },
    /// A cell or free variable of the frame, read through the cell: `L['k']`. `index` is its slot
    /// among the frame's cells then free variables.
    Deref {
        /// The variable name.
        name: Rc<str>,
        /// Its slot.
        index: u32,
    },
    /// A free variable's cell itself (not its contents): where a `nonlocal` store into the
    /// frame's closure is replayed. `index` is its position in the function's `__closure__`.
    Closure {
        /// The variable name.
        name: Rc<str>,
        /// Its position in the closure.
        index: u32,
    },
    /// A module global (falling back to builtins when absent): `G['w']`.
    Global(Rc<str>),
    /// An attribute: `L['self'].weight`.
    Attr(Rc<Source>, Rc<str>),
    /// A subscript: `L['xs'][0]`, `L['d']['k']`.
    Item(Rc<Source>, Key),
    /// A constant baked in at trace time (a tensor created inside a `nonstrict_trace`d
    /// function): not read from the frame, never guarded.
    Const(ConstObj),
}

const UNREACHABLE_CELL: &str = "__closure_cell__";

/// A constant object, compared by identity.
#[derive(Clone, Debug)]
pub struct ConstObj(pub PyObjectRef);

impl PartialEq for ConstObj {
    fn eq(&self, other: &Self) -> bool {
        self.0.is(&other.0)
    }
}

impl Eq for ConstObj {}

impl std::hash::Hash for ConstObj {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.0.as_object() as *const rustpython_vm::PyObject as usize).hash(state);
    }
}

impl Source {
    /// The marker source of a real closure cell reached through a function that has no source:
    /// the cell cannot be found again after the graph, so a `nonlocal` store into it breaks.
    pub fn unreachable_cell() -> Source {
        Source::Global(UNREACHABLE_CELL.into())
    }

    /// Whether this is [`Source::unreachable_cell`].
    pub fn is_unreachable_cell(&self) -> bool {
        matches!(self, Source::Global(n) if &**n == UNREACHABLE_CELL)
    }

    /// `base.attr`.
    pub fn attr(self: &Rc<Self>, name: &str) -> Rc<Source> {
        Rc::new(Source::Attr(self.clone(), name.into()))
    }

    /// `base[key]`.
    pub fn item(self: &Rc<Self>, key: Key) -> Rc<Source> {
        Rc::new(Source::Item(self.clone(), key))
    }

    /// The source this one reads through, if any.
    pub fn base(&self) -> Option<&Rc<Source>> {
        match self {
            Source::Attr(b, _) | Source::Item(b, _) => Some(b),
            _ => None,
        }
    }

    /// The frame-level root (`L[...]` or `G[...]`).
    pub fn root(&self) -> &Source {
        let mut s = self;
        while let Some(b) = s.base() {
            s = b;
        }
        s
    }

    /// A name usable as a Python identifier, as Dynamo names graph placeholders:
    /// `L['self'].fc1.weight` → `L_self_fc1_weight_`.
    pub fn identifier(&self) -> String {
        let text = self.to_string();
        let mut out = String::with_capacity(text.len());
        for ch in text.chars() {
            if ch.is_ascii_alphanumeric() {
                out.push(ch);
            } else if !out.ends_with('_') {
                out.push('_');
            }
        }
        if !out.ends_with('_') {
            out.push('_');
        }
        out
    }

    /// Reads the value this source names in `frame`.
    pub fn eval(&self, frame: &FrameValues, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
        match self {
            Source::Local { name, index } => frame
                .locals
                .get(*index as usize)
                .cloned()
                .flatten()
                .ok_or_else(|| {
                    vm.new_name_error(
                        format!("local '{name}' is unbound"),
                        vm.ctx.new_str(&**name),
                    )
                }),
            Source::Deref { name, index } => frame
                .cells
                .get(*index as usize)
                .cloned()
                .flatten()
                .ok_or_else(|| {
                    vm.new_name_error(
                        format!("free variable '{name}' is unbound"),
                        vm.ctx.new_str(&**name),
                    )
                }),
            Source::Closure { name, index } => {
                frame.closure.get(*index as usize).cloned().ok_or_else(|| {
                    vm.new_name_error(
                        format!("no closure cell for '{name}'"),
                        vm.ctx.new_str(&**name),
                    )
                })
            }
            Source::Global(name) => {
                if let Some(v) = frame.globals.get_item_opt(&**name, vm)? {
                    return Ok(v);
                }
                frame.builtins.get_item(&**name, vm)
            }
            Source::Attr(base, name) => base.eval(frame, vm)?.get_attr(&interned(name, vm), vm),
            Source::Item(base, key) => base.eval(frame, vm)?.get_item(&*key.to_py(vm), vm),
            Source::Const(c) => Ok(c.0.clone()),
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Local { name, .. } | Source::Deref { name, .. } => write!(f, "L['{name}']"),
            Source::Closure { name, .. } => write!(f, "L['{name}'].__cell__"),
            Source::Global(name) => write!(f, "G['{name}']"),
            Source::Attr(base, name) => write!(f, "{base}.{name}"),
            Source::Item(base, Key::Int(i)) => write!(f, "{base}[{i}]"),
            Source::Item(base, Key::Str(s)) => write!(f, "{base}['{s}']"),
            Source::Item(base, Key::Obj(_, text)) => write!(f, "{base}[{text}]"),
            Source::Const(c) => write!(
                f,
                "___const_{:x}",
                c.0.as_object() as *const rustpython_vm::PyObject as usize
            ),
        }
    }
}

/// The values a frame's sources are read from: its bound locals, its cells, and its globals.
pub struct FrameValues {
    /// Fast locals in `co_varnames` order (`None`: unbound).
    pub locals: Vec<Option<PyObjectRef>>,
    /// Cell then free variable contents (`None`: empty cell).
    pub cells: Vec<Option<PyObjectRef>>,
    /// The free variables' cells themselves (the function's `__closure__`).
    pub closure: Vec<PyObjectRef>,
    /// The function's globals.
    pub globals: PyDictRef,
    /// The builtins dict.
    pub builtins: PyObjectRef,
}

impl FrameValues {
    /// Reads `name` from globals, then builtins.
    pub fn global(&self, name: &str, vm: &VirtualMachine) -> PyResult<Option<PyObjectRef>> {
        if let Some(v) = self.globals.get_item_opt(name, vm)? {
            return Ok(Some(v));
        }
        match self.builtins.get_item(name, vm) {
            Ok(v) => Ok(Some(v)),
            Err(e) if e.fast_isinstance(vm.ctx.exceptions.key_error) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Whether `name` resolves to the builtins dict (not shadowed by a global).
    pub fn is_builtin(&self, name: &str, vm: &VirtualMachine) -> bool {
        !matches!(self.globals.get_item_opt(name, vm), Ok(Some(_)))
            && self.builtins.as_object().get_item(name, vm).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_dynamo() {
        let x = Rc::new(Source::Local {
            name: "self".into(),
            index: 0,
        });
        let w = x.attr("fc1").attr("weight");
        assert_eq!(w.to_string(), "L['self'].fc1.weight");
        assert_eq!(w.identifier(), "L_self_fc1_weight_");
        let item = Rc::new(Source::Global("cfg".into()))
            .item(Key::Str("k".into()))
            .item(Key::Int(0));
        assert_eq!(item.to_string(), "G['cfg']['k'][0]");
        assert_eq!(item.root(), &Source::Global("cfg".into()));
    }
}
