//! `match` statements: `GET_LEN`, `MATCH_SEQUENCE`, `MATCH_MAPPING`, `MATCH_KEYS`, `MATCH_CLASS`
//! (Dynamo's handlers of the same names in `symbolic_convert.py`). Each test is decided at trace
//! time from what the tracker knows (its kind, a constant's type, a dict's keys), so a `match`
//! on Python structure folds away like an `if` on constants; a subject Dynamo cannot classify is
//! a graph break, never a guess.

use rustpython_vm::builtins::{PyDict, PyStr, PyTuple};
use rustpython_vm::{AsObject, PyObjectRef};

use super::super::bytecode::Instr;
use super::super::exc::{GraphBreak, GraphBreakKind};
use super::super::symbolic_convert::{Flow, Step, Tracer};
use super::super::variables::{Kind, Vt};

fn unsupported(what: impl Into<String>) -> GraphBreak {
    GraphBreak::new(GraphBreakKind::UnsupportedConstruct, what)
}

/// Built-in classes whose single positional sub-pattern matches the subject itself
/// (`case int(n):`), as CPython's `_Py_TPFLAGS_MATCH_SELF`.
const MATCH_SELF: &[&str] = &[
    "bool",
    "bytearray",
    "bytes",
    "dict",
    "float",
    "frozenset",
    "int",
    "list",
    "set",
    "str",
    "tuple",
];

impl Tracer<'_> {
    fn builtin(&self, name: &'static str) -> Result<Vt, GraphBreak> {
        let f = self
            .vm
            .builtins
            .get_attr(name, self.vm)
            .map_err(|_| unsupported(format!("no builtin {name}")))?;
        Ok(Vt::new(Kind::Builtin(f, name.into())))
    }

    fn bool_const(&self, b: bool) -> Vt {
        Vt::constant(self.vm.ctx.new_bool(b).into())
    }

    /// `GET_LEN`: pushes `len(TOS)`, keeping TOS.
    pub(crate) fn get_len(&mut self, _ins: &Instr) -> Step {
        let subject = self
            .stack
            .last()
            .cloned()
            .ok_or_else(|| unsupported("GET_LEN"))?;
        let len = self.builtin("len")?;
        let n = self.call_vt(len, vec![subject], Vec::new())?;
        self.push(n);
        Ok(Flow::Next)
    }

    /// `MATCH_SEQUENCE`: pushes whether TOS is a sequence for `case [a, b]:` (not str/bytes).
    pub(crate) fn match_sequence(&mut self, _ins: &Instr) -> Step {
        let subject = self
            .stack
            .last()
            .ok_or_else(|| unsupported("MATCH_SEQUENCE"))?;
        let vm = self.vm;
        let hit = match &subject.kind {
            Kind::Tuple(_) | Kind::NamedTuple(..) | Kind::List(_) => true,
            Kind::Dict(_) | Kind::Set(_) | Kind::Tensor(_) | Kind::Exception(_) => false,
            Kind::Const(c) => {
                c.downcast_ref::<PyTuple>().is_some()
                    || c.class().is(vm.ctx.types.range_type)
                    || c.class().is(vm.ctx.types.list_type)
            }
            _ => return Err(unsupported(format!("match on {}", subject.describe()))),
        };
        self.push(self.bool_const(hit));
        Ok(Flow::Next)
    }

    /// `MATCH_MAPPING`: pushes whether TOS is a mapping for `case {"k": v}:`.
    pub(crate) fn match_mapping(&mut self, _ins: &Instr) -> Step {
        let subject = self
            .stack
            .last()
            .ok_or_else(|| unsupported("MATCH_MAPPING"))?;
        let hit = match &subject.kind {
            Kind::Dict(_) => true,
            Kind::Tuple(_)
            | Kind::NamedTuple(..)
            | Kind::List(_)
            | Kind::Set(_)
            | Kind::Tensor(_)
            | Kind::Exception(_) => false,
            Kind::Const(c) => c.downcast_ref::<PyDict>().is_some(),
            _ => return Err(unsupported(format!("match on {}", subject.describe()))),
        };
        self.push(self.bool_const(hit));
        Ok(Flow::Next)
    }

    /// `MATCH_KEYS`: `[subject, keys] -> [subject, keys, values tuple or None]`.
    pub(crate) fn match_keys(&mut self, _ins: &Instr) -> Step {
        let n = self.stack.len();
        if n < 2 {
            return Err(unsupported("MATCH_KEYS on a short stack"));
        }
        let (subject, keys) = (self.stack[n - 2].clone(), self.stack[n - 1].clone());
        let keys = self.unpack_iterable(&keys)?;
        let Kind::Dict(d) = &subject.kind else {
            return Err(unsupported(format!(
                "mapping pattern on {}",
                subject.describe()
            )));
        };
        let vm = self.vm;
        let mut values = Vec::with_capacity(keys.len());
        for k in keys {
            let key = k
                .as_const()
                .ok_or_else(|| unsupported("mapping pattern with a non-constant key"))?;
            let found = d
                .borrow()
                .items
                .iter()
                .find(|(dk, _)| vm.bool_eq(dk, key).unwrap_or(false))
                .map(|(_, v)| v.clone());
            match found {
                Some(v) => values.push(v),
                None => {
                    self.push(Vt::constant(vm.ctx.none()));
                    return Ok(Flow::Next);
                }
            }
        }
        self.push(Vt::new(Kind::Tuple(values)));
        Ok(Flow::Next)
    }

    /// `MATCH_CLASS count`: `[subject, cls, names] -> [attrs tuple or None]` for
    /// `case Point(x, y=0):`: an isinstance test, then `count` positional attributes (named by
    /// `cls.__match_args__`, or the subject itself for built-in types) and the keyword ones.
    pub(crate) fn match_class(&mut self, ins: &Instr) -> Step {
        let names = self.pop()?;
        let cls = self.pop()?;
        let subject = self.pop()?;
        let isinstance = self.builtin("isinstance")?;
        let hit = self.call_vt(isinstance, vec![subject.clone(), cls.clone()], Vec::new())?;
        let hit = hit
            .as_const()
            .and_then(|c| c.clone().try_to_bool(self.vm).ok())
            .ok_or_else(|| unsupported("class pattern isinstance"))?;
        if !hit {
            self.push(Vt::constant(self.vm.ctx.none()));
            return Ok(Flow::Next);
        }
        let cls_obj = self.class_object(&cls)?;
        let count = ins.arg as usize;
        let mut attrs: Vec<String> = Vec::new();
        let mut values = Vec::new();
        if count > 0 {
            let cls_name = cls_obj
                .get_attr("__name__", self.vm)
                .ok()
                .and_then(|n| n.downcast::<PyStr>().ok())
                .and_then(|s| s.to_str().map(str::to_owned))
                .unwrap_or_default();
            let builtin = self
                .vm
                .builtins
                .dict()
                .get_item_opt(cls_name.as_str(), self.vm)
                .ok()
                .flatten()
                .is_some_and(|b| b.is(&cls_obj));
            let match_args = cls_obj.get_attr("__match_args__", self.vm).ok();
            match match_args {
                Some(m) => {
                    let m: Vec<PyObjectRef> = m
                        .try_to_value(self.vm)
                        .map_err(|_| unsupported("__match_args__ is not a tuple"))?;
                    if m.len() < count {
                        return Err(unsupported(
                            "more positional sub-patterns than __match_args__",
                        ));
                    }
                    for a in m.into_iter().take(count) {
                        let a = a
                            .downcast::<PyStr>()
                            .map_err(|_| unsupported("__match_args__ item is not a str"))?;
                        attrs.push(a.to_str().unwrap_or_default().to_owned());
                    }
                }
                None if builtin && MATCH_SELF.contains(&cls_name.as_str()) && count == 1 => {
                    values.push(subject.clone());
                }
                None => {
                    return Err(unsupported(
                        "positional class pattern without __match_args__",
                    ));
                }
            }
        }
        let kw: Vec<PyObjectRef> = names
            .as_const()
            .and_then(|c| c.clone().try_to_value(self.vm).ok())
            .ok_or_else(|| unsupported("MATCH_CLASS attribute names"))?;
        for n in kw {
            let n = n
                .downcast::<PyStr>()
                .map_err(|_| unsupported("class pattern keyword is not a str"))?;
            attrs.push(n.to_str().unwrap_or_default().to_owned());
        }
        for a in attrs {
            // A missing attribute fails the match in CPython; Dynamo does not guess: it breaks.
            values.push(self.get_attr(subject.clone(), &a)?);
        }
        self.push(Vt::new(Kind::Tuple(values)));
        Ok(Flow::Next)
    }
}
