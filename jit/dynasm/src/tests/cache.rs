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

/// Every word of the NEON kernels decodes (the listing has no `.word` lines). This runs on every
/// host, since the AArch64 target assembles anywhere; its kernels run in the aarch64 test run.
#[test]
fn neon_listings_decode_every_word() {
    let b = DynasmBackend::with_target(Box::new(crate::aarch64::NeonTarget));
    let graphs = [
        "graph(%x: f32[9, 33]):\n  %0: f32[9, 33] = sin(%x)\n  %1: f32[9, 33] = cos(%0)\n  %2: f32[9, 33] = erf(%1)\n  %3: f32[9, 33] = tanh(%2)\n  %4: f32[9, 33] = sigmoid(%3)\n  %5: f32[9, 33] = log(%4)\n  %6: f32[9, 33] = exp(%5)\n  %7: f32[9, 33] = floor(%6)\n  %8: f32[9, 33] = atan2(%7, %x)\n  return (%8)\n",
        "graph(%x: f32[9, 33]):\n  %0: f32[9, 33] = softmax(%x, -1, None)\n  %1: f32[9] = amax(%x, [1], False)\n  %2: f32[9] = mean(%x, [1], False, dtype=None)\n  return (%0, %1, %2)\n",
        "graph(%a: i64[1025], %b: i64[1025]):\n  %0: i64[1025] = mul(%a, %b)\n  %1: b8[1025] = lt(%a, %b)\n  %2: f64[1025] = to(%a, torch.float64, copy=False)\n  %3: f64[1025] = where(%1, 1.5, %2)\n  %4: i64[] = sum(%0, [0], False, dtype=None)\n  return (%3, %4)\n",
    ];
    for src in graphs {
        let exe = b.compile_exe(&parse(src).unwrap()).unwrap();
        assert!(exe.is_jitted(), "{}", exe.dump());
        let d = exe.dump();
        assert!(d.contains("ret") && !d.contains(".word"), "{d}");
    }
}
