//! Tests of the registry and the graph IR.

mod aot;
mod bind;
mod errors;
mod errors_nn;
mod gradcheck;
mod graph_ir;
mod linalg_grad;
mod partition_golden;
mod passes;
mod samples;
