//! Measures from which output size the streaming-store variant ([`rynamo_dynasm::stream`]) pays:
//! times a memory-bound kernel (`x * 1.5`), `exp` and softmax rows of 1024 over growing sizes, with the
//! ordinary code and with the variant, on their own and followed by a consumer that reads the
//! whole output (a compiled `sum`; non-temporal stores leave the output out of the caches, so a
//! consumer that would have found it there pays). Prints the ratios; `STREAM_MIN_BYTES` is the
//! output size from which both fall below 1.
//! Run: `cargo run --release --example stream_threshold -p rynamo-dynasm --ignore-rust-version`.

use std::time::Instant;

use rynamo_backend::{Backend, Executable};
use rynamo_dynasm::{DynasmBackend, stream};
use rynamo_graph::parse;
use rynamo_tensor::random;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn graph(op: &str, rows: usize, cols: usize) -> String {
    let body = match op {
        "mul" => format!("  %4: f32[{rows}, {cols}] = mul(%x, 1.5)\n"),
        "exp" => format!("  %4: f32[{rows}, {cols}] = exp(%x)\n"),
        _ => format!(
            "  %0: f32[{rows}, 1] = amax(%x, [-1], True)
  %1: f32[{rows}, {cols}] = sub(%x, %0, alpha=1)
  %2: f32[{rows}, {cols}] = exp(%1)
  %3: f32[{rows}, 1] = sum(%2, [-1], True)
  %4: f32[{rows}, {cols}] = div(%2, %3)
"
        ),
    };
    format!("graph(%x: f32[{rows}, {cols}]):\n{body}  return (%4)\n")
}

fn main() {
    println!(
        "| op | output bytes | plain us | streaming us | ratio | with consumer: plain us | streaming us | ratio |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let b = DynasmBackend::new();
    for op in ["mul", "exp", "softmax"] {
        for p in 20..=24 {
            let (cols, rows) = (1024, (1usize << p) / 1024);
            let g = parse(&graph(op, rows, cols)).expect("graph");
            stream::set_min_bytes(Some(usize::MAX));
            let plain = b.compile(&g).expect("compiles");
            stream::set_min_bytes(Some(0));
            let streaming = b.compile(&g).expect("compiles");
            let sum = parse(&format!(
                "graph(%y: f32[{rows}, {cols}]):\n  %0: f32[] = sum(%y, [0, 1], False)\n  return (%0)\n"
            ))
            .expect("graph");
            let consumer = b.compile(&sum).expect("compiles");
            let x = [
                random::randn(&[rows, cols], None, Some(&random::Generator::new(1)))
                    .expect("randn"),
            ];
            let time = |exe: &dyn Executable, consume: bool| {
                let t = Instant::now();
                let y = exe.run(&x).expect("runs");
                if consume {
                    let _ = consumer.run(&y).expect("runs");
                }
                t.elapsed().as_secs_f64() * 1e6
            };
            let reps = if p < 20 { 301 } else { 41 };
            let mut t = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
            for _ in 0..reps {
                t[0].push(time(plain.as_ref(), false));
                t[1].push(time(streaming.as_ref(), false));
                t[2].push(time(plain.as_ref(), true));
                t[3].push(time(streaming.as_ref(), true));
            }
            let [a, s, ac, sc] = t.map(median);
            println!(
                "| {op} | {} | {a:.1} | {s:.1} | {:.2} | {ac:.1} | {sc:.1} | {:.2} |",
                4usize << p,
                s / a,
                sc / ac
            );
        }
    }
    stream::set_min_bytes(None);
}
