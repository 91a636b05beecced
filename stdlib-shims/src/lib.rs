//! The Python-visible torch package: native Tensor type, op bindings, and embedded Python sources.
