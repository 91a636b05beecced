//! Tests: differential against the eager interpreter, ULP bounds of the vector math, random
//! fused graphs, the kernel cache and the dump.

mod attn;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod batch_norm;
mod bool_lanes;
mod cache;
mod common;
mod coverage;
mod diff;
mod div;
mod erf_bits;
mod expr;
mod functionalize;
mod logsumexp;
mod math_bits;
mod math_lengths;
mod nonpos;
mod perf_paths;
#[cfg(target_arch = "x86_64")]
mod pins;
mod pressure;
mod random;
mod reduce_unroll;
mod row_ahead;
mod stream;
mod ternary;
mod ulp;
