//! The dynasm JIT: fuses a [`rynamo_graph::Graph`] into loop kernels and emits x86-64 machine code
//! for them at run time, behind the `"dynasm"` [`rynamo_backend::Backend`].
//!
//! ```text
//!   Graph --[passes: decompose, fold, fuse bias, CSE, DCE]--> Graph
//!         --[fuse]--> Plan --[schedule]--> loop_ir::Kernel + geometry
//!         --[Target::compile (x64: AVX2+FMA or SSE2)]--> ExecutableBuffer (W^X, cached)
//!         --[runtime]--> rows split across threads, eager fallbacks in between
//! ```
//!
//! **Invariant:** compiling never fails for a verifiable graph; what the JIT does not lower runs
//! through the registry's eager kernels, and results are checked against [`EagerBackend`] in the
//! tests.
//!
//! ```
//! use rynamo_backend::{Backend, Executable};
//! use rynamo_dynasm::DynasmBackend;
//! use rynamo_graph::parse;
//! use rynamo_tensor::Tensor;
//! let g = parse("graph(%x: f32[3]):\n  %0: f32[3] = mul(%x, 2.0)\n  %1: f32[3] = exp(%0)\n  return (%1)\n").unwrap();
//! let exe = DynasmBackend::new().compile(&g).unwrap();
//! let x = Tensor::from_vec(vec![0.0f32, 0.5, 1.0], &[3]).unwrap();
//! let y = exe.run(&[x]).unwrap()[0].to_vec::<f32>();
//! assert!((y[2] - 2f32.exp()).abs() < 1e-6);
//! ```
//!
//! [`EagerBackend`]: rynamo_backend::EagerBackend

#![warn(missing_docs)]

mod backend;
mod error;
pub mod fuse;
pub mod helpers;
pub mod index_map;
pub mod kernel_cache;
pub mod loop_ir;
pub mod lower;
pub mod passes;
pub mod pipeline;
pub mod poly;
pub mod regalloc;
pub mod runtime;
pub mod schedule;
pub mod target;
#[cfg(target_arch = "x86_64")]
pub mod x64;

#[cfg(test)]
mod tests;

pub use backend::{DynasmBackend, DynasmExecutable};
pub use error::{Error, Result};
