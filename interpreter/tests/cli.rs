//! The `rynamo` binary behaves like `python`: run modes, `sys.argv`, exit codes, error messages,
//! flushing, and the standard library that ordinary scripts import.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn rynamo() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rynamo"));
    cmd.env_remove("PYTHONPATH").env_remove("TORCH_LOGS");
    cmd
}

fn run(args: &[&str]) -> Output {
    rynamo().args(args).output().expect("rynamo starts")
}

fn run_stdin(args: &[&str], input: &str) -> Output {
    let mut child = rynamo()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rynamo starts");
    child
        .stdin
        .take()
        .expect("stdin piped")
        .write_all(input.as_bytes())
        .expect("writes stdin");
    child.wait_with_output().expect("finishes")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rynamo-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("creates scratch dir");
    dir
}

#[test]
fn script_gets_argv_and_its_directory_on_sys_path() {
    let dir = scratch("argv");
    std::fs::write(dir.join("helper.py"), "VALUE = 7\n").expect("writes");
    let script = dir.join("main.py");
    std::fs::write(
        &script,
        "import sys, helper\nprint(sys.argv[1:], helper.VALUE, __name__)\n",
    )
    .expect("writes");
    let o = run(&[script.to_str().expect("utf8"), "a", "b"]);
    assert_eq!(stdout(&o), "['a', 'b'] 7 __main__\n", "{}", stderr(&o));
    assert!(o.status.success());
}

#[test]
fn dash_c_and_the_json_example_from_the_issue() {
    let o = run(&[
        "-c",
        "import dataclasses, json; print(json.dumps({'a': 1}))",
    ]);
    assert_eq!(stdout(&o), "{\"a\": 1}\n");
    assert!(o.status.success());
    let o = run(&["-c", "import sys; print(sys.argv)", "x", "-y"]);
    assert_eq!(stdout(&o), "['-c', 'x', '-y']\n");
}

#[test]
fn dash_m_runs_a_module_as_main() {
    let o = run_stdin(&["-m", "json.tool"], "{\"b\": [1, 2]}");
    assert_eq!(
        stdout(&o),
        "{\n    \"b\": [\n        1,\n        2\n    ]\n}\n",
        "{}",
        stderr(&o)
    );
    assert!(o.status.success());
}

#[test]
fn script_from_stdin() {
    let o = run_stdin(
        &["-", "arg"],
        "import sys\nfor i in range(2):\n    print(i, sys.argv)\n",
    );
    assert_eq!(stdout(&o), "0 ['-', 'arg']\n1 ['-', 'arg']\n");
    let o = run_stdin(&[], "print('piped')\n");
    assert_eq!(stdout(&o), "piped\n");
}

#[test]
fn exit_codes_match_python() {
    assert_eq!(
        run(&["-c", "import sys; sys.exit(3)"]).status.code(),
        Some(3)
    );
    assert_eq!(run(&["-c", "raise SystemExit"]).status.code(), Some(0));
    let o = run(&["-c", "import sys; sys.exit('fatal: bad config')"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("fatal: bad config"));
}

#[test]
fn uncaught_exception_prints_traceback_and_exits_1() {
    let dir = scratch("exc");
    let script = dir.join("boom.py");
    std::fs::write(
        &script,
        "print('before')\ndef f():\n    raise ValueError('boom')\nf()\n",
    )
    .expect("writes");
    let o = run(&[script.to_str().expect("utf8")]);
    assert_eq!(o.status.code(), Some(1));
    // Output written before the exception is flushed, not lost.
    assert_eq!(stdout(&o), "before\n");
    let err = stderr(&o);
    assert!(
        err.starts_with("Traceback (most recent call last):"),
        "{err}"
    );
    assert!(err.contains("boom.py\", line 3, in f"), "{err}");
    assert!(err.trim_end().ends_with("ValueError: boom"), "{err}");
}

#[test]
fn missing_script_is_errno_2_and_exit_2() {
    let o = run(&["/nonexistent/dir/train.py"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "rynamo: can't open file '/nonexistent/dir/train.py': [Errno 2] No such file or directory\n"
    );
}

#[test]
fn syntax_error_names_file_line_and_caret() {
    let dir = scratch("syntax");
    let script = dir.join("bad.py");
    std::fs::write(&script, "x = 1\ny = (\n").expect("writes");
    let o = run(&[script.to_str().expect("utf8")]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("bad.py\", line 2"), "{err}");
    assert!(err.contains('^'), "{err}");
    assert!(err.contains("SyntaxError: '(' was never closed"), "{err}");
}

#[test]
fn dash_m_of_a_missing_module() {
    let o = run(&["-m", "no_such_module_xyz"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).ends_with(": No module named no_such_module_xyz\n"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn version_and_help() {
    let o = run(&["--version"]);
    assert!(
        stdout(&o).starts_with("Rynamo 0.1.0 (Python 3."),
        "{}",
        stdout(&o)
    );
    let o = run(&["--help"]);
    let text = stdout(&o);
    assert!(
        text.contains("Rynamo options:") && text.contains("Python options"),
        "{text}"
    );
    let o = run(&["--no-such-option"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn ordinary_scripts_find_their_standard_library() {
    let code = r##"
import collections, itertools, functools, dataclasses, typing, inspect, math, random, json
import re, time, contextlib, enum, abc, operator, warnings, logging, threading

@dataclasses.dataclass
class Config:
    width: int = 4
    names: typing.List[str] = dataclasses.field(default_factory=list)

class Color(enum.Enum):
    RED = 1

counts = collections.Counter("abracadabra").most_common(1)
pairs = list(itertools.combinations(range(3), 2))
total = functools.reduce(operator.add, range(5))
params = list(inspect.signature(lambda a, b=2: None).parameters)
random.seed(0)
with contextlib.suppress(KeyError):
    {}["x"]
logging.getLogger("t").debug("quiet")
print(Config(), Color.RED.name, counts, pairs, total, params, math.isclose(0.1 + 0.2, 0.3),
      re.sub(r"\d", "#", "a1b2"), json.loads("[1]"), isinstance(time.time(), float))
"##;
    let o = run(&["-c", code]);
    assert_eq!(
        stdout(&o),
        "Config(width=4, names=[]) RED [('a', 5)] [(0, 1), (0, 2), (1, 2)] 10 ['a', 'b'] True \
         a#b# [1] True\n",
        "{}",
        stderr(&o)
    );
}

#[test]
fn repl_on_a_terminal() {
    // `script` gives the child a pseudo-terminal, so rynamo starts its REPL.
    if Command::new("script").arg("--version").output().is_err() {
        panic!("the `script` utility (util-linux) is needed for the REPL test");
    }
    let mut child = Command::new("script")
        .args(["-qec", env!("CARGO_BIN_EXE_rynamo"), "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script starts");
    // Line by line, with pauses: the line editor flushes type-ahead when it enters raw mode.
    let mut stdin = child.stdin.take().expect("stdin piped");
    for line in ["x = 6 * 7\n", "print('answer', x)\n", "exit()\n"] {
        std::thread::sleep(std::time::Duration::from_millis(400));
        stdin.write_all(line.as_bytes()).expect("writes");
        stdin.flush().expect("flushes");
    }
    std::thread::sleep(std::time::Duration::from_millis(400));
    drop(stdin);
    let o = child.wait_with_output().expect("finishes");
    let out = stdout(&o);
    assert!(out.contains(">>> "), "{out}");
    assert!(out.contains("answer 42"), "{out}");
}

/// The reference plugin's cdylib (a dev-dependency, built next to the test binaries).
fn reference_plugin() -> PathBuf {
    let exe = std::env::current_exe().expect("test exe");
    let deps = exe.parent().expect("deps dir");
    let file = format!(
        "{}rynamo_plugin_reference{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    [deps.join(&file), deps.join("..").join(&file)]
        .into_iter()
        .find(|p| p.exists())
        .expect("the reference plugin is built as a dev-dependency")
}

#[test]
fn plugin_flag_and_env_register_backends() {
    let plugin = reference_plugin();
    let code = "import torch; print('reference' in torch._dynamo.list_backends())";
    let o = run(&["--plugin", plugin.to_str().expect("utf8"), "-c", code]);
    assert_eq!(stdout(&o), "True\n", "{}", stderr(&o));
    let list = format!("/nonexistent/a.so:{}", plugin.display());
    let o = rynamo()
        .env("RYNAMO_PLUGINS", list)
        .args(["-c", code])
        .output()
        .expect("runs");
    assert_eq!(stdout(&o), "True\n");
    // A plugin that cannot load is a warning; the program runs on.
    assert!(
        stderr(&o).contains("could not load plugin /nonexistent/a.so"),
        "{}",
        stderr(&o)
    );
    let o = run(&["--plugin", "/nonexistent/b.so", "-c", "print('still runs')"]);
    assert_eq!(stdout(&o), "still runs\n");
    assert!(
        stderr(&o).contains("--plugin /nonexistent/b.so"),
        "{}",
        stderr(&o)
    );
}
