//! The crate's one error type. Every variant names the plugin (by path while loading, by name after)
//! so a user with several plugins knows which one failed.

use std::path::PathBuf;

/// Errors from loading plugins and from what they return.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    // === Loading ===
    /// No file at the path.
    #[error("plugin {path}: no such file")]
    NotFound {
        /// The path given.
        path: PathBuf,
    },
    /// `dlopen` failed (not a shared library, wrong architecture, missing dependency...).
    #[error("plugin {path}: cannot load: {reason}")]
    Open {
        /// The path given.
        path: PathBuf,
        /// The loader's message.
        reason: String,
    },
    /// The library does not export `rynamo_plugin_get_api`.
    #[error("plugin {path}: not a Rynamo plugin: symbol `{symbol}` not found ({reason})")]
    MissingSymbol {
        /// The path given.
        path: PathBuf,
        /// The symbol looked up.
        symbol: String,
        /// The loader's message.
        reason: String,
    },
    /// `rynamo_plugin_get_api` returned NULL.
    #[error("plugin {path}: rynamo_plugin_get_api returned NULL (the plugin cannot run here)")]
    NullApi {
        /// The path given.
        path: PathBuf,
    },
    /// Different ABI major versions.
    #[error(
        "plugin {path}: ABI version mismatch: the plugin was built for ABI {plugin_major}.{plugin_minor}, \
         this host speaks ABI {host_major}.{host_minor} (major versions must be equal)"
    )]
    AbiMismatch {
        /// The path given.
        path: PathBuf,
        /// Plugin's major version.
        plugin_major: u32,
        /// Plugin's minor version.
        plugin_minor: u32,
        /// Host's major version.
        host_major: u32,
        /// Host's minor version.
        host_minor: u32,
    },
    /// The table is smaller than its version requires.
    #[error(
        "plugin {path}: RynamoPluginApi.struct_size is {got} bytes, but ABI {major}.{minor} needs at least {need}"
    )]
    StructTooSmall {
        /// The path given.
        path: PathBuf,
        /// Declared size.
        got: usize,
        /// Required size.
        need: usize,
        /// Plugin's major version (0 if the size was too small to read it).
        major: u32,
        /// Plugin's minor version.
        minor: u32,
    },
    /// The table is unusable (bad name, missing required function).
    #[error("plugin {path}: invalid function table: {reason}")]
    BadTable {
        /// The path given.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },

    // === Calls ===
    /// The plugin's table has NULL for a function the host needs.
    #[error("plugin `{plugin}`: `{function}` is not implemented (NULL in its function table)")]
    Unimplemented {
        /// Plugin name.
        plugin: String,
        /// Table field.
        function: &'static str,
    },
    /// The plugin returned an error.
    #[error("plugin `{plugin}`: {function} failed ({}): {message}", code_name(*.code))]
    Plugin {
        /// Plugin name.
        plugin: String,
        /// Table field.
        function: &'static str,
        /// `RYNAMO_ERROR_*`.
        code: u32,
        /// The plugin's message.
        message: String,
    },
    /// The plugin returned outputs that do not match the graph.
    #[error("plugin `{plugin}`: bad output {index}: {reason}")]
    BadOutput {
        /// Plugin name.
        plugin: String,
        /// Output position.
        index: usize,
        /// What is wrong.
        reason: String,
    },
    /// A graph could not be encoded for the plugin.
    #[error(transparent)]
    Wire(#[from] rynamo_plugin_wire::Error),
    /// The fallback backend (or graph checks) failed.
    #[error(transparent)]
    Backend(#[from] rynamo_backend::Error),
}

/// The name of a `RYNAMO_ERROR_*` code.
pub fn code_name(code: u32) -> &'static str {
    use rynamo_plugin_abi::*;
    match code {
        RYNAMO_ERROR_INVALID_ARGUMENT => "INVALID_ARGUMENT",
        RYNAMO_ERROR_NOT_FOUND => "NOT_FOUND",
        RYNAMO_ERROR_RESOURCE_EXHAUSTED => "RESOURCE_EXHAUSTED",
        RYNAMO_ERROR_UNIMPLEMENTED => "UNIMPLEMENTED",
        RYNAMO_ERROR_INTERNAL => "INTERNAL",
        RYNAMO_ERROR_UNAVAILABLE => "UNAVAILABLE",
        _ => "UNKNOWN",
    }
}

impl Error {
    /// As a backend error: plugin failures become [`rynamo_backend::Error::Failed`] carrying this
    /// error's full message.
    pub fn into_backend(self, backend: &str) -> rynamo_backend::Error {
        match self {
            Error::Backend(e) => e,
            e => rynamo_backend::Error::Failed {
                backend: backend.to_string(),
                message: e.to_string(),
            },
        }
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
