//! From a traced frame to a cache entry: finish the graph, pick the backend, compile, and run
//! compiled entries on later calls.
//!
//! ```text
//!   Tracer::run -> return tracker + OutputGraph
//!     --[recipes]--> graph outputs, side-effect replays, return recipe
//!     --[passes]---> dead-code elimination
//!     --[backend]--> Executable (native) or callable (user backend, given an FX GraphModule)
//!     --> CompiledEntry { guards, plan }
//! ```

use std::rc::Rc;
use std::sync::Arc;

use rustpython_vm::{AsObject, PyObjectRef, PyResult, VirtualMachine};
use rynamo_backend::{Backend, EagerBackend, Executable};
use rynamo_graph::Graph;
use rynamo_tensor::Tensor;

use super::bridge;
use super::exc::{GraphBreak, GraphBreakKind};
use super::guards::GuardTree;
use super::output_graph::OutputGraph;
use super::reconstruct::{Builder, OutputSet, Recon, recon_of};
use super::replay::{Replay, replays};
use super::source::{FrameValues, Source};
use super::variables::Vt;

/// Which backend compiles the graphs of a `torch.compile` call.
#[derive(Clone, Debug)]
pub enum BackendSpec {
    /// A native backend from the registry (`"eager"`, `"inductor"`, plugins).
    Native(String),
    /// A Python callable `backend(gm, example_inputs) -> callable`.
    Callable(PyObjectRef),
}

/// The settings of one `torch.compile` / `optimize` call.
#[derive(Debug)]
pub struct CompileConfig {
    /// The backend.
    pub backend: BackendSpec,
    /// `fullgraph=True` / `nopython=True`.
    pub fullgraph: bool,
    /// `dynamic=`: `Some(true)` dynamic shapes from the first compile, `Some(false)` never,
    /// `None` automatic (dimensions that change become dynamic on recompile).
    pub dynamic: Option<bool>,
    /// Distinguishes entries compiled for different backends (Dynamo checks the backend on
    /// lookup).
    pub id: u64,
}

/// How a compiled graph is run.
pub enum Executor {
    /// A native executable.
    Native(Arc<dyn Executable>),
    /// The callable a Python backend returned, and what its graph's `forward` takes (the
    /// inputs, and the concrete sizes in the places of `Sym(s0)` placeholders).
    Python(PyObjectRef, Vec<super::fx::FxParam>),
}

/// A frame captured whole: run the graph, replay side effects, rebuild the return value.
pub struct DirectPlan {
    /// Graph inputs, read from the frame.
    pub inputs: Vec<Rc<Source>>,
    /// The compiled graph; `None` when it has no ops (the backend is not called, as in Dynamo).
    pub exe: Option<Executor>,
    /// Side effects to replay.
    pub replays: Vec<Replay>,
    /// The return value's recipe.
    pub result: Recon,
    /// The graph (for `explain`, logs and statistics).
    pub graph: Rc<Graph>,
}

/// One cache entry.
pub struct CompiledEntry {
    /// Its guards.
    pub guards: GuardTree,
    /// What to run when they pass.
    pub plan: Plan,
    /// The backend it was compiled for ([`CompileConfig::id`]).
    pub backend_id: u64,
    /// `(frame id, compile id)`.
    pub compile_id: (u32, u32),
}

/// What a cache entry runs.
pub enum Plan {
    /// The whole frame as one graph.
    Direct(DirectPlan),
    /// Transformed bytecode (graph breaks): run it as the frame's code.
    Bytecode(rustpython_vm::PyRef<rustpython_vm::builtins::PyCode>),
}

/// What a whole-frame trace compiles: the graph, its inputs' sources, the side-effect replays
/// and the recipe of the return value.
pub type TraceRecipes = (Graph, Vec<Rc<Source>>, Vec<Replay>, Recon);

/// Turns a finished trace into a plan (without compiling the graph yet).
pub fn finish_trace(
    out: &OutputGraph,
    ret: &Vt,
    vm: &VirtualMachine,
) -> Result<TraceRecipes, GraphBreak> {
    let mut outputs = OutputSet::default();
    let replays = replays(out, &mut outputs, vm)?;
    let result = recon_of(ret, out, &mut outputs, vm)?;
    let mut graph = out.graph.graph().clone();
    graph.set_outputs(outputs.values.clone());
    let inputs = out.inputs.iter().map(|i| i.source.clone()).collect();
    Ok((graph, inputs, replays, result))
}

/// Drops the nodes no output needs, except for the `eager` backend: PyTorch's runs the FX
/// graph as traced, so a dead op that raises (an integer `fmod` by zero) raises as in eager,
/// while its compiling backends (aot_eager, inductor) eliminate it (fuzz seed 17, program 16).
/// Values whose sizes the trace read (`sym.rs`) stay: when dropping would remove one, nothing is
/// dropped.
pub fn drop_dead_nodes(graph: &mut Graph, config: &CompileConfig, out: &OutputGraph) {
    if matches!(&config.backend, BackendSpec::Native(name) if name == "eager") {
        return;
    }
    let mut dropped = graph.clone();
    rynamo_passes::eliminate_dead_code(&mut dropped, &rynamo_passes::PassCx::default());
    if out.size_values_present(&dropped) {
        *graph = dropped;
    }
}

/// Compiles a graph with the configured backend.
pub fn compile_graph(
    graph: &Graph,
    out: &OutputGraph,
    config: &CompileConfig,
    compile_id: (u32, u32),
    vm: &VirtualMachine,
) -> Result<Executor, String> {
    match &config.backend {
        BackendSpec::Native(name) => {
            let backend: Arc<dyn Backend> = match rynamo_backend::global().lookup(name) {
                Ok(b) => b,
                Err(_) if name == "inductor" => rynamo_backend::global()
                    .lookup("dynasm")
                    .unwrap_or_else(|_| Arc::new(EagerBackend)),
                Err(_) if name.starts_with("aot_eager") => Arc::new(EagerBackend),
                Err(e) => return Err(format!("backend '{name}': {e}")),
            };
            let training = needs_autograd(graph, out).then(|| super::aot::TrainingInputs::of(out));
            let debug_dir = super::debug_dir::enabled()
                .then(|| super::debug_dir::model_dir(compile_id, training.is_some()));
            let user_name = name.clone();
            let backend_for_sizes = backend.clone();
            // Every shape's compile (the first and each later size) runs here: a panic in the
            // backend's compiler (a pass, the code generator) is an error naming the backend,
            // never an unwind into the interpreter.
            let compile_one: super::per_shape::CompileFn = Box::new(move |g: &Graph| {
                let exe = rynamo_backend::timing::timed("OutputGraph.call_user_compiler", || {
                    rynamo_tensor::unwind::catch(
                        || format!("the compiler of backend '{user_name}'"),
                        || match &training {
                            Some(t) => super::aot::compile_for_training_with(
                                g,
                                t,
                                &user_name,
                                &*backend_for_sizes,
                                compile_id,
                            ),
                            None => backend_for_sizes.compile(g),
                        },
                    )
                })?;
                if let Some(dir) = &debug_dir {
                    for (rel, text) in exe.debug_files() {
                        super::debug_dir::write(&format!("{dir}/{rel}"), &text);
                    }
                }
                Ok(exe)
            });
            let exe = compile_one(graph)
                .map_err(|e| format!("backend '{name}' failed to compile: {e}"))?;
            if super::logs::enabled(super::logs::Artifact::OutputCode)
                && let Some(code) = exe.debug_dump()
            {
                super::logs::log(
                    super::logs::Artifact::OutputCode,
                    None,
                    &format!("Output code ({}):\n{code}", backend.name()),
                );
            }
            if out.shape_env.has_live_symbols() {
                // Dynamic dimensions: the backend gets concrete sizes, one graph per shape.
                let per_shape = super::per_shape::PerShape::new(
                    graph.clone(),
                    out.sym_args.clone(),
                    out.size_assumptions.clone(),
                    &|pos| out.int_hint(pos),
                    exe,
                    compile_one,
                );
                return Ok(Executor::Native(Arc::new(per_shape)));
            }
            Ok(Executor::Native(exe))
        }
        BackendSpec::Callable(f) => {
            let module =
                super::fx::graph_module(graph, out, vm).map_err(|e| py_err_text(&e, vm))?;
            let gm = module.gm;
            // `aot_autograd` backends split the graph through this handle.
            if needs_autograd(graph, out)
                && let Some(graphs) = super::aot::graphs_for(graph, out)
            {
                let handle = super::aot_module::PyAotHandle::object(graphs, vm);
                gm.set_attr("_rynamo_aot", handle, vm)
                    .map_err(|e| py_err_text(&e, vm))?;
            }
            let examples = vm.ctx.new_list(module.examples);
            let compiled = rynamo_backend::timing::timed("OutputGraph.call_user_compiler", || {
                f.call((gm, examples), vm)
            })
            .map_err(|e| py_err_text(&e, vm))?;
            Ok(Executor::Python(compiled, module.params))
        }
    }
}

/// Whether a graph's outputs may need autograd history: some input requires grad (the guards
/// pin `requires_grad` and the grad mode, so this holds for every run of the entry).
/// Whether the region must record history: an input requires grad and some node runs with grad
/// mode on (a region traced wholly under `no_grad`, an optimizer step, records nothing, as
/// AOTAutograd's inference graphs).
fn needs_autograd(graph: &Graph, out: &OutputGraph) -> bool {
    out.inputs
        .iter()
        .any(|i| bridge::tensor_meta(&i.example).is_some_and(|(_, rg)| rg))
        && !super::aot::all_no_grad(graph, out)
}

/// The text of a Python exception (message only).
pub fn py_err_text(e: &rustpython_vm::builtins::PyBaseExceptionRef, vm: &VirtualMachine) -> String {
    let mut s = String::new();
    let _ = vm.write_exception(&mut s, e);
    s
}

impl DirectPlan {
    /// Runs the plan on a frame: graph, side effects, return value. `read` holds inputs the
    /// guards read on this call (by input position; missing or `None`: read here).
    pub fn run(
        &self,
        frame: &FrameValues,
        read: Vec<Option<PyObjectRef>>,
        vm: &VirtualMachine,
    ) -> PyResult<PyObjectRef> {
        let outputs = match &self.exe {
            Some(exe) => {
                super::stats::record_graph_call(&self.graph);
                let inputs = gather_read_inputs(&self.inputs, read, frame, vm)?;
                run_executor(exe, &self.inputs, inputs, frame, vm)?
            }
            None => Vec::new(),
        };
        let mut b = Builder {
            outputs: &outputs,
            wrapped: Vec::new(),
            frame,
            shared: Vec::new(),
        };
        // Every value first, then the mutations (Dynamo's `codegen_suffix` order): a value read
        // from a global or attribute before the frame reassigned or deleted it is the old one.
        let stored = b.prepare(&self.replays, vm)?;
        let result = b.build(&self.result, vm)?;
        b.apply(&self.replays, stored, vm)?;
        Ok(result)
    }
}

/// A graph's inputs read from the frame: tensors, and dynamic int inputs (guarded to be ints) as
/// 0-d int64 tensors (`OutputGraph::int_input`).
pub fn gather_inputs(
    sources: &[Rc<Source>],
    frame: &FrameValues,
    vm: &VirtualMachine,
) -> PyResult<Vec<Tensor>> {
    gather_read_inputs(sources, Vec::new(), frame, vm)
}

/// [`gather_inputs`], taking the objects in `read` (by position) instead of reading them again.
fn gather_read_inputs(
    sources: &[Rc<Source>],
    read: Vec<Option<PyObjectRef>>,
    frame: &FrameValues,
    vm: &VirtualMachine,
) -> PyResult<Vec<Tensor>> {
    let mut read = read.into_iter();
    sources
        .iter()
        .map(|src| {
            let obj = match read.next().flatten() {
                Some(obj) => obj,
                None => src.eval(frame, vm)?,
            };
            if let Some(t) = bridge::as_tensor(&obj) {
                return Ok(t);
            }
            match obj.downcast_ref::<rustpython_vm::builtins::PyInt>() {
                Some(i) if obj.class().is(vm.ctx.types.int_type) => {
                    i.try_to_primitive::<i64>(vm).map(Tensor::scalar::<i64>)
                }
                _ => Err(vm.new_type_error(format!("{src} is no longer a tensor"))),
            }
        })
        .collect()
}

/// Runs a compiled graph on tensors.
pub fn run_executor(
    exe: &Executor,
    sources: &[Rc<Source>],
    inputs: Vec<Tensor>,
    frame: &FrameValues,
    vm: &VirtualMachine,
) -> PyResult<Vec<Tensor>> {
    match exe {
        // Allocation failures raised inside the compiled code, and panics, come back as errors
        // (issue 30); an op's error keeps its Python class.
        Executor::Native(e) => {
            rynamo_tensor::unwind::catch(|| "a compiled graph".to_string(), || e.run(&inputs))
                .map_err(|err| match err {
                    rynamo_backend::Error::Graph(g) => bridge::to_py_err(&g, vm),
                    other => vm.new_runtime_error(other.to_string()),
                })
        }
        Executor::Python(f, params) => {
            // A Python backend gets the original objects (Parameters stay Parameters), and each
            // size symbol's value at this call.
            let args = params
                .iter()
                .map(|p| match *p {
                    super::fx::FxParam::Input(pos) => sources[pos].eval(frame, vm),
                    super::fx::FxParam::Size { pos, dim } => {
                        let size = inputs
                            .get(pos)
                            .and_then(|t| t.shape().get(dim).copied())
                            .ok_or_else(|| {
                                vm.new_runtime_error(format!(
                                    "{} has no dimension {dim}",
                                    sources[pos]
                                ))
                            })?;
                        Ok(vm.ctx.new_int(size).into())
                    }
                })
                .collect::<PyResult<Vec<_>>>()?;
            let r = f.call(args, vm)?;
            let items: Vec<PyObjectRef> =
                if r.class().is(vm.ctx.types.tuple_type) || r.class().is(vm.ctx.types.list_type) {
                    vm.extract_elements_with(&r, Ok)?
                } else {
                    vec![r]
                };
            items
                .into_iter()
                .map(|o| {
                    bridge::as_tensor(&o)
                        .ok_or_else(|| vm.new_type_error("a compiled graph must return tensors"))
                })
                .collect()
        }
    }
}

/// A break for a backend that failed (compiling falls back to eager for this frame).
pub fn backend_failure(msg: String) -> GraphBreak {
    GraphBreak::new(
        GraphBreakKind::UnsupportedConstruct,
        format!("backend compiler failed: {msg}"),
    )
}
