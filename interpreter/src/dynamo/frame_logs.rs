//! What converting a frame reports: the `TORCH_LOGS` artifacts of a compiled frame (`bytecode`,
//! `recompiles`/`recompiles_verbose`, `guards`, `graph`/`graph_code`, `dynamo`), the recompile
//! limit's warning and error, and the user tracebacks of graph breaks. Formats follow Dynamo's
//! (`convert_frame.py`, `guards.py`); `convert_frame.rs` decides, this file words it.

use std::cell::RefCell;
use std::collections::HashSet;

use rustpython_vm::builtins::PyCode;
use rustpython_vm::{AsObject, PyRef, PyResult, VirtualMachine};

use super::cache::{self, Action};
use super::compile::CompileConfig;
use super::config;
use super::exc::GraphBreak;
use super::guards::GuardTree;
use super::logs::{self, Artifact};
use super::output_graph::OutputGraph;
use crate::eval_frame::FrameAction;

/// The first line of `code`'s function, as Dynamo names frames (`fn in file:line`).
pub(super) fn first_line(code: &PyCode) -> u32 {
    code.code.first_line_number.map_or(0, |l| l.get() as u32)
}

/// The user traceback of a break, as Python prints frames.
pub(super) fn user_traceback(b: &GraphBreak, vm: &VirtualMachine) -> String {
    let mut s = String::new();
    for (f, l, n) in &b.user_stack {
        s.push_str(&format!("  File \"{f}\", line {l}, in {n}\n"));
        if let Some(text) = source_line(f, *l, vm) {
            s.push_str(&format!("    {}\n", text.trim()));
        }
    }
    s
}

/// `TORCH_LOGS=bytecode`: the frame's bytecode (a resume function's, prologue included) and the
/// code that replaces it at a graph break. A frame captured whole has no replacement: its cache
/// entry checks the guards and runs the graph directly.
pub(super) fn log_bytecode(
    orig: &PyRef<PyCode>,
    new: Option<&PyRef<PyCode>>,
    compile_id: (u32, u32),
) {
    if !logs::enabled(Artifact::Bytecode) {
        return;
    }
    let dis = |c: &PyCode| {
        let bc = super::bytecode::Bytecode::decode(c);
        let mut s = String::new();
        for i in &bc.instrs {
            s.push_str(&format!(
                "{:>4} {:>6} {:<28} {}\n",
                i.line.map_or(String::new(), |l| l.to_string()),
                i.index * 2,
                i.name(),
                i.arg
            ));
        }
        s
    };
    let modified = match new {
        Some(new) => format!(
            "MODIFIED BYTECODE {} {} line {}\n{}",
            super::resume::display_name(new),
            new.code.source_path,
            first_line(new),
            dis(new)
        ),
        None => {
            "MODIFIED BYTECODE (none: the cache entry runs the compiled graph directly)\n".into()
        }
    };
    logs::log(
        Artifact::Bytecode,
        Some(compile_id),
        &format!(
            "ORIGINAL BYTECODE {} {} line {}\n{}\n{modified}",
            super::resume::display_name(orig),
            orig.code.source_path,
            first_line(orig),
            dis(orig),
        ),
    );
}

/// A source line from the user's file, for messages.
pub fn source_line(file: &str, line: u32, vm: &VirtualMachine) -> Option<String> {
    if !file.ends_with(".py")
        && let Some(text) = rynamo_shims::frozen_source(file)
    {
        let l = text.lines().nth((line as usize).checked_sub(1)?)?;
        return (!l.trim().is_empty()).then(|| l.trim_end().to_owned());
    }
    let linecache = vm.import("linecache", 0).ok()?;
    let text = vm
        .call_method(&linecache, "getline", (file.to_owned(), line))
        .ok()?;
    let s = text.str(vm).ok()?.to_string();
    (!s.trim().is_empty()).then(|| s.trim_end().to_owned())
}

/// `TORCH_LOGS=recompiles`: why each cache entry of the frame failed, one line per entry in
/// lookup order (most recently used first: `- 0/1: ...`, then `- 0/0: ...`), as Dynamo's
/// `get_and_maybe_log_recompilation_reasons`. `recompiles_verbose` gives every entry its own
/// `guard <i> failures:` paragraph; Dynamo lists more than one check per entry there only for
/// symbolic-shape guards, which Rynamo does not have, so each entry shows its first failure.
pub(super) fn log_recompile(
    code: &PyRef<PyCode>,
    compile_id: Option<(u32, u32)>,
    failures: &[((u32, u32), String)],
) {
    let verbose = logs::enabled(Artifact::RecompilesVerbose);
    if !verbose && !logs::enabled(Artifact::Recompiles) {
        return;
    }
    let msg = format!(
        "Recompiling function {} in {}:{}\n{}",
        super::resume::display_name(code),
        code.code.source_path,
        first_line(code),
        failure_details(failures, verbose)
    );
    let a = if verbose {
        Artifact::RecompilesVerbose
    } else {
        Artifact::Recompiles
    };
    logs::log(a, compile_id, &msg);
}

/// The indented `triggered by the following guard failure(s):` block of recompile logs and the
/// `fail_on_recompile` error: one `- <compile id>: <reason>` line per cache entry, or (verbose)
/// one `guard <i> failures:` paragraph per entry.
pub(super) fn failure_details(failures: &[((u32, u32), String)], verbose: bool) -> String {
    let reasons: Vec<String> = failures.iter().map(entry_reason).collect();
    let listed = if verbose {
        reasons
            .iter()
            .enumerate()
            .map(|(i, r)| format!("guard {i} failures:\n{}", indent(r, "- ")))
            .collect::<Vec<_>>()
            .join("\n\n")
    } else {
        indent(&reasons.join("\n"), "- ")
    };
    indent(
        &format!("triggered by the following guard failure(s):\n{listed}"),
        "    ",
    )
}

/// One cache entry's guard failure as Dynamo reports it: `<compile id>: <reason>`.
fn entry_reason(((frame, compile), reason): &((u32, u32), String)) -> String {
    format!("{frame}/{compile}: {reason}")
}

/// `textwrap.indent`: `prefix` before every line that is not blank.
fn indent(text: &str, prefix: &str) -> String {
    text.split('\n')
        .map(|l| {
            if l.trim().is_empty() {
                l.to_owned()
            } else {
                format!("{prefix}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

thread_local! {
    static WARNED_LIMIT: RefCell<HashSet<usize>> = RefCell::new(HashSet::new());
}

/// The recompile limit was hit: warn once, then raise `FailOnRecompileLimitHit` under
/// `fullgraph=True` or `config.fail_on_recompile_limit_hit`, or else run this code unchanged
/// from now on (run-only), as Dynamo's `_compile`.
pub(super) fn limit_hit(
    code: &PyRef<PyCode>,
    limit: usize,
    failures: &[((u32, u32), String)],
    cfg: &CompileConfig,
    vm: &VirtualMachine,
) -> PyResult<FrameAction> {
    // Dynamo's `recompile_reason`: the first entry's (the most recently used one).
    let last = failures.first().map_or_else(
        || "Unable to find recompilation reasons".to_owned(),
        entry_reason,
    );
    let msg = format!(
        "torch._dynamo hit config.recompile_limit ({limit})\n   function: '{}' ({}:{})\n   last reason: {last}\nTo log all recompilation reasons, use TORCH_LOGS=\"recompiles\".\nTo diagnose recompilation issues, see https://pytorch.org/docs/main/torch.compiler_troubleshooting.html.",
        super::resume::display_name(code),
        code.code.source_path,
        first_line(code)
    );
    let first = WARNED_LIMIT.with(|w| w.borrow_mut().insert(code.as_object() as *const _ as usize));
    if first {
        let _ = super::py_module::warn(&msg, vm);
    }
    let hard = if config::fail_on_recompile_limit_hit() {
        Some("Hard failure due to fail_on_recompile_limit_hit")
    } else if cfg.fullgraph {
        Some("Hard failure due to fullgraph=True")
    } else {
        None
    };
    if let Some(text) = hard {
        return Ok(FrameAction::Raise(super::py_module::dynamo_error(
            "FailOnRecompileLimitHit",
            text,
            vm,
        )));
    }
    cache::set_action(code, Action::RunOnly);
    Ok(FrameAction::RunUnchangedRunOnly)
}

pub(super) fn log_compiled(
    code: &PyRef<PyCode>,
    compile_id: (u32, u32),
    graph: &rynamo_graph::Graph,
    guards: &GuardTree,
    out: &OutputGraph,
    vm: &VirtualMachine,
) {
    if super::debug_dir::enabled() {
        let dir = super::debug_dir::frame_dir(compile_id);
        super::debug_dir::write(&format!("{dir}/graph.txt"), &graph.to_string());
        super::debug_dir::write(&format!("{dir}/guards.txt"), &guards.dump());
        if let Ok(text) = super::fx::readable(graph, out, &super::resume::display_name(code), vm) {
            super::debug_dir::write(&format!("{dir}/graph_code.py"), &text);
        }
    }
    if logs::enabled(Artifact::Guards) {
        logs::log(Artifact::Guards, Some(compile_id), &guards.dump());
    }
    if logs::enabled(Artifact::GraphCode) || logs::enabled(Artifact::Graph) {
        if let Ok(text) = super::fx::readable(graph, out, &super::resume::display_name(code), vm) {
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
            super::resume::display_name(code),
            code.code.source_path,
            first_line(code)
        ),
    );
}
