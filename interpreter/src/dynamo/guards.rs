//! Guards: the assumptions a compiled entry was traced under, as data, checked natively on every
//! call before the entry runs (Dynamo's guard tree, evaluated in Rust rather than as Python
//! lambdas).
//!
//! ```text
//!   GuardSet (flat list, built while tracing, deduplicated)
//!     --[GuardTree::build]--> nodes in parent-before-child order: one per source, its checks
//!     --[GuardTree::check]--> Ok | Err(first failure, in PyTorch's wording)
//! ```

use std::fmt::Write as _;
use std::rc::Rc;

use rustpython_vm::builtins::{PyFloat, PyInt, PyStr};
use rustpython_vm::{AsObject, PyObject, PyObjectRef, VirtualMachine};
use rynamo_tensor::{DType, TensorMeta};

use super::bridge;
use super::source::Source;

/// A constant a guard compares against.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstValue {
    /// `None`.
    None,
    /// A bool (checked before ints: `True == 1` must not pass for a bool guard).
    Bool(bool),
    /// An int that fits in 64 bits.
    Int(i64),
    /// A float (compared by bits, so `nan` matches `nan` and `-0.0` does not match `0.0`).
    Float(f64),
    /// A str.
    Str(Rc<str>),
}

impl ConstValue {
    /// The constant for `obj`, if it is one of the guardable literal types.
    pub fn of(obj: &PyObject, vm: &VirtualMachine) -> Option<Self> {
        if vm.is_none(obj) {
            return Some(Self::None);
        }
        if obj.class().is(vm.ctx.types.bool_type) {
            return Some(Self::Bool(obj.is(&vm.ctx.true_value)));
        }
        if obj.class().is(vm.ctx.types.int_type) {
            let i = obj.downcast_ref::<PyInt>()?;
            return i.try_to_primitive::<i64>(vm).ok().map(Self::Int);
        }
        if obj.class().is(vm.ctx.types.float_type) {
            return obj
                .downcast_ref::<PyFloat>()
                .map(|f| Self::Float(f.to_f64()));
        }
        if obj.class().is(vm.ctx.types.str_type) {
            return obj
                .downcast_ref::<PyStr>()
                .and_then(|s| s.to_str())
                .map(|s| Self::Str(s.into()));
        }
        None
    }

    fn matches(&self, obj: &PyObject, vm: &VirtualMachine) -> bool {
        match self {
            Self::None => vm.is_none(obj),
            Self::Bool(b) => {
                obj.class().is(vm.ctx.types.bool_type) && obj.is(&vm.ctx.true_value) == *b
            }
            Self::Int(i) => {
                obj.class().is(vm.ctx.types.int_type)
                    && obj
                        .downcast_ref::<PyInt>()
                        .and_then(|v| v.try_to_primitive::<i64>(vm).ok())
                        == Some(*i)
            }
            Self::Float(f) => {
                obj.class().is(vm.ctx.types.float_type)
                    && obj
                        .downcast_ref::<PyFloat>()
                        .is_some_and(|v| v.to_f64().to_bits() == f.to_bits())
            }
            Self::Str(s) => {
                obj.class().is(vm.ctx.types.str_type)
                    && obj.downcast_ref::<PyStr>().and_then(|v| v.to_str()) == Some(&**s)
            }
        }
    }

    fn py_repr(&self) -> String {
        match self {
            Self::None => "None".into(),
            Self::Bool(b) => if *b { "True" } else { "False" }.into(),
            Self::Int(i) => i.to_string(),
            Self::Float(f) => {
                if f.is_nan() {
                    "nan".into()
                } else if f.is_infinite() {
                    if *f > 0.0 {
                        "inf".into()
                    } else {
                        "-inf".into()
                    }
                } else if f.fract() == 0.0 && f.abs() < 1e16 {
                    format!("{f:.1}")
                } else {
                    format!("{f}")
                }
            }
            Self::Str(s) => format!("'{s}'"),
        }
    }
}

/// What a guard checks about the value at its source.
#[derive(Clone, Debug)]
pub enum Check {
    /// `type(x) is T` (Dynamo's TYPE_MATCH).
    TypeMatch {
        /// The type, kept alive so its address cannot be reused.
        ty: PyObjectRef,
    },
    /// `x is obj` (ID_MATCH; FUNCTION_MATCH for functions).
    IdMatch {
        /// The object, kept alive so its address cannot be reused.
        obj: PyObjectRef,
    },
    /// `x == value` for a literal (EQUALS_MATCH), with the type checked too.
    Equals(ConstValue),
    /// A tensor with this dtype, shape, strides and requires_grad (TENSOR_MATCH).
    Tensor {
        /// dtype, shape, strides.
        meta: TensorMeta,
        /// The `requires_grad` flag.
        requires_grad: bool,
    },
    /// `len(x) == n` for sequences and dicts (SEQUENCE_LENGTH / DICT_LENGTH).
    Length(usize),
    /// The dict's keys, in order (DICT_KEYS).
    DictKeys(Vec<ConstValue>),
    /// `type(x) is type(obj) and x == obj` for an immutable value that is not a [`ConstValue`]
    /// (a range, a big int, bytes, a complex, a slice, a device): EQUALS_MATCH on the object.
    ValueMatch {
        /// The value seen while tracing.
        obj: PyObjectRef,
    },
    /// `hasattr(x, name) == present` (HASATTR): what a trace that found an attribute missing
    /// (so `hasattr` was False, `getattr`'s default was used, `except AttributeError` ran)
    /// assumed about the object.
    HasAttr {
        /// The attribute.
        name: String,
        /// Whether it existed while tracing.
        present: bool,
    },
    /// `key in x` for a dict, by the key's identity or equality as the dict decides
    /// (DICT_CONTAINS): what a trace that found an object key missing assumed.
    DictContains {
        /// The key object, kept alive so its address cannot be reused.
        key: PyObjectRef,
        /// The key's source text, for the guard's code.
        key_text: String,
        /// Whether it was present while tracing.
        present: bool,
    },
}

impl Check {
    fn kind_name(&self) -> &'static str {
        match self {
            Check::TypeMatch { .. } => "TYPE_MATCH",
            Check::IdMatch { .. } => "ID_MATCH",
            Check::Equals(_) => "EQUALS_MATCH",
            Check::Tensor { .. } => "TENSOR_MATCH",
            Check::Length(_) => "LENGTH_CHECK",
            Check::DictKeys(_) => "DICT_KEYS_MATCH",
            Check::ValueMatch { .. } => "EQUALS_MATCH",
            Check::HasAttr { .. } => "HASATTR",
            Check::DictContains { .. } => "DICT_CONTAINS",
        }
    }

    /// Whether `other` checks the same thing (one guard per source and kind; `HASATTR` once
    /// per attribute).
    fn same_key(&self, other: &Check) -> bool {
        match (self, other) {
            (Check::HasAttr { name: a, .. }, Check::HasAttr { name: b, .. }) => a == b,
            (Check::DictContains { key: a, .. }, Check::DictContains { key: b, .. }) => a.is(b),
            _ => self.kind_name() == other.kind_name(),
        }
    }

    /// The guard's code, as Dynamo prints it in guard dumps and recompile reasons.
    fn code(&self, src: &str) -> String {
        match self {
            Check::TypeMatch { ty } => format!("___check_type_id({src}, {})", obj_id(ty)),
            Check::IdMatch { obj } => format!("___check_obj_id({src}, {})", obj_id(obj)),
            Check::Equals(v) => format!("{src} == {}", v.py_repr()),
            Check::Tensor {
                meta,
                requires_grad,
            } => format!(
                "check_tensor({src}, Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), {}, device=None, requires_grad={}, size={:?}, stride={:?})",
                dtype_py(meta.dtype),
                if *requires_grad { "True" } else { "False" },
                meta.shape,
                meta.strides
            ),
            Check::Length(n) => format!("len({src}) == {n}"),
            Check::HasAttr { name, present } => format!(
                "{}hasattr({src}, '{name}')",
                if *present { "" } else { "not " }
            ),
            Check::ValueMatch { obj } => format!("{src} == {}", obj_repr(obj)),
            Check::DictContains {
                key_text, present, ..
            } => format!(
                "{}___dict_contains({key_text}, {src})",
                if *present { "" } else { "not " }
            ),
            Check::DictKeys(keys) => format!(
                "list({src}.keys()) == [{}]",
                keys.iter()
                    .map(ConstValue::py_repr)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    /// `Ok` when `value` passes; otherwise the failure in PyTorch's recompile-reason wording.
    /// `src` is only formatted on failure: the passing path allocates nothing.
    fn check(
        &self,
        value: &PyObject,
        src: &dyn std::fmt::Display,
        vm: &VirtualMachine,
    ) -> Result<(), String> {
        let fail = || Err(self.code(&src.to_string()));
        match self {
            Check::TypeMatch { ty } => {
                if value.class().as_object().is(ty) {
                    Ok(())
                } else {
                    fail()
                }
            }
            Check::IdMatch { obj } => {
                if value.is(obj) {
                    Ok(())
                } else {
                    fail()
                }
            }
            Check::Equals(v) => {
                if v.matches(value, vm) {
                    Ok(())
                } else {
                    fail()
                }
            }
            Check::Tensor {
                meta,
                requires_grad,
            } => {
                if bridge::tensor_matches(value, meta, *requires_grad) == Some(true) {
                    return Ok(());
                }
                let Some((actual, rg)) = bridge::tensor_meta(value) else {
                    return Err(format!(
                        "expected type of '{src}' to be a tensor type, ' but found {}",
                        value.class().name()
                    ));
                };
                check_tensor(src, meta, *requires_grad, &actual, rg)
            }
            Check::ValueMatch { obj } => {
                let ok = value.class().is(obj.class()) && vm.bool_eq(value, obj).unwrap_or(false);
                if ok { Ok(()) } else { fail() }
            }
            Check::HasAttr { name, present } => {
                let has = value.get_attr(&vm.ctx.new_str(name.as_str()), vm).is_ok();
                if has == *present { Ok(()) } else { fail() }
            }
            Check::DictContains { key, present, .. } => {
                let has = value
                    .downcast_ref::<rustpython_vm::builtins::PyDict>()
                    .and_then(|d| d.get_item_opt(&**key, vm).ok())
                    .map(|v| v.is_some());
                if has == Some(*present) {
                    Ok(())
                } else {
                    fail()
                }
            }
            Check::Length(n) => match value.length(vm) {
                Ok(len) if len == *n => Ok(()),
                _ => fail(),
            },
            Check::DictKeys(keys) => {
                let ok = value
                    .downcast_ref::<rustpython_vm::builtins::PyDict>()
                    .is_some_and(|d| {
                        let actual: Vec<_> = d.keys_vec();
                        actual.len() == keys.len()
                            && actual.iter().zip(keys).all(|(a, k)| k.matches(a, vm))
                    });
                if ok { Ok(()) } else { fail() }
            }
        }
    }
}

/// TENSOR_MATCH, with Dynamo's failure messages.
fn check_tensor(
    src: &dyn std::fmt::Display,
    want: &TensorMeta,
    want_rg: bool,
    got: &TensorMeta,
    got_rg: bool,
) -> Result<(), String> {
    if want.dtype != got.dtype {
        return Err(format!(
            "tensor '{src}' dtype mismatch. expected {}, actual {}",
            dtype_c10(want.dtype),
            dtype_c10(got.dtype)
        ));
    }
    if want_rg != got_rg {
        return Err(format!(
            "tensor '{src}' requires_grad mismatch. expected requires_grad={}",
            u8::from(want_rg)
        ));
    }
    if want.shape.len() != got.shape.len() {
        return Err(format!(
            "tensor '{src}' rank mismatch. expected {}, actual {}",
            want.shape.len(),
            got.shape.len()
        ));
    }
    for (i, (w, g)) in want.shape.iter().zip(&got.shape).enumerate() {
        if w != g {
            return Err(format!(
                "tensor '{src}' size mismatch at index {i}. expected {w}, actual {g}"
            ));
        }
    }
    for (i, (w, g)) in want.strides.iter().zip(&got.strides).enumerate() {
        if w != g {
            return Err(format!(
                "tensor '{src}' stride mismatch at index {i}. expected {w}, actual {g}"
            ));
        }
    }
    Ok(())
}

/// PyTorch's Python name of a dtype (`torch.float32`).
pub fn dtype_py(d: DType) -> String {
    format!("torch.{}", d.name())
}

/// c10's name of a dtype, as in TENSOR_MATCH failure messages (`Float`, `Long`).
fn dtype_c10(d: DType) -> &'static str {
    match d {
        DType::Bool => "Bool",
        DType::UInt8 => "Byte",
        DType::Int8 => "Char",
        DType::Int16 => "Short",
        DType::Int32 => "Int",
        DType::Int64 => "Long",
        DType::Float16 => "Half",
        DType::BFloat16 => "BFloat16",
        DType::Float32 => "Float",
        DType::Float64 => "Double",
    }
}

/// A value's repr for guard text, without a VM at hand (ranges, slices and the like print as
/// their type name and address when it cannot be computed).
fn obj_repr(obj: &PyObjectRef) -> String {
    format!("<{} at {:#x}>", obj.class().name(), obj_id(obj))
}

fn obj_id(obj: &PyObjectRef) -> usize {
    obj.as_object() as *const PyObject as usize
}

/// One guard: a check on the value at a source.
#[derive(Clone, Debug)]
pub struct Guard {
    /// Where the value is read from.
    pub source: Rc<Source>,
    /// What is checked.
    pub check: Check,
}

/// Guards on frame-independent state (Dynamo's C++ `GlobalStateGuard`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlobalState {
    /// `torch.is_grad_enabled()` when the entry was traced.
    pub grad_enabled: bool,
    /// `torch.is_inference_mode_enabled()` when the entry was traced.
    pub inference_mode: bool,
    /// `torch.get_default_dtype()` when the entry was traced: factory calls and Python floats
    /// in the graph took their dtype from it.
    pub default_dtype: rynamo_tensor::DType,
}

impl GlobalState {
    /// The current global state.
    pub fn current() -> Self {
        Self {
            grad_enabled: bridge::grad_enabled(),
            inference_mode: bridge::inference_mode(),
            default_dtype: bridge::default_dtype(),
        }
    }

    /// What changed since `self`, in `GlobalStateGuard::reason`'s words.
    fn changed(&self, now: &GlobalState) -> String {
        let mut reason = String::from("GLOBAL_STATE changed: ");
        if self.grad_enabled != now.grad_enabled {
            reason.push_str("grad_mode ");
        }
        if self.inference_mode != now.inference_mode {
            reason.push_str("inference_mode ");
        }
        if self.default_dtype != now.default_dtype {
            reason.push_str("default_dtype ");
        }
        reason
    }
}

/// The guards collected while tracing one frame.
#[derive(Clone, Debug, Default)]
pub struct GuardSet {
    guards: Vec<Guard>,
    /// Pairs of sources that must be the same object (a tensor passed twice).
    aliases: Vec<(Rc<Source>, Rc<Source>)>,
    /// Sources of the distinct tensor inputs: they must stay distinct objects, since the graph
    /// treats them as independent (a later call passing one tensor twice must not reuse it).
    distinct: Vec<Rc<Source>>,
}

impl GuardSet {
    /// Adds a guard unless an identical one exists.
    pub fn add(&mut self, source: &Rc<Source>, check: Check) {
        let dup = self
            .guards
            .iter()
            .any(|g| g.source == *source && g.check.same_key(&check));
        if !dup {
            self.guards.push(Guard {
                source: source.clone(),
                check,
            });
        }
    }

    /// Requires two sources to hold the same object (Dynamo's duplicate-input guard).
    pub fn add_alias(&mut self, a: &Rc<Source>, b: &Rc<Source>) {
        self.aliases.push((a.clone(), b.clone()));
    }

    /// Requires the tensor at `source` to be a different object from every other such tensor
    /// (Dynamo's NO_TENSOR_ALIASING guard).
    pub fn add_distinct(&mut self, source: &Rc<Source>) {
        self.distinct.push(source.clone());
    }

    /// The guards, in the order they were added.
    pub fn guards(&self) -> &[Guard] {
        &self.guards
    }
}

/// How a guard-tree node reads its value from its parent (or the frame).
#[derive(Clone, Debug)]
enum Access {
    Local(u32),
    Deref(u32),
    Closure(u32),
    Global(rustpython_vm::builtins::PyStrRef),
    Attr(rustpython_vm::builtins::PyStrRef),
    Item(PyObjectRef),
    Const(PyObjectRef),
}

#[derive(Clone, Debug)]
struct Node {
    parent: Option<usize>,
    access: Access,
    source: Rc<Source>,
    checks: Vec<Check>,
}

/// A guard node's value during a check: borrowed from the frame, or read off a parent.
enum NodeValue<'a> {
    Frame(&'a PyObjectRef),
    Read(PyObjectRef),
}

impl NodeValue<'_> {
    fn obj(&self) -> &PyObject {
        match self {
            NodeValue::Frame(o) => o,
            NodeValue::Read(o) => o,
        }
    }
}

/// The guards of one cache entry, as an evaluable tree.
#[derive(Clone, Debug)]
pub struct GuardTree {
    nodes: Vec<Node>,
    aliases: Vec<(usize, usize)>,
    distinct: Vec<usize>,
    global: GlobalState,
}

impl GuardTree {
    /// Builds the tree: one node per distinct source (parents first), each with its checks.
    pub fn build(set: &GuardSet, global: GlobalState, vm: &VirtualMachine) -> Self {
        let mut tree = GuardTree {
            nodes: Vec::new(),
            aliases: Vec::new(),
            distinct: Vec::new(),
            global,
        };
        for g in &set.guards {
            let n = tree.node_for(&g.source, vm);
            tree.nodes[n].checks.push(g.check.clone());
        }
        for (a, b) in &set.aliases {
            let (na, nb) = (tree.node_for(a, vm), tree.node_for(b, vm));
            tree.aliases.push((na, nb));
        }
        if set.distinct.len() > 1 {
            for s in &set.distinct {
                let n = tree.node_for(s, vm);
                tree.distinct.push(n);
            }
        }
        tree
    }

    fn node_for(&mut self, source: &Rc<Source>, vm: &VirtualMachine) -> usize {
        if let Some(i) = self.nodes.iter().position(|n| n.source == *source) {
            return i;
        }
        let (parent, access) = match &**source {
            Source::Local { index, .. } => (None, Access::Local(*index)),
            Source::Deref { index, .. } => (None, Access::Deref(*index)),
            Source::Closure { index, .. } => (None, Access::Closure(*index)),
            Source::Global(name) => (None, Access::Global(vm.ctx.new_str(&**name))),
            Source::Attr(base, name) => (
                Some(self.node_for(base, vm)),
                Access::Attr(vm.ctx.new_str(&**name)),
            ),
            Source::Const(c) => (None, Access::Const(c.0.clone())),
            Source::Item(base, key) => (Some(self.node_for(base, vm)), Access::Item(key.to_py(vm))),
        };
        self.nodes.push(Node {
            parent,
            access,
            source: source.clone(),
            checks: Vec::new(),
        });
        self.nodes.len() - 1
    }

    /// Number of checks (for statistics and `explain`).
    pub fn len(&self) -> usize {
        self.nodes.iter().map(|n| n.checks.len()).sum::<usize>()
            + self.aliases.len()
            + usize::from(!self.distinct.is_empty())
            + 1
    }

    /// Whether there are no checks beyond the global state.
    pub fn is_empty(&self) -> bool {
        self.len() == 1
    }

    /// Checks every guard against a frame; the first failure is returned in PyTorch's wording.
    pub fn check(
        &self,
        frame: &super::source::FrameValues,
        vm: &VirtualMachine,
    ) -> Result<(), String> {
        let now = GlobalState::current();
        if now != self.global {
            return Err(self.global.changed(&now));
        }
        // On the stack for ordinary frames: this runs on every compiled call. Values read
        // straight from the frame are borrowed (no reference-count traffic); only attribute and
        // item reads make new references.
        let mut values: smallvec::SmallVec<[Option<NodeValue<'_>>; 16]> =
            smallvec::SmallVec::with_capacity(self.nodes.len());
        for node in &self.nodes {
            let parent = node
                .parent
                .and_then(|p| values[p].as_ref().map(NodeValue::obj));
            let value = match (&node.access, parent) {
                (Access::Local(i), _) => frame
                    .locals
                    .get(*i as usize)
                    .and_then(Option::as_ref)
                    .map(NodeValue::Frame),
                (Access::Deref(i), _) => frame
                    .cells
                    .get(*i as usize)
                    .and_then(Option::as_ref)
                    .map(NodeValue::Frame),
                (Access::Closure(i), _) => frame.closure.get(*i as usize).map(NodeValue::Frame),
                (Access::Global(name), _) => frame
                    .global(name.expect_str(), vm)
                    .ok()
                    .flatten()
                    .map(NodeValue::Read),
                (Access::Attr(name), Some(p)) => p.get_attr(name, vm).ok().map(NodeValue::Read),
                (Access::Item(k), Some(p)) => p.get_item(&**k, vm).ok().map(NodeValue::Read),
                (Access::Const(c), _) => Some(NodeValue::Frame(c)),
                (_, None) => None,
            };
            let src = &node.source;
            match value.as_ref().map(NodeValue::obj) {
                Some(v) => {
                    for c in &node.checks {
                        c.check(v, src, vm)?;
                    }
                }
                None if !node.checks.is_empty() => {
                    return Err(format!("{src} could not be read (it no longer exists)"));
                }
                None => {}
            }
            values.push(value);
        }
        for (a, b) in &self.aliases {
            let same = match (&values[*a], &values[*b]) {
                (Some(x), Some(y)) => x.obj().is(y.obj()),
                _ => false,
            };
            if !same {
                return Err(format!(
                    "{} is {}",
                    self.nodes[*a].source, self.nodes[*b].source
                ));
            }
        }
        if !self.distinct.is_empty() {
            let mut seen: smallvec::SmallVec<[(usize, usize); 8]> = self
                .distinct
                .iter()
                .filter_map(|n| {
                    values[*n]
                        .as_ref()
                        .map(|v| (v.obj() as *const PyObject as usize, *n))
                })
                .collect();
            seen.sort_unstable();
            if let Some(w) = seen.windows(2).find(|w| w[0].0 == w[1].0) {
                return Err(format!(
                    "Duplicate tensors found: {} is {}",
                    self.nodes[w[0].1].source, self.nodes[w[1].1].source
                ));
            }
        }
        Ok(())
    }

    /// The tree in Dynamo's `TORCH_LOGS=guards` layout.
    pub fn dump(&self) -> String {
        let mut out = String::from("GUARDS:\n\nTREE_GUARD_MANAGER:\n+- RootGuardManager\n");
        out.push_str("| +- DEFAULT_DEVICE: utils_device.CURRENT_DEVICE == None\n");
        let _ = writeln!(
            out,
            "| +- GLOBAL_STATE: ___check_global_state()  # grad_mode={}, default_dtype=torch.{}",
            self.global.grad_enabled,
            self.global.default_dtype.name()
        );
        for i in 0..self.nodes.len() {
            if self.nodes[i].parent.is_none() {
                self.dump_node(i, 1, &mut out);
            }
        }
        for (a, b) in &self.aliases {
            let _ = writeln!(
                out,
                "| +- DUPLICATE_INPUT: {} is {}",
                self.nodes[*a].source, self.nodes[*b].source
            );
        }
        if !self.distinct.is_empty() {
            let names: Vec<String> = self
                .distinct
                .iter()
                .map(|n| self.nodes[*n].source.to_string())
                .collect();
            let _ = writeln!(out, "| +- NO_TENSOR_ALIASING: {}", names.join(", "));
        }
        out
    }

    fn dump_node(&self, i: usize, depth: usize, out: &mut String) {
        let node = &self.nodes[i];
        let bar = "| ".repeat(depth);
        let accessor = match &node.access {
            Access::Local(idx) => format!(
                "FrameLocalsGuardAccessor(key='{}', framelocals_idx={idx})",
                match &*node.source {
                    Source::Local { name, .. } => name.to_string(),
                    _ => String::new(),
                }
            ),
            Access::Deref(idx) => format!("FrameLocalsGuardAccessor(cell_idx={idx})"),
            Access::Closure(idx) => format!("ClosureGuardAccessor(index={idx})"),
            Access::Global(name) => format!("GlobalsGuardAccessor('{}')", name.expect_str()),
            Access::Attr(name) => format!("GetAttrGuardAccessor({})", name.expect_str()),
            Access::Item(_) => "GetItemGuardAccessor".to_owned(),
            Access::Const(_) => "ConstantSource".to_owned(),
        };
        let _ = writeln!(
            out,
            "{bar}+- GuardManager: source={}, accessed_by={accessor}",
            node.source
        );
        let src = node.source.to_string();
        for c in &node.checks {
            let _ = writeln!(out, "{bar}| +- {}: {}", c.kind_name(), c.code(&src));
        }
        for (j, child) in self.nodes.iter().enumerate() {
            if child.parent == Some(i) {
                self.dump_node(j, depth + 1, out);
            }
        }
    }

    /// Each guard as `(source, kind, code)`, for `explain()`'s `out_guards`.
    pub fn describe(&self) -> Vec<(String, &'static str, String)> {
        let mut out = vec![(
            String::new(),
            "GRAD_MODE",
            format!(
                "___is_grad_enabled() == {}",
                if self.global.grad_enabled {
                    "True"
                } else {
                    "False"
                }
            ),
        )];
        for n in &self.nodes {
            let src = n.source.to_string();
            for c in &n.checks {
                out.push((src.clone(), c.kind_name(), c.code(&src)));
            }
        }
        out
    }
}
