//! The JIT's graph passes (each a free function `fn(&mut Graph, &PassCx)`), run by
//! [`crate::pipeline`] together with the generic ones of `rynamo_graph::passes`.

mod decompose;
mod fold_constants;
mod functionalize;
mod fuse_bias;

pub use decompose::decompose;
pub use fold_constants::fold_constants;
pub use functionalize::functionalize;
pub use fuse_bias::fuse_bias;
