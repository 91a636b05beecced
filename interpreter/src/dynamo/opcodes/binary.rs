//! Operators: `BINARY_OP` arithmetic, comparisons, identity and membership tests, unary
//! operators and truth tests (subscripts are in `subscript.rs`).

use std::cell::RefCell;
use std::rc::Rc;

use rustpython_vm::{AsObject, PyObjectRef};

use super::super::bytecode::Instr;
use super::super::container_methods::key_eq;
use super::super::exc::{GraphBreak, GraphBreakKind};
use super::super::symbolic_convert::{Flow, Step, Tracer};
use super::super::variables::builder::wrap_fresh;
use super::super::variables::python_value::{Converter, python_values};
use super::super::variables::{Kind, ListVar, ViewKind, Vt};
use rynamo_graph::PyOperator;

/// `BINARY_OP`'s argument for subscription (`x[i]`) in CPython 3.14.
const NB_SUBSCR: u32 = 26;

impl Tracer<'_> {
    /// Calls `operator.<name>(*args)` on constants.
    pub(super) fn fold_operator(
        &self,
        name: &str,
        args: Vec<PyObjectRef>,
    ) -> Result<Vt, GraphBreak> {
        let f = self.operator_fn(name).ok_or_else(|| {
            GraphBreak::new(
                GraphBreakKind::UnsupportedOperation,
                format!("operator.{name}"),
            )
        })?;
        let vm = self.vm;
        let r = f.call(args, vm).map_err(|e| {
            let msg = super::super::fx::error_text(&e, vm);
            GraphBreak::new(
                GraphBreakKind::OpError,
                format!("operator.{name} raised {}: {msg}", e.class().name()),
            )
        })?;
        Ok(wrap_fresh(r, vm))
    }

    /// `lhs <op> rhs` for `BINARY_OP` argument `which` (not subscription).
    pub(crate) fn binary(&mut self, which: usize, lhs: Vt, rhs: Vt) -> Result<Vt, GraphBreak> {
        let pyname = PyOperator::from_binary_op(which)
            .ok_or_else(|| {
                GraphBreak::new(
                    GraphBreakKind::UnsupportedOpcode,
                    format!("BINARY_OP {which}"),
                )
            })?
            .name();
        if lhs.as_tensor().is_some() || rhs.as_tensor().is_some() {
            return self.tensor_binary(which, lhs, rhs);
        }
        if let Some(v) = self.sym_binary(pyname, &lhs, &rhs) {
            return Ok(v);
        }
        if let Some(v) = self.sym_tuple_concat(pyname, &lhs, &rhs) {
            return Ok(v);
        }
        if let (Some(a), Some(b)) = (lhs.as_const(), rhs.as_const()) {
            return self.fold_operator(pyname, vec![a.clone(), b.clone()]);
        }
        if let Some(r) = self.set_binary(pyname, &lhs, &rhs) {
            return r;
        }
        if matches!(lhs.kind, Kind::DictView(..)) || matches!(rhs.kind, Kind::DictView(..)) {
            // Set operations on keys and items views (`d.keys() & e.keys()`): on real views
            // of the dicts' current contents; the result is a new set.
            let real = |this: &Self, v: &Vt| match &v.kind {
                Kind::DictView(d, view) => this.real_dict_view(d, *view),
                _ => this.python_value(v),
            };
            if let (Some(a), Some(b)) = (real(self, &lhs), real(self, &rhs)) {
                return self.fold_operator(pyname.trim_start_matches('i'), vec![a, b]);
            }
            return Err(unsupported(pyname, &lhs, &rhs));
        }
        if let Kind::List(l) = &lhs.kind
            && l.borrow().deque.is_some()
        {
            return Err(unsupported(pyname, &lhs, &rhs));
        }
        // Sequence concatenation and repetition of tracked containers.
        let base = pyname.trim_start_matches('i');
        match (&lhs.kind, &rhs.kind, base) {
            (Kind::Tuple(a), Kind::Tuple(b), "add") => {
                Ok(Vt::new(Kind::Tuple(a.iter().chain(b).cloned().collect())))
            }
            (Kind::List(a), Kind::List(b), "add") => {
                let items: Vec<Vt> = a
                    .borrow()
                    .items
                    .iter()
                    .chain(b.borrow().items.iter())
                    .cloned()
                    .collect();
                if pyname == "iadd" {
                    // `lst += other` extends in place.
                    a.borrow_mut().items = items;
                    a.borrow_mut().mutated = true;
                    self.out.side_effects.record_container(&lhs);
                    return Ok(lhs);
                }
                Ok(Vt::new(Kind::List(Rc::new(RefCell::new(ListVar {
                    items,
                    mutated: false,
                    ..Default::default()
                })))))
            }
            (Kind::List(a), _, "add") if pyname == "iadd" && !matches!(rhs.kind, Kind::List(_)) => {
                // `lst += iterable` is `lst.extend(iterable)`.
                let more = self.unpack_iterable(&rhs)?;
                a.borrow_mut().items.extend(more);
                a.borrow_mut().mutated = true;
                self.out.side_effects.record_container(&lhs);
                Ok(lhs)
            }
            (Kind::List(a), Kind::Const(n), "mul") | (Kind::Const(n), Kind::List(a), "mul") => {
                let n = n
                    .try_to_value::<i64>(self.vm)
                    .map_err(|_| unsupported(pyname, &lhs, &rhs))?;
                let src = a.borrow().items.clone();
                let mut out = Vec::new();
                for _ in 0..n.max(0) {
                    out.extend(src.iter().cloned());
                }
                if pyname == "imul" && matches!(lhs.kind, Kind::List(_)) {
                    // `lst *= n` repeats in place.
                    a.borrow_mut().items = out;
                    a.borrow_mut().mutated = true;
                    self.out.side_effects.record_container(&lhs);
                    return Ok(lhs);
                }
                Ok(Vt::new(Kind::List(Rc::new(RefCell::new(ListVar {
                    items: out,
                    mutated: false,
                    ..Default::default()
                })))))
            }
            (Kind::Tuple(a), Kind::Const(n), "mul") | (Kind::Const(n), Kind::Tuple(a), "mul") => {
                let n = n
                    .try_to_value::<i64>(self.vm)
                    .map_err(|_| unsupported(pyname, &lhs, &rhs))?;
                let mut out = Vec::new();
                for _ in 0..n.max(0) {
                    out.extend(a.iter().cloned());
                }
                Ok(Vt::new(Kind::Tuple(out)))
            }
            _ => match self.user_binary(pyname, &lhs, &rhs) {
                Some(r) => r,
                None => Err(unsupported(pyname, &lhs, &rhs)),
            },
        }
    }

    pub(crate) fn binary_op(&mut self, ins: &Instr) -> Step {
        let rhs = self.pop()?;
        let lhs = self.pop()?;
        let v = if ins.arg == NB_SUBSCR {
            self.getitem(lhs, rhs)?
        } else {
            let which = ins.arg as usize;
            if PyOperator::from_binary_op(which).is_none() {
                return Err(GraphBreak::new(
                    GraphBreakKind::UnsupportedOpcode,
                    format!("BINARY_OP {which}"),
                ));
            }
            self.binary(which, lhs, rhs)?
        };
        self.push(v);
        Ok(Flow::Next)
    }

    pub(crate) fn unary_op(&mut self, ins: &Instr) -> Step {
        use rustpython_vm::bytecode::Instruction as I;
        let x = self.pop()?;
        let v = match (ins.op, &x.kind) {
            (I::UnaryNegative, Kind::Tensor(_)) => {
                self.call_tensor_method(x, "neg", vec![], vec![])?
            }
            (I::UnaryInvert, Kind::Tensor(_)) => {
                self.call_tensor_method(x, "bitwise_not", vec![], vec![])?
            }
            (I::UnaryNot, _) => {
                let b = self.truth(&x)?;
                Vt::constant(self.vm.ctx.new_bool(!b).into())
            }
            (I::UnaryNegative, Kind::SymInt(s) | Kind::SymFloat(s)) => {
                match self.sym_unary(&x, false) {
                    Some(v) => v,
                    None => self.fold_operator("neg", vec![s.concrete().clone()])?,
                }
            }
            (I::UnaryNegative, Kind::Const(c)) => self.fold_operator("neg", vec![c.clone()])?,
            (I::UnaryInvert, Kind::Const(c)) => self.fold_operator("invert", vec![c.clone()])?,
            _ => {
                return Err(GraphBreak::new(
                    GraphBreakKind::UnsupportedOperation,
                    format!("{} on {}", ins.name(), x.describe()),
                ));
            }
        };
        self.push(v);
        Ok(Flow::Next)
    }

    /// `bool(x)` at trace time; a tensor's truth needs its data (a data-dependent branch).
    pub(crate) fn truth(&mut self, x: &Vt) -> Result<bool, GraphBreak> {
        let vm = self.vm;
        match &x.kind {
            Kind::Tensor(_) => Err(GraphBreak::new(
                GraphBreakKind::DataDependentBranch,
                "generic_jump TensorVariable()",
            )),
            Kind::SymInt(s) | Kind::SymFloat(s) => {
                Ok(s.concrete().clone().try_to_bool(vm).unwrap_or(true))
            }
            Kind::Const(c) => c.clone().try_to_bool(vm).map_err(|_| {
                GraphBreak::new(
                    GraphBreakKind::UnsupportedOperation,
                    "bool() of a constant raised",
                )
            }),
            Kind::Tuple(items) | Kind::NamedTuple(_, items) => Ok(!items.is_empty()),
            Kind::List(l) => Ok(!l.borrow().items.is_empty()),
            Kind::Dict(d) | Kind::DictView(d, _) => Ok(!d.borrow().items.is_empty()),
            // Types without `__bool__` or `__len__`: always true.
            Kind::Iter(_) | Kind::Generator(_) | Kind::Exception(_) | Kind::Slice(_) => Ok(true),
            Kind::Set(s) => Ok(s.length(vm).map_err(|_| {
                GraphBreak::new(GraphBreakKind::UnsupportedOperation, "len() of a set")
            })? > 0),
            Kind::NNModule(m) => {
                let cls = m.class();
                let has = cls.as_object().get_attr("__bool__", vm).is_ok()
                    || cls.as_object().get_attr("__len__", vm).is_ok();
                if !has {
                    return Ok(true);
                }
                // A container (ModuleList, Sequential, ...): its children, guarded.
                self.guard_module_children(x)?;
                m.clone().try_to_bool(vm).map_err(|_| {
                    GraphBreak::new(GraphBreakKind::UnsupportedOperation, "bool() of a module")
                })
            }
            Kind::Function(_)
            | Kind::NestedFunction(_)
            | Kind::BoundMethod(..)
            | Kind::Partial(_)
            | Kind::TorchOp { .. }
            | Kind::Builtin(..)
            | Kind::Class(_)
            | Kind::Module(_)
            | Kind::Method(..) => Ok(true),
            Kind::Object(o) => {
                // Objects without __bool__/__len__ are true; others need their real value.
                let has = o.class().as_object().get_attr("__bool__", vm).is_ok()
                    || o.class().as_object().get_attr("__len__", vm).is_ok();
                if has {
                    Err(GraphBreak::new(
                        GraphBreakKind::UnsupportedOperation,
                        format!("bool() of {}", x.describe()),
                    ))
                } else {
                    Ok(true)
                }
            }
            _ => Err(GraphBreak::new(
                GraphBreakKind::UnsupportedOperation,
                format!("bool() of {}", x.describe()),
            )),
        }
    }

    #[allow(
        clippy::wrong_self_convention,
        reason = "opcode handlers are named after their instruction (TO_BOOL)"
    )]
    pub(crate) fn to_bool(&mut self, _ins: &Instr) -> Step {
        // Leave the value: the following jump or UNARY_NOT tests its truth (a tensor's truth is a
        // data-dependent branch, reported there with the jump's position).
        Ok(Flow::Next)
    }

    pub(crate) fn compare_op(&mut self, ins: &Instr) -> Step {
        let rhs = self.pop()?;
        let lhs = self.pop()?;
        let which = (ins.arg >> 5) as usize;
        if which > 5 {
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedOpcode,
                format!("COMPARE_OP {}", ins.arg),
            ));
        }
        let v = self.compare(which, lhs, rhs)?;
        self.push(v);
        Ok(Flow::Next)
    }

    /// `lhs <op> rhs` for comparison `which` (`<` is 0 ... `>=` is 5).
    pub(crate) fn compare(&mut self, which: usize, lhs: Vt, rhs: Vt) -> Result<Vt, GraphBreak> {
        let name = ["lt", "le", "eq", "ne", "gt", "ge"][which];
        if lhs.as_tensor().is_some() || rhs.as_tensor().is_some() {
            return self.tensor_compare(which, lhs, rhs);
        }
        if let Some(v) = self.sym_compare(which, &lhs, &rhs) {
            return Ok(v);
        }
        if let (Some(a), Some(b)) = (lhs.as_const(), rhs.as_const()) {
            return self.fold_operator(name, vec![a.clone(), b.clone()]);
        }
        if let Some(r) = self.set_binary(name, &lhs, &rhs) {
            return r;
        }
        // Containers of constants compare by value, as Python does (`xs == [1, 2]`).
        // Converted together, so `xs == xs` compares one object with itself, as Python does.
        if let Some(ab) = python_values(&[lhs.clone(), rhs.clone()], self.vm) {
            return self.fold_operator(name, ab);
        }
        if let Some(r) = self.user_compare(which, &lhs, &rhs) {
            return r;
        }
        if which == 2 || which == 3 {
            // == / != on objects whose equality is their identity.
            let same = identity_equality(&lhs, &rhs, self.vm)
                .ok_or_else(|| unsupported("compare", &lhs, &rhs))?;
            self.pin_identity(&lhs);
            self.pin_identity(&rhs);
            return Ok(Vt::constant(
                self.vm
                    .ctx
                    .new_bool(if which == 2 { same } else { !same })
                    .into(),
            ));
        }
        Err(unsupported("compare", &lhs, &rhs))
    }

    /// A fresh Python value equal to a tracker made only of constants (tuples, lists, dicts,
    /// sets and named tuples of them); `None` if it holds anything else. Self-referential
    /// lists and dicts convert too (`variables/python_value.rs`).
    pub(crate) fn python_value(&self, v: &Vt) -> Option<PyObjectRef> {
        python_values(std::slice::from_ref(v), self.vm)?.pop()
    }

    pub(crate) fn is_op(&mut self, ins: &Instr) -> Step {
        let rhs = self.pop()?;
        let lhs = self.pop()?;
        let same = match (lhs.as_const(), rhs.as_const()) {
            (Some(a), Some(b)) => a.is(b),
            _ => same_object(&lhs, &rhs).ok_or_else(|| unsupported("is", &lhs, &rhs))?,
        };
        self.pin_identity(&lhs);
        self.pin_identity(&rhs);
        let r = if ins.arg == 1 { !same } else { same };
        self.push(Vt::constant(self.vm.ctx.new_bool(r).into()));
        Ok(Flow::Next)
    }

    pub(crate) fn contains_op(&mut self, ins: &Instr) -> Step {
        let container = self.pop()?;
        let item = self.pop()?;
        let found = self.contains(&container, &item)?;
        let r = if ins.arg == 1 { !found } else { found };
        self.push(Vt::constant(self.vm.ctx.new_bool(r).into()));
        Ok(Flow::Next)
    }

    /// `item in container`.
    pub(crate) fn contains(&mut self, container: &Vt, item: &Vt) -> Result<bool, GraphBreak> {
        let (container, item) = (container.clone(), item.clone());
        let vm = self.vm;
        // The item and the container's items convert together, so an item that is (or holds)
        // the same list as the needle is the same object again (`l in [l]` is True by
        // identity, as in Python, also when `l` holds itself).
        // A view answers as what it lists: the dict's keys, values or (key, value) pairs now.
        let container = match &container.kind {
            Kind::DictView(d, ViewKind::Keys) => Vt::new(Kind::Dict(d.clone())),
            Kind::DictView(d, view) => {
                let items = d
                    .borrow()
                    .items
                    .iter()
                    .map(|(k, v)| match view {
                        ViewKind::Values => v.clone(),
                        _ => Vt::new(Kind::Tuple(vec![Vt::constant(k.clone()), v.clone()])),
                    })
                    .collect();
                Vt::new(Kind::Tuple(items))
            }
            _ => container,
        };
        let mut conv = Converter::new(vm);
        let iv = item.as_const().cloned().or_else(|| conv.convert(&item));
        // An immutable real container (a frozenset or tuple the trace holds as an object, such
        // as `dataclasses._ATOMIC_TYPES`) and a real item (a class, a function, a constant).
        if let Kind::Object(c) = &container.kind
            && (c.class().is(vm.ctx.types.frozenset_type) || c.class().is(vm.ctx.types.tuple_type))
            && let Kind::Class(i) | Kind::Builtin(i, _) | Kind::Function(i) | Kind::Const(i) =
                &item.kind
        {
            return vm
                ._contains(c, i)
                .map_err(|_| unsupported("in", &item, &container));
        }
        let found = match (&container.kind, iv.as_ref()) {
            (Kind::Const(c), Some(i)) => vm
                ._contains(c, i)
                .map_err(|_| unsupported("in", &item, &container))?,
            (Kind::Set(s), Some(i)) => vm
                ._contains(s, i)
                .map_err(|_| unsupported("in", &item, &container))?,
            (Kind::Dict(d), _) => {
                let key = self.dict_key(&item)?;
                d.borrow().items.iter().any(|(k, _)| key_eq(k, &key, vm))
            }
            (Kind::Tuple(_) | Kind::NamedTuple(..) | Kind::List(_), Some(i)) => {
                let items = match &container.kind {
                    Kind::List(l) => l.borrow().items.clone(),
                    Kind::Tuple(t) | Kind::NamedTuple(_, t) => t.clone(),
                    _ => Vec::new(),
                };
                // In order, as Python does; an item whose value is unknown (a tensor) before
                // any match leaves the answer unknown.
                let mut found = false;
                for x in &items {
                    let Some(v) = conv.convert(x) else {
                        return Err(unsupported("in", &item, &container));
                    };
                    // A comparison that raises (a RecursionError between two different
                    // self-referential lists) decides nothing: eager raises there.
                    if vm
                        .bool_eq(&v, i)
                        .map_err(|_| unsupported("in", &item, &container))?
                    {
                        found = true;
                        break;
                    }
                }
                found
            }
            _ => return Err(unsupported("in", &item, &container)),
        };
        Ok(found)
    }
}

/// `lhs == rhs` for values whose equality is identity (functions, classes, modules, builtins,
/// user objects without their own `__eq__`); `None` when identity does not decide it.
fn identity_equality(a: &Vt, b: &Vt, vm: &rustpython_vm::VirtualMachine) -> Option<bool> {
    let identity_eq = |v: &Vt| match &v.kind {
        Kind::Function(_)
        | Kind::NestedFunction(_)
        | Kind::Class(_)
        | Kind::Module(_)
        | Kind::Builtin(..)
        | Kind::TorchOp { .. }
        | Kind::NNModule(_) => true,
        Kind::Object(o) => o
            .class()
            .as_object()
            .get_attr("__eq__", vm)
            .ok()
            .zip(
                vm.ctx
                    .types
                    .object_type
                    .as_object()
                    .get_attr("__eq__", vm)
                    .ok(),
            )
            .is_some_and(|(mine, base)| mine.is(&base)),
        Kind::Const(c) => vm.is_none(c),
        _ => false,
    };
    if !identity_eq(a) || !identity_eq(b) {
        return None;
    }
    same_object(a, b)
}

/// Whether two trackers are the same Python object, when that is knowable.
pub(super) fn same_object(a: &Vt, b: &Vt) -> Option<bool> {
    use Kind as K;
    match (&a.kind, &b.kind) {
        (K::Tensor(x), K::Tensor(y)) => Some(x.value == y.value),
        (K::List(x), K::List(y)) => Some(Rc::ptr_eq(x, y)),
        (K::Dict(x), K::Dict(y)) => Some(Rc::ptr_eq(x, y)),
        (K::Set(x), K::Set(y)) => Some(x.is(y)),
        (
            K::Object(x)
            | K::NNModule(x)
            | K::Function(x)
            | K::Class(x)
            | K::Module(x)
            | K::Builtin(x, _)
            | K::TorchOp { obj: x, .. },
            K::Object(y)
            | K::NNModule(y)
            | K::Function(y)
            | K::Class(y)
            | K::Module(y)
            | K::Builtin(y, _)
            | K::TorchOp { obj: y, .. },
        ) => Some(x.is(y)),
        _ if never_same(&a.kind, &b.kind) || never_same(&b.kind, &a.kind) => Some(false),
        _ => None,
    }
}

/// Whether a value of kind `a` can never be the same object as one of kind `b` (one direction;
/// [`same_object`] asks both).
fn never_same(a: &Kind, b: &Kind) -> bool {
    use Kind as K;
    match (a, b) {
        (K::Const(_), K::Tensor(_)) => true,
        // A real object the trace holds as an opaque `Object` is never a tensor or a container
        // the trace tracks (those have their own kinds).
        (
            K::Object(_),
            K::Tensor(_)
            | K::Tuple(_)
            | K::NamedTuple(..)
            | K::List(_)
            | K::Dict(_)
            | K::DictView(..)
            | K::Iter(_)
            | K::Generator(_)
            | K::NestedFunction(_)
            | K::Exception(_)
            | K::Slice(_),
        ) => true,
        // A constant (None, a number, a dtype) is never a container, callable or object the
        // trace tracks by another kind.
        (
            K::Const(_),
            K::Class(_)
            | K::Builtin(..)
            | K::Module(_)
            | K::TorchOp { .. }
            | K::NestedFunction(_)
            | K::Partial(_)
            | K::BoundMethod(..)
            | K::Exception(_)
            | K::Iter(_)
            | K::Generator(_)
            | K::Set(_)
            | K::DictView(..)
            | K::Cell(_)
            | K::Object(_)
            | K::NNModule(_)
            | K::List(_)
            | K::Dict(_)
            | K::Function(_),
        ) => true,
        _ => false,
    }
}

pub(super) fn unsupported(what: &str, a: &Vt, b: &Vt) -> GraphBreak {
    GraphBreak::new(
        GraphBreakKind::UnsupportedOperation,
        format!("{what} on {} and {}", a.describe(), b.describe()),
    )
}

/// Whether an index is a constant int (not a slice or anything else).
pub(super) fn is_int_index(index: &Vt, vm: &rustpython_vm::VirtualMachine) -> bool {
    index
        .as_const()
        .is_some_and(|c| c.try_to_value::<i64>(vm).is_ok())
}
