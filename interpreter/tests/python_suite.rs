//! Runs every Python script under `tests/python/` through the `rynamo` binary, one test per
//! script (so `cargo nextest` and `cargo test` list and filter them by path).
//!
//! A script passes when it exits 0 within [`TIMEOUT`], its stderr reports no frame-handler
//! failure or panic (the hook hides both from the script: the frame just runs unchanged), and,
//! if a sibling `<name>.out` exists, its stdout equals that file. Scripts check compiled results
//! against eager themselves (`tests/python/_harness.py`). Environment variables a script needs go
//! in a first line `# env: NAME=value NAME2=value`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one script may run (debug builds included): past it the script is killed and fails,
/// so a hang in the compiler fails the suite instead of stalling it.
const TIMEOUT: Duration = Duration::from_secs(900);

/// Lines on stderr that mean Dynamo failed internally, which no script may trigger:
/// `eval_frame`'s log of a handler error or panic, and Rust's panic message.
const INTERNAL_FAILURES: &[&str] = &["[rynamo] frame handler failed", "panicked at"];

use libtest_mimic::{Arguments, Failed, Trial};

fn scripts(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            scripts(&p, out);
        } else if p.extension().is_some_and(|e| e == "py")
            && !p
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('_'))
        {
            out.push(p);
        }
    }
}

fn run(script: &Path, root: &Path) -> Result<(), Failed> {
    let text = std::fs::read_to_string(script).map_err(|e| e.to_string())?;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rynamo"));
    // The suite's root holds `_harness.py`.
    cmd.arg(script)
        .env_remove("TORCH_LOGS")
        .env("PYTHONUNBUFFERED", "1")
        .env("PYTHONPATH", root);
    if let Some(plugin) = reference_plugin() {
        cmd.env("RYNAMO_TEST_PLUGIN", plugin);
    }
    if let Some(env_line) = text.lines().next().and_then(|l| l.strip_prefix("# env:")) {
        for kv in env_line.split_whitespace() {
            if let Some((k, v)) = kv.split_once('=') {
                cmd.env(k, v);
            }
        }
    }
    let out = output_within(cmd, TIMEOUT)?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!(
            "exit status {:?}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
            out.status.code()
        )
        .into());
    }
    if let Some(line) = stderr
        .lines()
        .find(|l| INTERNAL_FAILURES.iter().any(|m| l.contains(m)))
    {
        return Err(format!(
            "internal failure on stderr: {line}\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
        )
        .into());
    }
    let golden = script.with_extension("out");
    if golden.exists() {
        let want = std::fs::read_to_string(&golden).map_err(|e| e.to_string())?;
        if want != stdout {
            return Err(format!(
                "stdout differs from {}\n--- expected\n{want}\n--- actual\n{stdout}\n--- stderr\n{stderr}",
                golden.display()
            )
            .into());
        }
    }
    Ok(())
}

/// Runs `cmd` to completion like `Command::output`, killing it after `limit`.
fn output_within(mut cmd: Command, limit: Duration) -> Result<std::process::Output, Failed> {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run rynamo: {e}"))?;
    // Drained on their own threads, so a script that writes a lot never blocks on a full pipe.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            buf
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            let err = String::from_utf8_lossy(&stderr.join().unwrap_or_default()).into_owned();
            return Err(format!("timed out after {}s\n--- stderr\n{err}", limit.as_secs()).into());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Ok(std::process::Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    })
}

/// The reference plugin's cdylib, built as a dev-dependency next to the test binaries.
fn reference_plugin() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let deps = exe.parent()?;
    let file = format!(
        "{}rynamo_plugin_reference{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    [deps.join(&file), deps.join("..").join(&file)]
        .into_iter()
        .find(|p| p.exists())
}

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/python");
    let mut found = Vec::new();
    scripts(&root, &mut found);
    assert!(
        !found.is_empty(),
        "no Python scripts under {}",
        root.display()
    );
    let trials = found
        .into_iter()
        .map(|p| {
            let name = p
                .strip_prefix(&root)
                .unwrap_or(&p)
                .with_extension("")
                .to_string_lossy()
                .replace('/', "::");
            let root = root.clone();
            Trial::test(name, move || run(&p, &root))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
