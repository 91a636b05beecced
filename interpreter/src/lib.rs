//! Rynamo: TorchDynamo rebuilt in Rust, on an embedded RustPython 0.6 interpreter.
//!
//! This crate is the `rynamo` binary and its embedding API:
//! - [`Interpreter`] runs Python (files, strings, expressions, calls) inside a Rust program;
//! - [`eval_frame`] is the frame-evaluation hook that Dynamo's frame converter plugs into;
//! - [`cli`] is the python-compatible command line.
//!
//! ```
//! let interp = rynamo::Interpreter::builder().build();
//! let n: i64 = interp.eval("len([1, 2, 3])")?;
//! assert_eq!(n, 3);
//! # Ok::<(), rynamo::Error>(())
//! ```

pub mod backends;
pub mod cli;
pub mod convert;
pub mod dynamo;
pub mod embed;
pub mod eval_frame;
pub mod function_parts;
pub mod plugins;

pub use convert::{FromPy, IntoPy, IntoPyArgs};
pub use embed::{Builder, Error, Interpreter, Result};
pub use rustpython_vm as vm;

/// The RustPython release Rynamo embeds (pinned exactly in the workspace manifest).
pub const RUSTPYTHON_VERSION: &str = "0.6.0";
