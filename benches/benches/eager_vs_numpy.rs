//! W1 pointwise_chain, W2 softmax_rows and W3 layernorm_gelu (`benchmarks.md`) through the
//! registry's eager kernels, against the same workloads in NumPy under `python3`, timed in the
//! same run: each repetition runs the Rust workload, then asks a resident Python process to run
//! its NumPy twin, and the medians are compared. Run with
//! `cargo bench -p rynamo-benches --no-default-features --bench eager_vs_numpy`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use rynamo_benches::{alternate_medians, time};
use rynamo_graph::{IValue, Op, Value, registry};
use rynamo_tensor::{DType, Tensor, random};

const REPS: usize = 15;

/// One eager op call, bound the way the Python front end binds it.
fn call(op: Op, pos: Vec<IValue>, kw: Vec<(&str, IValue)>) -> Tensor {
    let kw = kw.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    let args = op.schema().bind(pos, kw).expect("binds");
    registry::call(op, &args).expect("runs").remove(0)
}
fn t(x: &Tensor) -> IValue {
    Value::Tensor(x.clone())
}
fn num(v: f64) -> IValue {
    Value::Float(v)
}

/// `(((x.sin()*1.5 + x.cos()).relu() - 0.25).sigmoid()) * x`
fn w1(x: &Tensor) -> Tensor {
    let s = call(Op::Sin, vec![t(x)], vec![]);
    let a = call(Op::Mul, vec![t(&s), num(1.5)], vec![]);
    let c = call(Op::Cos, vec![t(x)], vec![]);
    let b = call(Op::Add, vec![t(&a), t(&c)], vec![]);
    let r = call(Op::Relu, vec![t(&b)], vec![]);
    let d = call(Op::Sub, vec![t(&r), num(0.25)], vec![]);
    let g = call(Op::Sigmoid, vec![t(&d)], vec![]);
    call(Op::Mul, vec![t(&g), t(x)], vec![])
}

/// `e = (x - x.amax(-1, keepdim=True)).exp(); e / e.sum(-1, keepdim=True)`
fn w2(x: &Tensor) -> Tensor {
    let kd = || vec![("keepdim", Value::Bool(true))];
    let m = call(Op::Amax, vec![t(x), Value::Int(-1)], kd());
    let d = call(Op::Sub, vec![t(x), t(&m)], vec![]);
    let e = call(Op::Exp, vec![t(&d)], vec![]);
    let s = call(Op::Sum, vec![t(&e), Value::Int(-1)], kd());
    call(Op::Div, vec![t(&e), t(&s)], vec![])
}

/// Manual layer norm (mean, var, rsqrt, affine), then tanh-GELU.
fn w3(x: &Tensor, w: &Tensor, b: &Tensor) -> Tensor {
    let kd = || vec![("keepdim", Value::Bool(true))];
    let mu = call(Op::Mean, vec![t(x), Value::Int(-1)], kd());
    let d = call(Op::Sub, vec![t(x), t(&mu)], vec![]);
    let sq = call(Op::Mul, vec![t(&d), t(&d)], vec![]);
    let var = call(Op::Mean, vec![t(&sq), Value::Int(-1)], kd());
    let ve = call(Op::Add, vec![t(&var), num(1e-5)], vec![]);
    let rs = call(Op::Rsqrt, vec![t(&ve)], vec![]);
    let y = call(Op::Mul, vec![t(&d), t(&rs)], vec![]);
    let y = call(Op::Mul, vec![t(&y), t(w)], vec![]);
    let y = call(Op::Add, vec![t(&y), t(b)], vec![]);
    call(
        Op::Gelu,
        vec![t(&y)],
        vec![("approximate", Value::Str("tanh".into()))],
    )
}

const NUMPY: &str = r#"
import sys, time
import numpy as np
rng = np.random.default_rng(0)
x1 = rng.standard_normal(4_194_304, dtype=np.float32)
x2 = rng.standard_normal((4096, 1024), dtype=np.float32)
w = rng.standard_normal(1024, dtype=np.float32)
b = rng.standard_normal(1024, dtype=np.float32)
def w1(x):
    return 1 / (1 + np.exp(-(np.maximum(np.sin(x) * np.float32(1.5) + np.cos(x), 0) - np.float32(0.25)))) * x
def w2(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)
def w3(x, w, b):
    mu = x.mean(-1, keepdims=True)
    d = x - mu
    var = (d * d).mean(-1, keepdims=True)
    y = d * (1 / np.sqrt(var + np.float32(1e-5))) * w + b
    return np.float32(0.5) * y * (1 + np.tanh(np.float32(0.7978845608) * (y + np.float32(0.044715) * y * y * y)))
work = {"W1": lambda: w1(x1), "W2": lambda: w2(x2), "W3": lambda: w3(x2, w, b)}
print("ready", flush=True)
for line in sys.stdin:
    f = work[line.strip()]
    t0 = time.perf_counter_ns()
    f()
    print(time.perf_counter_ns() - t0, flush=True)
"#;

/// A resident NumPy process that runs a workload on request and reports its time.
struct Numpy {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Numpy {
    fn start() -> Option<Numpy> {
        let python = std::env::var("RYNAMO_PYTHON").unwrap_or_else(|_| "python3".into());
        let mut child = Command::new(python)
            .args(["-c", NUMPY])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let input = child.stdin.take()?;
        let mut output = BufReader::new(child.stdout.take()?);
        let mut line = String::new();
        output.read_line(&mut line).ok()?;
        (line.trim() == "ready").then_some(Numpy {
            child,
            input,
            output,
        })
    }

    fn run(&mut self, w: &str) -> Duration {
        writeln!(self.input, "{w}").expect("numpy process alive");
        let mut line = String::new();
        self.output.read_line(&mut line).expect("numpy answers");
        Duration::from_nanos(line.trim().parse().expect("nanoseconds"))
    }
}

impl Drop for Numpy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let g = random::Generator::new(0);
    let x1 = random::randn(&[4_194_304], Some(DType::Float32), Some(&g)).expect("randn");
    let x2 = random::randn(&[4096, 1024], Some(DType::Float32), Some(&g)).expect("randn");
    let w = random::randn(&[1024], Some(DType::Float32), Some(&g)).expect("randn");
    let b = random::randn(&[1024], Some(DType::Float32), Some(&g)).expect("randn");
    let mut numpy = Numpy::start();
    if numpy.is_none() {
        println!("note: python3 with numpy is not available; NumPy timings skipped");
    }
    // Bytes each workload must move at least once (input read + output written), for GB/s.
    let bytes = [
        2.0 * 4.0 * 4_194_304.0,
        2.0 * 4.0 * 4_194_304.0,
        2.0 * 4.0 * 4_194_304.0,
    ];
    println!("| workload | eager ms | numpy ms | numpy / eager | eager GB/s (1 read + 1 write) |");
    println!("|---|---|---|---|---|");
    for (k, name) in ["W1 pointwise_chain", "W2 softmax_rows", "W3 layernorm_gelu"]
        .iter()
        .enumerate()
    {
        let id = &name[..2];
        let configs = if numpy.is_some() { 2 } else { 1 };
        let meds = alternate_medians(configs, REPS, |i| match (i, k) {
            (0, 0) => time(|| drop(w1(&x1))),
            (0, 1) => time(|| drop(w2(&x2))),
            (0, _) => time(|| drop(w3(&x2, &w, &b))),
            _ => numpy.as_mut().expect("configured").run(id),
        });
        let eager = meds[0];
        let gbs = bytes[k] / eager.as_secs_f64() / 1e9;
        match meds.get(1) {
            Some(&np) => println!(
                "| {name} | {:.2} | {:.2} | {:.2}x | {gbs:.1} |",
                ms(eager),
                ms(np),
                np.as_secs_f64() / eager.as_secs_f64()
            ),
            None => println!("| {name} | {:.2} | - | - | {gbs:.1} |", ms(eager)),
        }
    }
}
