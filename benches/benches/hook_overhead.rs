//! The frame hook's cost on a call-heavy microbenchmark: unhooked slots, the hook installed but
//! disarmed (the state every non-compiled program runs in), and armed with a handler that runs
//! every frame unchanged. Prints times and ratios; run with `cargo bench --bench hook_overhead`.

use std::rc::Rc;

use rynamo::eval_frame::{self, CallbackState, Frame, FrameAction, FrameHandler, Mode};
use rynamo::vm::{PyResult, VirtualMachine};
use rynamo_benches::{alternate_medians, time};

struct PassThrough;

impl FrameHandler for PassThrough {
    fn on_frame(&self, _: &Frame<'_>, _: Mode, _: &VirtualMachine) -> PyResult<FrameAction> {
        Ok(FrameAction::RunUnchanged)
    }
}

const WORKLOAD: &str = r#"
def leaf(x):
    return x

def mid(a, b=1):
    return leaf(a) + b

def run(n):
    total = 0
    for i in range(n):
        total += mid(i)
    return total
"#;

fn main() {
    const CALLS_PER_RUN: usize = 2 * 100_000;
    let interp = rynamo::Interpreter::builder().build();
    interp
        .run_source(WORKLOAD, "hook_overhead.py")
        .expect("workload defines");
    let handler: Rc<dyn FrameHandler> = Rc::new(PassThrough);
    let names = ["unhooked", "hook disarmed", "hook armed (pass-through)"];
    let medians = interp.enter(|vm| {
        let run = |vm: &VirtualMachine| {
            let f = interp
                .get::<rynamo::vm::PyObjectRef>("run")
                .expect("run exists");
            f.call((CALLS_PER_RUN / 2,), vm).expect("runs");
        };
        run(vm); // warm up
        let medians = alternate_medians(names.len(), 11, |config| {
            match config {
                0 => eval_frame::uninstall(vm),
                _ => eval_frame::install(vm),
            }
            let state = if config == 2 {
                CallbackState::Compile(handler.clone())
            } else {
                CallbackState::Disabled
            };
            let prev = eval_frame::set_callback_state(state, vm);
            let took = time(|| run(vm));
            eval_frame::set_callback_state(prev, vm);
            took
        });
        eval_frame::install(vm);
        medians
    });
    let base = medians[0].as_secs_f64();
    println!(
        "## frame hook overhead ({CALLS_PER_RUN} Python calls per run, median of 11, alternating)\n"
    );
    println!("| configuration | ms per run | ns per call | ratio vs unhooked |");
    println!("|---|---|---|---|");
    for (name, m) in names.iter().zip(&medians) {
        let s = m.as_secs_f64();
        println!(
            "| {name} | {:.2} | {:.1} | {:.3} |",
            s * 1e3,
            s * 1e9 / CALLS_PER_RUN as f64,
            s / base
        );
    }
}
