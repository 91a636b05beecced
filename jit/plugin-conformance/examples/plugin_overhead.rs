//! Per-call cost of running a small graph through a plugin versus the eager backend in-process:
//! the price of the ABI crossing (descriptors, managed outputs, the wire format at compile time).
//!
//! `cargo run --release --ignore-rust-version -p rynamo-plugin-conformance --example plugin_overhead`

use std::time::Instant;

use rynamo_backend::{Backend, EagerBackend, Executable};
use rynamo_graph::parse;
use rynamo_plugin_conformance::{artifacts, samples::f32_inputs};

fn time(label: &str, exe: &dyn Executable, x: &[rynamo_tensor::Tensor]) -> f64 {
    for _ in 0..200 {
        exe.run(x).expect("runs");
    }
    let n = 20_000;
    let t = Instant::now();
    for _ in 0..n {
        std::hint::black_box(exe.run(x).expect("runs"));
    }
    let us = t.elapsed().as_secs_f64() * 1e6 / n as f64;
    println!("{label:<28} {us:8.2} us/call");
    us
}

fn main() {
    let g = parse(
        "graph(%x: f32[64, 64], %y: f32[64, 64]):\n  %a: f32[64, 64] = neg(%x)\n  \
         %b: f32[64, 64] = add(%a, %y, alpha=1)\n  %c: f32[64, 64] = relu(%b)\n  return (%c)\n",
    )
    .expect("graph");
    let x = f32_inputs(2, &[64, 64], 1);
    let eager = time(
        "eager (in-process)",
        &*EagerBackend.compile(&g).expect("eager"),
        &x,
    );
    let reference = artifacts::rust_cdylib("rynamo-plugin-reference").expect("reference plugin");
    let r = rynamo_plugin_host::load(&reference).expect("load");
    let t = time(
        "reference plugin (eager)",
        &*r.compile(&g).expect("compile"),
        &x,
    );
    println!("  ABI overhead: {:.2} us/call", t - eager);
    let out = std::env::temp_dir().join(format!("rynamo-overhead-{}.so", std::process::id()));
    let c = artifacts::build_c_plugin(&artifacts::c_source("minimal"), &out, &[]).expect("cc");
    let cp = rynamo_plugin_host::load(&c).expect("load");
    time("c-minimal plugin", &*cp.compile(&g).expect("compile"), &x);
    let t = Instant::now();
    for _ in 0..1000 {
        std::hint::black_box(r.compile(&g).expect("compile"));
    }
    println!(
        "{:<28} {:8.2} us/compile",
        "reference compile (wire)",
        t.elapsed().as_secs_f64() * 1e3
    );
    let _ = std::fs::remove_file(out);
}
