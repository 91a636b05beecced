//! Strided CPU tensors: dtypes, shared storage, views, broadcasting, type promotion and eager
//! kernels. The bottom of Rynamo's `jit/` stack: the op registry (`rynamo-graph`) binds these ops by
//! name, and every backend's results are checked against them.
//!
//! ```text
//!   DType / Scalar / promote_types / result_type      (dtype.rs)
//!   Storage (Arc, aligned, versioned) <- Tensor        (storage.rs, tensor.rs)
//!   view rules: Layout -> Layout                       (layout.rs, views.rs)
//!   Geometry (coalesced strided runs) -> map1/2/3     (iter.rs, kernels/)
//!   ops: *_meta shape rules + eager kernels            (ops/, creation.rs, random.rs)
//! ```
//!
//! **Invariant:** every op's output shape and dtype come from its `*_meta` rule, which works on
//! anything [`Shaped`] (tensors or [`TensorMeta`]s), so eager execution and graph tracing agree.
//!
//! ```
//! use rynamo_tensor::{BinaryOp, DType, Scalar, Tensor, TensorOrScalar, ops};
//! let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
//! let y = ops::pointwise::binary(BinaryOp::Add, TensorOrScalar::Tensor(&x),
//!     TensorOrScalar::Scalar(Scalar::Int(1)), Scalar::Int(1)).unwrap();
//! assert_eq!(y.dtype(), DType::Float32);
//! assert_eq!(y.t().unwrap().to_vec::<f32>(), vec![2.0, 4.0, 3.0, 5.0]);
//! ```

#![warn(missing_docs)]

pub mod autograd_meta;
pub mod creation;
pub mod dtype;
pub mod element;
mod error;
pub mod expr;
pub mod iter;
pub mod kernels;
pub mod layout;
pub mod memory_format;
pub mod memory_overlap;
pub mod ops;
pub mod parallel;
pub mod preserve;
pub mod random;
pub mod random_engine;
pub mod random_fills;
pub mod sampling;
pub mod storage;
mod tensor;
mod tensor_views;
pub mod unwind;
pub mod view_dtype;
pub mod views;

#[cfg(test)]
mod tests;

#[doc(hidden)]
pub use half;

pub use autograd_meta::{AutogradMeta, AutogradState};
pub use dtype::{
    Category, DEFAULT_COMPLEX, DEFAULT_FLOAT, DType, Operand, Scalar, can_cast, promote_types,
    result_type, try_result_type,
};
pub use element::Element;
pub use error::{Error, ErrorKind, Result};
pub use kernels::binary::BinaryOp;
pub use kernels::unary::UnaryOp;
pub use layout::{Layout, Shaped, TensorMeta, broadcast_shapes};
pub use ops::index::IndexItem;
pub use ops::pointwise::TensorOrScalar;
pub use ops::reduce::ReduceOp;
pub use random::{Generator, manual_seed};
pub use storage::Storage;
pub use tensor::{Tensor, scalar_to};
