//! Compile-phase timings, as PyTorch's `dynamo_timed` records them: each phase (`bytecode_tracing`,
//! `OutputGraph.call_user_compiler`, `create_aot_dispatcher_function`, ...) keeps one duration per
//! run, in first-seen order. `torch._dynamo.utils.compile_times()` prints them, so the time of a
//! compile splits into Dynamo, AOT autograd and backend parts.

use std::sync::Mutex;
use std::time::Instant;

static TIMES: Mutex<Vec<(&'static str, Vec<f64>)>> = Mutex::new(Vec::new());

/// Runs `f`, adding its wall time in seconds to `phase`. The phase is listed when it starts,
/// so an enclosing phase comes before the phases inside it, as in PyTorch's table.
pub fn timed<R>(phase: &'static str, f: impl FnOnce() -> R) -> R {
    begin(phase);
    let start = Instant::now();
    let r = f();
    record(phase, start.elapsed().as_secs_f64());
    r
}

/// Lists `phase` (with no duration yet) if it is new: its place in the table is where it started.
pub fn begin(phase: &'static str) {
    let mut t = TIMES.lock().unwrap_or_else(|e| e.into_inner());
    if !t.iter().any(|(p, _)| *p == phase) {
        t.push((phase, Vec::new()));
    }
}

/// Adds one duration to `phase`.
pub fn record(phase: &'static str, seconds: f64) {
    let mut t = TIMES.lock().unwrap_or_else(|e| e.into_inner());
    match t.iter_mut().find(|(p, _)| *p == phase) {
        Some((_, v)) => v.push(seconds),
        None => t.push((phase, vec![seconds])),
    }
}

/// Every phase with its durations, in first-seen order.
pub fn phase_times() -> Vec<(&'static str, Vec<f64>)> {
    TIMES.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Forgets every duration (`torch._dynamo.reset()`).
pub fn reset() {
    TIMES.lock().unwrap_or_else(|e| e.into_inner()).clear();
}
