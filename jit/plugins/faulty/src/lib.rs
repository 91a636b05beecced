//! A fault-injection plugin for host tests. It claims every node and runs graphs correctly through
//! the eager interpreter, except that the presence of certain ops in a graph triggers a fault:
//!
//! | op in graph | fault |
//! |---|---|
//! | `abs`  | `supports` panics |
//! | `sin`  | `compile` panics |
//! | `cos`  | `compile` returns an error |
//! | `tan`  | `execute` panics |
//! | `tanh` | `execute` returns an error |
//! | `exp`  | `execute` returns an output of the wrong shape |
//! | `log`  | `execute` returns an output of the wrong dtype |
//! | `neg`  | `execute` returns one output too many |
//!
//! Faults are keyed by graph content (not by environment variables) so tests running in parallel
//! threads stay independent.

#![warn(missing_docs)]

mod plugin;

pub use plugin::{Faulty, FaultyExecutable};
