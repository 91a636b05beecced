//! The dynasm JIT: fusion, loop IR, and x86-64 / AArch64 kernel emitters.
