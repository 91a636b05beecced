//! Tensor-level ops. Each family pairs `*_meta` shape/dtype rules (generic over [`crate::Shaped`],
//! so the graph's meta rules call the very same functions) with eager entry points that allocate
//! their outputs from those rules.

pub mod index;
pub mod matmul;
pub mod nn;
pub mod pointwise;
pub mod reduce;
pub mod shape;
