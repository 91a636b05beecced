//! The workloads of benchmarks.md and their harness.
