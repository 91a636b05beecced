//! Graph-to-graph passes and the pipeline helper.
//!
//! A pass is a free function `fn(&mut Graph, &PassCx)` in its own file. [`PassCx::run`] times it,
//! dumps the graph when `RYNAMO_DUMP_AFTER` names it, and runs the verifier after it in debug
//! builds or when `RYNAMO_VERIFY=1`.

mod eliminate_common_subexpressions;
mod eliminate_dead_code;

use std::time::{Duration, Instant};

pub use eliminate_common_subexpressions::eliminate_common_subexpressions;
pub use eliminate_dead_code::eliminate_dead_code;

use crate::{Graph, VerifyError, verify};

/// Context shared by the passes of one pipeline run.
#[derive(Debug)]
pub struct PassCx {
    /// Verify after each pass.
    pub verify: bool,
    /// Print the graph to stderr after the pass with this name.
    pub dump_after: Option<String>,
    /// `(pass name, duration)` of each pass run, in order.
    pub timings: Vec<(&'static str, Duration)>,
    /// When set, `(pass name, graph text after it)` of each pass run, in order: the per-pass
    /// graphs of `TORCH_COMPILE_DEBUG=1` ([`record_passes`]).
    pub graphs: Option<Vec<(&'static str, String)>>,
}

static RECORD: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes every new [`PassCx`] keep the graph after each pass (`TORCH_COMPILE_DEBUG=1`).
pub fn record_passes(on: bool) {
    RECORD.store(on, std::sync::atomic::Ordering::Relaxed);
}

impl Default for PassCx {
    fn default() -> Self {
        PassCx {
            verify: cfg!(debug_assertions)
                || std::env::var("RYNAMO_VERIFY").is_ok_and(|v| v == "1"),
            dump_after: std::env::var("RYNAMO_DUMP_AFTER").ok(),
            timings: Vec::new(),
            graphs: RECORD
                .load(std::sync::atomic::Ordering::Relaxed)
                .then(Vec::new),
        }
    }
}

impl PassCx {
    /// Runs one named pass.
    pub fn run(
        &mut self,
        g: &mut Graph,
        name: &'static str,
        pass: fn(&mut Graph, &PassCx),
    ) -> Result<(), Vec<VerifyError>> {
        let t = Instant::now();
        // A panic inside names its pass on its way to the backend's boundary (issue 30).
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            rynamo_tensor::unwind::fault::check("pass", name);
            pass(g, self)
        }));
        if let Err(payload) = ran {
            if payload.is::<rynamo_tensor::unwind::Raised>() {
                std::panic::resume_unwind(payload);
            }
            let msg = rynamo_tensor::unwind::panic_message(&*payload);
            std::panic::resume_unwind(Box::new(format!("pass `{name}`: {msg}")));
        }
        self.timings.push((name, t.elapsed()));
        if self.dump_after.as_deref() == Some(name) {
            eprintln!("// after {name}\n{g}");
        }
        if let Some(graphs) = &mut self.graphs {
            graphs.push((name, g.to_string()));
        }
        if self.verify {
            verify(g).map_err(|mut errs| {
                for e in &mut errs {
                    e.msg = format!("after pass `{name}`: {}", e.msg);
                }
                errs
            })?;
        }
        Ok(())
    }
}

/// The whole graph-level mid-end, in order. Read this to know what runs.
pub fn optimize(g: &mut Graph, cx: &mut PassCx) -> Result<(), Vec<VerifyError>> {
    cx.run(
        g,
        "eliminate common subexpressions",
        eliminate_common_subexpressions,
    )?;
    // NOTE: after CSE, whose replaced duplicates are dead.
    cx.run(g, "eliminate dead code", eliminate_dead_code)
}
