//! The kernel cache, the dump, and the backend surface.

use rynamo_backend::Backend;
use rynamo_graph::parse;

use super::common::*;
use crate::{DynasmBackend, kernel_cache};

fn graph(n: usize, c: f64) -> String {
    format!(
        "graph(%x: f32[{n}]):\n  %0: f32[{n}] = mul(%x, {c:?})\n  %1: f32[{n}] = tanh(%0)\n  %2: f32[{n}] = sub(%1, %x, alpha=1)\n  return (%2)\n"
    )
}

#[test]
fn identical_graphs_and_new_sizes_emit_nothing_new() {
    let b = DynasmBackend::new();
    let first = b
        .compile_exe(&parse(&graph(100, 1.25)).unwrap())
        .unwrap()
        .code_addresses();
    assert_eq!(first.len(), 1);
    assert!(kernel_cache::emitted() >= 1);
    // Same graph, another size, another constant: the same machine code serves them all.
    for (n, c) in [(100, 1.25), (7, 1.25), (4096, 3.5)] {
        let exe = b.compile_exe(&parse(&graph(n, c)).unwrap()).unwrap();
        assert_eq!(exe.code_addresses(), first);
    }
    let x = randn(&[4096], 1);
    check(&graph(4096, 3.5), &[x], 5e-7, 1e-7);
}

#[test]
fn dump_shows_loop_ir_and_disassembly() {
    let exe = DynasmBackend::new()
        .compile_exe(&parse(&graph(64, 2.0)).unwrap())
        .unwrap();
    let d = exe.dump();
    assert!(d.contains("kernel(a0: in f32 contig"), "{d}");
    assert!(d.contains("Tanh(v"), "{d}");
    assert!(d.contains("ret"), "{d}");
    assert_eq!(DynasmBackend::new().name(), "dynasm");
}
