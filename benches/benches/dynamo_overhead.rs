//! W5 (tiny_overhead) and W9 (guard_check) of `benchmarks.md`: what a compiled call costs beyond
//! its kernels.
//!
//! - W5: 30 chained elementwise ops on `x[16]`, per call, eager against `torch.compile` with the
//!   default backend and with `backend="eager"` (configurations alternate; medians of 11).
//! - W9: one guard-tree evaluation for a compiled function of 4 tensors and 4 Python scalars,
//!   timed in Rust on the cache entry's own guards and the bound arguments of a real call.
//!
//! Run with `cargo bench --bench dynamo_overhead`; it prints, it never fails.

use std::time::Instant;

use rynamo::dynamo::{cache, convert_frame};
use rynamo::vm::builtins::{PyCode, PyFunction};
use rynamo::vm::function::FuncArgs;
use rynamo::vm::{AsObject, PyObjectRef, PyRef, VirtualMachine};
use rynamo_benches::{alternate_medians, time};

const WORKLOAD: &str = r#"
import torch

def tiny(x):
    y = x
    y = y + 1; y = y * 2; y = y - 3; y = y.sin(); y = y.cos()
    y = y + 1; y = y * 2; y = y - 3; y = y.sin(); y = y.cos()
    y = y + 1; y = y * 2; y = y - 3; y = y.sin(); y = y.cos()
    y = y + 1; y = y * 2; y = y - 3; y = y.sin(); y = y.cos()
    y = y + 1; y = y * 2; y = y - 3; y = y.sin(); y = y.cos()
    y = y + 1; y = y * 2; y = y - 3; y = y.sin(); y = y.cos()
    return y

tiny_default = torch.compile(tiny)
tiny_eager_backend = torch.compile(tiny, backend="eager")

def loop(f, x, n):
    for _ in range(n):
        f(x)

def guarded(a, b, c, d, i, j, s, t):
    return a + b * c - d + (i + j) * s + t

guarded_c = torch.compile(guarded, backend="eager")
args = (torch.randn(4), torch.randn(4), torch.randn(4), torch.randn(4), 2, 3, 0.5, 1.5)
"#;

fn main() {
    let interp = rynamo::Interpreter::builder().build();
    interp
        .run_source(WORKLOAD, "dynamo_overhead.py")
        .expect("workload defines");
    interp.enter(|vm| {
        w5(&interp, vm);
        w9(&interp, vm);
    });
}

fn w5(interp: &rynamo::Interpreter, vm: &VirtualMachine) {
    const CALLS: usize = 2_000;
    let get = |n: &str| interp.get::<PyObjectRef>(n).expect("defined");
    let loop_fn = get("loop");
    let x = interp.eval::<PyObjectRef>("torch.randn(16)").expect("x");
    let configs = [
        ("eager", get("tiny")),
        ("torch.compile (default backend)", get("tiny_default")),
        (
            "torch.compile (backend=\"eager\")",
            get("tiny_eager_backend"),
        ),
        (
            "empty loop (subtracted)",
            interp
                .eval::<PyObjectRef>("lambda x: None")
                .expect("lambda"),
        ),
    ];
    for (_, f) in &configs {
        // Warm up (and compile).
        loop_fn.call((f.clone(), x.clone(), 3), vm).expect("runs");
    }
    let medians = alternate_medians(configs.len(), 11, |i| {
        time(|| {
            loop_fn
                .call((configs[i].1.clone(), x.clone(), CALLS), vm)
                .expect("runs");
        })
    });
    let base = medians[3].as_secs_f64();
    let per_call = |i: usize| (medians[i].as_secs_f64() - base).max(0.0) / CALLS as f64 * 1e6;
    println!(
        "W5 tiny_overhead: 30 chained elementwise ops, x[16], µs per call (median of 11, loop overhead subtracted)"
    );
    for (i, (name, _)) in configs.iter().enumerate().take(3) {
        println!("  {name:<34} {:>8.2} µs", per_call(i));
    }
    println!(
        "  ratio compiled(default)/eager {:.2}x, compiled(eager backend)/eager {:.2}x (target: <= 2 µs per compiled call)",
        per_call(1) / per_call(0),
        per_call(2) / per_call(0)
    );
}

fn w9(interp: &rynamo::Interpreter, vm: &VirtualMachine) {
    const EVALS: u32 = 200_000;
    interp
        .run_source("guarded_c(*args)", "dynamo_overhead.py")
        .expect("compiles");
    let func = interp.get::<PyObjectRef>("guarded").expect("defined");
    let args = interp.get::<PyObjectRef>("args").expect("defined");
    let func: PyRef<PyFunction> = func.downcast().expect("a function");
    let code: PyRef<PyCode> = func
        .as_object()
        .get_attr("__code__", vm)
        .expect("code")
        .downcast()
        .expect("a code object");
    let items = vm.extract_elements_with(&args, Ok).expect("a tuple");
    let fv = convert_frame::bind_frame(&func, &code, &FuncArgs::from(items), vm)
        .expect("binds")
        .expect("binds");
    let entries = cache::entries(code.as_object());
    let Some(entry) = entries.first() else {
        println!("W9 guard_check: no cache entry (the function did not compile)");
        return;
    };
    assert!(
        entry.guards.check(&fv, vm).is_ok(),
        "guards pass on their own arguments"
    );
    let mut best = f64::MAX;
    for _ in 0..7 {
        let start = Instant::now();
        for _ in 0..EVALS {
            let _ = std::hint::black_box(entry.guards.check(std::hint::black_box(&fv), vm));
        }
        best = best.min(start.elapsed().as_secs_f64() / f64::from(EVALS) * 1e9);
    }
    println!(
        "W9 guard_check: 4 tensors + 4 scalars, {} guards: {best:.0} ns per guard-tree evaluation (best of 7; target < 200 ns)",
        entry.guards.describe().len()
    );
}
