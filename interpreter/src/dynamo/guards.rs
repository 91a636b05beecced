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

use rustpython_vm::{AsObject, PyObject, PyObjectRef, VirtualMachine};

use super::bridge;
pub use super::guard_check::{Check, ConstValue, dtype_py};
use super::source::{Source, interned};

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
    /// The CPU autocast dtype when autocast was on as the entry was traced (`None`: off): the
    /// graph holds the casts it implied (`autocast.rs`).
    pub autocast: Option<rynamo_tensor::DType>,
}

impl GlobalState {
    /// The current global state.
    pub fn current() -> Self {
        Self {
            grad_enabled: bridge::grad_enabled(),
            inference_mode: bridge::inference_mode(),
            default_dtype: bridge::default_dtype(),
            autocast: {
                let s = rynamo_shims::autocast::state();
                s.enabled.then_some(s.dtype)
            },
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
        // PyTorch names the flag or the dtype of the device's autocast state that changed.
        match (self.autocast, now.autocast) {
            (Some(a), Some(b)) if a != b => reason.push_str("autocast(cpu)_dtype "),
            (a, b) if a.is_some() != b.is_some() => reason.push_str("autocast(cpu)_enabled "),
            _ => {}
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
    /// Dynamic dimensions that share a symbol: `a.size()[i] == b.size()[j]`.
    dim_eqs: Vec<(Rc<Source>, usize, Rc<Source>, usize)>,
    /// Relations between dynamic sizes that the trace's branches assumed (`sym_guard.rs`).
    sym_guards: Vec<super::sym_guard::SymGuard>,
    /// The graph inputs' sources and the check of the computed sizes the trace assumed.
    shape_check: Option<(Vec<Rc<Source>>, Rc<super::shape_check::ShapeCheck>)>,
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

    /// Requires dimension `i` of the tensor at `a` to equal dimension `j` of the one at `b` (a
    /// shape-environment equality: the two share a symbol).
    pub fn add_dim_eq(&mut self, a: &Rc<Source>, i: usize, b: &Rc<Source>, j: usize) {
        self.dim_eqs.push((a.clone(), i, b.clone(), j));
    }

    /// Requires a relation between dynamic sizes (a shape-environment guard).
    pub fn add_sym_guard(&mut self, g: super::sym_guard::SymGuard) {
        if !self.sym_guards.iter().any(|h| h.code() == g.code()) {
            self.sym_guards.push(g);
        }
    }

    /// Requires the computed sizes the trace used as constants to hold for the graph inputs read
    /// from `inputs` (by graph input position).
    pub fn set_shape_check(&mut self, inputs: Vec<Rc<Source>>, c: super::shape_check::ShapeCheck) {
        self.shape_check = Some((inputs, Rc::new(c)));
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

    /// Leaves dimensions `mask` of the tensor at `source` unchecked by its TENSOR_MATCH (they
    /// are dynamic; range guards bound them).
    pub fn set_dynamic_dims(&mut self, source: &Rc<Source>, mask: u64) {
        for g in &mut self.guards {
            if g.source == *source
                && let Check::Tensor { dynamic, .. } = &mut g.check
            {
                *dynamic = mask;
            }
        }
    }
}

/// How a guard-tree node reads its value from its parent (or the frame).
#[derive(Clone, Debug)]
enum Access {
    Local(u32),
    Deref(u32),
    Closure(u32),
    Global(rustpython_vm::builtins::PyStrRef),
    Attr(
        rustpython_vm::builtins::PyStrRef,
        super::guard_attr::AttrShortcut,
    ),
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
    dim_eqs: Vec<(usize, usize, usize, usize)>,
    /// Each size relation with the tree node of each of its leaves.
    sym_guards: Vec<(Vec<usize>, super::sym_guard::SymGuard)>,
    /// The tree node of each graph input, and the check of the trace's assumed sizes.
    shape_check: Option<(Vec<usize>, Rc<super::shape_check::ShapeCheck>)>,
    distinct: Vec<usize>,
    global: GlobalState,
    /// For each graph input of a whole-frame entry, the node that reads the same source, if the
    /// guards read it (they read every tensor input for its TENSOR_MATCH): [`GuardTree::check`]
    /// hands those values to the plan, which then does not walk the module tree a second time.
    inputs: Vec<Option<usize>>,
}

impl GuardTree {
    /// Builds the tree: one node per distinct source (parents first), each with its checks.
    pub fn build(set: &GuardSet, global: GlobalState, vm: &VirtualMachine) -> Self {
        let mut tree = GuardTree {
            nodes: Vec::new(),
            aliases: Vec::new(),
            dim_eqs: Vec::new(),
            sym_guards: Vec::new(),
            shape_check: None,
            distinct: Vec::new(),
            global,
            inputs: Vec::new(),
        };
        for g in &set.guards {
            let n = tree.node_for(&g.source, vm);
            tree.nodes[n].checks.push(g.check.clone());
        }
        for (a, b) in &set.aliases {
            let (na, nb) = (tree.node_for(a, vm), tree.node_for(b, vm));
            tree.aliases.push((na, nb));
        }
        for (a, i, b, j) in &set.dim_eqs {
            let (na, nb) = (tree.node_for(a, vm), tree.node_for(b, vm));
            tree.dim_eqs.push((na, *i, nb, *j));
        }
        for g in &set.sym_guards {
            let nodes = g.leaves.iter().map(|(s, _)| tree.node_for(s, vm)).collect();
            tree.sym_guards.push((nodes, g.clone()));
        }
        if let Some((sources, c)) = &set.shape_check {
            let nodes = sources.iter().map(|s| tree.node_for(s, vm)).collect();
            tree.shape_check = Some((nodes, c.clone()));
        }
        if set.distinct.len() > 1 {
            for s in &set.distinct {
                let n = tree.node_for(s, vm);
                tree.distinct.push(n);
            }
        }
        tree
    }

    /// Makes [`GuardTree::check`] return the values of `sources` (a whole-frame entry's graph
    /// inputs) that the guards read anyway; the others the plan reads itself.
    pub fn read_inputs(&mut self, sources: &[Rc<Source>]) {
        self.inputs = sources
            .iter()
            .map(|s| self.nodes.iter().position(|n| n.source == *s))
            .collect();
    }

    fn node_for(&mut self, source: &Rc<Source>, vm: &VirtualMachine) -> usize {
        if let Some(i) = self.nodes.iter().position(|n| n.source == *source) {
            return i;
        }
        let (parent, access) = match &**source {
            Source::Local { index, .. } => (None, Access::Local(*index)),
            Source::Deref { index, .. } => (None, Access::Deref(*index)),
            Source::Closure { index, .. } => (None, Access::Closure(*index)),
            Source::Global(name) => (None, Access::Global(interned(name, vm))),
            Source::Attr(base, name) => (
                Some(self.node_for(base, vm)),
                Access::Attr(interned(name, vm), Default::default()),
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
            + self.dim_eqs.len()
            + self.sym_guards.len()
            + usize::from(self.shape_check.is_some())
            + usize::from(!self.distinct.is_empty())
            + 1
    }

    /// Whether there are no checks beyond the global state.
    pub fn is_empty(&self) -> bool {
        self.len() == 1
    }

    /// Checks every guard against a frame; the first failure is returned in PyTorch's wording.
    /// On success, the values of the inputs named by [`GuardTree::read_inputs`] (in its order;
    /// `None` where the guards do not read that source).
    pub fn check(
        &self,
        frame: &super::source::FrameValues,
        vm: &VirtualMachine,
    ) -> Result<Vec<Option<PyObjectRef>>, String> {
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
                (Access::Attr(name, shortcut), Some(p)) => {
                    shortcut.read(p, name, vm).map(NodeValue::Read)
                }
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
        for &(a, i, b, j) in &self.dim_eqs {
            let size = |n: usize, d: usize| {
                values[n]
                    .as_ref()
                    .and_then(|v| bridge::tensor_meta(v.obj()))
                    .and_then(|(m, _)| m.shape.get(d).copied())
            };
            let (x, y) = (size(a, i), size(b, j));
            if x.is_none() || x != y {
                return Err(self.dim_eq_code(a, i, b, j));
            }
        }
        for (nodes, g) in &self.sym_guards {
            let size = |k: usize| {
                let obj = values[nodes[k]].as_ref()?.obj();
                super::sym_guard::leaf_value(obj, g.leaves[k].1, vm)
            };
            if !g.holds(&size) {
                return Err(g.code());
            }
        }
        if let Some((nodes, c)) = &self.shape_check {
            let objs: smallvec::SmallVec<[Option<&PyObject>; 16]> = nodes
                .iter()
                .map(|n| values[*n].as_ref().map(NodeValue::obj))
                .collect();
            c.holds(&objs, vm)?;
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
        Ok(self
            .inputs
            .iter()
            .map(|n| n.and_then(|n| values[n].as_ref().map(|v| v.obj().to_owned())))
            .collect())
    }

    fn dim_eq_code(&self, a: usize, i: usize, b: usize, j: usize) -> String {
        format!(
            "{}.size()[{i}] == {}.size()[{j}]",
            self.nodes[a].source, self.nodes[b].source
        )
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
        for &(a, i, b, j) in &self.dim_eqs {
            let _ = writeln!(out, "+- LAMBDA_GUARD: {}", self.dim_eq_code(a, i, b, j));
        }
        for (_, g) in &self.sym_guards {
            let _ = writeln!(out, "+- LAMBDA_GUARD: {}", g.code());
        }
        for code in self.shape_check.iter().flat_map(|(_, c)| c.codes()) {
            let _ = writeln!(
                out,
                "+- LAMBDA_GUARD: {code}  # a computed size used as a constant"
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
            Access::Attr(name, _) => format!("GetAttrGuardAccessor({})", name.expect_str()),
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
        for &(a, i, b, j) in &self.dim_eqs {
            out.push((String::new(), "SHAPE_ENV", self.dim_eq_code(a, i, b, j)));
        }
        for (_, g) in &self.sym_guards {
            out.push((String::new(), "SHAPE_ENV", g.code()));
        }
        for code in self.shape_check.iter().flat_map(|(_, c)| c.codes()) {
            out.push((String::new(), "SHAPE_ENV", code));
        }
        out
    }
}
