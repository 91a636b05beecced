//! Unit tests of the Dynamo core.

mod codegen;
mod resume;
mod exc;
