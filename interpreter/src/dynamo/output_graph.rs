//! The graph being captured for one frame, with everything needed to run it later: its inputs
//! (each with the source to read it from), its guards, the Python side effects to replay, and
//! the FX view of each node (what a user backend sees).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use rustpython_vm::{AsObject, PyObject, PyObjectRef};
use rynamo_graph::{Arg, GraphBuilder, Op, Value, ValueId};
use rynamo_tensor::TensorMeta;

use super::exc::{GraphBreak, GraphBreakKind};
use super::guards::{Check, GuardSet};
use super::side_effects::SideEffects;
use super::source::{FrameValues, Source};
use super::variables::{Kind, SharedLayout, SymbolicCell, TensorVar, Vt};

/// A graph input: a tensor read from the frame on every call.
#[derive(Clone, Debug)]
pub struct GraphInput {
    /// The graph value.
    pub value: ValueId,
    /// Where to read it.
    pub source: Rc<Source>,
    /// The object seen while tracing (the backend's example input).
    pub example: PyObjectRef,
    /// The layout every tracker of the object shares (`TensorVar::layout`).
    pub layout: SharedLayout,
}

/// How an FX-shaped view presents a node.
#[derive(Clone, Debug)]
pub enum FxTarget {
    /// `call_function`, with the Python callable (`torch.add`).
    Function(PyObjectRef),
    /// `call_method`, with the method name (`add`).
    Method(Rc<str>),
    /// An `allow_in_graph` function, called with these arguments (tensors by input position).
    Host {
        /// The function.
        func: PyObjectRef,
        /// Its arguments.
        args: Vec<super::host_call::HostArg>,
        /// Its keyword arguments.
        kwargs: Vec<(String, super::host_call::HostArg)>,
    },
}

/// A node as the FX view shows it: its target and the user line that made it.
#[derive(Clone, Debug)]
pub struct FxInfo {
    /// `call_function` or `call_method`.
    pub target: FxTarget,
    /// `file:line` of the user code that created it.
    pub stack: Option<(String, u32, String)>,
}

/// The graph under construction for one frame (and the frames inlined into it).
pub struct OutputGraph {
    /// The graph.
    pub graph: GraphBuilder,
    /// Its inputs, in order.
    pub inputs: Vec<GraphInput>,
    /// Python object address → position in `inputs` (a tensor passed twice is one input).
    input_by_obj: HashMap<usize, usize>,
    /// Guards collected so far.
    pub guards: GuardSet,
    /// Python side effects to replay after the graph runs.
    pub side_effects: SideEffects,
    /// FX view of each node, parallel to the graph's nodes.
    pub fx: Vec<FxInfo>,
    /// The frame's values (what sources read while tracing).
    pub frame: FrameValues,
    /// The user stack at the instruction being traced (outermost first): `(file, line, function)`.
    pub user_stack: Vec<(String, u32, String)>,
    /// Globals of the compiled frame's module stored (`Some`) or deleted (`None`) during the
    /// trace: later loads see them.
    pub global_overlay: HashMap<String, Option<Vt>>,
    /// In-place updates: a tensor whose value was `k` now reads `v` (followed transitively), so
    /// every alias of a mutated tensor sees the mutation.
    pub inplace_updates: HashMap<ValueId, ValueId>,
    /// The values of 0-d integer tensors built from literals (`torch.tensor(1)`): PyTorch's
    /// FakeTensor keeps such a tensor's `constant`, so indexing with it selects by that value at
    /// trace time. Keyed by graph value: an in-place update makes a new value, without one.
    pub int_constants: HashMap<ValueId, i64>,
    /// Tensor calls traced as their receiver (no node): see `op_count`.
    pub identity_calls: usize,
    /// Nodes that only re-lay out a graph input (the functional view of an in-place view
    /// method, `x.unsqueeze_(0)`, replayed on the caller's object after the graph): Dynamo
    /// applies such a metadata mutation outside the graph, so a graph of nothing else is not
    /// compiled (`inplace.rs`).
    pub input_relayouts: usize,
    /// The tensors (by their first value) an in-place view method re-laid out: their sizes are
    /// their current value's, not their first value's (`sym_trace.rs`).
    pub relayouted: std::collections::HashSet<ValueId>,
    /// Lists and dicts read from the frame, by object address (the object is kept alive): the
    /// same object reached twice (`G['xs']` loaded twice, or through two names) is one tracker,
    /// so a mutation through one read is seen by the next and replayed once.
    pub containers: HashMap<usize, (PyObjectRef, Vt)>,
    /// Objects of user classes made during the trace: placeholder address -> (placeholder,
    /// class). Their attributes live in the side-effect overlay (`variables/user_defined.rs`).
    pub new_objects: HashMap<usize, NewObject>,
    /// `torch.nn` modules built for real at trace time (`nn_module_new.rs`), by address (kept
    /// alive); a module that leaves the trace is built anew by calling its class again.
    pub built_modules: HashMap<usize, super::nn_module_new::BuiltModule>,
    /// The trace's copies of built modules' dicts, by (module address, attribute).
    pub built_module_dicts: HashMap<(usize, String), Rc<RefCell<super::variables::DictVar>>>,
    /// The grad mode the traced code sees at this point (grad-mode managers switch it).
    pub grad_enabled: bool,
    /// Names of the values computed while grad mode was off (`no_grad` blocks): a graph run that
    /// records autograd history runs their nodes without recording.
    pub no_grad_values: std::collections::HashSet<String>,
    /// The grad mode when the trace started.
    pub grad_enabled_at_start: bool,
    /// Whether inference mode is on at this point (`inference_mode` blocks switch it).
    pub inference_mode: bool,
    /// Whether a graph break at this point raises `Unsupported`: `config.error_on_graph_break`
    /// when the trace starts, switched by traced `error_on_graph_break(...)` blocks.
    pub error_on_graph_break: bool,
    /// `config.error_on_graph_break` when the trace started: a graph that ends with another
    /// setting (a break inside an `error_on_graph_break(...)` block, or a resume function that
    /// leaves one) sets the config after it runs, so the rest of the block, run or traced after
    /// the graph, sees the block's setting and the code after it the restored one.
    pub error_on_graph_break_at_start: bool,
    /// The CPU autocast state the trace left, when it differs from the state at its start (a
    /// break inside an autocast region, or a resume function that leaves one): the compiled code
    /// sets it after the graph runs (`autocast.rs`).
    pub autocast_after: Option<rynamo_shims::autocast::State>,
    /// Real closure cells read during the trace, by object address (the cell is kept alive): every
    /// inlined closure over the same cell shares one symbolic cell, so a `nonlocal` store through
    /// one is seen by the others' later reads.
    pub cells: HashMap<usize, (PyObjectRef, SymbolicCell)>,
    /// Dynamic dimensions of the inputs and what the trace specialised (`shape_env.rs`).
    pub shape_env: super::shape_env::ShapeEnv,
    /// The compile id, for log lines written while tracing.
    pub compile_id: Option<(u32, u32)>,
    /// Every SymInt tracker made, by id (`sym_trace.rs`).
    pub syms: std::cell::RefCell<Vec<Rc<super::sym::SymVar>>>,
    /// The graph's symbolic int arguments.
    pub sym_args: Vec<super::sym::SymArg>,
    /// Computed sizes the trace used as constants (checked by each instance).
    pub size_assumptions: Vec<super::sym::Assumption>,
    /// SymInt comparisons the trace branched on: `(lhs, operator, rhs, result)`.
    pub sym_rels: Vec<(super::sym::SymExpr, usize, super::sym::SymExpr, bool)>,
}

impl OutputGraph {
    /// An empty graph for a frame.
    pub fn new(frame: FrameValues) -> Self {
        Self {
            graph: GraphBuilder::new(),
            inputs: Vec::new(),
            input_by_obj: HashMap::new(),
            guards: GuardSet::default(),
            side_effects: SideEffects::default(),
            fx: Vec::new(),
            frame,
            user_stack: Vec::new(),
            global_overlay: HashMap::new(),
            inplace_updates: HashMap::new(),
            int_constants: HashMap::new(),
            identity_calls: 0,
            input_relayouts: 0,
            relayouted: std::collections::HashSet::new(),
            containers: HashMap::new(),
            new_objects: HashMap::new(),
            built_modules: HashMap::new(),
            built_module_dicts: HashMap::new(),
            grad_enabled: super::bridge::grad_enabled(),
            no_grad_values: std::collections::HashSet::new(),
            grad_enabled_at_start: super::bridge::grad_enabled(),
            inference_mode: super::bridge::inference_mode(),
            error_on_graph_break: super::config::error_on_graph_break(),
            error_on_graph_break_at_start: super::config::error_on_graph_break(),
            autocast_after: None,
            cells: HashMap::new(),
            shape_env: super::shape_env::ShapeEnv::default(),
            compile_id: None,
            syms: Default::default(),
            sym_args: Vec::new(),
            sym_rels: Vec::new(),
            size_assumptions: Vec::new(),
        }
    }

    /// The graph input for a tensor object read from `source` (reusing the input when the same
    /// object was seen under another source, with an aliasing guard).
    pub fn tensor_input(
        &mut self,
        obj: &PyObject,
        meta: TensorMeta,
        requires_grad: bool,
        source: &Rc<Source>,
        marks: &super::shape_env::Marks,
    ) -> Vt {
        let key = obj as *const PyObject as usize;
        self.guards.add(
            source,
            Check::Tensor {
                meta: meta.clone(),
                requires_grad,
                dynamic: 0,
            },
        );
        let (value, layout) = match self.input_by_obj.get(&key) {
            Some(&i) => {
                let first = self.inputs[i].source.clone();
                if first != *source {
                    self.guards.add_alias(&first, source);
                }
                (self.inputs[i].value, self.inputs[i].layout.clone())
            }
            None => {
                let v = self.graph.input(&source.identifier(), meta.clone());
                self.shape_env
                    .add_input(v, source, &meta, marks, self.compile_id);
                self.guards.add_distinct(source);
                self.input_by_obj.insert(key, self.inputs.len());
                let layout: SharedLayout = Rc::new(RefCell::new(Rc::new(meta)));
                self.inputs.push(GraphInput {
                    value: v,
                    source: source.clone(),
                    example: obj.to_owned(),
                    layout: layout.clone(),
                });
                (v, layout)
            }
        };
        Vt::with_source(
            Kind::Tensor(TensorVar::sharing(value, layout, requires_grad)),
            source.clone(),
        )
    }

    /// A Python int read from `source` that the shape environment makes dynamic (automatic
    /// dynamic): a 0-d int64 graph input whose value the SymInt tracker returned stands for
    /// (`sym::VALUE`); `None` when it stays a constant. Its guard is the int's type here, and
    /// its value at the end when the trace specialised it (`final_guards`). Small ints are
    /// shared objects, so two sources of one value stay two inputs.
    pub fn int_input(
        &mut self,
        obj: &PyObject,
        value: i64,
        source: &Rc<Source>,
        vm: &rustpython_vm::VirtualMachine,
    ) -> Option<Vt> {
        if !self.shape_env.int_is_dynamic(source, value) {
            return None;
        }
        let meta = TensorMeta::contiguous(rynamo_tensor::DType::Int64, &[]);
        let layout: SharedLayout = Rc::new(RefCell::new(Rc::new(meta.clone())));
        let v = self.graph.input(&source.identifier(), meta);
        self.shape_env
            .add_int_input(v, source, value, self.compile_id);
        self.guards.add(
            source,
            Check::TypeMatch {
                ty: vm.ctx.types.int_type.to_owned().into(),
            },
        );
        let pos = self.inputs.len();
        self.inputs.push(GraphInput {
            value: v,
            source: source.clone(),
            example: obj.to_owned(),
            layout,
        });
        let expr = super::sym::SymExpr::Dim(pos, super::sym::VALUE);
        let tracker = self.sym_int(expr, value, vm);
        Some(Vt::with_source(tracker.kind, source.clone()))
    }

    /// The traced value of the dynamic int input at position `pos`.
    pub fn int_hint(&self, pos: usize) -> Option<i64> {
        let s = self.shape_env.int_symbol(self.inputs.get(pos)?.value)?;
        Some(self.shape_env.symbols[s].hint)
    }

    /// A graph input that is a constant baked in at trace time (no guard: it cannot change).
    pub fn constant_input(
        &mut self,
        obj: &PyObject,
        meta: TensorMeta,
        source: &Rc<Source>,
    ) -> ValueId {
        let layout: SharedLayout = Rc::new(RefCell::new(Rc::new(meta.clone())));
        let v = self.graph.input("const", meta);
        self.input_by_obj
            .insert(obj as *const PyObject as usize, self.inputs.len());
        self.inputs.push(GraphInput {
            value: v,
            source: source.clone(),
            example: obj.to_owned(),
            layout,
        });
        v
    }

    /// Appends `op(args)` (bound, in schema order) and returns its outputs as trackers.
    pub fn call_op(
        &mut self,
        op: Op,
        mut args: Vec<Arg>,
        target: FxTarget,
        requires_grad: bool,
    ) -> Result<Vec<Vt>, GraphBreak> {
        let found = self.resolve_sym_args(&mut args);
        let outs = self.graph.call(op, args).map_err(|e| {
            GraphBreak::new(GraphBreakKind::OpError, format!("{}: {e}", op.py_name()))
        })?;
        // A host call's output shapes are fixed when it is made, and an op returning a list
        // (`split`, `unbind`, `chunk`) has as many outputs as the sizes say: the node holds for
        // these input sizes only, unless other sizes keep every count (`sym_trace.rs`).
        let ids: Vec<usize> = found.iter().map(|f| f.2).collect();
        let first = outs
            .first()
            .map(|o| self.graph.graph().value(*o).name.clone());
        self.record_sym_args(first, found);
        if self.shape_env.has_live_symbols() {
            if op == rynamo_graph::Op::HostCall {
                self.pin_last_node(&ids);
            } else if matches!(op.schema().returns, rynamo_graph::Returns::List) {
                self.pin_list_counts(&ids);
            }
        }
        self.fx.push(FxInfo {
            target,
            stack: self.user_stack.last().cloned(),
        });
        if !self.grad_enabled {
            for &v in &outs {
                self.no_grad_values
                    .insert(self.graph.graph().value(v).name.clone());
            }
        }
        Ok(outs
            .into_iter()
            .map(|v| {
                Vt::new(Kind::Tensor(TensorVar::new(
                    v,
                    Rc::new(self.graph.meta(v).clone()),
                    requires_grad,
                )))
            })
            .collect())
    }

    /// Converts a tracker into a graph argument value, when it is one (tensors, numbers, lists of
    /// ints, dtypes, None, index expressions are handled by the caller).
    pub fn arg_of(&self, vt: &Vt, vm: &rustpython_vm::VirtualMachine) -> Option<Arg> {
        match &vt.kind {
            Kind::Tensor(t) => Some(Value::Tensor(t.value)),
            Kind::Const(c) => const_arg(c, vm),
            Kind::SymInt(s) => Some(self.sym_arg(s)),
            Kind::SymFloat(s) => Some(Value::Float(super::sym::float_sentinel(s.id))),
            Kind::Tuple(items) | Kind::NamedTuple(_, items) => seq_arg(items, self, vm),
            Kind::List(l) => seq_arg(&l.borrow().items, self, vm),
            _ => None,
        }
    }

    /// The trace depends on the sizes of `value` (dimension `dim` of it, or all): the dynamic
    /// dimensions they come from become static for this entry (`shape_env.rs`).
    pub fn specialise(&mut self, value: ValueId, dim: Option<usize>) {
        if !self.shape_env.has_live_symbols() {
            return;
        }
        let at = self.user_stack.last().cloned();
        self.shape_env
            .specialise(value, dim, self.graph.graph(), at);
    }

    /// The guards of the finished trace: TENSOR_MATCH leaves the dimensions still dynamic
    /// unchecked, and each gets a range guard.
    pub fn final_guards(&self, graph: &rynamo_graph::Graph) -> GuardSet {
        let mut set = self.guards.clone();
        if let Some(c) =
            super::shape_check::ShapeCheck::new(graph, &self.sym_args, &self.size_assumptions)
        {
            set.set_shape_check(self.inputs.iter().map(|i| i.source.clone()).collect(), c);
        }
        let env = &self.shape_env;
        // Where each symbol first occurs: later occurrences must equal it.
        let mut first: HashMap<usize, (Rc<Source>, usize)> = HashMap::new();
        for input in &self.inputs {
            let Some(dims) = env.dims_of(input.value) else {
                continue;
            };
            let mut mask = 0u64;
            for (d, s) in dims.iter().enumerate() {
                if let Some(s) = s {
                    mask |= 1 << d;
                    if let Some((src, dim)) = first.get(s) {
                        set.add_dim_eq(&input.source, d, src, *dim);
                        continue;
                    }
                    first.insert(*s, (input.source.clone(), d));
                    let sym = &env.symbols[*s];
                    set.add(
                        &input.source,
                        Check::DimRange {
                            dim: d,
                            min: sym.min as usize,
                            max: sym.max.map(|m| m as usize),
                        },
                    );
                }
            }
            set.set_dynamic_dims(&input.source, mask);
        }
        // A dynamic int the trace used as a constant after all is guarded by its value.
        for input in &self.inputs {
            if let Some(s) = env.int_symbol(input.value)
                && env.symbols[s].specialised
            {
                set.add(
                    &input.source,
                    Check::Equals(super::guards::ConstValue::Int(env.symbols[s].hint)),
                );
            }
        }
        let source_of = |pos: usize| self.inputs.get(pos).map(|i| i.source.clone());
        for (lhs, op, rhs, holds) in &self.sym_rels {
            if let Some(g) = super::sym_guard::SymGuard::new(lhs, *op, rhs, *holds, &source_of) {
                set.add_sym_guard(g);
            }
        }
        set
    }

    /// Number of calls the trace recorded (Dynamo's `count_calls`): the graph's ops plus the
    /// calls that return their receiver and so need no node here (`x.to(x.device)`,
    /// `contiguous()` of a contiguous tensor), which PyTorch's graph holds as nodes. A frame
    /// with any call compiles a graph, as in Dynamo.
    pub fn op_count(&self) -> usize {
        self.graph.graph().nodes().len() + self.identity_calls
    }

    /// Whether the backend gets `graph` (Dynamo's `count_calls(graph) > 0`): it has a traced
    /// call besides the re-layouts of inputs, or one of those computes an output.
    pub fn has_calls(&self, graph: &rynamo_graph::Graph) -> bool {
        self.op_count() > self.input_relayouts
            || (self.op_count() > 0
                && graph
                    .outputs()
                    .iter()
                    .any(|v| !self.inputs.iter().any(|i| i.value == *v)))
    }
}

/// A Python constant as an op argument.
pub fn const_arg(c: &PyObject, vm: &rustpython_vm::VirtualMachine) -> Option<Arg> {
    use rustpython_vm::builtins::{PyFloat, PyInt, PyStr};
    if vm.is_none(c) {
        return Some(Value::None);
    }
    if c.class().is(vm.ctx.types.bool_type) {
        return Some(Value::Bool(c.is(&vm.ctx.true_value)));
    }
    if let Some(i) = c.downcast_ref::<PyInt>() {
        return i.try_to_primitive::<i64>(vm).ok().map(Value::Int);
    }
    if let Some(f) = c.downcast_ref::<PyFloat>() {
        return Some(Value::Float(f.to_f64()));
    }
    if let Some(s) = c.downcast_ref::<PyStr>() {
        return s.to_str().map(|s| Value::Str(s.to_owned()));
    }
    if let Some(d) = super::bridge::dtype_of(c) {
        return Some(Value::DType(d));
    }
    if let Some(t) = c.downcast_ref::<rustpython_vm::builtins::PyTuple>() {
        let items: Option<Vec<i64>> = t
            .as_slice()
            .iter()
            .map(|x| {
                x.downcast_ref::<PyInt>()
                    .and_then(|i| i.try_to_primitive::<i64>(vm).ok())
            })
            .collect();
        return items.map(Value::IntList);
    }
    None
}

fn seq_arg(items: &[Vt], out: &OutputGraph, vm: &rustpython_vm::VirtualMachine) -> Option<Arg> {
    // Only ints and tensors make a list argument: nested sequences never do, so they are not
    // converted (a list that holds itself would never finish).
    let args: Option<Vec<Arg>> = items
        .iter()
        .map(|v| match &v.kind {
            Kind::Tensor(_) | Kind::Const(_) | Kind::SymInt(_) => out.arg_of(v, vm),
            _ => None,
        })
        .collect();
    let args = args?;
    if args.iter().all(|a| matches!(a, Value::Int(_))) {
        return Some(Value::IntList(
            args.iter()
                .map(|a| match a {
                    Value::Int(i) => *i,
                    _ => unreachable!("invariant: checked above"),
                })
                .collect(),
        ));
    }
    if args.iter().all(|a| matches!(a, Value::Tensor(_))) {
        return Some(Value::TensorList(
            args.iter()
                .map(|a| match a {
                    Value::Tensor(t) => *t,
                    _ => unreachable!("invariant: checked above"),
                })
                .collect(),
        ));
    }
    None
}

/// An object of a user class made during the trace (`variables/user_defined.rs`).
#[derive(Clone, Debug)]
pub struct NewObject {
    /// The placeholder `object.__new__(cls)` the trace works on (never seen by user code).
    pub placeholder: PyObjectRef,
    /// Its class.
    pub cls: PyObjectRef,
    /// Where the class was read from, so class attributes read through the object are guarded.
    pub cls_source: Option<Rc<Source>>,
}
