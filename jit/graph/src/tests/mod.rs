//! Tests of the registry and the graph IR.

mod aot;
mod bind;
mod errors;
mod errors_nn;
mod gradcheck;
mod gradcheck_nn;
mod graph_ir;
mod partition_golden;
mod passes;
mod samples;
