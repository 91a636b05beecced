//! Embedding Rynamo in a Rust program: add a native module, run Python source, call a Python
//! function with Rust values, evaluate an expression, and handle a Python error as a `Result`.
//!
//! Run it with `cargo run --ignore-rust-version -p rynamo --example embed`.

use rynamo::vm::pymodule;

/// A native module written in Rust, importable from Python as `telemetry`.
#[pymodule]
mod telemetry {
    use rynamo::vm::builtins::PyStrRef;

    /// Scales a reading by a calibration factor.
    #[pyfunction]
    fn calibrate(reading: f64, factor: f64) -> f64 {
        reading * factor
    }

    /// Formats a label the way the host application wants it.
    #[pyfunction]
    fn label(name: PyStrRef) -> String {
        format!("[{}]", name.expect_str().to_uppercase())
    }
}

const SCRIPT: &str = r#"
import telemetry

def summarize(readings, factor=2.0):
    calibrated = [telemetry.calibrate(r, factor) for r in readings]
    return telemetry.label("mean") + " " + str(sum(calibrated) / len(calibrated))

def fails(x):
    return {"known": 1}[x]
"#;

fn main() -> Result<(), rynamo::Error> {
    let interp = rynamo::Interpreter::builder()
        .native_module(telemetry::module_def)
        .build();
    interp.run_source(SCRIPT, "host_script.py")?;

    let summary: String = interp.call("summarize", (vec![1.0f64, 2.0, 4.5],))?;
    println!("summarize -> {summary}");
    assert_eq!(summary, "[MEAN] 5.0");

    let n: i64 = interp.eval("len([r for r in range(10) if r % 3 == 0])")?;
    println!("eval -> {n}");
    assert_eq!(n, 4);

    match interp.call::<i64>("fails", ("unknown",)) {
        Ok(v) => panic!("expected a KeyError, got {v}"),
        Err(err) => {
            println!("a Python error came back as Err({:?}):", err.python_type());
            print!("{err}");
            assert_eq!(err.python_type(), Some("KeyError"));
        }
    }
    Ok(())
}
