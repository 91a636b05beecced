//! The crate's one error type.

/// Errors from planning or emitting kernels. Compilation never surfaces them to users: the backend
/// falls back to the eager interpreter (see [`crate::DynasmBackend`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The kernel planner met a case it does not lower.
    #[error("cannot lower: {0}")]
    Lower(String),
    /// The emitter failed.
    #[error("cannot emit: {0}")]
    Emit(String),
    /// No JIT target for this architecture.
    #[error("no JIT target for this architecture")]
    NoTarget,
    /// A graph pass left an invalid graph.
    #[error("invalid graph after pass: {0}")]
    Verify(String),
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
