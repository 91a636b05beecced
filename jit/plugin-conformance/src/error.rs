//! The crate's one error type.

/// What a failing check reports.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The plugin behaved wrongly; the message says how.
    #[error("{0}")]
    Check(String),
    /// The host reported an error.
    #[error(transparent)]
    Host(#[from] rynamo_plugin_host::Error),
    /// The eager oracle or a fallback failed.
    #[error(transparent)]
    Backend(#[from] rynamo_backend::Error),
    /// Building a sample graph failed.
    #[error(transparent)]
    Graph(#[from] rynamo_graph::Error),
    /// Encoding a graph failed.
    #[error(transparent)]
    Wire(#[from] rynamo_plugin_wire::Error),
}

impl From<String> for Error {
    fn from(s: String) -> Error {
        Error::Check(s)
    }
}
