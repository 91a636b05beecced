//! Write a Rynamo backend plugin in safe Rust; a macro exports the C ABI.
