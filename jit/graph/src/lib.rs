//! The op registry and the graph IR: op definitions, schemas, meta rules, text format, verifier.
//!
//! Everything above the tensor runtime talks about ops through this crate: the Python `torch`
//! module binds calls with [`Schema::bind`] and runs them with [`registry::call`]; Dynamo records
//! them into a [`Graph`] with [`GraphBuilder`] (shapes from the meta rules, no data touched);
//! backends lower [`Graph`]s; plugins receive them serialised.
//!
//! ```text
//!   op.rs (wire ids) -> rules/<family>.rs (one OpDef per op: schema, meta, eager, vjp, ...)
//!     -> Schema::bind (Python args -> IValues)  -> registry::call (eager kernel)
//!     -> GraphBuilder::call (meta rule)         -> Graph -> rynamo-passes -> backend
//! ```
//!
//! **Invariant:** an op's output metas come from one rule, used both while tracing and (checked in
//! debug builds) for every eager call.
//!
//! ```
//! use rynamo_graph::{Arg, GraphBuilder, Op, Value, parse, verify};
//! use rynamo_tensor::{DType, Scalar, TensorMeta};
//! let mut b = GraphBuilder::new();
//! let x = b.input("x", TensorMeta::contiguous(DType::Float32, &[4, 8]));
//! let w = b.input("w", TensorMeta::contiguous(DType::Float32, &[8, 8]));
//! let mm = b.call_py(Op::Matmul, vec![Value::Tensor(x), Value::Tensor(w)], vec![]).unwrap();
//! let y = b.call_py(Op::Add, vec![Value::Tensor(mm[0]), Value::Float(1.0)], vec![]).unwrap();
//! let g = b.finish(y);
//! let text = g.to_string();
//! assert!(text.contains("%1: f32[4, 8] = add(%0, 1.0, alpha=1)"));
//! assert_eq!(parse(&text).unwrap(), g);
//! verify(&g).unwrap();
//! ```

#![deny(missing_docs)]

pub mod autograd;
mod bind;
pub mod def;
mod error;
mod graph;
pub mod host;
mod op;
pub mod operators;
pub mod registry;
mod rules;
pub mod samples;
pub mod schema;
mod schema_syntax;
pub mod text;
mod value;
mod verify;

#[cfg(test)]
mod tests;

pub use error::{Error, ExternalError, Result};
pub use graph::{Graph, GraphBuilder, Node, NodeId, ValueId, ValueInfo};
pub use op::{Lowering, Op, OpFlags};
pub use operators::{OperatorOps, PyOperator};
pub use rynamo_tensor::TensorMeta;
pub use schema::{ParamType, Returns, Schema};
pub use text::parse;
pub use value::{Arg, Args, BindTensor, IValue, MetaValue, Value};
pub use verify::{VerifyError, verify};
