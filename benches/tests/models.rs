//! Every model program of `benches/models/` compiled (default backend) against eager on small
//! inputs, so the coverage suite cannot rot: each program's `main()` compares two compiled calls
//! with eager using `torch.allclose` and prints `ok <name>`; this test runs it under the
//! workspace's debug `rynamo` (built by the workspace build, e.g. `scripts/test`, or
//! `cargo build -p rynamo --bin rynamo`; `RYNAMO=/path/to/rynamo` overrides).

use std::path::PathBuf;
use std::process::Command;

use libtest_mimic::{Arguments, Failed, Trial};

mod common;

use common::{rynamo, workspace};

fn models_dir() -> PathBuf {
    workspace().join("benches").join("models")
}

/// The model programs: every `*.py` but the shared driver (`_suite.py`) and `coverage.py`.
fn model_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(models_dir())
        .expect("benches/models exists")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            let stem = name.strip_suffix(".py")?;
            (!stem.starts_with('_') && stem != "coverage").then(|| stem.to_string())
        })
        .collect();
    names.sort();
    names
}

fn check(name: &str) -> Result<(), Failed> {
    let bin = rynamo();
    if !bin.exists() {
        return Err(format!(
            "{} is missing: build it with `cargo build --ignore-rust-version -p rynamo --bin rynamo`",
            bin.display()
        )
        .into());
    }
    let out = Command::new(&bin)
        .arg(format!("{name}.py"))
        .current_dir(models_dir())
        .output()
        .map_err(|e| format!("could not run {}: {e}", bin.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("{name}.py exited with {}:\n{stderr}", out.status).into());
    }
    let expected = format!("ok {name} graphs=");
    if !stdout.lines().any(|l| l.starts_with(&expected)) {
        return Err(format!("{name}.py did not report `{expected}`:\n{stdout}\n{stderr}").into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let names = model_names();
    let mut trials: Vec<Trial> = names
        .iter()
        .map(|n| {
            let n = n.clone();
            Trial::test(format!("models::{n}"), move || check(&n))
        })
        .collect();
    let count = names.len();
    trials.push(Trial::test(
        "models::suite_has_at_least_20_programs",
        move || {
            if count >= 20 {
                Ok(())
            } else {
                Err(format!("{count} model programs; benchmarks.md asks for at least 20").into())
            }
        },
    ));
    libtest_mimic::run(&args, trials).exit();
}
