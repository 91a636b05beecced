//! `scripts/bench`: W1-W9, M1-M4 and E1 of `benchmarks.md` in every configuration (Rynamo
//! eager, compiled with the default backend, compiled with `backend="eager"`, NumPy under
//! CPython, and with `--torch-python` real PyTorch eager and inductor), one server process per
//! implementation with repetitions alternating between them, beside the machine's limits
//! measured in the same run (at its start, and again just before each workload whose figure is
//! against one: see `workloads::RunLimits`); the capture-coverage table of `benches/models/`;
//! Markdown tables, `target/bench/results.json`, a comparison with an earlier run, an SVG.
//!
//! Usage: `bench [--reps N] [--only W1,M1] [--torch-python PATH] [--torch-threads N]
//! [--coverage] [--coverage-only] [--no-w9] [--no-numpy] [--compare OLD.json] [--plot] [--plot-to FILE.svg] [--rynamo PATH]
//! [--coverage-rynamo PATH] [--root DIR]`.

mod child;
mod coverage;
mod drivers;
mod plot;
mod report;
mod svg;
mod workloads;

use std::path::PathBuf;

use rynamo_benches::{fma_peak, roofline};
use serde_json::Value;

use drivers::{Collected, Env, Samples};
use report::Medians;
use workloads::{Figure, Limits, RunLimits, WORKLOADS};

/// What can go wrong in a run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A child process could not be started or read.
    #[error("could not run `{0}`: {1}")]
    Spawn(String, std::io::Error),
    /// A child process failed.
    #[error("`{0}` failed:\n{1}")]
    Failed(String, String),
    /// Bad arguments.
    #[error("{0}")]
    Usage(String),
    /// Reading or writing results.
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    /// A results file that is not JSON.
    #[error("{0}: {1}")]
    Json(PathBuf, serde_json::Error),
}

const USAGE: &str = "usage: bench [--reps N] [--only W1,M1] [--torch-python PATH] [--torch-threads N] [--coverage] [--coverage-only] [--no-w9] [--no-numpy] [--compare OLD.json] [--plot] [--plot-to FILE.svg] [--rynamo PATH] [--coverage-rynamo PATH] [--root DIR]";

struct Options {
    reps: usize,
    only: Option<Vec<String>>,
    coverage: bool,
    workloads: bool,
    w9: bool,
    numpy: bool,
    torch_python: Option<PathBuf>,
    torch_threads: Option<usize>,
    compare: Option<PathBuf>,
    plot: Option<PathBuf>,
    rynamo: Option<PathBuf>,
    coverage_rynamo: Option<PathBuf>,
    root: PathBuf,
}

fn parse_args() -> Result<Options, lexopt::Error> {
    use lexopt::prelude::*;
    let mut o = Options {
        reps: 11,
        only: None,
        coverage: false,
        workloads: true,
        w9: true,
        numpy: true,
        torch_python: None,
        torch_threads: None,
        compare: None,
        plot: None,
        rynamo: None,
        coverage_rynamo: None,
        // The workspace root, two levels above this crate's manifest at build time.
        root: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".."),
    };
    let mut parser = lexopt::Parser::from_env();
    while let Some(arg) = parser.next()? {
        match arg {
            Long("reps") => o.reps = parser.value()?.parse()?,
            Long("only") => {
                let v: String = parser.value()?.parse()?;
                o.only = Some(v.split(',').map(|s| s.trim().to_uppercase()).collect());
            }
            Long("coverage") => o.coverage = true,
            Long("coverage-only") => {
                o.coverage = true;
                o.workloads = false;
            }
            Long("no-w9") => o.w9 = false,
            Long("no-numpy") => o.numpy = false,
            Long("torch-python") => o.torch_python = Some(parser.value()?.into()),
            Long("torch-threads") => o.torch_threads = Some(parser.value()?.parse()?),
            Long("compare") => o.compare = Some(parser.value()?.into()),
            Long("plot") => o.plot = Some(PathBuf::from("target/bench/results.svg")),
            Long("plot-to") => o.plot = Some(parser.value()?.into()),
            Long("rynamo") => o.rynamo = Some(parser.value()?.into()),
            Long("coverage-rynamo") => o.coverage_rynamo = Some(parser.value()?.into()),
            Long("root") => o.root = parser.value()?.into(),
            Long("help") | Short('h') => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            _ => return Err(arg.unexpected()),
        }
    }
    Ok(o)
}

fn main() {
    let opts = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("bench: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = run(&opts) {
        eprintln!("bench: {e}");
        std::process::exit(1);
    }
}

fn medians(samples: &Samples) -> Medians {
    let mut m = Medians::new();
    for ((w, c), xs) in samples {
        let mut xs = xs.clone();
        xs.sort_by(f64::total_cmp);
        if let Some(&med) = xs.get(xs.len() / 2) {
            m.entry(w.clone()).or_default().insert(c.clone(), med);
        }
    }
    m
}

/// The machine's limits now: bandwidth (when `bandwidth`) and the FP32 peak figures (when
/// `flops`), the rest left at `base`.
fn measure_limits(
    env: &Env,
    base: Limits,
    (bandwidth, flops): (bool, bool),
    reps: usize,
    col: &mut Collected,
    notes: &mut Vec<String>,
) -> Limits {
    let mut l = base;
    if bandwidth {
        (l.copy_gbs, l.triad_gbs) = roofline::bandwidth(roofline::BANDWIDTH_ELEMS, reps);
    }
    if flops {
        l.gemm_gflops = roofline::gemm_peak(2048, reps);
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        match fma_peak::fma_peak(threads, reps) {
            Ok((g, isa)) => {
                l.fma_gflops = g;
                push_once(
                    notes,
                    format!("FP32 peak: FMA loop ({isa:?}) on {threads} threads at once"),
                );
            }
            Err(e) => push_once(notes, format!("FMA-loop peak not measured: {e}")),
        }
        if env.numpy_python.is_some() {
            match drivers::sgemm_peak(env, 2048, reps, col) {
                Ok(g) => l.sgemm_gflops = g,
                Err(e) => push_once(notes, format!("OpenBLAS sgemm peak not measured: {e}")),
            }
        }
    }
    l
}

/// The 1-minute load average (`/proc/loadavg`), where the OS has one: other processes on this
/// shared machine's cores change every figure, PyTorch's spinning OpenMP workers most of all.
fn load_average() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Adds a note unless it is there already.
fn push_once(notes: &mut Vec<String>, note: String) {
    if !notes.contains(&note) {
        notes.push(note);
    }
}

fn run(o: &Options) -> Result<(), Error> {
    if o.torch_threads == Some(0) {
        return Err(Error::Usage("--torch-threads 0: at least 1".into()));
    }
    if o.reps < 10 {
        return Err(Error::Usage(format!(
            "--reps {}: at least 10 (medians of >= 10)",
            o.reps
        )));
    }
    let root = o
        .root
        .canonicalize()
        .map_err(|e| Error::Io(o.root.clone(), e))?;
    let rynamo = o
        .rynamo
        .clone()
        .unwrap_or_else(|| root.join("target").join("release").join("rynamo"));
    // The drivers run in their own folders: the binary's path must not be relative.
    let rynamo = rynamo
        .canonicalize()
        .map_err(|e| Error::Io(rynamo.clone(), e))?;
    // Op counts do not depend on the build profile, so the coverage suite may run on another
    // binary (a debug build with newer Python sources, say); by default the timed one.
    let coverage_rynamo = match &o.coverage_rynamo {
        Some(p) => p.canonicalize().map_err(|e| Error::Io(p.clone(), e))?,
        None => rynamo.clone(),
    };
    // Absolute but not canonicalized: a venv's `bin/python` is a symlink, and its own path is
    // what selects the venv.
    let torch_python = match &o.torch_python {
        Some(p) if !p.exists() => {
            return Err(Error::Usage(format!(
                "--torch-python {}: no such file (make a venv: python3 -m venv V && V/bin/pip install torch numpy)",
                p.display()
            )));
        }
        Some(p) => Some(std::path::absolute(p).map_err(|e| Error::Io(p.clone(), e))?),
        None => None,
    };
    let mut notes = Vec::new();
    let numpy_python = if o.numpy && o.workloads {
        match drivers::find_numpy() {
            Ok(p) => Some(p),
            Err(why) => {
                let note = format!("NumPy skipped: {why}");
                eprintln!("{note}");
                notes.push(note);
                None
            }
        }
    } else {
        None
    };
    notes.push(format!("workloads timed with {}", rynamo.display()));
    if let Some(p) = &torch_python {
        notes.push(format!("PyTorch run by {}", p.display()));
    }
    if o.coverage {
        notes.push(format!(
            "coverage suite run with {}",
            coverage_rynamo.display()
        ));
    }
    let bench_dir = root.join("target").join("bench");
    let log_dir = bench_dir.join("logs");
    std::fs::create_dir_all(&log_dir).map_err(|e| Error::Io(log_dir.clone(), e))?;
    let torch_cache = bench_dir.join("torchinductor-cache");
    if torch_python.is_some() && torch_cache.exists() {
        std::fs::remove_dir_all(&torch_cache).map_err(|e| Error::Io(torch_cache.clone(), e))?;
    }
    let env = Env {
        root: root.clone(),
        rynamo,
        coverage_rynamo,
        numpy_python,
        torch_python,
        torch_threads: o
            .torch_threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        torch_cache,
        log_dir,
    };
    let start = std::time::Instant::now();
    let mut col = Collected::default();
    let load_before = load_average();

    eprintln!(
        "machine limits: bandwidth (copy, triad over 1 GiB); FP32 peak (FMA loop, OpenBLAS sgemm 2048^3; the gemm crate's 2048^3 for reference)"
    );
    let all = o.workloads;
    let mut limits = RunLimits {
        start: measure_limits(
            &env,
            Limits::default(),
            (all, all),
            o.reps,
            &mut col,
            &mut notes,
        ),
        before: Default::default(),
    };

    if o.workloads {
        let selected: Vec<_> = WORKLOADS
            .iter()
            .filter(|w| {
                o.only
                    .as_ref()
                    .is_none_or(|only| only.iter().any(|s| s == w.id))
            })
            .collect();
        for (i, w) in selected.iter().enumerate() {
            eprintln!("[{}/{}] {} {}", i + 1, selected.len(), w.id, w.name);
            let which = match w.figure {
                Figure::Bandwidth(_) => (true, false),
                Figure::Flops(_) => (false, true),
                Figure::Time => (false, false),
            };
            if which.0 || which.1 {
                let here = measure_limits(&env, limits.start, which, o.reps, &mut col, &mut notes);
                limits.before.insert(w.id, here);
            }
            match w.id {
                "W7" => drivers::run_compile_latency(&env, o.reps, &mut col)?,
                "W9" if o.w9 => match drivers::run_w9(&env) {
                    Ok(s) => {
                        col.samples
                            .insert(("W9".into(), "compiled".into()), vec![s]);
                        notes.push("W9: ns per guard-tree evaluation from `cargo bench --bench dynamo_overhead` (best of 7, in Rust on a real cache entry)".into());
                    }
                    Err(e) => {
                        let note = format!("W9 not measured: {e}");
                        eprintln!("{note}");
                        notes.push(note);
                    }
                },
                "W9" => notes.push("W9 skipped (--no-w9)".into()),
                _ => drivers::run_alternating(&env, w.id, o.reps, w.numpy, &mut col, &mut notes)?,
            }
        }
    }
    for i in &col.info {
        push_once(&mut notes, i.clone());
    }
    if let (Some(before), Some(after)) = (load_before, load_average()) {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        // Judged on the start only: at the end the load includes this run's own children.
        let busy = if before > 0.5 * cores as f64 + 0.5 {
            " (other processes were running when the run started: the figures are noisy; measure in a quiet window)"
        } else {
            ""
        };
        notes.push(format!(
            "load average (1 min) at the start {before:.2}, at the end {after:.2}, on {cores} cores{busy}"
        ));
    }
    let med = medians(&col.samples);
    let mut out: Value = report::to_json(&med, &limits, o.reps, &notes);
    out["outputs"] = report::outputs_json(&col.outputs);
    let mut cov_rows = None;
    if o.coverage {
        eprintln!(
            "coverage suite: benches/models/ under {}",
            env.coverage_rynamo.display()
        );
        let rows = coverage::run(&env)?;
        out["coverage"] = coverage::to_json(&rows);
        cov_rows = Some(rows);
    }
    eprintln!("done in {:.0} s\n", start.elapsed().as_secs_f64());

    if o.workloads {
        println!("{}", report::markdown(&med, &limits, o.reps));
        if let Some(t) = report::pytorch_markdown(&med, &col.outputs) {
            println!(
                "Side by side with real PyTorch (the same run, alternating processes):\n\n{t}"
            );
        }
    }
    if let Some(rows) = &cov_rows {
        println!("{}", coverage::markdown(rows));
    }
    for n in &notes {
        println!("note: {n}");
    }
    let path = bench_dir.join("results.json");
    let text = serde_json::to_string_pretty(&out).expect("invariant: a JSON value serialises");
    std::fs::write(&path, text).map_err(|e| Error::Io(path.clone(), e))?;
    println!("\nwrote {}", path.display());
    if let Some(old_path) = &o.compare {
        let text = std::fs::read_to_string(old_path).map_err(|e| Error::Io(old_path.clone(), e))?;
        let old: Value =
            serde_json::from_str(&text).map_err(|e| Error::Json(old_path.clone(), e))?;
        println!(
            "\nchange against {}:\n\n{}",
            old_path.display(),
            report::compare(&old, &out)
        );
    }
    if let Some(svg_path) = &o.plot {
        let svg_path = root.join(svg_path);
        if let Some(parent) = svg_path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::Io(parent.to_path_buf(), e))?;
        }
        let svg = plot::chart(&med, &limits, cov_rows.as_deref());
        std::fs::write(&svg_path, svg).map_err(|e| Error::Io(svg_path.clone(), e))?;
        println!("wrote {}", svg_path.display());
    }
    Ok(())
}
