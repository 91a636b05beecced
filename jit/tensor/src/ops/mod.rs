//! Tensor-level ops. Each family pairs `*_meta` shape/dtype rules (generic over [`crate::Shaped`],
//! so the graph's meta rules call the very same functions) with eager entry points that allocate
//! their outputs from those rules.

pub mod attention;
pub mod complex;
pub mod conv;
pub mod conv_backward;
pub(crate) mod conv_int;
pub(crate) mod conv_rows;
pub mod decomp;
pub mod einsum;
pub mod fft;
pub mod float_expr;
pub mod gather;
mod gemm_block;
pub(crate) mod im2col;
pub mod index;
pub(crate) mod index_select;
pub mod linalg;
pub mod loss;
pub mod matmul;
pub mod nn;
pub mod norm;
pub mod norm_backward;
pub mod optim;
pub mod pad;
pub mod pointwise;
pub mod pool;
pub mod pool_backward;
pub(crate) mod product_dtypes;
pub mod rearrange;
pub mod reduce;
mod reduce_fast;
pub mod scan;
pub mod scatter_reduce;
pub mod shape;
pub mod sort;
pub mod ternary;
pub mod upsample;
pub mod upsample3d;
pub mod upsample_backward;
