//! The crate's one error type.

use rynamo_tensor::ErrorKind;

/// Errors from compiling or running graphs and from the registry.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An op failed while running (kind and wording pass through).
    #[error(transparent)]
    Graph(#[from] rynamo_graph::Error),
    /// The graph failed verification at compile time.
    #[error("invalid graph: {0}")]
    InvalidGraph(String),
    /// Run-time inputs do not match the graph's inputs.
    #[error("{0}")]
    Inputs(String),
    /// No backend of that name is registered.
    #[error("unknown backend `{0}`; registered: {1}")]
    NotFound(String, String),
    /// A backend of that name is already registered.
    #[error("duplicate backend name `{0}`")]
    Duplicate(String),
    /// A backend failed while compiling or running (e.g. a plugin's error, with its message).
    #[error("backend `{backend}` failed: {message}")]
    Failed {
        /// Backend name.
        backend: String,
        /// What went wrong, in the backend's words.
        message: String,
    },
    /// The backend cannot run this graph.
    #[error("backend `{backend}` does not support this graph: {reason}")]
    Unsupported {
        /// Backend name.
        backend: String,
        /// Why.
        reason: String,
    },
}

impl Error {
    /// The Python exception class this error is raised as.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Graph(e) => e.kind(),
            Error::Inputs(_)
            | Error::InvalidGraph(_)
            | Error::Duplicate(_)
            | Error::Unsupported { .. }
            | Error::Failed { .. } => ErrorKind::Runtime,
            Error::NotFound(..) => ErrorKind::Value,
        }
    }
}

impl From<rynamo_tensor::Error> for Error {
    fn from(e: rynamo_tensor::Error) -> Error {
        Error::Graph(e.into())
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
