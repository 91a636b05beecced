//! The crate's one error type. Every variant maps to a Python exception class through [`Error::kind`],
//! and its `Display` text follows PyTorch's wording where users know it.

use crate::DType;

/// Which Python exception an [`Error`] becomes at the Python boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// `RuntimeError`.
    Runtime,
    /// `IndexError`.
    Index,
    /// `TypeError`.
    Type,
    /// `ValueError`.
    Value,
    /// `NotImplementedError`.
    NotImplemented,
}

/// Errors raised by tensor construction, views and kernels.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    // === Shape errors ===
    /// A dim argument outside `[-ndim, ndim - 1]`.
    #[error("Dimension out of range (expected to be in range of [{min}, {max}], but got {dim})")]
    DimOutOfRange {
        /// The dim as the caller gave it.
        dim: i64,
        /// Lowest accepted value.
        min: i64,
        /// Highest accepted value.
        max: i64,
    },
    /// Two shapes cannot be broadcast together.
    #[error(
        "The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton dimension {dim}"
    )]
    BroadcastMismatch {
        /// Size on the left.
        a: usize,
        /// Size on the right.
        b: usize,
        /// Dimension counted from the left of the broadcast result.
        dim: usize,
    },
    /// `view` on a layout whose strides cannot express the new shape.
    #[error(
        "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead."
    )]
    ViewIncompatible,
    /// A shape whose element count differs from the input's.
    #[error("shape '{shape:?}' is invalid for input of size {numel}")]
    InvalidShape {
        /// Requested shape (may contain one -1).
        shape: Vec<i64>,
        /// Element count of the input.
        numel: usize,
    },
    /// Any other shape rule violation; the message is complete.
    #[error("{0}")]
    Shape(String),

    // === Index errors ===
    /// An integer index past the end of a dimension.
    #[error("index {index} is out of bounds for dimension {dim} with size {size}")]
    IndexOutOfBounds {
        /// The index as given.
        index: i64,
        /// Dimension indexed.
        dim: usize,
        /// Size of that dimension.
        size: usize,
    },
    /// Other indexing errors; the message is complete.
    #[error("{0}")]
    Index(String),

    // === Type errors ===
    /// A dtype the operation does not accept; the message is complete.
    #[error("{0}")]
    DType(String),
    /// A Python-level type error (wrong argument kind); the message is complete.
    #[error("{0}")]
    Type(String),
    /// A dtype that an op has no kernel for.
    #[error("\"{op}\" not implemented for '{dtype}'")]
    NotImplementedFor {
        /// The op.
        op: &'static str,
        /// PyTorch's dtype spelling, e.g. `Bool`, `Long`.
        dtype: &'static str,
    },

    // === Value errors ===
    /// A bad argument value; the message is complete.
    #[error("{0}")]
    Value(String),

    // === Runtime errors ===
    /// Integer division or remainder by zero.
    #[error("ZeroDivisionError")]
    ZeroDivision,
    /// An in-place result dtype that cannot be cast back into the destination.
    #[error(
        "result type {} can't be cast to the desired output type {}",
        from.aten_name(),
        to.aten_name()
    )]
    CannotCast {
        /// Computed result type.
        from: DType,
        /// Destination dtype.
        to: DType,
    },
    /// Any other runtime error; the message is complete.
    #[error("{0}")]
    Runtime(String),
    /// The allocator could not provide a buffer (PyTorch's CPU allocator wording).
    #[error(
        "DefaultCPUAllocator: can't allocate memory: you tried to allocate {nbytes} bytes. Error code 12 (Cannot allocate memory)"
    )]
    OutOfMemory {
        /// The size asked for.
        nbytes: usize,
    },
    /// A shape that depends on tensor data (boolean-mask indexing), asked of a meta rule.
    #[error("{0}: output shape depends on tensor data (data-dependent output shape)")]
    DataDependent(String),
    /// An operation this runtime does not implement yet.
    #[error("{0}")]
    NotImplemented(String),
}

impl Error {
    /// The Python exception class this error is raised as.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::IndexOutOfBounds { .. } | Error::Index(_) | Error::DimOutOfRange { .. } => {
                ErrorKind::Index
            }
            Error::Type(_) => ErrorKind::Type,
            Error::Value(_) => ErrorKind::Value,
            // ATen's dispatch macros raise `c10::NotImplementedError` for a dtype without a kernel.
            Error::NotImplemented(_) | Error::NotImplementedFor { .. } => ErrorKind::NotImplemented,
            Error::BroadcastMismatch { .. }
            | Error::ViewIncompatible
            | Error::InvalidShape { .. }
            | Error::Shape(_)
            | Error::DType(_)
            | Error::ZeroDivision
            | Error::CannotCast { .. }
            | Error::Runtime(_)
            | Error::OutOfMemory { .. }
            | Error::DataDependent(_) => ErrorKind::Runtime,
        }
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Returns early with `Error::$variant(format!(...))`.
macro_rules! bail {
    ($variant:ident, $($fmt:tt)*) => {
        return Err($crate::Error::$variant(format!($($fmt)*)))
    };
}
pub(crate) use bail;
