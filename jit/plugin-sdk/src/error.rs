//! The crate's one error type: what a plugin reports to the host, with a `RYNAMO_ERROR_*` code.

use rynamo_plugin_abi::*;

/// An error a plugin returns; the host shows its message and code.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The host passed something the plugin cannot accept.
    #[error("{0}")]
    InvalidArgument(String),
    /// Not implemented by this plugin (an op, a dtype, a feature).
    #[error("{0}")]
    Unimplemented(String),
    /// Out of memory or another resource.
    #[error("{0}")]
    ResourceExhausted(String),
    /// The device is missing or busy.
    #[error("{0}")]
    Unavailable(String),
    /// A bug in the plugin; caught panics become this.
    #[error("{0}")]
    Internal(String),
    /// A malformed wire graph or tensor descriptor.
    #[error(transparent)]
    Wire(#[from] rynamo_plugin_wire::Error),
    /// An op failed (bad arguments, shapes, dtypes).
    #[error(transparent)]
    Graph(#[from] rynamo_graph::Error),
    /// A tensor-runtime failure.
    #[error(transparent)]
    Tensor(#[from] rynamo_tensor::Error),
}

impl Error {
    /// The ABI error code sent to the host.
    pub fn code(&self) -> u32 {
        match self {
            Error::InvalidArgument(_) | Error::Wire(_) => RYNAMO_ERROR_INVALID_ARGUMENT,
            Error::Unimplemented(_) => RYNAMO_ERROR_UNIMPLEMENTED,
            Error::ResourceExhausted(_) => RYNAMO_ERROR_RESOURCE_EXHAUSTED,
            Error::Unavailable(_) => RYNAMO_ERROR_UNAVAILABLE,
            Error::Internal(_) | Error::Graph(_) | Error::Tensor(_) => RYNAMO_ERROR_INTERNAL,
        }
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
