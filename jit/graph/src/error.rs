//! The crate's one error type.

use rynamo_tensor::ErrorKind;

/// Errors from binding, meta rules, eager calls, graph building and parsing.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A tensor-runtime error (its kind and wording pass through).
    #[error(transparent)]
    Tensor(#[from] rynamo_tensor::Error),
    /// Argument binding failed (Python `TypeError`); the message is complete.
    #[error("{0}")]
    Bind(String),
    /// An op schema string does not parse (a bug in the op table).
    #[error("bad schema `{schema}`: {msg}")]
    Schema {
        /// The schema text.
        schema: String,
        /// What is wrong.
        msg: String,
    },
    /// Graph text does not parse.
    #[error("graph text, line {line}: {msg}")]
    Parse {
        /// 1-based line.
        line: usize,
        /// What is wrong.
        msg: String,
    },
    /// An op or overload name that is not registered.
    #[error("unknown op `{0}`")]
    UnknownOp(String),
    /// An argument of the wrong kind reached a rule (bind was skipped); the message is complete.
    #[error("{0}")]
    BadArgs(String),
    /// A graph value id that does not exist, or other misuse of the graph API.
    #[error("{0}")]
    Graph(String),
    /// An error raised by embedder code the runtime called (a Python autograd hook or custom
    /// backward), carried through unchanged so the embedder can raise the original.
    #[error("{0}")]
    External(ExternalError),
}

/// An embedder's error object (e.g. a Python exception) with its message.
#[derive(Clone)]
pub struct ExternalError {
    /// The message, for `Display`.
    pub message: String,
    /// The embedder's object; downcast by the embedder that made it.
    pub payload: std::sync::Arc<dyn std::any::Any + Send + Sync>,
}

impl std::fmt::Display for ExternalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::fmt::Debug for ExternalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ExternalError({:?})", self.message)
    }
}

impl PartialEq for ExternalError {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.payload, &other.payload)
    }
}

impl Error {
    /// Whether a meta rule failed only because the output shape depends on data (a capturer
    /// turns this into a graph break rather than an error).
    pub fn is_data_dependent(&self) -> bool {
        matches!(self, Error::Tensor(rynamo_tensor::Error::DataDependent(_)))
    }

    /// The Python exception class this error is raised as.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Tensor(e) => e.kind(),
            Error::Bind(_) | Error::BadArgs(_) => ErrorKind::Type,
            Error::Schema { .. }
            | Error::Parse { .. }
            | Error::UnknownOp(_)
            | Error::Graph(_)
            | Error::External(_) => ErrorKind::Runtime,
        }
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
