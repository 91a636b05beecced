//! Write a Rynamo backend plugin in safe Rust; a macro exports the C ABI.
//!
//! Implement [`Plugin`] (name, per-node `supports`, `compile`) and [`Executable`] (`execute` on
//! [`Tensor`](rynamo_tensor::Tensor)s), then invoke [`export_plugin!`] once in a `cdylib` crate. The
//! SDK builds the `RynamoPluginApi` table, decodes wire graphs into [`Graph`](rynamo_graph::Graph)s,
//! wraps input descriptors as tensors without copying, hands outputs over as DLPack-style managed
//! tensors, and turns [`Error`]s into ABI error objects.
//!
//! **Invariant:** every exported function body runs under `catch_unwind`; a panic becomes a
//! `RYNAMO_ERROR_INTERNAL` error ("plugin panicked: ...") and never crosses `extern "C"`.
//!
//! ```
//! use rynamo_plugin_sdk::{Executable, Plugin, Result, export_plugin};
//! use rynamo_plugin_sdk::graph::{Graph, Op};
//! use rynamo_plugin_sdk::tensor::Tensor;
//!
//! struct Negate;
//! struct NegExe;
//! impl Plugin for Negate {
//!     type Executable = NegExe;
//!     fn name(&self) -> &str { "negate" }
//!     fn version(&self) -> &str { "1.0" }
//!     fn supports(&self, g: &Graph) -> Vec<bool> {
//!         g.nodes().iter().map(|n| n.op == Op::Neg).collect()
//!     }
//!     fn compile(&self, _g: Graph) -> Result<NegExe> { Ok(NegExe) }
//! }
//! impl Executable for NegExe {
//!     fn execute(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
//!         Ok(vec![rynamo_plugin_sdk::graph::registry::call(
//!             Op::Neg, &[rynamo_plugin_sdk::graph::Value::Tensor(inputs[0].clone())])?.remove(0)])
//!     }
//! }
//! export_plugin!(Negate, Negate);
//!
//! let api = unsafe { &*rynamo_plugin_get_api() };
//! assert_eq!(api.abi_major, rynamo_plugin_sdk::abi::RYNAMO_ABI_MAJOR);
//! let name = unsafe { std::ffi::CStr::from_ptr(api.name) };
//! assert_eq!(name.to_str().unwrap(), "negate");
//! ```

#![warn(missing_docs)]

mod error;
mod export;
pub mod log;
mod macros;
mod plugin;

#[cfg(test)]
mod tests;

pub use error::{Error, Result};
pub use plugin::{Capabilities, Executable, HostInfo, Plugin};
pub use rynamo_graph as graph;
pub use rynamo_plugin_abi as abi;
pub use rynamo_plugin_wire as wire;
pub use rynamo_tensor as tensor;

/// Used by [`export_plugin!`]; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use crate::export::{Cell, Exported, get_api, guard};
}
