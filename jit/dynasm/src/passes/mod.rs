//! The JIT's own graph rewrite (`fuse bias`), which [`crate::pipeline`] runs inside the shared
//! pipeline of `rynamo-passes`.

mod fuse_bias;

pub use fuse_bias::fuse_bias;
