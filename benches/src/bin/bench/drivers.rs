//! Runs the workload drivers (`benches/workloads/*.py` under `rynamo` or `python3`) and the
//! W9 bench, collecting their timings and showing progress on stderr.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::Error;
use crate::child::{Child, stream_json};

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
    /// A venv's `python` with real PyTorch (`--torch-python`), if given.
    pub torch_python: Option<PathBuf>,
    /// PyTorch's intra-op threads (`OMP_NUM_THREADS`): all cores unless `--torch-threads`.
    pub torch_threads: usize,
    /// `TORCHINDUCTOR_CACHE_DIR` for the PyTorch children: emptied at the start of a run, so the
    /// first compile of each workload is cold, as a user's first run is.
    pub torch_cache: PathBuf,
    /// Where the children's stderr goes (read back when one fails).
    pub log_dir: PathBuf,
}

/// Which implementation a child process runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Impl {
    /// `rynamo driver.py rynamo ...`.
    Rynamo,
    /// `<venv python> driver.py pytorch ...`.
    PyTorch,
    /// `python3 numpy_driver.py ...`.
    NumPy,
}

impl Impl {
    /// Its name in progress lines and notes.
    pub fn label(self) -> &'static str {
        match self {
            Impl::Rynamo => "rynamo",
            Impl::PyTorch => "pytorch",
            Impl::NumPy => "numpy",
        }
    }
}

/// Environment variables the NumPy and PyTorch children run without: this machine class sets
/// them for old OpenBLAS builds, and they slow a current NumPy about 13x on W4 (issue 31).
pub const OPENBLAS_VARS: [&str; 2] = ["OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"];

impl Env {
    fn workloads_dir(&self) -> PathBuf {
        self.root.join("benches").join("workloads")
    }

    /// The command that runs `args` (a script of `benches/workloads/` and its arguments) under
    /// `imp`, in that folder. `None` when `imp` is not available in this run.
    pub fn command(&self, imp: Impl, args: &[&str]) -> Option<Command> {
        let mut cmd = match imp {
            Impl::Rynamo => Command::new(&self.rynamo),
            Impl::PyTorch => {
                let mut c = Command::new(self.torch_python.as_ref()?);
                // All cores by default, as `scripts/bench-train` runs PyTorch, and a cache of this
                // run's own.
                c.env("OMP_NUM_THREADS", self.torch_threads.to_string())
                    .env("TORCHINDUCTOR_CACHE_DIR", &self.torch_cache);
                c
            }
            Impl::NumPy => {
                let mut c = Command::new(self.numpy_python.as_ref()?);
                // OpenBLAS's idle threads spin for 2^28 cycles after each call by default; between
                // its samples the NumPy child then holds a core while Rynamo's and PyTorch's take
                // their turn (W4 compiled read 19.5 ms instead of 9.9 on 2 cores). 2^4 cycles:
                // they sleep at once.
                if std::env::var_os("OPENBLAS_THREAD_TIMEOUT").is_none() {
                    c.env("OPENBLAS_THREAD_TIMEOUT", "4");
                }
                c
            }
        };
        if imp != Impl::Rynamo {
            for v in OPENBLAS_VARS {
                cmd.env_remove(v);
            }
        }
        cmd.args(args).current_dir(self.workloads_dir());
        Some(cmd)
    }
}

fn progress(label: &str, done: usize, total: usize) {
    let mut err = std::io::stderr();
    let _ = write!(err, "\r  {label}: {done}/{total}   ");
    if done == total {
        let _ = writeln!(err);
    }
    let _ = err.flush();
}

/// Everything the children report: timings, eager outputs (to compare implementations), and
/// what each reported about itself (PyTorch's version, NumPy's BLAS kernel).
#[derive(Default)]
pub struct Collected {
    /// Timings per (workload, config).
    pub samples: Samples,
    /// Eager output samples per (workload, implementation).
    pub outputs: BTreeMap<(String, &'static str), Value>,
    /// `info`/`blas` lines, each once.
    pub info: Vec<String>,
}

impl Collected {
    fn take(&mut self, imp: Impl, v: Value) {
        if record(&mut self.samples, &v).is_some() {
            return;
        }
        if let (Some(w), Some(out)) = (v.get("workload").and_then(Value::as_str), v.get("output")) {
            self.outputs
                .insert((w.to_string(), imp.label()), out.clone());
        }
        for key in ["info", "blas"] {
            if let Some(i) = v.get(key) {
                let text = match i {
                    Value::String(s) => format!("{}: {s}", imp.label()),
                    other => format!("{} BLAS: {other}", imp.label()),
                };
                if !self.info.contains(&text) {
                    self.info.push(text);
                }
            }
        }
    }
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

/// A driver started as a server for one workload.
struct Server {
    imp: Impl,
    child: Child,
}

impl Server {
    fn start(env: &Env, imp: Impl, id: &str, col: &mut Collected) -> Result<Option<Server>, Error> {
        let args: &[&str] = match imp {
            Impl::NumPy => &["numpy_driver.py", id],
            Impl::Rynamo => &["driver.py", "rynamo", id],
            Impl::PyTorch => &["driver.py", "pytorch", id],
        };
        let Some(cmd) = env.command(imp, args) else {
            return Ok(None);
        };
        let log = env.log_dir.join(format!("{id}-{}.stderr", imp.label()));
        let mut child = Child::spawn(cmd, Some(log))?;
        let ready = child.read_until(|v| col.take(imp, v), |v| v.get("ready").is_some())?;
        if !ready {
            // Stdout ended before `ready`: the set-up failed; `finish` says why.
            child.finish()?;
            return Err(Error::Failed(
                format!("{} {id}", imp.label()),
                "exited before it was ready".into(),
            ));
        }
        Ok(Some(Server { imp, child }))
    }

    fn rep(&mut self, rep: usize, col: &mut Collected) -> Result<(), Error> {
        self.child.send(&rep.to_string())?;
        let imp = self.imp;
        let done = self.child.read_until(
            |v| col.take(imp, v),
            |v| v.get("rep_done").and_then(Value::as_u64) == Some(rep as u64),
        )?;
        if done {
            Ok(())
        } else {
            Err(Error::Failed(
                self.child.what.clone(),
                "stdout ended in a repetition".into(),
            ))
        }
    }
}

/// Times workload `id` under every implementation available (Rynamo; PyTorch with
/// `--torch-python`; NumPy when `numpy`), one server process each, repetitions alternating
/// between the processes: each repetition times every implementation once, in turn (the order
/// rotating from one repetition to the next), so all see the same window of this shared machine. An implementation that fails is left out of the rest
/// of the workload, with a note; Rynamo failing fails the run.
pub fn run_alternating(
    env: &Env,
    id: &str,
    reps: usize,
    numpy: bool,
    col: &mut Collected,
    notes: &mut Vec<String>,
) -> Result<(), Error> {
    let mut imps = vec![Impl::Rynamo, Impl::PyTorch];
    if numpy {
        imps.push(Impl::NumPy);
    }
    let mut servers = Vec::new();
    // One at a time: each set-up (compiles, whose first calls are timed) runs while the others
    // wait.
    for imp in imps {
        eprintln!(
            "  {id} {}: set-up (compiles, checks against eager)",
            imp.label()
        );
        match Server::start(env, imp, id, col) {
            Ok(Some(s)) => servers.push(s),
            Ok(None) => {}
            Err(e) if imp != Impl::Rynamo => {
                let note = format!("{id} {} left out: {e}", imp.label());
                eprintln!("{note}");
                notes.push(note);
            }
            Err(e) => return Err(e),
        }
    }
    let labels: Vec<&str> = servers.iter().map(|s| s.imp.label()).collect();
    let label = format!("{id} alternating {}", labels.join(", "));
    for rep in 0..reps {
        let mut i = 0;
        while i < servers.len() {
            // A moment between processes: the last one's worker threads stop spinning.
            std::thread::sleep(std::time::Duration::from_millis(5));
            match servers[i].rep(rep, col) {
                Ok(()) => i += 1,
                Err(e) => {
                    let s = servers.remove(i);
                    let err = s.child.finish().err().unwrap_or(e);
                    if s.imp == Impl::Rynamo {
                        return Err(err);
                    }
                    let note = format!(
                        "{id} {} left out after {rep} repetitions: {err}",
                        s.imp.label()
                    );
                    eprintln!("\n{note}");
                    notes.push(note);
                }
            }
        }
        // The next repetition starts with the next implementation, so that none always runs
        // first (just after the harness) or always right after one particular other.
        if !servers.is_empty() {
            servers.rotate_left(1);
        }
        progress(&label, rep + 1, reps);
    }
    for s in servers {
        s.child.finish()?;
    }
    Ok(())
}

/// W7: a fresh process per sample, configurations (and implementations) alternating process by
/// process.
pub fn run_compile_latency(env: &Env, reps: usize, col: &mut Collected) -> Result<(), Error> {
    let mut runs = vec![
        (Impl::Rynamo, "eager"),
        (Impl::Rynamo, "compiled"),
        (Impl::Rynamo, "compiled_eager"),
    ];
    if env.torch_python.is_some() {
        runs.push((Impl::PyTorch, "torch_eager"));
        runs.push((Impl::PyTorch, "torch_inductor"));
    }
    let total = reps * runs.len();
    let mut done = 0;
    for _ in 0..reps {
        for &(imp, config) in &runs {
            let impl_arg = if imp == Impl::Rynamo {
                "rynamo"
            } else {
                "pytorch"
            };
            let cmd = env
                .command(imp, &["driver.py", impl_arg, "W7", config])
                .expect("invariant: only available implementations are listed");
            stream_json(cmd, |v| col.take(imp, v))?;
            done += 1;
            progress("W7 fresh processes", done, total);
        }
    }
    Ok(())
}

/// NumPy's sgemm (OpenBLAS) GFLOP/s on an `n`^3 product, median of `reps`.
pub fn sgemm_peak(env: &Env, n: usize, reps: usize, col: &mut Collected) -> Result<f64, Error> {
    let (n_s, reps_s) = (n.to_string(), reps.to_string());
    let cmd = env
        .command(Impl::NumPy, &["numpy_driver.py", "peak", &n_s, &reps_s])
        .ok_or_else(|| Error::Usage("no NumPy".into()))?;
    let mut xs = Vec::new();
    stream_json(cmd, |v| {
        match v.get("sgemm_gflops").and_then(Value::as_f64) {
            Some(g) => xs.push(g),
            None => col.take(Impl::NumPy, v),
        }
    })?;
    xs.sort_by(f64::total_cmp);
    xs.get(xs.len() / 2)
        .copied()
        .ok_or_else(|| Error::Failed("numpy_driver.py peak".into(), "no sgemm figure".into()))
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
