//! The crate's one error type.

/// A malformed wire graph or tensor descriptor.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes end early.
    #[error("wire graph truncated at byte {at}: {what} needs {need} more bytes")]
    Truncated {
        /// Offset where reading stopped.
        at: usize,
        /// What was being read.
        what: &'static str,
        /// Bytes missing.
        need: usize,
    },
    /// The bytes do not start with `RYGW`.
    #[error("not a Rynamo wire graph (bad magic)")]
    BadMagic,
    /// A wire version this decoder does not know.
    #[error("wire graph version {found} is not supported (this side speaks version {supported})")]
    Version {
        /// Version in the bytes.
        found: u32,
        /// Version this crate implements.
        supported: u32,
    },
    /// An op id past the end of this build's op table.
    #[error("node {node}: unknown op id {id} (this build knows {known} ops)")]
    UnknownOp {
        /// Node index.
        node: usize,
        /// The id.
        id: u16,
        /// `Op::ALL.len()` here.
        known: usize,
    },
    /// Anything else that is malformed; the message says what and where.
    #[error("malformed wire graph at byte {at}: {msg}")]
    Malformed {
        /// Offset of the offending field.
        at: usize,
        /// What is wrong.
        msg: String,
    },
    /// The graph cannot be encoded (it is not in SSA form, or too large).
    #[error("cannot encode graph: {0}")]
    Encode(String),
    /// A tensor descriptor that does not describe a usable tensor.
    #[error("bad tensor descriptor: {0}")]
    Descriptor(String),
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
