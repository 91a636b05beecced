//! The op registry and the graph IR: schemas, meta rules, text format, verifier and passes.
