//! The `rynamo` command line: python's options, plus Rynamo's own.
//!
//! Parsing follows CPython's `Modules/main.c`: options up to the first of `-c CMD`, `-m MOD`, `-`
//! or a script path; everything after that goes to `sys.argv` untouched.

use std::ffi::OsString;
use std::io::{IsTerminal, Read};
use std::process::ExitCode;

use lexopt::Arg::{Long, Short, Value};
use lexopt::ValueExt;
use rustpython_vm::scope::Scope;
use rustpython_vm::{PyResult, Settings, VirtualMachine};

use crate::embed::Builder;

/// What the command line asks to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunMode {
    /// `rynamo script.py`
    Script(String),
    /// `rynamo -c CODE`
    Command(String),
    /// `rynamo -m module`
    Module(String),
    /// No program, or `-`: a REPL on a terminal, otherwise the script read from stdin.
    Stdin,
}

/// The parsed command line.
#[derive(Debug, Clone)]
pub struct Cli {
    /// What to run.
    pub mode: RunMode,
    /// `sys.argv`.
    pub argv: Vec<String>,
    /// Plugin libraries named with `--plugin`.
    pub plugins: Vec<String>,
    /// `-i`: inspect interactively after running.
    pub inspect: bool,
    /// `-q`
    pub quiet: bool,
    /// `-u`
    pub unbuffered: bool,
    /// `-I`
    pub isolate: bool,
    /// `-E`
    pub ignore_environment: bool,
    /// `-s`
    pub no_user_site: bool,
    /// `-S`
    pub no_site: bool,
    /// `-P`
    pub safe_path: bool,
    /// `-B`
    pub dont_write_bytecode: bool,
    /// `-O` count
    pub optimize: u8,
    /// `-v` count
    pub verbose: u8,
    /// `-W` options
    pub warnings: Vec<String>,
    /// `-X` options
    pub xoptions: Vec<String>,
}

const USAGE: &str = "\
usage: rynamo [option] ... [-c cmd | -m mod | file | -] [arg] ...
Rynamo is a Python interpreter with TorchDynamo built in: `import torch` and `torch.compile` work as
in PyTorch, on a Rust tensor runtime and JIT.

Rynamo options:
--plugin PATH : load a backend plugin (a shared library) at start-up; repeatable.
                Also RYNAMO_PLUGINS=path1:path2. Select it with torch.compile(backend=NAME).
--version, -V : print the Rynamo and Python versions and exit
-h, --help    : print this help message and exit

Python options (as in CPython):
-B     : don't write .pyc files on import; also PYTHONDONTWRITEBYTECODE=x
-c cmd : program passed in as string (terminates option list)
-E     : ignore PYTHON* environment variables (such as PYTHONPATH)
-i     : inspect interactively after running script
-I     : isolate Python from the user's environment (implies -E, -P and -s)
-m mod : run library module as a script (terminates option list)
-O     : remove assert and __debug__-dependent statements (-OO: also docstrings)
-P     : don't prepend a potentially unsafe path to sys.path; also PYTHONSAFEPATH
-q     : don't print version and copyright messages on interactive startup
-s     : don't add user site directory to sys.path; also PYTHONNOUSERSITE=x
-S     : don't imply 'import site' on initialization
-u     : force the stdout and stderr streams to be unbuffered; also PYTHONUNBUFFERED=x
-v     : verbose (trace import statements); also PYTHONVERBOSE=x
-W arg : warning control; arg is action:message:category:module:lineno
-X opt : set implementation-specific option

Arguments:
file   : program read from script file
-      : program read from stdin (default; interactive mode if a tty)
arg ...: arguments passed to program in sys.argv[1:]

Environment variables Rynamo reads: TORCH_LOGS, TORCH_TRACE, RYNAMO_PLUGINS, PYTHONPATH.
";

/// The text `--version` prints.
pub fn version_text() -> String {
    format!(
        "Rynamo {} (Python {}.{}.{} compatible, RustPython {})",
        env!("CARGO_PKG_VERSION"),
        rustpython_vm::version::MAJOR,
        rustpython_vm::version::MINOR,
        rustpython_vm::version::MICRO,
        crate::RUSTPYTHON_VERSION,
    )
}

/// What parsing decided: run something, or print and exit.
#[derive(Debug)]
pub enum Parsed {
    /// Run the program.
    Run(Box<Cli>),
    /// Print this to stdout and exit 0 (`--help`, `--version`).
    Print(String),
}

/// Parses a command line (without the program name).
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Parsed, lexopt::Error> {
    let mut parser = lexopt::Parser::from_args(args);
    let mut cli = Cli {
        mode: RunMode::Stdin,
        argv: vec![String::new()],
        plugins: Vec::new(),
        inspect: false,
        quiet: false,
        unbuffered: false,
        isolate: false,
        ignore_environment: false,
        no_user_site: false,
        no_site: false,
        safe_path: false,
        dont_write_bytecode: false,
        optimize: 0,
        verbose: 0,
        warnings: Vec::new(),
        xoptions: Vec::new(),
    };
    fn rest(first: String, parser: &mut lexopt::Parser) -> Result<Vec<String>, lexopt::Error> {
        let mut argv = vec![first];
        for arg in parser.raw_args()? {
            argv.push(arg.string()?);
        }
        Ok(argv)
    }
    while let Some(arg) = parser.next()? {
        match arg {
            Short('c') => {
                let code = parser.value()?.string()?;
                cli.argv = rest("-c".to_owned(), &mut parser)?;
                cli.mode = RunMode::Command(code);
                break;
            }
            Short('m') => {
                let module = parser.value()?.string()?;
                cli.argv = rest(module.clone(), &mut parser)?;
                cli.mode = RunMode::Module(module);
                break;
            }
            Short('h' | '?') | Long("help" | "help-all" | "help-env" | "help-xoptions") => {
                return Ok(Parsed::Print(USAGE.to_owned()));
            }
            Short('V') | Long("version") => return Ok(Parsed::Print(version_text() + "\n")),
            Long("plugin") => cli.plugins.push(parser.value()?.string()?),
            Short('B') => cli.dont_write_bytecode = true,
            Short('E') => cli.ignore_environment = true,
            Short('i') => cli.inspect = true,
            Short('I') => cli.isolate = true,
            Short('O') => cli.optimize = cli.optimize.saturating_add(1),
            Short('P') => cli.safe_path = true,
            Short('q') => cli.quiet = true,
            Short('s') => cli.no_user_site = true,
            Short('S') => cli.no_site = true,
            Short('u') => cli.unbuffered = true,
            Short('v') => cli.verbose = cli.verbose.saturating_add(1),
            Short('W') => cli.warnings.push(parser.value()?.string()?),
            Short('X') => cli.xoptions.push(parser.value()?.string()?),
            // Accepted for compatibility; they change nothing here.
            Short('b' | 'd' | 'R' | 'x') => {}
            Value(program) => {
                let program = program.string()?;
                cli.argv = rest(program.clone(), &mut parser)?;
                cli.mode = if program == "-" {
                    RunMode::Stdin
                } else {
                    RunMode::Script(program)
                };
                break;
            }
            other => return Err(other.unexpected()),
        }
    }
    Ok(Parsed::Run(Box::new(cli)))
}

impl Cli {
    /// RustPython settings for this command line, reading `PYTHON*` variables unless `-E`/`-I`.
    pub fn settings(&self) -> Settings {
        let mut s = Settings::default();
        s.isolated = self.isolate;
        s.ignore_environment = self.isolate || self.ignore_environment;
        let env = |name: &str| {
            (!s.ignore_environment)
                .then(|| std::env::var_os(name))
                .flatten()
                .filter(|v| !v.is_empty())
        };
        if let Some(paths) = env("PYTHONPATH") {
            s.path_list.extend(
                std::env::split_paths(&paths).filter_map(|p| p.into_os_string().into_string().ok()),
            );
        }
        s.import_site = !self.no_site;
        s.optimize = self.optimize;
        s.verbose = self.verbose;
        s.quiet = self.quiet;
        s.inspect = self.inspect || env("PYTHONINSPECT").is_some();
        s.interactive = self.inspect;
        s.buffered_stdio = !(self.unbuffered || env("PYTHONUNBUFFERED").is_some());
        s.write_bytecode = !(self.dont_write_bytecode || env("PYTHONDONTWRITEBYTECODE").is_some());
        s.safe_path = self.isolate || self.safe_path || env("PYTHONSAFEPATH").is_some();
        s.user_site_directory =
            !(self.isolate || self.no_user_site || env("PYTHONNOUSERSITE").is_some());
        s.warnoptions = self.warnings.clone();
        s.xoptions = self
            .xoptions
            .iter()
            .map(|x| match x.split_once('=') {
                Some((k, v)) => (k.to_owned(), Some(v.to_owned())),
                None => (x.clone(), None),
            })
            .collect();
        // RustPython's locale detection is incomplete; CPython on Linux is UTF-8 in practice.
        s.utf8_mode = 1;
        s.argv = self.argv.clone();
        s
    }
}

/// The `rynamo` binary's entry point.
pub fn main() -> ExitCode {
    let cli = match parse(std::env::args_os().skip(1)) {
        Ok(Parsed::Run(cli)) => cli,
        Ok(Parsed::Print(text)) => {
            print!("{text}");
            return ExitCode::SUCCESS;
        }
        Err(err) => {
            eprintln!(
                "rynamo: {err}\nusage: rynamo [option] ... [-c cmd | -m mod | file | -] [arg] ...\nTry `rynamo -h' for more information."
            );
            return ExitCode::from(2);
        }
    };
    crate::plugins::load_from_env();
    for plugin in &cli.plugins {
        // The program still runs: graphs for a backend that failed to load fall back or error
        // where they are compiled, with this message first.
        if let Err(e) = crate::plugins::load(plugin) {
            eprintln!("rynamo: --plugin {plugin}: {e}");
        }
    }
    let interp = Builder::new().settings(cli.settings()).build_raw();
    let code = interp.run(move |vm| run(vm, &cli));
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

fn run(vm: &VirtualMachine, cli: &Cli) -> PyResult<()> {
    let scope = vm.new_scope_with_main()?;
    // As CPython: `warnings` processes -W before anything runs; `site` runs before sys.path[0].
    let _ = vm.import("warnings", 0);
    if !cli.no_site {
        let _ = vm.import("site", 0);
    }
    let interactive_stdin = std::io::stdin().is_terminal();
    if !vm.state.config.settings.safe_path {
        let path0 = match &cli.mode {
            RunMode::Script(path) => script_dir(path),
            RunMode::Module(_) => std::env::current_dir()
                .ok()
                .and_then(|p| p.into_os_string().into_string().ok())
                .unwrap_or_default(),
            RunMode::Command(_) | RunMode::Stdin => String::new(),
        };
        vm.insert_sys_path(vm.new_pyobj(path0))?;
    }
    let result = match &cli.mode {
        RunMode::Command(code) => vm.run_string(scope.clone(), code, "<string>").map(drop),
        RunMode::Module(module) => vm.run_module(module),
        RunMode::Script(path) => run_script(vm, scope.clone(), path),
        RunMode::Stdin if interactive_stdin => {
            if !cli.quiet {
                eprintln!("{}", version_text());
                eprintln!(
                    "Type \"help\", \"copyright\", \"credits\" or \"license\" for more information."
                );
            }
            return rustpython::run_shell(vm, scope);
        }
        RunMode::Stdin => {
            let mut source = String::new();
            match std::io::stdin().read_to_string(&mut source) {
                Ok(_) => vm.run_string(scope.clone(), &source, "<stdin>").map(drop),
                Err(err) => Err(vm.new_os_error(format!("can't read stdin: {err}"))),
            }
        }
    };
    if cli.inspect && interactive_stdin {
        if let Err(exc) = &result {
            vm.print_exception(exc);
        }
        return rustpython::run_shell(vm, scope);
    }
    result
}

fn run_script(vm: &VirtualMachine, scope: Scope, path: &str) -> PyResult<()> {
    let abs = std::path::absolute(path)
        .ok()
        .and_then(|p| p.into_os_string().into_string().ok())
        .unwrap_or_else(|| path.to_owned());
    match std::fs::metadata(&abs) {
        Ok(meta) if meta.is_dir() => {
            // A directory with __main__.py runs like `python dir/`.
            vm.insert_sys_path(vm.new_pyobj(abs))?;
            vm.run_module("__main__")
        }
        Ok(_) => vm.run_any_file(scope, &abs),
        Err(err) => {
            let errno = err.raw_os_error().unwrap_or(2);
            let reason = std::io::Error::from_raw_os_error(errno);
            let reason = reason.to_string();
            let reason = reason
                .split(" (os error")
                .next()
                .unwrap_or(&reason)
                .to_owned();
            eprintln!("rynamo: can't open file '{abs}': [Errno {errno}] {reason}");
            Err(vm.new_system_exit(vec![vm.ctx.new_int(2).into()].into()))
        }
    }
}

/// `sys.path[0]` for a script: its directory, with symlinks resolved (as CPython).
fn script_dir(path: &str) -> String {
    let resolved = std::fs::canonicalize(path).unwrap_or_else(|_| path.into());
    resolved
        .parent()
        .and_then(|p| p.to_str())
        .map(str::to_owned)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_mode(args: &[&str]) -> Cli {
        match parse(args.iter().map(OsString::from)).expect("parses") {
            Parsed::Run(cli) => *cli,
            Parsed::Print(text) => panic!("unexpected print: {text}"),
        }
    }

    #[test]
    fn script_and_argv() {
        let cli = run_mode(&["-u", "train.py", "a", "-b"]);
        assert_eq!(cli.mode, RunMode::Script("train.py".into()));
        assert_eq!(cli.argv, ["train.py", "a", "-b"]);
        assert!(cli.unbuffered);
    }

    #[test]
    fn command_terminates_options() {
        let cli = run_mode(&["-c", "print(1)", "-m", "x"]);
        assert_eq!(cli.mode, RunMode::Command("print(1)".into()));
        assert_eq!(cli.argv, ["-c", "-m", "x"]);
    }

    #[test]
    fn plugins_are_collected() {
        let cli = run_mode(&["--plugin", "a.so", "--plugin=b.so", "x.py"]);
        assert_eq!(cli.plugins, ["a.so", "b.so"]);
        assert_eq!(cli.mode, RunMode::Script("x.py".into()));
    }

    #[test]
    fn module_takes_the_rest() {
        let cli = run_mode(&["-q", "-m", "json.tool", "f", "-c"]);
        assert_eq!(cli.mode, RunMode::Module("json.tool".into()));
        assert_eq!(cli.argv, ["json.tool", "f", "-c"]);
    }

    #[test]
    fn stdin_forms() {
        assert_eq!(run_mode(&[]).mode, RunMode::Stdin);
        let cli = run_mode(&["-", "x"]);
        assert_eq!(cli.mode, RunMode::Stdin);
        assert_eq!(cli.argv, ["-", "x"]);
    }

    #[test]
    fn help_and_version_print() {
        for flag in ["-h", "--help"] {
            match parse([OsString::from(flag)]).expect("parses") {
                Parsed::Print(text) => {
                    assert!(text.contains("Rynamo options") && text.contains("-m mod"))
                }
                Parsed::Run(_) => panic!("{flag} should print"),
            }
        }
        match parse([OsString::from("--version")]).expect("parses") {
            Parsed::Print(text) => assert!(text.starts_with("Rynamo ")),
            Parsed::Run(_) => panic!("--version should print"),
        }
    }

    #[test]
    fn unknown_option_is_an_error() {
        assert!(parse([OsString::from("--frobnicate")]).is_err());
    }
}
