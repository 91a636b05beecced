//! The Dynamo core: symbolic execution of Python bytecode, graph capture, guards, the per-code
//! cache, graph breaks and resume functions. Module names follow `torch/_dynamo` so its docs map
//! onto ours.

pub mod bytecode;
pub mod bytecode_analysis;
pub mod codegen;
pub mod resume;
pub mod source;
#[cfg(test)]
mod tests;
