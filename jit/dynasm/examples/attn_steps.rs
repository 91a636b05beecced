//! Where W8 of `benchmarks.md` (`softmax(q @ k^T / 8) @ v`, q, k, v [8, 256, 64] f32) spends
//! its time: times the whole compiled graph, then each of its steps compiled alone (`q @ k^T`,
//! the softmax kernel, `p @ v`), and prints medians. The sum of the parts against the whole
//! shows what the steps cost together (buffers, cache misses between steps).
//! Run: `cargo run --release --example attn_steps -p rynamo-dynasm --ignore-rust-version`.

use std::time::Instant;

use rynamo_backend::Backend;
use rynamo_dynasm::DynasmBackend;
use rynamo_graph::parse;
use rynamo_tensor::{Tensor, random};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn randn(shape: &[usize], seed: u64) -> Tensor {
    random::randn(shape, None, Some(&random::Generator::new(seed))).expect("randn")
}

fn main() {
    let (b, m, d) = (8usize, 256usize, 64usize);
    let qkv = format!("%q: f32[{b}, {m}, {d}], %k: f32[{b}, {m}, {d}], %v: f32[{b}, {m}, {d}]");
    let kt = format!(
        "%0: f32[{b}, {d}, {m}]{{{}, 1, {d}}} = transpose(%k, -1, -2)",
        m * d
    );
    let whole = format!(
        "graph({qkv}):\n  {kt}\n  %1: f32[{b}, {m}, {m}] = matmul(%q, %0)\n  %2: f32[{b}, {m}, {m}] = div(%1, 8.0)\n  %3: f32[{b}, {m}, {m}] = softmax(%2, -1, None)\n  %4: f32[{b}, {m}, {d}] = matmul(%3, %v)\n  return (%4)\n"
    );
    let qk = format!(
        "graph(%q: f32[{b}, {m}, {d}], %k: f32[{b}, {m}, {d}]):\n  {kt}\n  %1: f32[{b}, {m}, {m}] = matmul(%q, %0)\n  return (%1)\n"
    );
    let sm = format!(
        "graph(%s: f32[{b}, {m}, {m}]):\n  %2: f32[{b}, {m}, {m}] = div(%s, 8.0)\n  %3: f32[{b}, {m}, {m}] = softmax(%2, -1, None)\n  return (%3)\n"
    );
    let pv = format!(
        "graph(%p: f32[{b}, {m}, {m}], %v: f32[{b}, {m}, {d}]):\n  %4: f32[{b}, {m}, {d}] = matmul(%p, %v)\n  return (%4)\n"
    );
    let (q, k, v) = (
        randn(&[b, m, d], 1),
        randn(&[b, m, d], 2),
        randn(&[b, m, d], 3),
    );
    let s = randn(&[b, m, m], 4);
    let cases: [(&str, &str, Vec<Tensor>); 4] = [
        ("whole", &whole, vec![q.clone(), k.clone(), v.clone()]),
        ("q @ k^T", &qk, vec![q, k]),
        ("softmax", &sm, vec![s.clone()]),
        ("p @ v", &pv, vec![s, v]),
    ];
    println!("| step | median us | min us |");
    println!("|---|---|---|");
    for (name, src, inputs) in cases {
        let exe = DynasmBackend::new()
            .compile(&parse(src).expect("graph"))
            .expect("compiles");
        let times: Vec<f64> = (0..301)
            .map(|_| {
                let t = Instant::now();
                let _ = exe.run(&inputs).expect("runs");
                t.elapsed().as_secs_f64() * 1e6
            })
            .collect();
        let min = times.iter().copied().fold(f64::INFINITY, f64::min);
        println!("| {name} | {:.1} | {min:.1} |", median(times));
    }
}
