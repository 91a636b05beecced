//! The versioned C ABI between Rynamo and backend plugins. Depends on nothing.
//!
//! A plugin is a shared library exporting one symbol, [`RYNAMO_PLUGIN_ENTRY`]
//! (`rynamo_plugin_get_api`), which returns a [`RynamoPluginApi`] table (after PJRT's `GetPjrtApi`):
//!
//! ```text
//!   host (rynamo-plugin-host)                         plugin (.so, e.g. via rynamo-plugin-sdk)
//!   dlopen + rynamo_plugin_get_api()  ------------->  &RynamoPluginApi {struct_size, abi_major, ...}
//!   check abi_major, struct_size; initialize (1.1+)
//!   supports(graph wire bytes)        ------------->  per-node 0/1 mask
//!   compile(graph wire bytes)         ------------->  RynamoExecutable*  | RynamoError*
//!   execute(exe, RynamoTensor[] in)   ------------->  RynamoManagedTensor*[] out (DLPack-style)
//!   error_message/error_code/error_destroy, executable_destroy, managed-tensor deleters
//! ```
//!
//! **Evolution.** The table and every args struct begin with `struct_size` and only grow at the end.
//! [`RYNAMO_ABI_MAJOR`] changes on anything incompatible (the host refuses a mismatch);
//! [`RYNAMO_ABI_MINOR`] changes when a field is appended, and the host reads a field only when the
//! plugin's minor version and `struct_size` both cover it ([`api_size_for_minor`]).
//!
//! **C header.** `include/rynamo_plugin.h` is generated from these declarations by [`c_header`] and
//! golden-tested; it also `_Static_assert`s every offset, so a C plugin that compiles agrees with
//! the Rust layout. Regenerate with `RYNAMO_BLESS=1 cargo test -p rynamo-plugin-abi`.
//!
//! ```
//! use rynamo_plugin_abi::{RynamoPluginApi, api_size_for_minor, struct_size};
//! assert_eq!(api_size_for_minor(0), struct_size!(RynamoPluginApi, execute));
//! assert_eq!(api_size_for_minor(1), std::mem::size_of::<RynamoPluginApi>());
//! assert!(rynamo_plugin_abi::c_header().contains("RynamoError* (*compile)(RynamoCompileArgs* args);"));
//! ```

#![deny(missing_docs)]

#[macro_use]
mod macros;
mod consts;
mod header;
mod sizes;
mod types;

#[cfg(test)]
mod tests;

pub use consts::*;
pub use header::{Const, Field, STRUCTS, Struct, c_header};
pub use sizes::{API_VERSION_PREFIX_SIZE, api_size_for_minor, field_size};
pub use types::*;
