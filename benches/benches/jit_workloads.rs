//! The JIT workloads of `benchmarks.md` (W1 pointwise_chain, W2 softmax_rows, W3 layernorm_gelu,
//! W4 mlp, W8 attention), compiled by the dynasm backend against the eager interpreter, next to
//! the machine's limits measured in the same run: memory bandwidth (a Rust copy and triad over
//! 1 GiB, on all threads) and FP32 GEMM peak (a large GEMM through the `gemm` crate).
//! Prints a Markdown table and writes `target/bench/jit_workloads.json`; never fails.
//! Run: `cargo bench -p rynamo-benches --bench jit_workloads --ignore-rust-version`; name
//! workloads after `--` to run only those (`-- W1 W8`, matched as prefixes of the names).
//! `-- --jit-only W1` skips the rooflines and the eager runs and times only the compiled graph,
//! 100 times (for `perf record`); `--flush` writes 512 MiB before each run to start from cold
//! caches.

use std::time::Duration;

use rynamo_backend::{Backend, EagerBackend, Executable};
use rynamo_benches::{alternate_medians, roofline, time};
use rynamo_dynasm::DynasmBackend;
use rynamo_graph::{Graph, GraphBuilder, Op, Value, ValueId};
use rynamo_tensor::{DType, Tensor, TensorMeta, random};

const REPS: usize = 11;

fn randn(shape: &[usize], seed: u64) -> Tensor {
    random::randn(shape, None, Some(&random::Generator::new(seed))).expect("randn")
}

struct B(GraphBuilder);

impl B {
    fn input(&mut self, name: &str, shape: &[usize]) -> ValueId {
        self.0
            .input(name, TensorMeta::contiguous(DType::Float32, shape))
    }
    fn op(&mut self, op: Op, args: Vec<Value<ValueId>>) -> ValueId {
        self.0
            .call_py(op, args, vec![])
            .expect("valid workload graph")[0]
    }
    fn kw(
        &mut self,
        op: Op,
        args: Vec<Value<ValueId>>,
        kw: Vec<(&str, Value<ValueId>)>,
    ) -> ValueId {
        let kw = kw.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        self.0.call_py(op, args, kw).expect("valid workload graph")[0]
    }
}

fn t(v: ValueId) -> Value<ValueId> {
    Value::Tensor(v)
}
fn f(x: f64) -> Value<ValueId> {
    Value::Float(x)
}

/// W1: `(((x.sin()*1.5 + x.cos()).relu() - 0.25).sigmoid()) * x`.
fn w1() -> (Graph, Vec<Tensor>) {
    let mut b = B(GraphBuilder::new());
    let x = b.input("x", &[4_194_304]);
    let s = b.op(Op::Sin, vec![t(x)]);
    let s = b.op(Op::Mul, vec![t(s), f(1.5)]);
    let c = b.op(Op::Cos, vec![t(x)]);
    let a = b.op(Op::Add, vec![t(s), t(c)]);
    let r = b.op(Op::Relu, vec![t(a)]);
    let m = b.op(Op::Sub, vec![t(r), f(0.25)]);
    let g = b.op(Op::Sigmoid, vec![t(m)]);
    let y = b.op(Op::Mul, vec![t(g), t(x)]);
    (b.0.finish(vec![y]), vec![randn(&[4_194_304], 1)])
}

/// W2: `e = (x - x.amax(-1, keepdim=True)).exp(); e / e.sum(-1, keepdim=True)`.
fn w2() -> (Graph, Vec<Tensor>) {
    let mut b = B(GraphBuilder::new());
    let x = b.input("x", &[4096, 1024]);
    let m = b.op(
        Op::Amax,
        vec![t(x), Value::IntList(vec![-1]), Value::Bool(true)],
    );
    let d = b.op(Op::Sub, vec![t(x), t(m)]);
    let e = b.op(Op::Exp, vec![t(d)]);
    let s = b.op(
        Op::Sum,
        vec![t(e), Value::IntList(vec![-1]), Value::Bool(true)],
    );
    let y = b.op(Op::Div, vec![t(e), t(s)]);
    (b.0.finish(vec![y]), vec![randn(&[4096, 1024], 2)])
}

/// W3: manual layer norm (mean, var, rsqrt, affine), then tanh-GELU.
fn w3() -> (Graph, Vec<Tensor>) {
    let mut b = B(GraphBuilder::new());
    let x = b.input("x", &[4096, 1024]);
    let w = b.input("w", &[1024]);
    let bias = b.input("b", &[1024]);
    let dims = || Value::IntList(vec![-1]);
    let mean = b.op(Op::Mean, vec![t(x), dims(), Value::Bool(true)]);
    let d = b.op(Op::Sub, vec![t(x), t(mean)]);
    let sq = b.op(Op::Mul, vec![t(d), t(d)]);
    let var = b.op(Op::Mean, vec![t(sq), dims(), Value::Bool(true)]);
    let ve = b.op(Op::Add, vec![t(var), f(1e-5)]);
    let r = b.op(Op::Rsqrt, vec![t(ve)]);
    let n = b.op(Op::Mul, vec![t(d), t(r)]);
    let n = b.op(Op::Mul, vec![t(n), t(w)]);
    let n = b.op(Op::Add, vec![t(n), t(bias)]);
    let y = b.kw(
        Op::Gelu,
        vec![t(n)],
        vec![("approximate", Value::Str("tanh".into()))],
    );
    let inputs = vec![
        randn(&[4096, 1024], 3),
        randn(&[1024], 4),
        randn(&[1024], 5),
    ];
    (b.0.finish(vec![y]), inputs)
}

/// W4: `relu(x@W1+b1)@W2+b2`.
fn w4() -> (Graph, Vec<Tensor>) {
    let mut b = B(GraphBuilder::new());
    let x = b.input("x", &[256, 1024]);
    let w1 = b.input("w1", &[1024, 4096]);
    let b1 = b.input("b1", &[4096]);
    let w2 = b.input("w2", &[4096, 1024]);
    let b2 = b.input("b2", &[1024]);
    let h = b.op(Op::Matmul, vec![t(x), t(w1)]);
    let h = b.op(Op::Add, vec![t(h), t(b1)]);
    let h = b.op(Op::Relu, vec![t(h)]);
    let o = b.op(Op::Matmul, vec![t(h), t(w2)]);
    let o = b.op(Op::Add, vec![t(o), t(b2)]);
    let inputs = vec![
        randn(&[256, 1024], 6),
        randn(&[1024, 4096], 7),
        randn(&[4096], 8),
        randn(&[4096, 1024], 9),
        randn(&[1024], 10),
    ];
    (b.0.finish(vec![o]), inputs)
}

/// W8: `softmax(q@k.transpose(-1,-2)/8)@v`.
fn w8() -> (Graph, Vec<Tensor>) {
    let mut b = B(GraphBuilder::new());
    let (q, k, v) = (
        b.input("q", &[8, 256, 64]),
        b.input("k", &[8, 256, 64]),
        b.input("v", &[8, 256, 64]),
    );
    let kt = b.op(Op::Transpose, vec![t(k), Value::Int(-1), Value::Int(-2)]);
    let s = b.op(Op::Matmul, vec![t(q), t(kt)]);
    let s = b.op(Op::Div, vec![t(s), f(8.0)]);
    let p = b.op(Op::Softmax, vec![t(s), Value::Int(-1)]);
    let o = b.op(Op::Matmul, vec![t(p), t(v)]);
    let inputs = vec![
        randn(&[8, 256, 64], 11),
        randn(&[8, 256, 64], 12),
        randn(&[8, 256, 64], 13),
    ];
    (b.0.finish(vec![o]), inputs)
}

/// Times only the compiled graphs (for profiling): no rooflines, no eager runs.
fn jit_only(only: &[String], flush: bool) {
    let jit = DynasmBackend::new();
    for (name, make) in [
        ("W1", w1 as fn() -> (Graph, Vec<Tensor>)),
        ("W2", w2),
        ("W3", w3),
        ("W4", w4),
        ("W8", w8),
    ] {
        if !only.is_empty() && !only.iter().any(|o| o.starts_with(name)) {
            continue;
        }
        let (g, inputs) = make();
        let compiled = jit.compile(&g).expect("jit compiles");
        let mut junk = vec![0u8; if flush { 512 << 20 } else { 0 }];
        let mut all: Vec<Duration> = (0..100)
            .map(|i| {
                // `--flush`: evict the caches first, as the eager runs of the main mode do.
                junk.iter_mut().step_by(64).for_each(|b| *b = i as u8);
                time(|| {
                    let _ = compiled.run(&inputs).expect("runs");
                })
            })
            .collect();
        all.sort();
        // The minimum is the least disturbed run on a shared machine.
        println!(
            "{name}: median {:.3} ms, min {:.3} ms",
            all[50].as_secs_f64() * 1e3,
            all[0].as_secs_f64() * 1e3
        );
    }
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument filters workloads by name prefix.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if std::env::args().any(|a| a == "--jit-only") {
        jit_only(&only, std::env::args().any(|a| a == "--flush"));
        return;
    }
    let (copy_gbs, triad_gbs) = roofline::bandwidth(roofline::BANDWIDTH_ELEMS, REPS);
    let peak = roofline::gemm_peak(2048, REPS);
    println!(
        "machine: {} threads; bandwidth copy {copy_gbs:.1} GB/s, triad {triad_gbs:.1} GB/s (1 GiB arrays); GEMM peak {peak:.0} GFLOP/s\n",
        rayon::current_num_threads()
    );
    println!(
        "| workload | eager ms | compiled ms | compiled/eager | figure | vs roofline | target |"
    );
    println!("|---|---|---|---|---|---|---|");
    let jit = DynasmBackend::new();
    let mut json = Vec::new();
    type Wl = (
        &'static str,
        fn() -> (Graph, Vec<Tensor>),
        Option<f64>,
        Option<f64>,
        &'static str,
    );
    let workloads: [Wl; 5] = [
        (
            "W1 pointwise_chain",
            w1,
            Some(32.0 * 1024.0 * 1024.0),
            None,
            "<= 3 ms",
        ),
        (
            "W2 softmax_rows",
            w2,
            Some(32.0 * 1024.0 * 1024.0),
            None,
            ">= 70% of bandwidth",
        ),
        (
            "W3 layernorm_gelu",
            w3,
            Some(32.0 * 1024.0 * 1024.0),
            None,
            "<= 4.5 ms, <= 2 passes",
        ),
        (
            "W4 mlp",
            w4,
            None,
            Some(4.0 * 256.0 * 1024.0 * 4096.0),
            ">= 75% of GEMM peak",
        ),
        (
            "W8 attention",
            w8,
            None,
            Some(4.0 * 8.0 * 256.0 * 256.0 * 64.0),
            "<= 1 ms",
        ),
    ];
    for (name, make, bytes, flops, target) in workloads {
        if !only.is_empty() && !only.iter().any(|o| name.starts_with(o.as_str())) {
            continue;
        }
        let (g, inputs) = make();
        let eager = EagerBackend.compile(&g).expect("eager compiles");
        let compiled = jit.compile(&g).expect("jit compiles");
        let _ = (eager.run(&inputs), compiled.run(&inputs));
        let exes: [&dyn Executable; 2] = [eager.as_ref(), compiled.as_ref()];
        let meds: Vec<Duration> = alternate_medians(2, REPS, |i| {
            time(|| {
                let _ = exes[i].run(&inputs).expect("runs");
            })
        });
        let (e_ms, c_ms) = (meds[0].as_secs_f64() * 1e3, meds[1].as_secs_f64() * 1e3);
        let (figure, roof) = match (bytes, flops) {
            (Some(b), _) => {
                let gbs = b / (c_ms / 1e3) / 1e9;
                (
                    format!("{gbs:.1} GB/s"),
                    format!("{:.0}% of copy", 100.0 * gbs / copy_gbs),
                )
            }
            (_, Some(fl)) => {
                let gf = fl / (c_ms / 1e3) / 1e9;
                (
                    format!("{gf:.0} GFLOP/s"),
                    format!("{:.0}% of GEMM", 100.0 * gf / peak),
                )
            }
            _ => (String::new(), String::new()),
        };
        println!(
            "| {name} | {e_ms:.2} | {c_ms:.2} | {:.2} | {figure} | {roof} | {target} |",
            c_ms / e_ms
        );
        json.push(format!(
            "{{\"workload\":\"{name}\",\"eager_ms\":{e_ms:.4},\"compiled_ms\":{c_ms:.4},\"ratio\":{:.4}}}",
            c_ms / e_ms
        ));
    }
    let out = format!(
        "{{\"copy_gbs\":{copy_gbs:.2},\"triad_gbs\":{triad_gbs:.2},\"gemm_gflops\":{peak:.1},\"workloads\":[{}]}}\n",
        json.join(",")
    );
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench");
    if std::fs::create_dir_all(&dir).is_ok() {
        let _ = std::fs::write(dir.join("jit_workloads.json"), out);
    }
}
