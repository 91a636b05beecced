//! Opcode handlers, one file per family; each handler is a `Tracer` method named after its
//! instruction (`LOAD_FAST` -> `load_fast`).

mod binary;
mod build;
mod calls;
mod control_flow;
mod exceptions;
mod generators;
mod imports;
pub(crate) mod load_store;
mod pattern_match;
mod sets;
mod subscript;
pub(crate) mod super_attr;
mod user_protocol;
