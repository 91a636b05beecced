//! Tests of the registry and the graph IR.

mod bind;
mod decompositions;
mod errors;
mod errors_nn;
mod gradcheck;
mod graph_ir;
mod samples;
mod wire_ids;
