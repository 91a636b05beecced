//! What crosses the plugin ABI besides the function table: graphs in a versioned wire format, and
//! DLPack-style tensor descriptors. Shared by the host (`rynamo-plugin-host`) and the SDK
//! (`rynamo-plugin-sdk`), so both sides read and write the same bytes; `rynamo-plugin-abi` itself
//! stays dependency-free.
//!
//! ```text
//!   Graph --encode--> bytes (WIRE_FORMAT.md, version RYNAMO_GRAPH_WIRE_VERSION) --decode--> Graph
//!   Tensor --TensorDesc--> RynamoTensor (borrowed)      RynamoManagedTensor --adopt--> Tensor
//! ```
//!
//! ```
//! use rynamo_graph::parse;
//! use rynamo_plugin_wire::{decode, encode};
//! let g = parse("graph(%x: f32[3]):\n  %0: f32[3] = mul(%x, 2.0)\n  return (%0)\n").unwrap();
//! let bytes = encode(&g).unwrap();
//! assert_eq!(&bytes[..4], b"RYGW");
//! assert_eq!(decode(&bytes).unwrap(), g);
//! ```

#![warn(missing_docs)]

pub mod codec;
mod error;
mod header;
pub mod tensor;

#[cfg(test)]
mod tests;

pub use codec::{Header, decode, dtype_code, dtype_from_code, encode, header};
pub use error::{Error, Result};
pub use header::{c_header, dtype_macro, op_macro};
pub use tensor::{
    Described, TensorDesc, adopt, borrow, describe, dtype_from_abi, dtype_to_abi, export,
};
