//! The frame handler Dynamo plugs into the hook (Dynamo's `convert_frame.py` plus the C-side
//! cache lookup of `eval_frame.c`).
//!
//! For every intercepted call: bind the arguments, check each cache entry's guards (most recently
//! used first) and run the first that passes; on a miss, trace the frame and compile it, within
//! the recompile limit; when Dynamo cannot capture the frame, run it unchanged (or, under
//! `fullgraph=True`, raise `Unsupported`).

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;
use std::sync::Arc;

use rustpython_vm::builtins::{PyCode, PyDict, PyDictRef, PyFunction, PyTuple};
use rustpython_vm::bytecode::CodeFlags;
use rustpython_vm::function::FuncArgs;
use rustpython_vm::{AsObject, Py, PyObjectRef, PyRef, PyResult, VirtualMachine};

use super::cache::{self, Action};
use super::compile::{CompileConfig, CompiledEntry, DirectPlan, Plan, compile_graph, finish_trace};
use super::config;
use super::exc::GraphBreak;
use super::guards::{GlobalState, GuardTree};
use super::logs::{self, Artifact};
use super::output_graph::OutputGraph;
use super::source::{FrameValues, Source};
use super::stats;
use super::symbolic_convert::{GlobalsSource, TraceConfig, Tracer};
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
        let action = cache::action(code.as_object());
        if action == Action::Skip {
            return Ok(FrameAction::RunUnchanged);
        }
        let Some(fv) = bind_frame(frame.func, code, frame.args, vm)? else {
            return Ok(FrameAction::RunUnchanged);
        };
        let entries = cache::entries(code.as_object());
        let mut failures = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            if entry.backend_id != self.config.id {
                continue;
            }
            match entry.guards.check(&fv, vm) {
                Ok(()) => {
                    cache::touch(code.as_object(), i);
                    return run_entry(entry, &fv, vm);
                }
                Err(reason) => failures.push((entry.compile_id, reason)),
            }
        }
        if mode == Mode::RunOnly || action == Action::RunOnly {
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
                        code.code.obj_name,
                        first_line(code),
                        failures
                            .iter()
                            .map(|(_, r)| format!("- {r}"))
                            .collect::<Vec<_>>()
                            .join("\n")
                    );
                    return Ok(FrameAction::Raise(vm.new_runtime_error(msg)));
                }
                _ => {}
            }
            log_recompile(code, &failures);
            let limit = config::cache_size_limit();
            let ours = entries
                .iter()
                .filter(|e| e.backend_id == self.config.id)
                .count();
            if ours >= limit {
                return limit_hit(code, limit, &failures, &self.config, vm);
            }
        }
        self.compile_and_run(frame, code, fv, vm)
    }
}

impl ConvertFrame {
    fn compile_and_run(
        &self,
        frame: &Frame<'_>,
        code: &PyRef<PyCode>,
        fv: FrameValues,
        vm: &VirtualMachine,
    ) -> PyResult<FrameAction> {
        let frame_id = cache::with(code, |c| {
            *c.frame_id.get_or_insert_with(cache::next_frame_id)
        });
        let compile_id = (frame_id, cache::with(code, |c| c.compiles));
        let started = std::time::Instant::now();
        let traced = trace(frame, code, fv, vm);
        let (out, ret, fv) = match traced {
            Ok(t) => t,
            Err(b) => return self.on_graph_break(code, compile_id, b, vm),
        };
        let (graph, inputs, replays, result) = match finish_trace(&out, &ret, vm) {
            Ok(p) => p,
            Err(b) => return self.on_graph_break(code, compile_id, b, vm),
        };
        let exe = match compile_graph(&graph, &out, &self.config, vm) {
            Ok(e) => e,
            Err(msg) => {
                if self.config.fullgraph || !config::suppress_errors() {
                    return Ok(FrameAction::Raise(vm.new_runtime_error(format!(
                        "backend compiler failed for {} ({}:{}):\n{msg}",
                        code.code.obj_name,
                        code.code.source_path,
                        first_line(code)
                    ))));
                }
                eprintln!(
                    "WON'T CONVERT {} {} line {}\n{msg}",
                    code.code.obj_name,
                    code.code.source_path,
                    first_line(code)
                );
                cache::set_action(code, Action::Skip);
                return Ok(FrameAction::RunUnchanged);
            }
        };
        let guards = GuardTree::build(&out.guards, GlobalState::current(), vm);
        log_compiled(code, compile_id, &graph, &guards, &out, vm);
        let graph = Rc::new(graph);
        stats::record_graph(
            code,
            compile_id,
            &graph,
            &out,
            &guards,
            started.elapsed(),
            vm,
        );
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
        run_entry(&entry, &fv, vm)
    }

    /// The frame could not be captured as one graph.
    fn on_graph_break(
        &self,
        code: &PyRef<PyCode>,
        compile_id: (u32, u32),
        b: GraphBreak,
        vm: &VirtualMachine,
    ) -> PyResult<FrameAction> {
        stats::record_break(code, &b);
        if self.config.fullgraph {
            let text = b.render(|f, l| source_line(f, l, vm));
            return Ok(FrameAction::Raise(super::py_module::unsupported_error(
                &text, vm,
            )));
        }
        logs::log(
            Artifact::GraphBreaks,
            Some(compile_id),
            &format!(
                "Graph break (user stack suppressed due to duplicate graph break) in `{}`\n{}",
                code.code.obj_name,
                b.render(|f, l| source_line(f, l, vm))
            ),
        );
        // Without resume support for this break, Dynamo skips the frame: nothing of it is compiled;
        // the calls it makes are still intercepted.
        logs::log(
            Artifact::GraphBreaks,
            Some(compile_id),
            &format!(
                "torchdynamo skips frame {} ({}:{}): it could not be captured",
                code.code.obj_name,
                code.code.source_path,
                first_line(code)
            ),
        );
        cache::set_action(code, Action::Skip);
        Ok(FrameAction::RunUnchanged)
    }
}

/// Traces a whole frame: `(graph state, return value, frame values)` or the first break.
fn trace(
    frame: &Frame<'_>,
    code: &PyRef<PyCode>,
    fv: FrameValues,
    vm: &VirtualMachine,
) -> Result<(OutputGraph, super::variables::Vt, FrameValues), GraphBreak> {
    let config = TraceConfig {
        capture_scalar_outputs: config::capture_scalar_outputs(),
        break_at: HashSet::new(),
    };
    let _ = frame;
    let globals = fv.globals.clone();
    let builtins = fv.builtins.clone();
    let slots = super::bytecode_analysis::Slots::of(code);
    let locals_snapshot: Vec<Option<PyObjectRef>> = fv.locals.clone();
    let cells_snapshot: Vec<Option<PyObjectRef>> = fv.cells.clone();
    let mut out = OutputGraph::new(fv);
    let nlocals = code.code.varnames.len();
    let nfree = code.code.freevars.len();
    let mut locals = vec![None; slots.names.len()];
    for (i, v) in locals_snapshot.iter().enumerate().take(nlocals) {
        if let Some(v) = v {
            let src = Rc::new(Source::Local {
                name: slots.names[i].as_str().into(),
                index: i as u32,
            });
            locals[i] = Some(wrap(&mut out, v.clone(), src, vm));
        }
    }
    let first_free = slots.names.len() - nfree;
    for (k, v) in cells_snapshot.iter().enumerate() {
        if let Some(v) = v {
            let src = Rc::new(Source::Deref {
                name: slots.names[first_free + k].as_str().into(),
                index: k as u32,
            });
            locals[first_free + k] = Some(wrap(&mut out, v.clone(), src, vm));
        }
    }
    let ret = {
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
        tracer.run()?
    };
    let fv = FrameValues {
        locals: locals_snapshot,
        cells: cells_snapshot,
        globals: out.frame.globals.clone(),
        builtins: out.frame.builtins.clone(),
    };
    Ok((out, ret, fv))
}

/// Runs a cache entry.
fn run_entry(
    entry: &CompiledEntry,
    fv: &FrameValues,
    vm: &VirtualMachine,
) -> PyResult<FrameAction> {
    match &entry.plan {
        Plan::Direct(p) => {
            stats::record_graph_call(&p.graph);
            p.run(fv, vm).map(FrameAction::Return)
        }
        Plan::Bytecode(code) => Ok(FrameAction::RunCode(code.clone())),
    }
}

/// Binds a call's arguments to the function's parameters, as Python would. `None` when the call
/// does not bind (Python then raises the proper `TypeError` itself).
pub fn bind_frame(
    func: &Py<PyFunction>,
    code: &PyRef<PyCode>,
    args: &FuncArgs,
    vm: &VirtualMachine,
) -> PyResult<Option<FrameValues>> {
    let c = &code.code;
    let f = func.as_object();
    let nvars = c.varnames.len();
    let argc = c.arg_count as usize;
    let posonly = c.posonlyarg_count as usize;
    let kwonly = c.kwonlyarg_count as usize;
    let mut locals: Vec<Option<PyObjectRef>> = vec![None; nvars];
    let has_varargs = c.flags.contains(CodeFlags::VARARGS);
    let has_varkw = c.flags.contains(CodeFlags::VARKEYWORDS);
    let mut extra = Vec::new();
    for (i, a) in args.args.iter().enumerate() {
        if i < argc {
            locals[i] = Some(a.clone());
        } else if has_varargs {
            extra.push(a.clone());
        } else {
            return Ok(None);
        }
    }
    let varkw = vm.ctx.new_dict();
    for (k, v) in args.kwargs.iter() {
        let k = k.to_string();
        let pos = c.varnames[..(argc + kwonly).min(nvars)]
            .iter()
            .position(|n| n.as_str() == k)
            .filter(|&p| p >= posonly);
        match pos {
            Some(p) if locals[p].is_some() => return Ok(None),
            Some(p) => locals[p] = Some(v.clone()),
            None if has_varkw => varkw.set_item(k.as_str(), v.clone(), vm)?,
            None => return Ok(None),
        }
    }
    let defaults: Vec<PyObjectRef> = f
        .get_attr("__defaults__", vm)?
        .downcast::<PyTuple>()
        .map(|t| t.as_slice().to_vec())
        .unwrap_or_default();
    let first_default = argc.saturating_sub(defaults.len());
    for i in 0..argc {
        if locals[i].is_none() {
            if i >= first_default {
                locals[i] = Some(defaults[i - first_default].clone());
            } else {
                return Ok(None);
            }
        }
    }
    if kwonly > 0 {
        let kwdefaults = f.get_attr("__kwdefaults__", vm)?.downcast::<PyDict>().ok();
        for i in argc..argc + kwonly {
            if locals[i].is_none() {
                let name = c.varnames[i].as_str();
                match kwdefaults
                    .as_ref()
                    .and_then(|d| d.get_item_opt(name, vm).ok().flatten())
                {
                    Some(v) => locals[i] = Some(v),
                    None => return Ok(None),
                }
            }
        }
    }
    let mut next = argc + kwonly;
    if has_varargs {
        locals[next] = Some(vm.ctx.new_tuple(extra).into());
        next += 1;
    }
    if has_varkw {
        locals[next] = Some(varkw.into());
    }
    let cells = match f.get_attr("__closure__", vm)?.downcast::<PyTuple>() {
        Ok(t) => t
            .as_slice()
            .iter()
            .map(|cell| cell.get_attr("cell_contents", vm).ok())
            .collect(),
        Err(_) => Vec::new(),
    };
    let globals: PyDictRef = f
        .get_attr("__globals__", vm)?
        .downcast()
        .map_err(|_| vm.new_type_error("function globals are not a dict"))?;
    let builtins = f
        .get_attr("__builtins__", vm)
        .unwrap_or_else(|_| vm.builtins.dict().into());
    let builtins = match builtins.downcast::<rustpython_vm::builtins::PyModule>() {
        Ok(m) => m.dict().into(),
        Err(b) => b,
    };
    Ok(Some(FrameValues {
        locals,
        cells,
        globals,
        builtins,
    }))
}

fn first_line(code: &PyCode) -> u32 {
    code.code.first_line_number.map_or(0, |l| l.get() as u32)
}

/// A source line from the user's file, for messages.
pub fn source_line(file: &str, line: u32, vm: &VirtualMachine) -> Option<String> {
    let linecache = vm.import("linecache", 0).ok()?;
    let text = vm
        .call_method(&linecache, "getline", (file.to_owned(), line))
        .ok()?;
    let s = text.str(vm).ok()?.to_string();
    (!s.trim().is_empty()).then(|| s.trim_end().to_owned())
}

fn log_recompile(code: &PyRef<PyCode>, failures: &[((u32, u32), String)]) {
    let verbose = logs::enabled(Artifact::RecompilesVerbose);
    let mut msg = format!(
        "Recompiling function {} in {}:{}\n    triggered by the following guard failure(s):",
        code.code.obj_name,
        code.code.source_path,
        first_line(code)
    );
    for ((f, c), reason) in failures {
        let _ = std::fmt::Write::write_fmt(&mut msg, format_args!("\n    - {f}/{c}: {reason}"));
        if !verbose {
            break;
        }
    }
    let a = if verbose {
        Artifact::RecompilesVerbose
    } else {
        Artifact::Recompiles
    };
    logs::log(a, None, &msg);
}

thread_local! {
    static WARNED_LIMIT: RefCell<HashSet<usize>> = RefCell::new(HashSet::new());
}

/// The recompile limit was hit: warn once and run this code unchanged from now on (run-only), or
/// raise under `fullgraph=True`.
fn limit_hit(
    code: &PyRef<PyCode>,
    limit: usize,
    failures: &[((u32, u32), String)],
    cfg: &CompileConfig,
    vm: &VirtualMachine,
) -> PyResult<FrameAction> {
    let last = failures
        .first()
        .map_or_else(String::new, |(_, r)| r.clone());
    let msg = format!(
        "torch._dynamo hit config.recompile_limit ({limit})\n   function: '{}' ({}:{})\n   last reason: {last}\nTo log all recompilation reasons, use TORCH_LOGS=\"recompiles\".\nTo diagnose recompilation issues, see https://pytorch.org/docs/main/torch.compiler_troubleshooting.html.",
        code.code.obj_name,
        code.code.source_path,
        first_line(code)
    );
    if cfg.fullgraph {
        return Ok(FrameAction::Raise(vm.new_runtime_error(format!(
            "{msg}\n(FailOnRecompileLimitHit: recompile limit reached with fullgraph=True)"
        ))));
    }
    let first = WARNED_LIMIT.with(|w| w.borrow_mut().insert(code.as_object() as *const _ as usize));
    if first {
        let _ = super::py_module::warn(&msg, vm);
    }
    cache::set_action(code, Action::RunOnly);
    Ok(FrameAction::RunUnchanged)
}

fn log_compiled(
    code: &PyRef<PyCode>,
    compile_id: (u32, u32),
    graph: &rynamo_graph::Graph,
    guards: &GuardTree,
    out: &OutputGraph,
    vm: &VirtualMachine,
) {
    if logs::enabled(Artifact::Guards) {
        logs::log(Artifact::Guards, Some(compile_id), &guards.dump(vm));
    }
    if logs::enabled(Artifact::GraphCode) || logs::enabled(Artifact::Graph) {
        if let Ok(text) = super::fx::readable(graph, out, &code.code.obj_name.to_string(), vm) {
            logs::log(
                Artifact::GraphCode,
                Some(compile_id),
                &format!("TRACED GRAPH\n{text}"),
            );
        }
        logs::log(
            Artifact::Graph,
            Some(compile_id),
            &format!("TRACED GRAPH\n{graph}"),
        );
    }
    logs::log(
        Artifact::Dynamo,
        Some(compile_id),
        &format!(
            "Step 1: torchdynamo done tracing {} ({}:{})",
            code.code.obj_name,
            code.code.source_path,
            first_line(code)
        ),
    );
}
