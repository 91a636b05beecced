//! The graph-to-graph passes every backend shares, and the pipeline that runs them
//! ([`pipeline::run`]: read it to know what runs, in order).
//!
//! A pass is a free function `fn(&mut Graph, &PassCx)` in its own file. [`PassCx::run`] times it,
//! dumps the graph when `RYNAMO_DUMP_AFTER` names it, and runs the verifier after it in debug
//! builds or when `RYNAMO_VERIFY=1`. Each pass has golden tests under `tests/golden/` (input
//! graph and expected output in the text IR; `RYNAMO_BLESS=1` rewrites the expectations).
//!
//! Backends keep what is theirs: `rynamo-dynasm` its fusion, scheduling and lowering (and its
//! own rewrite `fuse bias`, which the pipeline runs where the JIT asks); plugins receive the
//! functionalized graphs `functionalize_inputs` makes.

mod decompose;
mod eliminate_common_subexpressions;
mod eliminate_dead_code;
mod fold_constants;
mod functionalize;
mod functionalize_inputs;
pub mod pipeline;

#[cfg(test)]
mod tests;

use std::time::{Duration, Instant};

pub use decompose::decompose;
pub use eliminate_common_subexpressions::eliminate_common_subexpressions;
pub use eliminate_dead_code::eliminate_dead_code;
pub use fold_constants::fold_constants;
pub use functionalize::functionalize;
pub use functionalize_inputs::{
    functionalize_inputs, is_write_back, trailing_write_backs, write_backs,
};
use rynamo_graph::{Graph, VerifyError, verify};

/// A pass.
pub type Pass = fn(&mut Graph, &PassCx);

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
        pass: Pass,
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
