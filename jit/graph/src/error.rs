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
            Error::Schema { .. } | Error::Parse { .. } | Error::UnknownOp(_) | Error::Graph(_) => {
                ErrorKind::Runtime
            }
        }
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
