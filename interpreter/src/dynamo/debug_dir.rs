//! `TORCH_COMPILE_DEBUG=1`: one folder per run, `torch_compile_debug/run_<time>-pid_<pid>/`
//! (PyTorch's naming), holding what the compiler did: Dynamo's log, each captured graph and its
//! guards, and per compiled graph the backend's files (the graph after each JIT pass, each
//! kernel's loop IR and disassembly; the joint, forward and backward graphs of training regions).
//! A `README.md` in the folder says what each file is. `TORCH_COMPILE_DEBUG_DIR` moves the
//! `torch_compile_debug` folder elsewhere, as in PyTorch.
//!
//! Files are written as the compiler produces them; a failure to write is reported once on
//! stderr and turns the feature off (debug output never breaks the program).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::OnceLock;

/// The run's folder, created on first use; `None` when the variable is off or creation failed.
static RUN_DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
/// Serialises appends to the log from several threads.
static LOG: Mutex<()> = Mutex::new(());

const README: &str = "\
# TORCH_COMPILE_DEBUG output (Rynamo)

One folder per process run: `run_<date_time>-pid_<pid>`. Ids are Dynamo's compile ids
`<frame>_<compile>` (the `[0/1]` of log lines: frame 0, its second compilation).

- `torchdynamo/debug.log`: every Dynamo log record of the run (graph breaks, recompiles,
  guards, graphs, bytecode, output code), in `TORCH_LOGS`' line format, whatever `TORCH_LOGS`
  enables on stderr.
- `torchdynamo/frame_<f>_<c>/graph.txt`: the captured graph in Rynamo's graph IR (one line per
  node: value, dtype and shape, op, arguments), as the backend receives it.
- `torchdynamo/frame_<f>_<c>/graph_code.py`: the same graph as the Python code of the
  `torch.fx.GraphModule` a Python backend would receive (`TORCH_LOGS=graph_code`).
- `torchdynamo/frame_<f>_<c>/guards.txt`: the guard tree that decides when the compiled code is
  reused (`TORCH_LOGS=guards`).
- `torchinductor/model__<f>_<c>_<inference|training>/`: what the backend made of that graph.
  For the default backend (the dynasm JIT, `\"inductor\"`):
  - `passes/NN_<pass>.txt`: the graph after each graph pass, in pipeline order;
  - `graph_after_passes.txt`: the graph the kernels were planned from;
  - `kernels/step_NN.loop_ir.txt` and `kernels/step_NN.asm`: each fused kernel's loop IR and the
    disassembly of its machine code (`.streaming.*`: its streaming-store variant);
  - `output_code.txt`: all kernels with the steps that run eagerly (`TORCH_LOGS=output_code`).
  A training region (inputs that require grad; AOTAutograd) has `joint.graph.txt`,
  `forward.graph.txt` and `backward.graph.txt` (the joint graph and the min-cut partition), and
  the files above under `forward/` and `backward/`.
  Backends that generate no code (`eager`, `aot_eager`, Python callables) write no files here.
";

/// Whether `TORCH_COMPILE_DEBUG` is on (`1`, as in PyTorch).
fn requested() -> bool {
    std::env::var("TORCH_COMPILE_DEBUG").is_ok_and(|v| v == "1")
}

/// The run's folder, if the feature is on (created, with its README, on first call).
pub fn run_dir() -> Option<&'static Path> {
    RUN_DIR
        .get_or_init(|| {
            if !requested() {
                return None;
            }
            let base = std::env::var_os("TORCH_COMPILE_DEBUG_DIR")
                .map_or_else(|| PathBuf::from("."), PathBuf::from)
                .join("torch_compile_debug");
            let dir = base.join(format!(
                "run_{}-pid_{}",
                run_timestamp(),
                std::process::id()
            ));
            match std::fs::create_dir_all(&dir)
                .and_then(|()| std::fs::write(dir.join("README.md"), README))
            {
                Ok(()) => {
                    // The JIT keeps each pass's graph from now on.
                    rynamo_passes::record_passes(true);
                    Some(dir)
                }
                Err(e) => {
                    eprintln!(
                        "TORCH_COMPILE_DEBUG: cannot create {}: {e}; no debug output",
                        dir.display()
                    );
                    None
                }
            }
        })
        .as_deref()
}

/// Whether files are being written.
pub fn enabled() -> bool {
    run_dir().is_some()
}

/// Writes `contents` to `rel` under the run's folder (parents created).
pub fn write(rel: &str, contents: &str) {
    let Some(dir) = run_dir() else { return };
    let path = dir.join(rel);
    let r = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(&path, contents));
    if let Err(e) = r {
        eprintln!("TORCH_COMPILE_DEBUG: cannot write {}: {e}", path.display());
    }
}

/// Appends log lines to `torchdynamo/debug.log`.
pub fn append_log(lines: &str) {
    use std::io::Write;
    let Some(dir) = run_dir() else { return };
    let _one_at_a_time = LOG.lock().unwrap_or_else(|e| e.into_inner());
    let path = dir.join("torchdynamo");
    let r = std::fs::create_dir_all(&path).and_then(|()| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path.join("debug.log"))
            .and_then(|mut f| f.write_all(lines.as_bytes()))
    });
    if let Err(e) = r {
        eprintln!("TORCH_COMPILE_DEBUG: cannot write debug.log: {e}");
    }
}

/// The folder of one captured frame's graph and guards.
pub fn frame_dir(compile_id: (u32, u32)) -> String {
    format!("torchdynamo/frame_{}_{}", compile_id.0, compile_id.1)
}

/// The folder of the backend's files for one compiled graph.
pub fn model_dir(compile_id: (u32, u32), training: bool) -> String {
    format!(
        "torchinductor/model__{}_{}_{}",
        compile_id.0,
        compile_id.1,
        if training { "training" } else { "inference" }
    )
}

/// `YYYY_MM_DD_HH_MM_SS_micro` in UTC (PyTorch's `run_` suffix layout).
fn run_timestamp() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}_{month:02}_{day:02}_{:02}_{:02}_{:02}_{:06}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        now.subsec_micros()
    )
}

/// Howard Hinnant's days-from-civil inverse: the Gregorian date of a day count since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::civil_from_days;

    #[test]
    fn dates_are_civil() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(20_513), (2026, 3, 1));
    }
}
