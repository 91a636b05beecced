//! Measures the JIT's share of W7 (`benchmarks.md`: a 100-op elementwise function on `x[1024]`,
//! time to the first result): compiling the graph (passes, fusion, emission, W^X) and running it
//! once, per x86-64 tier: the first graph cold (the kernel cache is keyed by target), then the
//! medians over 40 new graphs (a different op sequence each, so the kernel cache misses), the
//! tiers taking turns so that a busy machine disturbs them alike.
//! Run: `cargo run --release --example compile_latency -p rynamo-dynasm --ignore-rust-version`.
#![cfg_attr(
    not(target_arch = "x86_64"),
    allow(dead_code, reason = "the tiers measured are x86-64's")
)]

use std::time::Instant;

use rynamo_backend::Backend;
use rynamo_dynasm::DynasmBackend;
use rynamo_graph::parse;
use rynamo_tensor::Tensor;

/// 100 pointwise ops, transcendentals among them, on `x: f32[1024]`, in an order drawn from
/// `seed`.
fn graph(seed: u64) -> String {
    let n = 1024;
    let mut s = format!("graph(%x: f32[{n}]):\n");
    let mut prev = "%x".to_string();
    let mut r = seed;
    for i in 0..100 {
        r = r
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let body = match (r >> 33) % 10 {
            0 => format!("add({prev}, 0.125, alpha=1)"),
            1 => format!("mul({prev}, %x)"),
            2 => format!("sin({prev})"),
            3 => format!("sub({prev}, 0.5, alpha=1)"),
            4 => format!("tanh({prev})"),
            5 => format!("mul({prev}, 1.25)"),
            6 => format!("exp({prev})"),
            7 => format!("relu({prev})"),
            8 => format!("sigmoid({prev})"),
            _ => format!("add({prev}, %x, alpha=1)"),
        };
        s.push_str(&format!("  %{i}: f32[{n}] = {body}\n"));
        prev = format!("%{i}");
    }
    s.push_str(&format!("  return ({prev})\n"));
    s
}

/// Milliseconds to compile the graph of `seed` and to run it once.
fn first_result(b: &DynasmBackend, seed: u64, x: &Tensor) -> (f64, f64) {
    let g = parse(&graph(seed)).expect("graph parses");
    let t = Instant::now();
    let exe = b.compile(&g).expect("compiles");
    let compiled = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let y = exe.run(std::slice::from_ref(x)).expect("runs");
    let ran = t.elapsed().as_secs_f64() * 1e3;
    assert_eq!(y[0].shape(), &[1024]);
    (compiled, ran)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("x86-64 only");
}

#[cfg(target_arch = "x86_64")]
fn main() {
    use rynamo_dynasm::x64::{Isa, X64Target};
    let x =
        Tensor::from_vec((0..1024).map(|i| i as f32 / 1024.0).collect(), &[1024]).expect("input");
    let host = X64Target::host().isa;
    let tiers: Vec<Isa> = [Isa::Sse2, Isa::Avx2, Isa::Avx512]
        .into_iter()
        .filter(|&isa| match isa {
            Isa::Avx512 => host == isa,
            Isa::Avx2 => host != Isa::Sse2,
            Isa::Sse2 => true,
        })
        .collect();
    let backends: Vec<DynasmBackend> = tiers
        .iter()
        .map(|&isa| DynasmBackend::with_target(Box::new(X64Target { isa })))
        .collect();
    // Graph 0 first on every tier (cold), then new graphs, the tiers taking turns.
    let cold: Vec<(f64, f64)> = backends.iter().map(|b| first_result(b, 0, &x)).collect();
    let mut warm = vec![(Vec::new(), Vec::new()); backends.len()];
    for seed in 1..=40 {
        for (b, w) in backends.iter().zip(&mut warm) {
            let (c, r) = first_result(b, seed, &x);
            w.0.push(c);
            w.1.push(r);
        }
    }
    println!(
        "| tier | first graph: compile + run ms | new graph: compile ms | run ms (medians of 40) |"
    );
    println!("|---|---|---|---|");
    for ((b, c), w) in backends.iter().zip(cold).zip(warm) {
        println!(
            "| {} | {:.2} + {:.2} | {:.2} | {:.3} |",
            b.target_name(),
            c.0,
            c.1,
            median(w.0),
            median(w.1)
        );
    }
}
