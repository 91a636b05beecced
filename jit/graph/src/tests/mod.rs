//! Tests of the registry and the graph IR.

mod aot;
mod bind;
mod complex_sweep;
mod decompositions;
mod errors;
mod errors_nn;
mod gradcheck;
mod gradcheck_nn;
mod gradcheck_nn_cases;
mod graph_ir;
mod linalg_grad;
mod operators;
mod partition_golden;
mod samples;
mod special_ops;
mod wire_ids;
