//! Encoder and decoder of the graph wire format.
#![doc = include_str!("../../WIRE_FORMAT.md")]

use rynamo_tensor::DType;

mod decode;
mod encode;

pub use decode::{decode, header};
pub use encode::encode;

/// The first four bytes of every wire graph.
pub const MAGIC: [u8; 4] = *b"RYGW";
/// Bytes before the first value.
pub const HEADER_LEN: usize = 24;

macro_rules! wire_consts {
    ($($(#[doc = $doc:literal])* $name:ident = $v:literal;)*) => {
        $( $(#[doc = $doc])* pub const $name: u8 = $v; )*
        /// Every tag, for the generated header.
        pub(crate) const TAGS: &[(&str, u8)] = &[$((stringify!($name), $v)),*];
    };
}

wire_consts! {
    /// `None`.
    ARG_NONE = 0;
    /// A tensor: `u32` value id.
    ARG_TENSOR = 1;
    /// A tensor list: `u32 n`, `u32 ids[n]`.
    ARG_TENSOR_LIST = 2;
    /// A Python number: `u8 kind`, then the payload.
    ARG_SCALAR = 3;
    /// `i64`.
    ARG_INT = 4;
    /// `u32 n`, `i64 v[n]`.
    ARG_INT_LIST = 5;
    /// `f64`.
    ARG_FLOAT = 6;
    /// `u8`.
    ARG_BOOL = 7;
    /// `u32 len`, UTF-8.
    ARG_STR = 8;
    /// `u8` wire dtype.
    ARG_DTYPE = 9;
    /// `u32 n`, index items.
    ARG_INDEX = 10;
    /// Scalar kind: `u8` bool.
    SCALAR_BOOL = 0;
    /// Scalar kind: `i64`.
    SCALAR_INT = 1;
    /// Scalar kind: `f64`.
    SCALAR_FLOAT = 2;
    /// Index item: `i64`.
    INDEX_INT = 0;
    /// Index item: `u8 present`, then the present parts.
    INDEX_SLICE = 1;
    /// Index item: `None`.
    INDEX_NONE = 2;
    /// Index item: `...`.
    INDEX_ELLIPSIS = 3;
    /// Index item: `u8` bool.
    INDEX_BOOL = 4;
    /// Index item: `u32` value id.
    INDEX_TENSOR = 5;
}

/// The counts in a wire graph's header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Wire version.
    pub version: u32,
    /// Values (inputs plus node outputs).
    pub num_values: u32,
    /// Graph inputs.
    pub num_inputs: u32,
    /// Nodes.
    pub num_nodes: u32,
    /// Graph outputs.
    pub num_outputs: u32,
}

/// The wire code of a dtype (its `DType::ALL` index).
pub fn dtype_code(d: DType) -> u8 {
    DType::ALL
        .iter()
        .position(|x| *x == d)
        .expect("invariant: DType::ALL lists every dtype") as u8
}

/// The dtype of a wire code.
pub fn dtype_from_code(c: u8) -> Option<DType> {
    DType::ALL.get(c as usize).copied()
}
