//! Backend and Executable traits, the backend registry, and the eager graph interpreter.
//!
//! A [`Backend`] compiles a whole [`Graph`] into an [`Executable`] (graph-level, like Dynamo's
//! `backend(gm, example_inputs)` and PJRT's compile/execute); ops are IR data, not trait methods.
//! [`EagerBackend`] interprets graphs node by node through the registry's eager kernels and is the
//! oracle every other backend is tested against.
//!
//! ```
//! use rynamo_backend::{Backend, EagerBackend};
//! use rynamo_graph::parse;
//! use rynamo_tensor::Tensor;
//! let g = parse("graph(%x: f32[3]):\n  %0: f32[3] = mul(%x, 2.0)\n  return (%0)\n").unwrap();
//! let exe = EagerBackend.compile(&g).unwrap();
//! let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).unwrap();
//! assert_eq!(exe.run(&[x]).unwrap()[0].to_vec::<f32>(), vec![2.0, 4.0, 6.0]);
//! ```

#![deny(missing_docs)]

mod aot;
mod eager;
mod error;
mod registry;
pub mod timing;
mod traits;

pub use aot::{AotExecutable, AotGraphs};
pub use eager::{EagerBackend, EagerExecutable};
pub use error::{Error, Result};
pub use registry::{BackendRegistry, global};
pub use traits::{Backend, Executable, Support};

#[cfg(test)]
mod tests;
