//! Loads backend plugins (libloading), checks their ABI, and adapts them to the Backend trait.
//!
//! ```text
//!   load(path) -> PluginLibrary::open     dlopen; rynamo_plugin_get_api; struct_size and
//!                                         abi_major checks; minor-gated fields; initialize (1.1+)
//!             -> PluginBackend (Backend)  supports: plugin mask AND host_policy
//!   compile(graph) -> partition           runs of plugin / fallback nodes, each a subgraph
//!                  -> PartitionedExecutable: PluginExecutable (wire bytes -> plugin compile)
//!                                            or the fallback backend's executable
//!   run(inputs)    -> segments in order; plugin outputs adopted zero-copy, checked against metas
//! ```
//!
//! **Invariants.** The library stays loaded while any executable or output tensor from it lives
//! (each holds an `Arc<PluginLibrary>`). A plugin's error surfaces as [`Error::Plugin`] with its
//! message (as `rynamo_backend::Error::Failed` through the `Backend` trait), or, with
//! [`LoadOptions::fallback_on_error`], the failing part reruns on the fallback backend.
//!
//! **Semantics a caller must know.** Plugin outputs are fresh buffers: they never alias graph inputs
//! (the eager backend's view outputs do). In-place, random and data-dependent nodes never go to a
//! plugin, and a graph with any in-place node runs wholly on the fallback, so aliasing and the host
//! RNG stream behave exactly as in eager mode ([`partition::host_policy`]).
//!
//! ```no_run
//! use rynamo_backend::BackendRegistry;
//! let registry = BackendRegistry::with_defaults();
//! let plugin = rynamo_plugin_host::load("target/debug/librynamo_plugin_reference.so").unwrap();
//! rynamo_plugin_host::register(&registry, plugin).unwrap();
//! assert!(registry.list().contains(&"reference".to_string()));
//! ```

#![warn(missing_docs)]

mod backend;
mod env;
mod error;
mod executable;
mod library;
mod log;
pub mod partition;

#[cfg(test)]
mod tests;

pub use backend::{LoadOptions, PartitionedExecutable, Placement, PluginBackend};
pub use env::{
    PLUGINS_ENV, load, load_and_register, load_from_env, load_list, load_with, parse_plugin_list,
    register,
};
pub use error::{Error, Result, code_name};
pub use executable::PluginExecutable;
pub use library::PluginLibrary;
pub use log::LogMessage;
