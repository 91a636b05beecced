//! Runs the workload drivers (`benches/workloads/*.py` under `rynamo` or `python3`) and the
//! W9 bench, collecting their timings and showing progress on stderr.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::Error;

/// Timings: `(workload, config)` to the seconds of each repetition.
pub type Samples = BTreeMap<(String, String), Vec<f64>>;

/// Where the drivers and interpreters are.
pub struct Env {
    /// The workspace root.
    pub root: PathBuf,
    /// The `rynamo` binary that runs the Python drivers.
    pub rynamo: PathBuf,
    /// The `rynamo` binary that runs the coverage suite.
    pub coverage_rynamo: PathBuf,
    /// `python3` with NumPy, if one is usable.
    pub numpy_python: Option<PathBuf>,
}

impl Env {
    fn workloads_dir(&self) -> PathBuf {
        self.root.join("benches").join("workloads")
    }
}

/// Runs `program args` in `dir`, feeding every JSON line of its stdout to `on_line`; other
/// lines (a model's own prints) are ignored. Fails when the process does.
pub fn stream_json(
    program: &Path,
    args: &[&str],
    dir: &Path,
    mut on_line: impl FnMut(Value),
) -> Result<(), Error> {
    let what = format!("{} {}", program.display(), args.join(" "));
    let mut child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::Spawn(what.clone(), e))?;
    let stdout = child
        .stdout
        .take()
        .expect("invariant: stdout was piped above");
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|e| Error::Spawn(what.clone(), e))?;
        if line.starts_with('{')
            && let Ok(v) = serde_json::from_str::<Value>(&line)
        {
            on_line(v);
        }
    }
    let out = child
        .wait_with_output()
        .map_err(|e| Error::Spawn(what.clone(), e))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(8).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(Error::Failed(what, tail.join("\n")));
    }
    Ok(())
}

fn progress(label: &str, done: usize, total: usize) {
    let mut err = std::io::stderr();
    let _ = write!(err, "\r  {label}: {done}/{total}   ");
    if done == total {
        let _ = writeln!(err);
    }
    let _ = err.flush();
}

fn record(samples: &mut Samples, v: &Value) -> Option<()> {
    let w = v.get("workload")?.as_str()?;
    let c = v.get("config")?.as_str()?;
    let s = v.get("seconds")?.as_f64()?;
    samples
        .entry((w.to_string(), c.to_string()))
        .or_default()
        .push(s);
    Some(())
}

/// Times one workload in the three Rynamo configurations (alternating inside one process).
pub fn run_rynamo(env: &Env, id: &str, reps: usize, samples: &mut Samples) -> Result<(), Error> {
    let total = reps * 3;
    let mut done = 0;
    let reps_s = reps.to_string();
    stream_json(
        &env.rynamo,
        &["rynamo_driver.py", id, &reps_s],
        &env.workloads_dir(),
        |v| {
            if record(samples, &v).is_some() {
                done += 1;
                progress(
                    &format!("{id} rynamo (eager, compiled, backend=eager)"),
                    done,
                    total,
                );
            }
        },
    )
}

/// W7: a fresh process per sample, configurations alternating process by process.
pub fn run_compile_latency(env: &Env, reps: usize, samples: &mut Samples) -> Result<(), Error> {
    let configs = ["eager", "compiled", "compiled_eager"];
    let total = reps * configs.len();
    let mut done = 0;
    for _ in 0..reps {
        for config in configs {
            stream_json(
                &env.rynamo,
                &["rynamo_driver.py", "W7", "1", config],
                &env.workloads_dir(),
                |v| {
                    record(samples, &v);
                },
            )?;
            done += 1;
            progress("W7 fresh processes", done, total);
        }
    }
    Ok(())
}

/// Times one workload in NumPy under CPython.
pub fn run_numpy(
    env: &Env,
    python: &Path,
    id: &str,
    reps: usize,
    samples: &mut Samples,
) -> Result<(), Error> {
    let mut done = 0;
    let reps_s = reps.to_string();
    stream_json(
        python,
        &["numpy_driver.py", id, &reps_s],
        &env.workloads_dir(),
        |v| {
            if record(samples, &v).is_some() {
                done += 1;
                progress(&format!("{id} numpy"), done, reps);
            }
        },
    )
}

/// `python3` if NumPy imports there; otherwise tries `python3 -m pip install numpy` once.
/// `None` (with the reason) when neither works.
pub fn find_numpy() -> Result<PathBuf, String> {
    let python = PathBuf::from("python3");
    let has_numpy = || {
        Command::new(&python)
            .args(["-c", "import numpy"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if has_numpy() {
        return Ok(python);
    }
    eprintln!("NumPy is missing: python3 -m pip install numpy");
    let installed = Command::new(&python)
        .args(["-m", "pip", "install", "--quiet", "numpy"])
        .status();
    match installed {
        Ok(s) if s.success() && has_numpy() => Ok(python),
        Ok(s) => Err(format!("`python3 -m pip install numpy` failed ({s})")),
        Err(e) => Err(format!("python3 could not be run ({e})")),
    }
}

/// W9 from `cargo bench --bench dynamo_overhead` (it needs the interpreter, so it is a Rust
/// bench, not a driver): nanoseconds per guard-tree evaluation.
pub fn run_w9(env: &Env) -> Result<f64, Error> {
    eprintln!("  W9: cargo bench -p rynamo-benches --bench dynamo_overhead (builds it if needed)");
    let what = "cargo bench --bench dynamo_overhead".to_string();
    let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args([
            "bench",
            "-q",
            "--ignore-rust-version",
            "-p",
            "rynamo-benches",
            "--bench",
            "dynamo_overhead",
        ])
        .current_dir(&env.root)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| Error::Spawn(what.clone(), e))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(Error::Failed(what, text.into_owned()));
    }
    parse_w9(&text).ok_or_else(|| Error::Failed(what, format!("no W9 line in:\n{text}")))
}

/// The ns figure of the bench's `W9 guard_check: ...: N ns per guard-tree evaluation` line.
pub fn parse_w9(text: &str) -> Option<f64> {
    let line = text.lines().find(|l| l.starts_with("W9 guard_check"))?;
    let before = line.split(" ns per guard-tree evaluation").next()?;
    before
        .rsplit(' ')
        .next()?
        .parse::<f64>()
        .ok()
        .map(|ns| ns * 1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_w9_line() {
        let text = "W5 ...\nW9 guard_check: 4 tensors + 4 scalars, 9 guards: 143 ns per guard-tree evaluation (best of 7; target < 200 ns)\n";
        let s = parse_w9(text).expect("parses");
        assert!((s - 143e-9).abs() < 1e-15);
        assert_eq!(parse_w9("W9 guard_check: no cache entry"), None);
    }

    #[test]
    fn records_only_timing_lines() {
        let mut samples = Samples::new();
        let v: Value = serde_json::from_str(
            r#"{"workload": "W1", "config": "eager", "rep": 0, "seconds": 0.5}"#,
        )
        .expect("json");
        assert!(record(&mut samples, &v).is_some());
        let other: Value = serde_json::from_str(r#"{"model": "mlp"}"#).expect("json");
        assert!(record(&mut samples, &other).is_none());
        assert_eq!(samples[&("W1".into(), "eager".into())], vec![0.5]);
    }
}
