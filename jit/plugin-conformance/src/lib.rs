//! The conformance suite every Rynamo backend plugin must pass (after PJRT's C-API test factory):
//! run it from Rust ([`run_all`], [`run_check`]) or as a CLI
//! (`cargo run -p rynamo-plugin-conformance -- path/to/libplugin.so`).
//!
//! | check | what it proves |
//! |---|---|
//! | `handshake` | loads; ABI major matches; name valid; registers under its name once; loads dedupe |
//! | `supports` | one deterministic flag per node, for 1-node, 5-node and empty graphs |
//! | `ops` | every op the plugin claims matches `EagerBackend` on 3 random inputs (one strided) |
//! | `partitioning` | claimed/unclaimed runs split into plugin/fallback segments as claimed; results equal eager; mutating graphs stay on the host |
//! | `errors` | garbage, empty, truncated and future-version graphs and bad calls give errors with messages |
//! | `lifetime` | executables and outputs outlive the backend handle and keep the library loaded |
//! | `reload` | unload and load again, three times |
//! | `concurrency` | one executable on four threads |
//!
//! `artifacts` finds Rust cdylibs built as dev-dependencies and compiles C plugins, for tests.
//!
//! ```no_run
//! let report = rynamo_plugin_conformance::run_all(
//!     "target/debug/librynamo_plugin_reference.so".as_ref(),
//!     std::env::temp_dir().as_path(),
//! );
//! assert!(report.passed(), "{report}");
//! ```

#![warn(missing_docs)]

pub mod artifacts;
pub mod checks;
pub mod compare;
pub mod samples;

use std::fmt;
use std::path::Path;

/// What a failing check reports.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The plugin behaved wrongly; the message says how.
    #[error("{0}")]
    Check(String),
    /// The host reported an error.
    #[error(transparent)]
    Host(#[from] rynamo_plugin_host::Error),
    /// The eager oracle or a fallback failed.
    #[error(transparent)]
    Backend(#[from] rynamo_backend::Error),
    /// Building a sample graph failed.
    #[error(transparent)]
    Graph(#[from] rynamo_graph::Error),
    /// Encoding a graph failed.
    #[error(transparent)]
    Wire(#[from] rynamo_plugin_wire::Error),
}

impl From<String> for Error {
    fn from(s: String) -> Error {
        Error::Check(s)
    }
}

/// A check: plugin path and scratch directory in, summary out.
pub type CheckFn = fn(&Path, &Path) -> Result<String, Error>;

/// Every check, in order.
pub const CHECKS: &[(&str, CheckFn)] = &[
    ("handshake", checks::handshake),
    ("supports", checks::supports),
    ("ops", checks::ops),
    ("partitioning", checks::partitioning),
    ("errors", checks::errors),
    ("lifetime", checks::lifetime),
    ("reload", checks::reload),
    ("concurrency", checks::concurrency),
];

/// Runs one check by name.
pub fn run_check(name: &str, plugin: &Path, scratch: &Path) -> Result<String, Error> {
    let (_, f) = CHECKS
        .iter()
        .find(|(n, _)| *n == name)
        .ok_or_else(|| Error::Check(format!("no check named {name}")))?;
    f(plugin, scratch)
}

/// The outcome of every check.
#[derive(Debug)]
pub struct Report {
    /// `(check, outcome)` in order.
    pub results: Vec<(&'static str, Result<String, Error>)>,
}

impl Report {
    /// Whether every check passed.
    pub fn passed(&self) -> bool {
        self.results.iter().all(|(_, r)| r.is_ok())
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, r) in &self.results {
            match r {
                Ok(s) => writeln!(f, "PASS {name}: {s}")?,
                Err(e) => writeln!(f, "FAIL {name}: {e}")?,
            }
        }
        let passed = self.results.iter().filter(|(_, r)| r.is_ok()).count();
        write!(f, "{passed} passed, {} failed", self.results.len() - passed)
    }
}

/// Runs every check (a panic inside the host or the oracle counts as a failure).
pub fn run_all(plugin: &Path, scratch: &Path) -> Report {
    let results = CHECKS
        .iter()
        .map(|(name, f)| {
            let r = std::panic::catch_unwind(|| f(plugin, scratch))
                .unwrap_or_else(|_| Err(Error::Check("the check panicked".into())));
            (*name, r)
        })
        .collect();
    Report { results }
}
