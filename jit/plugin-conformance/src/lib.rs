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
mod error;
mod report;
pub mod samples;

pub use error::Error;
pub use report::{CHECKS, CheckFn, Report, run_all, run_check};
