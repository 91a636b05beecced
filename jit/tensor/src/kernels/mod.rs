//! Eager kernels: elementwise maps over strided operands, copies, and the unary/binary op tables.

pub mod binary;
pub mod copy;
pub mod erf;
pub mod map;
pub mod math;
pub mod scratch;
pub mod simd;
pub mod special;
pub mod special_fns;
mod transpose;
pub mod unary;
pub mod unary_expr;
pub mod vmath;
