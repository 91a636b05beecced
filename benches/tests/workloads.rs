//! Every workload of `scripts/bench` set up under the workspace's debug `rynamo`, as the harness
//! starts it (`driver.py rynamo ID`), so the workloads cannot rot between measured runs: the
//! driver checks each compiled config against eager before it reports `ready`, and the
//! real-model workloads report their eager output (compared with PyTorch's in a `--torch-python`
//! run). End of stdin right away: set-up only, no timed repetitions. W7 runs its one-shot mode.
//! `RYNAMO=/path/to/rynamo` overrides the binary.

use std::process::{Command, Stdio};

use libtest_mimic::{Arguments, Failed, Trial};

mod common;

use common::{rynamo, workspace};

/// The workloads `driver.py` serves, and whether their inputs are deterministic (an `output`
/// line is expected).
const SERVED: [(&str, bool); 12] = [
    ("W1", false),
    ("W2", false),
    ("W3", false),
    ("W4", false),
    ("W5", false),
    ("W6", false),
    ("W8", false),
    ("M1", true),
    ("M2", true),
    ("M3", true),
    ("M4", true),
    ("E1", true),
];

fn run(args: &[&str]) -> Result<String, Failed> {
    let bin = rynamo();
    if !bin.exists() {
        return Err(format!(
            "{} is missing: build it with `cargo build --ignore-rust-version -p rynamo --bin rynamo`",
            bin.display()
        )
        .into());
    }
    let out = Command::new(&bin)
        .args(args)
        .current_dir(workspace().join("benches").join("workloads"))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("could not run {}: {e}", bin.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(format!("{args:?} exited with {}:\n{stdout}\n{stderr}", out.status).into());
    }
    Ok(stdout)
}

fn json_lines(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn check_served(id: &str, deterministic: bool) -> Result<(), Failed> {
    let stdout = run(&["driver.py", "rynamo", id])?;
    let lines = json_lines(&stdout);
    if !lines.iter().any(|v| v["ready"] == true) {
        return Err(format!("{id}: no ready line:\n{stdout}").into());
    }
    let compiles = lines
        .iter()
        .filter(|v| {
            v["config"]
                .as_str()
                .is_some_and(|c| c.starts_with("compile:"))
        })
        .count();
    // E1 is eager only; the others time two compiled configs.
    let want = if id == "E1" { 0 } else { 2 };
    if compiles != want {
        return Err(
            format!("{id}: {compiles} first-call lines, expected {want}:\n{stdout}").into(),
        );
    }
    let output = lines.iter().find_map(|v| v.get("output"));
    match (deterministic, output) {
        (true, Some(o)) if o["values"].as_array().is_some_and(|v| v.len() == 16) => Ok(()),
        (true, _) => Err(format!("{id}: no output sample:\n{stdout}").into()),
        (false, None) => Ok(()),
        (false, Some(_)) => Err(format!("{id}: random inputs, yet an output sample").into()),
    }
}

fn check_w7() -> Result<(), Failed> {
    let stdout = run(&["driver.py", "rynamo", "W7", "compiled"])?;
    let ok = json_lines(&stdout)
        .iter()
        .any(|v| v["workload"] == "W7" && v["seconds"].as_f64().is_some_and(|s| s > 0.0));
    if ok {
        Ok(())
    } else {
        Err(format!("W7: no timing line:\n{stdout}").into())
    }
}

fn main() {
    let args = Arguments::from_args();
    let mut trials: Vec<Trial> = SERVED
        .iter()
        .map(|&(id, det)| Trial::test(format!("workloads::{id}"), move || check_served(id, det)))
        .collect();
    trials.push(Trial::test("workloads::W7", check_w7));
    libtest_mimic::run(&args, trials).exit();
}
