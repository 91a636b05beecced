//! Tests of the registry and the graph IR.

mod bind;
mod errors;
mod errors_nn;
mod gradcheck;
mod gradcheck_nn;
mod graph_ir;
mod passes;
mod samples;
