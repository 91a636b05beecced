//! The list of checks, and running them into a [`Report`].

use std::fmt;
use std::path::Path;

use crate::{Error, checks};

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
