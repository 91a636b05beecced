//! `scripts/bench`: W1-W9 of `benchmarks.md` in every configuration (Rynamo eager, compiled
//! with the default backend, compiled with `backend="eager"`, NumPy under CPython) beside the
//! machine's limits measured in the same run (at its start, and again just before each workload
//! whose figure is against one: see `workloads::RunLimits`); the capture-coverage table of `benches/models/`;
//! a Markdown table, `target/bench/results.json`, a comparison with an earlier run, an SVG.
//!
//! Usage: `bench [--reps N] [--only W1,W4] [--coverage] [--coverage-only] [--no-w9]
//! [--no-numpy] [--compare OLD.json] [--plot] [--plot-to FILE.svg] [--rynamo PATH] [--coverage-rynamo PATH] [--root DIR]`.

mod coverage;
mod drivers;
mod report;
mod svg;
mod workloads;

use std::path::PathBuf;

use rynamo_benches::roofline;
use serde_json::Value;

use drivers::{Env, Samples};
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

const USAGE: &str = "usage: bench [--reps N] [--only W1,W4] [--coverage] [--coverage-only] [--no-w9] [--no-numpy] [--compare OLD.json] [--plot] [--plot-to FILE.svg] [--rynamo PATH] [--coverage-rynamo PATH] [--root DIR]";

struct Options {
    reps: usize,
    only: Option<Vec<String>>,
    coverage: bool,
    workloads: bool,
    w9: bool,
    numpy: bool,
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

fn run(o: &Options) -> Result<(), Error> {
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
    if o.coverage {
        notes.push(format!(
            "coverage suite run with {}",
            coverage_rynamo.display()
        ));
    }
    let env = Env {
        root: root.clone(),
        rynamo,
        coverage_rynamo,
        numpy_python,
    };
    let start = std::time::Instant::now();

    eprintln!("machine limits: bandwidth (copy, triad over 1 GiB) and GEMM peak (2048^3)");
    let (copy_gbs, triad_gbs) = roofline::bandwidth(roofline::BANDWIDTH_ELEMS, o.reps);
    let gemm_gflops = roofline::gemm_peak(2048, o.reps);
    let mut limits = RunLimits {
        start: Limits {
            copy_gbs,
            triad_gbs,
            gemm_gflops,
        },
        before: Default::default(),
    };

    let mut samples = Samples::new();
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
            let mut here = limits.start;
            match w.figure {
                Figure::Bandwidth(_) => {
                    (here.copy_gbs, here.triad_gbs) =
                        roofline::bandwidth(roofline::BANDWIDTH_ELEMS, o.reps);
                    limits.before.insert(w.id, here);
                }
                Figure::Flops(_) => {
                    here.gemm_gflops = roofline::gemm_peak(2048, o.reps);
                    limits.before.insert(w.id, here);
                }
                Figure::Time => {}
            }
            match w.id {
                "W7" => drivers::run_compile_latency(&env, o.reps, &mut samples)?,
                "W9" if o.w9 => match drivers::run_w9(&env) {
                    Ok(s) => {
                        samples.insert(("W9".into(), "compiled".into()), vec![s]);
                        notes.push("W9: ns per guard-tree evaluation from `cargo bench --bench dynamo_overhead` (best of 7, in Rust on a real cache entry)".into());
                    }
                    Err(e) => {
                        let note = format!("W9 not measured: {e}");
                        eprintln!("{note}");
                        notes.push(note);
                    }
                },
                "W9" => notes.push("W9 skipped (--no-w9)".into()),
                _ => drivers::run_rynamo(&env, w.id, o.reps, &mut samples)?,
            }
            if w.numpy
                && let Some(py) = &env.numpy_python
            {
                drivers::run_numpy(&env, py, w.id, o.reps, &mut samples)?;
            }
        }
    }
    let med = medians(&samples);
    let mut out: Value = report::to_json(&med, &limits, o.reps, &notes);
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
    }
    if let Some(rows) = &cov_rows {
        println!("{}", coverage::markdown(rows));
    }
    for n in &notes {
        println!("note: {n}");
    }
    let dir = root.join("target").join("bench");
    std::fs::create_dir_all(&dir).map_err(|e| Error::Io(dir.clone(), e))?;
    let path = dir.join("results.json");
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
        let svg = plot(&med, &limits, cov_rows.as_deref());
        std::fs::write(&svg_path, svg).map_err(|e| Error::Io(svg_path.clone(), e))?;
        println!("wrote {}", svg_path.display());
    }
    Ok(())
}

fn plot(med: &Medians, limits: &RunLimits, cov: Option<&[coverage::Row]>) -> String {
    let mut panels = Vec::new();
    let ratio =
        |m: &std::collections::BTreeMap<String, f64>, k: &str| Some(m.get(k)? / m.get("compiled")?);
    let rows: Vec<_> = WORKLOADS
        .iter()
        .filter_map(|w| {
            let m = med.get(w.id)?;
            let vals = vec![
                ratio(m, "eager"),
                ratio(m, "compiled_eager"),
                ratio(m, "numpy"),
            ];
            vals.iter()
                .any(Option::is_some)
                .then(|| (format!("{} {}", w.id, w.name), vals))
        })
        .collect();
    if !rows.is_empty() {
        panels.push(svg::Panel {
            title: "Speed-up of torch.compile (default backend), log scale: > 1× is faster".into(),
            series: vec![
                "vs Rynamo eager".into(),
                "vs backend=\"eager\"".into(),
                "vs NumPy".into(),
            ],
            rows,
            scale: svg::Scale::Log2 { max: 64.0 },
        });
    }
    let roof: Vec<_> = WORKLOADS
        .iter()
        .filter_map(|w| {
            let c = *med.get(w.id)?.get("compiled")?;
            let (_, unit, frac) = w.figure_at(c, limits.at(w.id))?;
            Some((
                format!("{} {} ({unit})", w.id, w.name),
                vec![Some(frac * 100.0)],
            ))
        })
        .collect();
    if !roof.is_empty() {
        panels.push(svg::Panel {
            title: "Achieved / roofline measured in the same run (compiled)".into(),
            series: vec!["% of bandwidth or GEMM peak".into()],
            rows: roof,
            scale: svg::Scale::Percent,
        });
    }
    if let Some(rows) = cov {
        panels.push(svg::Panel {
            title: "Capture coverage of benches/models/".into(),
            series: vec!["pct_ops".into(), "pct_time".into()],
            rows: rows
                .iter()
                .filter(|r| r.error.is_none())
                .map(|r| (r.model.clone(), vec![Some(r.pct_ops()), Some(r.pct_time)]))
                .collect(),
            scale: svg::Scale::Percent,
        });
    }
    svg::chart(&panels)
}
