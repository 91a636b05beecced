//! Unit tests of the Dynamo core.

mod codegen;
mod exc;
mod liveness;
mod python_value;
mod resume;
