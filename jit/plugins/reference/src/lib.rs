//! The reference plugin: runs graphs on the CPU through the plugin SDK, with Rynamo's own eager
//! interpreter behind the C ABI (as PyTorch's OpenReg emulates a device on the CPU). It is the
//! plugin every host-side test and the conformance suite can rely on.
//!
//! It claims every node except in-place, random and data-dependent ones: those depend on host
//! state (aliasing, the host's RNG stream) that a plugin cannot see.

#![warn(missing_docs)]

mod plugin;

pub use plugin::{Reference, ReferenceExecutable, claims};
