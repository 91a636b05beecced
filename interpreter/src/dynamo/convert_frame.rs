//! The frame handler Dynamo plugs into the hook (Dynamo's `convert_frame.py` plus the C-side
//! cache lookup of `eval_frame.c`).
//!
//! For every intercepted call: bind the arguments, check each cache entry's guards (most recently
//! used first) and run the first that passes; on a miss, trace the frame and compile it, within
//! the recompile limit; when Dynamo cannot capture the frame, run it unchanged (or, under
//! `fullgraph=True`, raise `Unsupported`).

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use rustpython_vm::builtins::PyCode;
use rustpython_vm::{AsObject, PyObjectRef, PyRef, PyResult, VirtualMachine};

pub use super::bind_args::bind_frame;
use super::cache::{self, Action};
use super::compile::{CompileConfig, CompiledEntry, DirectPlan, Plan, compile_graph, finish_trace};
use super::config;
use super::exc::GraphBreak;
use super::frame_logs::{
    failure_details, first_line, limit_hit, log_bytecode, log_compiled, log_recompile, source_line,
    user_traceback,
};
use super::guard_check::strip_local_scope;
use super::guards::{GlobalState, GuardTree};
use super::logs::{self, Artifact};
use super::output_graph::OutputGraph;
use super::shape_env::{Policy, ShapeEnv};
use super::source::{FrameValues, Source};
use super::stats;
use super::symbolic_convert::{GlobalsSource, TraceConfig, Tracer};
use super::trace_structured::{self as tlog, Metrics};
use super::variables::builder::wrap;
use crate::eval_frame::{Frame, FrameAction, FrameHandler, Mode};

/// Dynamo's handler for one `torch.compile` configuration.
pub struct ConvertFrame {
    /// Backend and flags.
    pub config: Arc<CompileConfig>,
}

impl FrameHandler for ConvertFrame {
    fn on_frame(
        &self,
        frame: &Frame<'_>,
        mode: Mode,
        vm: &VirtualMachine,
    ) -> PyResult<FrameAction> {
        let code = &frame.code;
        if take_skip_once(code.as_object() as *const _ as usize) {
            return Ok(FrameAction::RunUnchanged);
        }
        let action = cache::action(code.as_object());
        if action == Action::Skip {
            return Ok(FrameAction::RunUnchanged);
        }
        if action == Action::Default
            && is_skipped_file(code)
            && !cache::always_optimized(code.as_object())
        {
            // Not cached as a skip: the same code may be the target of a later torch.compile.
            return Ok(FrameAction::RunUnchanged);
        }
        let Some(fv) = bind_frame(frame.func, code, frame.args, vm)? else {
            return Ok(FrameAction::RunUnchanged);
        };
        let entries = cache::entries(code.as_object());
        let mut failures = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            // Run-only mode (`torch._dynamo.run`) has no backend of its own: any entry whose
            // guards pass runs, whichever backend compiled it (`extra_state.cpp`'s `lookup`).
            if entry.backend_id != self.config.id && mode != Mode::RunOnly {
                continue;
            }
            match entry.guards.check(&fv, vm) {
                Ok(read) => {
                    cache::touch(code.as_object(), i);
                    return run_entry(entry, &fv, read, vm);
                }
                Err(reason) => failures.push((entry.compile_id, strip_local_scope(&reason))),
            }
        }
        if action == Action::RunOnly {
            return Ok(FrameAction::RunUnchangedRunOnly);
        }
        if mode == Mode::RunOnly {
            return Ok(FrameAction::RunUnchanged);
        }
        let stance = config::stance();
        if !entries.is_empty() {
            match stance.as_str() {
                "eager_on_recompile" => return Ok(FrameAction::RunUnchanged),
                "fail_on_recompile" => {
                    let msg = format!(
                        "Detected recompile when torch.compile stance is 'fail_on_recompile'. filename: '{}', function name: '{}', line number: {}\n{}",
                        code.code.source_path,
                        super::resume::display_name(code),
                        first_line(code),
                        failure_details(&failures, false)
                    );
                    return Ok(FrameAction::Raise(vm.new_runtime_error(msg)));
                }
                _ => {}
            }
            let next_id = cache::with(code, |c| c.frame_id.map(|f| (f, c.compiles)));
            log_recompile(code, next_id, &failures);
            let limit = config::cache_size_limit();
            let ours = entries
                .iter()
                .filter(|e| e.backend_id == self.config.id)
                .count();
            if ours >= limit {
                return limit_hit(code, limit, &failures, &self.config, vm);
            }
        }
        self.compile_and_run(code, fv, vm)
    }

    fn hides_frame(&self, replacement: &PyCode, next: &PyCode) -> bool {
        super::resume::continues(replacement, next)
    }
}

impl ConvertFrame {
    fn compile_and_run(
        &self,
        code: &PyRef<PyCode>,
        fv: FrameValues,
        vm: &VirtualMachine,
    ) -> PyResult<FrameAction> {
        let frame_id = cache::with(code, |c| {
            *c.frame_id.get_or_insert_with(cache::next_frame_id)
        });
        let compile_id = (frame_id, cache::with(code, |c| c.compiles));
        // Test-only (issue 30): a panic while converting a frame runs it unchanged (eval_frame).
        rynamo_tensor::unwind::fault::check("dynamo", code.obj_name.as_str());
        let started = std::time::Instant::now();
        rynamo_backend::timing::begin("_compile.compile_inner");
        if tlog::enabled() {
            tlog::dynamo_start(compile_id, &tlog::caller_stack(code, vm));
        }
        // Restart analysis: a break inside an inlined call (or one that left partial changes)
        // is retried as a break at the root call site.
        let mut break_at = HashMap::new();
        let policy = Rc::new(Policy {
            mode: self.config.dynamic,
            automatic: config::automatic_dynamic_shapes(),
            assume_static: config::assume_static_by_default(),
            force_param_static: config::force_parameter_static_shapes(),
            seen: cache::with(code, |c| c.frame_state.clone()),
        });
        let setup = TraceSetup {
            policy: &policy,
            compile_id,
            config: &self.config,
        };
        let traced = loop {
            rynamo_backend::timing::begin("bytecode_tracing");
            let tracing = std::time::Instant::now();
            let attempt = trace(code, &fv, &break_at, &setup, vm);
            rynamo_backend::timing::record("bytecode_tracing", tracing.elapsed().as_secs_f64());
            match attempt {
                Err((b, out)) => {
                    let Some(state) = &b.state else {
                        return self.on_graph_break(code, compile_id, b, None, vm);
                    };
                    let dirty = out.op_count() != state.nodes
                        || out.side_effects.effects().len() != state.effects;
                    if (b.user_stack.len() > 1 || dirty)
                        && !break_at.contains_key(&state.pos)
                        && break_at.len() < 64
                    {
                        break_at.insert(
                            state.pos,
                            GraphBreak {
                                state: None,
                                raised: None,
                                ..b
                            },
                        );
                        continue;
                    }
                    if let Some(msg) = out
                        .shape_env
                        .violation_message()
                        .filter(|_| !config::allow_ignore_mark_dynamic())
                    {
                        return Ok(FrameAction::Raise(constraint_violation(&msg, vm)));
                    }
                    return self.on_graph_break(code, compile_id, b, Some((out, fv, started)), vm);
                }
                Ok(t) => break t,
            }
        };
        let (mut out, ret) = traced;
        let (mut graph, inputs, replays, result) = match finish_trace(&out, &ret, vm) {
            Ok(p) => p,
            Err(b) => return self.on_graph_break(code, compile_id, b, None, vm),
        };
        // Rebuilding the result and the side effects used SymInts as values (`sym_trace.rs`).
        out.settle_syms(false);
        if let Some(msg) = out
            .shape_env
            .violation_message()
            .filter(|_| !config::allow_ignore_mark_dynamic())
        {
            return Ok(FrameAction::Raise(constraint_violation(&msg, vm)));
        }
        super::compile::drop_dead_nodes(&mut graph, &self.config, &out);
        // Dynamo calls the backend when the traced graph has any call (`count_calls`), dead ones
        // included; dead-code elimination only shrinks what the backend gets.
        let exe = if !out.has_calls(&graph) {
            None
        } else {
            match compile_graph(&graph, &out, &self.config, compile_id, vm) {
                Ok(e) => Some(e),
                Err(msg) => return self.backend_failed(code, compile_id, started, msg, vm),
            }
        };
        let mut guards = GuardTree::build(&out.final_guards(&graph), GlobalState::current(), vm);
        guards.read_inputs(&inputs);
        log_bytecode(code, None, compile_id);
        log_compiled(code, compile_id, &graph, &guards, &out, vm);
        let graph = Rc::new(graph);
        if exe.is_some() {
            stats::record_graph(code, compile_id, &graph, &out, &guards, started.elapsed());
        }
        let entry = Rc::new(CompiledEntry {
            guards,
            plan: Plan::Direct(DirectPlan {
                inputs,
                exe,
                replays,
                result,
                graph,
            }),
            backend_id: self.config.id,
            compile_id,
        });
        cache::with(code, |c| {
            c.entries.insert(0, entry.clone());
            c.compiles += 1;
        });
        if let (Plan::Direct(p), true) = (&entry.plan, tlog::enabled()) {
            let mut m = Metrics::of(code, started);
            m.restart_reasons = break_at.values().map(GraphBreak::reason).collect();
            tlog::frame_compiled(code, compile_id, &p.graph, &out, &entry.guards, m, vm);
        }
        run_entry(&entry, &fv, Vec::new(), vm)
    }

    fn backend_failed(
        &self,
        code: &PyRef<PyCode>,
        compile_id: (u32, u32),
        started: std::time::Instant,
        msg: String,
        vm: &VirtualMachine,
    ) -> PyResult<FrameAction> {
        if tlog::enabled() {
            let m = Metrics::of(code, started).failed("BackendCompilerFailed", &msg, None);
            tlog::compilation_metrics(compile_id, &m);
        }
        if self.config.fullgraph || !config::suppress_errors() {
            return Ok(FrameAction::Raise(vm.new_runtime_error(format!(
                "backend compiler failed for {} ({}:{}):\n{msg}",
                super::resume::display_name(code),
                code.code.source_path,
                first_line(code)
            ))));
        }
        eprintln!(
            "WON'T CONVERT {} {} line {}\n{msg}",
            super::resume::display_name(code),
            code.code.source_path,
            first_line(code)
        );
        cache::set_action(code, Action::Skip);
        Ok(FrameAction::RunUnchanged)
    }

    /// The frame could not be captured as one graph: split it at the break (graph, the
    /// instruction in Python, a resume function), or skip it when it cannot be resumed there.
    fn on_graph_break(
        &self,
        code: &PyRef<PyCode>,
        compile_id: (u32, u32),
        b: GraphBreak,
        traced: Option<(OutputGraph, FrameValues, std::time::Instant)>,
        vm: &VirtualMachine,
    ) -> PyResult<FrameAction> {
        let render = |b: &GraphBreak| b.render(|f, l| source_line(f, l, vm));
        let started = traced
            .as_ref()
            .map_or_else(std::time::Instant::now, |t| t.2);
        if b.kind == super::exc::GraphBreakKind::ForbiddenCallable {
            // Dynamo's `AssertionError`, raised to the caller whatever the settings.
            return Ok(FrameAction::Raise(vm.new_exception_msg(
                vm.ctx.exceptions.assertion_error.to_owned(),
                b.context.clone().into(),
            )));
        }
        let error_on_graph_break = b
            .error_on_graph_break
            .unwrap_or_else(config::error_on_graph_break);
        if self.config.fullgraph || error_on_graph_break {
            let msg = render(&b);
            if tlog::enabled() {
                let m = Metrics::of(code, started).failed("Unsupported", &msg, b.user_stack.last());
                tlog::compilation_metrics(compile_id, &m);
            }
            return Ok(FrameAction::Raise(super::py_module::unsupported_error(
                &msg, vm,
            )));
        }
        if tlog::enabled() {
            tlog::artifact(compile_id, "dynamo_graph_break_reason", &render(&b));
        }
        stats::record_break(code, &b);
        let where_ = b
            .user_stack
            .last()
            .map(|(f, l, _)| format!("{f}:{l}"))
            .unwrap_or_default();
        logs::log(
            Artifact::GraphBreaks,
            Some(compile_id),
            &format!(
                "Graph break in user code at {where_}\nGraph Break Reason: {}User code traceback:\n{}",
                b.header(),
                user_traceback(&b, vm)
            ),
        );
        let resumed = match (traced, &b.state) {
            (Some((mut out, fv, started)), Some(state)) => {
                self.compile_break(code, compile_id, &mut out, state, &fv, started, vm)
            }
            _ => Err("the break happened outside the traced frame".to_owned()),
        };
        match resumed {
            Ok(action) => Ok(action),
            Err(why) => {
                // Dynamo skips the frame: nothing of it is compiled; its calls still are.
                logs::log(
                    Artifact::GraphBreaks,
                    Some(compile_id),
                    &format!(
                        "torchdynamo skips frame {} ({}:{}): {why}",
                        super::resume::display_name(code),
                        code.code.source_path,
                        first_line(code)
                    ),
                );
                cache::set_action(code, Action::Skip);
                if tlog::enabled() {
                    let m =
                        Metrics::of(code, started).failed("SkipFrame", &why, b.user_stack.last());
                    tlog::compilation_metrics(compile_id, &m);
                }
                Ok(FrameAction::RunUnchanged)
            }
        }
    }

    /// Builds the cache entry for a frame split at a graph break and runs it.
    #[allow(clippy::too_many_arguments, reason = "one break has this many parts")]
    fn compile_break(
        &self,
        code: &PyRef<PyCode>,
        compile_id: (u32, u32),
        out: &mut OutputGraph,
        state: &super::graph_break::BreakState,
        fv: &FrameValues,
        started: std::time::Instant,
        vm: &VirtualMachine,
    ) -> Result<FrameAction, String> {
        use super::graph_break as gb;
        let bc = super::bytecode::Bytecode::decode(code);
        gb::check_resumable(code, &bc, state)?;
        // A live variable still unbound at the break stays unbound in the resume function, as
        // in the original (it is only read on a path that binds it first, or raises).
        let live: Vec<usize> = gb::live_slots(code, &bc, state.pos)
            .into_iter()
            .filter(|&s| state.locals.get(s).is_some_and(Option::is_some))
            .collect();
        let cells = gb::cell_slots(code);
        let (mut graph, inputs, replays, values) =
            gb::break_recipes(out, state, &live, &cells, vm)?;
        // The values rebuilt for the resume function used SymInts as values (`sym_trace.rs`).
        out.settle_syms(false);
        super::compile::drop_dead_nodes(&mut graph, &self.config, out);
        // As for a whole frame: any traced call (dead or not) means a graph, as in Dynamo.
        let exe = if !out.has_calls(&graph) {
            None
        } else {
            Some(compile_graph(&graph, out, &self.config, compile_id, vm)?)
        };
        let graph = Rc::new(graph);
        let exe_compiled = exe.is_some();
        let plan_id = gb::register_plan(gb::BreakPlan {
            inputs,
            exe,
            replays,
            values,
            nparams: gb::param_count(code),
            globals: fv.globals.clone(),
            builtins: fv.builtins.clone(),
            graph: graph.clone(),
        });
        let name = format!("__compiled_fn_{plan_id}");
        fv.globals
            .set_item(
                name.as_str(),
                super::py_module::compiled_graph(plan_id, vm),
                vm,
            )
            .map_err(|_| "cannot store the compiled graph in the frame's globals".to_owned())?;
        let new_code =
            gb::transformed_code(code, &bc, state, &live, &cells, &name, &fv.globals, vm)?;
        super::resume::register_replacement(&new_code, code);
        log_bytecode(code, Some(&new_code), compile_id);
        let guards = GuardTree::build(&out.final_guards(&graph), GlobalState::current(), vm);
        if exe_compiled {
            log_compiled(code, compile_id, &graph, &guards, out, vm);
            stats::record_graph(code, compile_id, &graph, out, &guards, started.elapsed());
        }
        let entry = Rc::new(CompiledEntry {
            guards,
            plan: Plan::Bytecode(new_code.clone()),
            backend_id: self.config.id,
            compile_id,
        });
        cache::with(code, |c| {
            c.entries.insert(0, entry.clone());
            c.compiles += 1;
        });
        if tlog::enabled() {
            let m = Metrics::of(code, started);
            tlog::frame_compiled(code, compile_id, &graph, out, &entry.guards, m, vm);
        }
        Ok(FrameAction::RunCode(new_code))
    }
}

/// Traces a whole frame: the graph state and the return value, or the first break (with the
/// graph state at the break).
#[allow(
    clippy::result_large_err,
    reason = "returned once per trace, and the caller consumes the graph state at once"
)]
fn trace(
    code: &PyRef<PyCode>,
    fv: &FrameValues,
    break_at: &HashMap<usize, GraphBreak>,
    setup: &TraceSetup<'_>,
    vm: &VirtualMachine,
) -> Result<(OutputGraph, super::variables::Vt), (GraphBreak, OutputGraph)> {
    let mut result = trace_frame(code, fv, break_at, setup, vm);
    let out = match &mut result {
        Ok((out, _)) | Err((_, out)) => out,
    };
    // An `aot_autograd` Python backend compiling for training gets forward and backward graphs
    // whose shape arguments are constants: they hold for the traced sizes only.
    if let super::compile::BackendSpec::Callable(b) = &setup.config.backend
        && b.get_attr("_rynamo_aot_backend", vm).is_ok()
        && out
            .inputs
            .iter()
            .any(|i| super::bridge::tensor_meta(&i.example).is_some_and(|(_, rg)| rg))
    {
        out.shape_env.specialise_all();
    }
    // SymInts used as constants specialise their dimensions (`sym_trace.rs`).
    out.settle_syms(false);
    // The frame state: sizes seen, dimensions that changed (read by the next compile).
    let seen = std::mem::take(&mut out.shape_env.seen_now);
    cache::with(code, |c| c.frame_state.extend(seen.iter().cloned()));
    out.shape_env.seen_now = seen;
    result
}

/// What a trace needs from the compile that starts it.
struct TraceSetup<'a> {
    policy: &'a Rc<Policy>,
    compile_id: (u32, u32),
    config: &'a CompileConfig,
}

/// `torch.fx.experimental.symbolic_shapes.ConstraintViolationError(msg)`.
fn constraint_violation(
    msg: &str,
    vm: &VirtualMachine,
) -> rustpython_vm::builtins::PyBaseExceptionRef {
    let made = super::bridge::import_module("torch.fx.experimental.symbolic_shapes", vm)
        .and_then(|m| m.get_attr("ConstraintViolationError", vm))
        .and_then(|cls| cls.call((msg.to_owned(),), vm))
        .ok()
        .and_then(|e| {
            e.downcast::<rustpython_vm::builtins::PyBaseException>()
                .ok()
        });
    made.unwrap_or_else(|| vm.new_runtime_error(msg.to_owned()))
}

#[allow(
    clippy::result_large_err,
    reason = "returned once per trace, and the caller consumes the graph state at once"
)]
fn trace_frame(
    code: &PyRef<PyCode>,
    fv: &FrameValues,
    break_at: &HashMap<usize, GraphBreak>,
    setup: &TraceSetup<'_>,
    vm: &VirtualMachine,
) -> Result<(OutputGraph, super::variables::Vt), (GraphBreak, OutputGraph)> {
    let config = TraceConfig {
        capture_scalar_outputs: config::capture_scalar_outputs(),
        break_at: break_at.clone(),
    };
    let slots = super::bytecode_analysis::Slots::of(code);
    let mut out = OutputGraph::new(FrameValues {
        locals: fv.locals.clone(),
        cells: fv.cells.clone(),
        closure: fv.closure.clone(),
        globals: fv.globals.clone(),
        builtins: fv.builtins.clone(),
    });
    out.shape_env = ShapeEnv::new(setup.policy.clone());
    out.compile_id = Some(setup.compile_id);
    let nlocals = code.code.varnames.len();
    let nfree = code.code.freevars.len();
    let mut locals = vec![None; slots.names.len()];
    // Only variables the code may read before writing them are wrapped (and guarded): an
    // argument it never reads does not make the entry recompile when it changes, as Dynamo's
    // lazily realised trackers. Cells are read by MAKE_CELL and the closures, so they count.
    let bc = super::bytecode::Bytecode::decode(code);
    let read = super::bytecode_analysis::Liveness::compute(code, &bc, slots.names.len()).live_at(0);
    for (i, v) in fv.locals.iter().enumerate().take(nlocals) {
        if let Some(v) = v {
            let src = Rc::new(Source::Local {
                name: slots.names[i].as_str().into(),
                index: i as u32,
            });
            let is_cell = code
                .code
                .cellvars
                .iter()
                .any(|c| c.as_str() == slots.names[i]);
            locals[i] = Some(if read.contains(&(i as u32)) || is_cell {
                wrap(&mut out, v.clone(), src, vm)
            } else {
                super::variables::Vt::with_source(super::variables::Kind::Object(v.clone()), src)
            });
        }
    }
    let first_free = slots.names.len() - nfree;
    // Free variables are real cells (shared with the enclosing frame and other closures): one
    // symbolic cell per cell object, so a `nonlocal` store here or in an inlined closure over
    // the same cell is seen by every later read, and is replayed into the cell after the graph.
    for (k, cell) in fv.closure.iter().enumerate() {
        let name: Rc<str> = slots.names[first_free + k].as_str().into();
        let content = fv.cells.get(k).cloned().flatten().map(|v| {
            let src = Rc::new(Source::Deref {
                name: name.clone(),
                index: k as u32,
            });
            wrap(&mut out, v, src, vm)
        });
        let symbolic = Rc::new(std::cell::RefCell::new(content));
        out.cells.insert(
            cell.as_object() as *const rustpython_vm::PyObject as usize,
            (cell.clone(), symbolic.clone()),
        );
        let src = Rc::new(Source::Closure {
            name,
            index: k as u32,
        });
        locals[first_free + k] = Some(super::variables::Vt::with_source(
            super::variables::Kind::Cell(symbolic),
            src,
        ));
    }
    let globals = fv.globals.clone();
    let builtins = fv.builtins.clone();
    let autocast = super::autocast::TraceScope::enter();
    let result = {
        let mut tracer = Tracer::new(
            vm,
            &mut out,
            &config,
            code.clone(),
            locals,
            globals,
            GlobalsSource::Frame,
            builtins,
            0,
        );
        tracer.run()
    };
    match autocast.finish(&mut out, result) {
        Ok(ret) => Ok((out, ret)),
        Err(b) => Err((b, out)),
    }
}

/// Runs a cache entry. An exception while running a whole-frame entry (from the graph, a
/// replayed side effect or rebuilding the return value) is the compiled frame's own exception:
/// it goes to the caller, as the exception of Dynamo's generated bytecode would. Returned as a
/// handler error it would make the hook run the frame again, repeating the side effects the
/// entry had already applied.
/// `read` holds the graph inputs the guards already read (`GuardTree::check`).
fn run_entry(
    entry: &CompiledEntry,
    fv: &FrameValues,
    read: Vec<Option<PyObjectRef>>,
    vm: &VirtualMachine,
) -> PyResult<FrameAction> {
    match &entry.plan {
        Plan::Direct(p) => Ok(match p.run(fv, read, vm) {
            Ok(v) => FrameAction::Return(v),
            Err(e) => FrameAction::Raise(e),
        }),
        Plan::Bytecode(code) => Ok(FrameAction::RunCode(code.clone())),
    }
}

/// Frames of the frozen standard library and of the `torch` package itself (`torch.nn`
/// included) are never compiled as frames of their own (Dynamo's skipfiles: its inline list,
/// `torch.nn` among it, applies to calls from traced code, which are still inlined). A
/// function `torch.compile` was given is compiled wherever it lives (Dynamo's
/// `always_optimize_code_objects`, e.g. the wrapper `torch._dynamo.eval_frame` puts around a
/// built-in layer). A compiled user module's `Module.__call__` is skipped, so its hooks run
/// eagerly and its `forward` is caught as the frame. Resume functions follow their file. So a
/// layer built or run between two graphs (its `__init__`, a call in a skipped frame) runs
/// eagerly, as in PyTorch. Frozen modules are named by module, not by a `.py` path.
fn is_skipped_file(code: &PyCode) -> bool {
    let path = code.code.source_path.as_str();
    !(path.ends_with(".py") || path.starts_with('<'))
}

thread_local! {
    /// The code object whose next frame Dynamo skips (`disable(recursive=False)`).
    static SKIP_ONCE: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// Sets the code object (by address) whose next frame is skipped; returns the previous one.
pub fn set_skip_once(code: Option<usize>) -> Option<usize> {
    SKIP_ONCE.with(|s| s.replace(code))
}

fn take_skip_once(code: usize) -> bool {
    SKIP_ONCE.with(|s| {
        if s.get() == Some(code) {
            s.set(None);
            true
        } else {
            false
        }
    })
}
