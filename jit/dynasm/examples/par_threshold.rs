//! Measures where splitting a kernel across threads starts to pay: times an f32 `add` kernel
//! (cost 1 per element in the runtime's estimate) and an `exp` kernel (cost 20) over growing
//! sizes, never split and always split, and prints the ratio. The runtime's `PAR_WORK` is the
//! cost-weighted size where the ratio falls below 1.
//! Run: `cargo run --release --example par_threshold -p rynamo-dynasm --ignore-rust-version`.

use std::time::Instant;

use rynamo_backend::Backend;
use rynamo_dynasm::{DynasmBackend, runtime};
use rynamo_graph::parse;
use rynamo_tensor::random;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    println!("| op | elements | work | never split us | split us | split/never |");
    println!("|---|---|---|---|---|---|");
    for (op, body, cost) in [
        ("add", "add(%x, 1.0, alpha=1)", 2usize),
        ("exp", "exp(%x)", 21),
    ] {
        for p in 8..=20 {
            let n = 1usize << p;
            let g = parse(&format!(
                "graph(%x: f32[{n}]):\n  %0: f32[{n}] = {body}\n  return (%0)\n"
            ))
            .expect("graph");
            let exe = DynasmBackend::new().compile(&g).expect("compiles");
            let x = [random::randn(&[n], None, Some(&random::Generator::new(1))).expect("randn")];
            let run = |work: usize| {
                runtime::set_par_work(work);
                let t = Instant::now();
                let _ = exe.run(&x).expect("runs");
                t.elapsed().as_secs_f64() * 1e6
            };
            let reps = if n < 1 << 16 { 401 } else { 41 };
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for _ in 0..reps {
                a.push(run(usize::MAX));
                b.push(run(0));
            }
            let (ta, tb) = (median(a), median(b));
            println!(
                "| {op} | {n} | {} | {ta:.1} | {tb:.1} | {:.2} |",
                n * cost,
                tb / ta
            );
        }
    }
    runtime::set_par_work(runtime::PAR_WORK);
}
