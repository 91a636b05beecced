//! Unit tests of the Dynamo core.

mod codegen;
mod exc;
mod resume;
