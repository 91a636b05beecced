//! What Dynamo did, for users' diagnostics: every compiled graph (with its FX view and guards),
//! every graph break (with its user stack), compile times, and how many graphs and in-graph ops
//! ran (`explain`, `CompileCounter`, `compile_times`, the capture-coverage table).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Duration;

use rustpython_vm::PyObjectRef;
use rustpython_vm::builtins::PyCode;
use rynamo_graph::Graph;

use super::exc::GraphBreak;
use super::guards::GuardTree;
use super::output_graph::{FxInfo, OutputGraph};
use super::source::Source;

/// A graph together with what its FX view needs.
#[derive(Clone)]
pub struct FxView {
    /// The graph.
    pub graph: Rc<Graph>,
    /// Per-node FX targets, parallel to `graph`'s nodes (`None`: no traced node matches).
    pub fx: Vec<Option<FxInfo>>,
    /// Graph inputs: source and the example object.
    pub inputs: Vec<(Rc<Source>, PyObjectRef)>,
    /// The traced function's name.
    pub fn_name: String,
    /// Per node, the grad mode it was traced under (`no_grad` blocks inside the region); the FX
    /// code switches the mode around those nodes, as PyTorch's graphs call `_set_grad_enabled`.
    pub grad_enabled: Vec<bool>,
    /// The grad mode at the region's start (the FX code restores it at the end).
    pub grad_enabled_at_start: bool,
    /// Symbolic size arguments: the FX code computes them from its inputs' sizes.
    pub sym_args: Vec<super::sym::SymArg>,
    /// Computed sizes the trace used as constants: the FX code checks them.
    pub size_assumptions: Vec<super::sym::Assumption>,
    /// `(input position, symbol)` of each live dynamic int input (`Sym(s0)` placeholders).
    pub int_symbols: Vec<(usize, usize)>,
    /// `(input position, symbol of each dimension)` of the inputs with dynamic dimensions
    /// (`f32[s0, 4]` placeholders).
    pub dim_symbols: Vec<(usize, Vec<Option<usize>>)>,
    /// What reads the computed values' sizes as expressions of the dynamic ones, when some
    /// dimension is dynamic (`fx_sym_shapes.rs`; run when the view is built).
    pub shape_probe: Option<Rc<super::fx_sym_shapes::ShapeProbe>>,
}

impl FxView {
    /// The view of a finished trace.
    pub fn of(graph: Rc<Graph>, out: &OutputGraph, fn_name: String) -> Self {
        // Passes (dead-code elimination) drop nodes, so positions no longer line up with the
        // traced graph's: match nodes by their first output's name, which passes keep.
        let traced = out.graph.graph();
        let by_name: HashMap<&str, usize> = traced
            .nodes()
            .iter()
            .enumerate()
            .filter_map(|(i, n)| {
                n.outputs
                    .first()
                    .map(|o| (traced.value(*o).name.as_str(), i))
            })
            .collect();
        let fx = graph
            .nodes()
            .iter()
            .map(|n| {
                let o = n.outputs.first()?;
                let i = by_name.get(graph.value(*o).name.as_str())?;
                out.fx.get(*i).cloned()
            })
            .collect();
        let grad_enabled = graph
            .nodes()
            .iter()
            .map(|n| {
                !n.outputs
                    .iter()
                    .any(|o| out.no_grad_values.contains(&graph.value(*o).name))
            })
            .collect();
        Self {
            shape_probe: super::fx_sym_shapes::ShapeProbe::of(out).map(Rc::new),
            grad_enabled,
            grad_enabled_at_start: out.grad_enabled_at_start,
            graph,
            fx,
            inputs: out
                .inputs
                .iter()
                .map(|i| (i.source.clone(), i.example.clone()))
                .collect(),
            fn_name,
            sym_args: out.sym_args.clone(),
            size_assumptions: out.size_assumptions.clone(),
            int_symbols: out
                .inputs
                .iter()
                .enumerate()
                .filter_map(|(p, i)| {
                    Some((p, out.shape_env.symbol_at(i.value, super::sym::VALUE)?))
                })
                .collect(),
            dim_symbols: out
                .inputs
                .iter()
                .enumerate()
                .filter_map(|(p, i)| Some((p, out.shape_env.dims_of(i.value)?.to_vec())))
                .collect(),
        }
    }
}

/// One compiled graph.
#[derive(Clone)]
pub struct GraphRecord {
    /// `(frame id, compile id)`.
    pub compile_id: (u32, u32),
    /// Its FX view.
    pub view: FxView,
    /// Its guards as `(source, kind, code)`.
    pub guards: Vec<(String, &'static str, String)>,
    /// Seconds spent compiling it (tracing, passes and the backend).
    pub seconds: f64,
}

/// One graph break.
#[derive(Clone)]
pub struct BreakRecord {
    /// The reason, in Dynamo's layout.
    pub reason: String,
    /// The user stack at the break, outermost first.
    pub user_stack: Vec<(String, u32, String)>,
    /// Its stable code.
    pub code: &'static str,
}

#[derive(Default)]
struct Stats {
    graphs: Vec<GraphRecord>,
    breaks: Vec<BreakRecord>,
    graph_calls: u64,
    captured_ops: u64,
    frames: u64,
}

thread_local! {
    static STATS: RefCell<Stats> = RefCell::new(Stats::default());
}

/// Records a compiled graph.
pub fn record_graph(
    code: &PyCode,
    compile_id: (u32, u32),
    graph: &Rc<Graph>,
    out: &OutputGraph,
    guards: &GuardTree,
    took: Duration,
) {
    rynamo_backend::timing::record("_compile.compile_inner", took.as_secs_f64());
    let view = FxView::of(graph.clone(), out, super::resume::display_name(code));
    let rec = GraphRecord {
        compile_id,
        view,
        guards: guards.describe(),
        seconds: took.as_secs_f64(),
    };
    STATS.with(|s| {
        let mut s = s.borrow_mut();
        s.graphs.push(rec);
        s.frames += 1;
    });
    bump_counter("stats", "unique_graphs", 1);
    bump_counter("stats", "calls_captured", graph.nodes().len());
}

/// Adds `n` to `torch._dynamo.utils.counters[group][key]` (PyTorch's counters, which tests and
/// users read: `calls_captured`, `unique_graphs`, `graph_break` reasons). Like PyTorch's, they
/// outlive `torch._dynamo.reset()`; the user clears them with `counters.clear()`.
fn bump_counter(group: &str, key: &str, n: usize) {
    if !rustpython_vm::vm::thread::current_vm_is_set() {
        return;
    }
    rustpython_vm::vm::thread::with_current_vm(|vm| {
        // `import a.b.c` binds the top package: the submodule is read from `sys.modules`.
        let bumped = vm
            .import("torch._dynamo.utils", 0)
            .and_then(|_| vm.sys_module.get_attr("modules", vm))
            .and_then(|m| m.get_item("torch._dynamo.utils", vm))
            .and_then(|m| m.get_attr("_bump_counter", vm))
            .and_then(|f| f.call((group, key, n), vm));
        // The counters are diagnostics: a failure to count must not fail the compile.
        drop(bumped);
    });
}

/// Records a graph break.
pub fn record_break(_code: &PyCode, b: &GraphBreak) {
    bump_counter("graph_break", &b.reason(), 1);
    STATS.with(|s| {
        s.borrow_mut().breaks.push(BreakRecord {
            reason: b.reason(),
            user_stack: b.user_stack.clone(),
            code: b.kind.code(),
        })
    });
}

/// Counts one run of a compiled graph (and its ops, for the coverage table).
pub fn record_graph_call(graph: &Graph) {
    STATS.with(|s| {
        let mut s = s.borrow_mut();
        s.graph_calls += 1;
        s.captured_ops += graph.nodes().len() as u64;
    });
}

/// Every graph compiled since the last [`reset`].
pub fn graphs() -> Vec<GraphRecord> {
    STATS.with(|s| s.borrow().graphs.clone())
}

/// Every break since the last [`reset`].
pub fn breaks() -> Vec<BreakRecord> {
    STATS.with(|s| s.borrow().breaks.clone())
}

/// `(graph calls, ops run inside graphs)` since the last [`reset`].
pub fn calls() -> (u64, u64) {
    STATS.with(|s| {
        let s = s.borrow();
        (s.graph_calls, s.captured_ops)
    })
}

/// Forgets everything.
pub fn reset() {
    STATS.with(|s| *s.borrow_mut() = Stats::default());
    rynamo_backend::timing::reset();
}
