//! Python's operator protocols for user objects while tracing (Dynamo's
//! `UserDefinedObjectVariable` comparisons and binary operators): a comparison or operator with a
//! user object on either side calls its Python dunder (inlined), then the reflected one, until one
//! does not return `NotImplemented`; identity answers about frame objects pin them (ID_MATCH); a
//! container module's children are pinned (DICT_KEYS on `_modules`) before `len`, iteration,
//! indexing or truth reads them.

use super::super::exc::{GraphBreak, GraphBreakKind};
use super::super::symbolic_convert::Tracer;
use super::super::variables::exceptions::raise_builtin;
use super::super::variables::{Kind, Vt};
use super::binary::{same_object, unsupported};
use rustpython_vm::AsObject;

impl Tracer<'_> {
    /// The Python method `name` of a user object's class, bound to it (`None` when the value is
    /// not such an object, or the class inherits `object`'s slot).
    fn user_dunder(&mut self, v: &Vt, name: &str) -> Option<Vt> {
        let Kind::Object(o) = &v.kind else {
            return None;
        };
        let raw = o.class().lookup_ref(&self.vm.ctx.new_str(name), self.vm)?;
        raw.downcast_ref::<rustpython_vm::builtins::PyFunction>()?;
        self.get_attr(v.clone(), name).ok()
    }

    /// Calls `lhs.<name>(rhs)`, then the reflected `rhs.<reflected>(lhs)` (first when `rhs`'s
    /// class is a subclass of `lhs`'s that defines it), until one does not return
    /// `NotImplemented`: Python's binary-operator protocol for user objects whose dunders are
    /// Python functions (traced by inlining them). `None` when neither side has one.
    fn user_protocol(
        &mut self,
        lhs: &Vt,
        rhs: &Vt,
        name: &str,
        reflected: &str,
    ) -> Option<Result<Option<Vt>, GraphBreak>> {
        let vm = self.vm;
        let fwd = self.user_dunder(lhs, name);
        let rev = self.user_dunder(rhs, reflected);
        if fwd.is_none() && rev.is_none() {
            return None;
        }
        let rhs_first = match (&lhs.kind, &rhs.kind) {
            (Kind::Object(a), Kind::Object(b)) => {
                !a.class().is(b.class()) && b.class().fast_issubclass(a.class()) && rev.is_some()
            }
            _ => false,
        };
        let order: Vec<(Vt, Vt)> = match (fwd, rev) {
            (Some(f), Some(r)) if rhs_first => vec![(r, lhs.clone()), (f, rhs.clone())],
            (f, r) => f
                .map(|f| (f, rhs.clone()))
                .into_iter()
                .chain(r.map(|r| (r, lhs.clone())))
                .collect(),
        };
        Some((|| {
            for (method, other) in order {
                let r = self.call_vt(method, vec![other], Vec::new())?;
                if !r.as_const().is_some_and(|c| c.is(&vm.ctx.not_implemented)) {
                    return Ok(Some(r));
                }
            }
            Ok(None)
        })())
    }

    /// A comparison with a user object on either side, through its `__lt__`/`__eq__`/...;
    /// `==`/`!=` fall back to identity when both return NotImplemented, orderings raise
    /// TypeError as Python does.
    pub(super) fn user_compare(
        &mut self,
        which: usize,
        lhs: &Vt,
        rhs: &Vt,
    ) -> Option<Result<Vt, GraphBreak>> {
        const NAMES: [(&str, &str, &str); 6] = [
            ("__lt__", "__gt__", "<"),
            ("__le__", "__ge__", "<="),
            ("__eq__", "__eq__", "=="),
            ("__ne__", "__ne__", "!="),
            ("__gt__", "__lt__", ">"),
            ("__ge__", "__le__", ">="),
        ];
        let (name, reflected, op) = NAMES[which];
        let r = match self.user_protocol(lhs, rhs, name, reflected) {
            Some(r) => r,
            // `!=` of classes that only define `__eq__` (object's `__ne__` inverts it).
            None if which == 3 => Ok(None),
            None => return None,
        };
        if which == 3
            && matches!(r, Ok(None))
            && self.user_dunder(lhs, "__eq__").is_none()
            && self.user_dunder(rhs, "__eq__").is_none()
        {
            return None;
        }
        Some(r.and_then(|found| {
            match found {
                Some(v) => Ok(v),
                None if which == 2 || which == 3 => {
                    if which == 3
                        && let Some(Ok(Some(eq))) = self.user_protocol(lhs, rhs, "__eq__", "__eq__")
                    {
                        // `!=` of a class that only defines `__eq__`: its negation.
                        let t = self.truth(&eq)?;
                        return Ok(Vt::constant(self.vm.ctx.new_bool(!t).into()));
                    }
                    let same = same_object(lhs, rhs).ok_or_else(|| unsupported(op, lhs, rhs))?;
                    self.pin_identity(lhs);
                    self.pin_identity(rhs);
                    Ok(Vt::constant(
                        self.vm.ctx.new_bool(same == (which == 2)).into(),
                    ))
                }
                None => Err(raise_builtin(
                    self.vm.ctx.exceptions.type_error,
                    self.vm
                        .ctx
                        .new_str(format!(
                            "'{op}' not supported between instances of {} and {}",
                            lhs.describe(),
                            rhs.describe()
                        ))
                        .into(),
                )),
            }
        }))
    }

    /// A binary operator with a user object on either side, through `__add__`/`__radd__`/...
    /// (`__iadd__` first for `+=`).
    pub(super) fn user_binary(
        &mut self,
        pyname: &str,
        lhs: &Vt,
        rhs: &Vt,
    ) -> Option<Result<Vt, GraphBreak>> {
        let base = pyname.trim_start_matches('i');
        let base = match base {
            "and_" => "and",
            "or_" => "or",
            other => other,
        };
        if pyname.starts_with('i')
            && let Some(r) = self.user_protocol(lhs, rhs, &format!("__{pyname}__"), "")
        {
            match r {
                Ok(Some(v)) => return Some(Ok(v)),
                Ok(None) => {}
                Err(e) => return Some(Err(e)),
            }
        }
        let r = self.user_protocol(lhs, rhs, &format!("__{base}__"), &format!("__r{base}__"))?;
        Some(r.and_then(|found| {
            found.ok_or_else(|| {
                raise_builtin(
                    self.vm.ctx.exceptions.type_error,
                    self.vm
                        .ctx
                        .new_str(format!("unsupported operand type(s) for {pyname}"))
                        .into(),
                )
            })
        }))
    }
}

impl Tracer<'_> {
    /// An identity answer (`a is b`) about a frame object the guards only know by type: pins
    /// the object itself (ID_MATCH), so other objects recompile.
    pub(crate) fn pin_identity(&mut self, v: &Vt) {
        if let (
            Kind::Object(o) | Kind::NNModule(o) | Kind::Class(o) | Kind::Function(o),
            Some(src),
        ) = (&v.kind, &v.source)
        {
            self.out
                .guards
                .add(src, super::super::guards::Check::IdMatch { obj: o.clone() });
        }
    }

    /// Pins a container module's children (`len`, iteration, indexing, truth read them): a
    /// DICT_KEYS guard on its `_modules`, so adding, removing or reordering children
    /// recompiles. Only `torch.nn`'s containers are answered this way; a module whose length
    /// is its own Python code is not modelled.
    pub(crate) fn guard_module_children(&mut self, m: &Vt) -> Result<(), GraphBreak> {
        let vm = self.vm;
        let bad = || {
            GraphBreak::new(
                GraphBreakKind::UnsupportedOperation,
                format!("the children of {}", m.describe()),
            )
        };
        let Kind::NNModule(o) = &m.kind else {
            return Err(bad());
        };
        if m.source.is_none() && self.is_built_module(o) {
            // Built in this trace from constants (`nn_module_new.rs`): its children are what
            // the real module holds, until the trace changes its copy of `_modules` (`len`,
            // iteration and indexing inline the class's Python code over that copy instead).
            let changed = self
                .out
                .built_module_dicts
                .values()
                .any(|d| d.borrow().mutated);
            return if changed { Err(bad()) } else { Ok(()) };
        }
        let container = super::super::polyfills::module_of(o.class().as_object(), vm)
            .is_some_and(|p| p == "torch.nn.modules.container");
        let src = m.source.clone().filter(|_| container).ok_or_else(bad)?;
        let mods = o.get_attr("_modules", vm).map_err(|_| bad())?;
        let d = mods
            .downcast_ref::<rustpython_vm::builtins::PyDict>()
            .ok_or_else(bad)?;
        let keys = d
            .keys_vec()
            .iter()
            .map(|k| super::super::guards::ConstValue::of(k, vm))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(bad)?;
        self.out.guards.add(
            &src.attr("_modules"),
            super::super::guards::Check::DictKeys(keys),
        );
        Ok(())
    }
}
