//! Child processes: the drivers under `rynamo`, PyTorch's and NumPy's Python. Their stdout is
//! read as JSON lines; a server's stdin carries its commands; stderr goes to a log file read
//! back when a child fails (a pipe could fill while stdout is being read and stall the child).

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::Error;

/// Runs `cmd`, feeding every JSON line of its stdout to `on_line`; other lines (a model's own
/// prints) are ignored. Fails when the process does.
pub fn stream_json(cmd: Command, on_line: impl FnMut(Value)) -> Result<(), Error> {
    let mut child = Child::spawn(cmd, None)?;
    // Not a server: end of input at once.
    drop(child.stdin.take());
    child.read_until(on_line, |_| false)?;
    child.finish()
}

/// A child process whose stdout is read line by line and whose stderr goes to a log file.
pub struct Child {
    /// The command line, for errors.
    pub what: String,
    proc: std::process::Child,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
    stdin: Option<std::process::ChildStdin>,
    log: Option<PathBuf>,
}

impl Child {
    /// Starts `cmd` (stdin piped, so a server waits for its commands; stderr to `log` or piped).
    pub fn spawn(mut cmd: Command, log: Option<PathBuf>) -> Result<Child, Error> {
        let what = format!(
            "{} {}",
            cmd.get_program().to_string_lossy(),
            cmd.get_args()
                .map(|a| a.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" ")
        );
        let stderr = match &log {
            Some(path) => {
                Stdio::from(std::fs::File::create(path).map_err(|e| Error::Io(path.clone(), e))?)
            }
            None => Stdio::piped(),
        };
        let mut proc = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .map_err(|e| Error::Spawn(what.clone(), e))?;
        let stdout = proc
            .stdout
            .take()
            .expect("invariant: stdout was piped above");
        let stdin = proc.stdin.take();
        Ok(Child {
            what,
            proc,
            lines: BufReader::new(stdout).lines(),
            stdin,
            log,
        })
    }

    /// Feeds JSON lines to `on_line` until `stop` accepts one (true) or stdout ends (false).
    pub fn read_until(
        &mut self,
        mut on_line: impl FnMut(Value),
        stop: impl Fn(&Value) -> bool,
    ) -> Result<bool, Error> {
        for line in self.lines.by_ref() {
            let line = line.map_err(|e| Error::Spawn(self.what.clone(), e))?;
            if line.starts_with('{')
                && let Ok(v) = serde_json::from_str::<Value>(&line)
            {
                if stop(&v) {
                    return Ok(true);
                }
                on_line(v);
            }
        }
        Ok(false)
    }

    /// Sends one command line to a server.
    pub fn send(&mut self, line: &str) -> Result<(), Error> {
        let stdin = self
            .stdin
            .as_mut()
            .expect("invariant: stdin is open until finish");
        writeln!(stdin, "{line}")
            .and_then(|()| stdin.flush())
            .map_err(|e| Error::Spawn(self.what.clone(), e))
    }

    /// Closes stdin (a server exits on end of input), waits, and fails with the end of its
    /// stderr when the process failed.
    pub fn finish(mut self) -> Result<(), Error> {
        drop(self.stdin.take());
        // Drain what is left so that the child never blocks on a full pipe.
        for _ in self.lines.by_ref() {}
        let out = self
            .proc
            .wait_with_output()
            .map_err(|e| Error::Spawn(self.what.clone(), e))?;
        if out.status.success() {
            return Ok(());
        }
        let stderr = match &self.log {
            Some(p) => std::fs::read_to_string(p).unwrap_or_default(),
            None => String::from_utf8_lossy(&out.stderr).into_owned(),
        };
        let tail: Vec<&str> = stderr.lines().rev().take(8).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        Err(Error::Failed(
            format!("{} ({})", self.what, out.status),
            tail.join("\n"),
        ))
    }
}
