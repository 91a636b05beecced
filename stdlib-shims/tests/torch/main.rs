//! The `torch` package end to end: Python snippets run through `rynamo::Interpreter` and their
//! output compared with what PyTorch prints; and the Python surface checked against the op
//! registry.

mod harness;

mod api_gaps;
mod api_gaps_errors;
mod diff;
mod diff_cases;
mod diff_complex;
mod diff_special;
mod eager_parity;
mod package;
mod repr;
mod rust_api;
mod scan_unique;
mod serialization;
mod tensor_api;
