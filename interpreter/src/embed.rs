//! The embedding API: run Python (and `torch`) inside a Rust program.
//!
//! ```
//! let interp = rynamo::Interpreter::builder().build();
//! interp.run_source("def scale(x, k=2):\n    return [v * k for v in x]\n", "<setup>")?;
//! let doubled: Vec<i64> = interp.call("scale", (vec![1i64, 2, 3],))?;
//! assert_eq!(doubled, [2, 4, 6]);
//! let total: f64 = interp.eval("sum([0.5, 1.5])")?;
//! assert_eq!(total, 2.0);
//! # Ok::<(), rynamo::Error>(())
//! ```

use std::path::Path;

use crate::convert::{FromPy, IntoPyArgs};
use rustpython::InterpreterBuilderExt;
use rustpython_vm::builtins::{PyBaseExceptionRef, PyModuleDef};
use rustpython_vm::scope::Scope;
use rustpython_vm::{AsObject, Context, PyObjectRef, PyResult, Settings, VirtualMachine};

/// An error from the embedded interpreter.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Python raised an exception.
    #[error("{traceback}")]
    Python {
        /// The exception's type name, e.g. `ValueError`.
        type_name: String,
        /// `str(exc)`.
        message: String,
        /// The formatted traceback, as Python prints it.
        traceback: String,
    },
    /// A file could not be read.
    #[error("can't open file '{path}': {source}")]
    Io {
        /// The path.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// Converts a Python exception, capturing its formatted traceback.
    pub fn from_exception(exc: &PyBaseExceptionRef, vm: &VirtualMachine) -> Self {
        let mut traceback = String::new();
        let _ = vm.write_exception(&mut traceback, exc);
        let message = exc
            .as_object()
            .str(vm)
            .map(|s| s.to_string())
            .unwrap_or_default();
        Self::Python {
            type_name: exc.class().name().to_string(),
            message,
            traceback,
        }
    }

    /// The Python exception type name, if this is a Python error.
    pub fn python_type(&self) -> Option<&str> {
        match self {
            Self::Python { type_name, .. } => Some(type_name),
            Self::Io { .. } => None,
        }
    }
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

type ModuleFactory = Box<dyn FnOnce(&Context) -> &'static PyModuleDef>;

/// Configures an [`Interpreter`].
pub struct Builder {
    settings: Settings,
    native_modules: Vec<ModuleFactory>,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    /// A builder with the frozen standard library and default settings.
    pub fn new() -> Self {
        let mut settings = Settings::default();
        settings.utf8_mode = 1;
        settings.argv = vec![String::new()];
        Self {
            settings,
            native_modules: Vec::new(),
        }
    }

    /// Replaces the interpreter settings (`sys.argv`, paths, flags).
    pub fn settings(mut self, settings: Settings) -> Self {
        self.settings = settings;
        self
    }

    /// Sets `sys.argv`.
    pub fn argv(mut self, argv: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.settings.argv = argv.into_iter().map(Into::into).collect();
        self
    }

    /// Adds a directory to `sys.path`.
    pub fn path(mut self, dir: impl Into<String>) -> Self {
        self.settings.path_list.push(dir.into());
        self
    }

    /// Adds a native module, made with RustPython's `#[pymodule]`:
    /// `.native_module(|ctx| my_mod::module_def(ctx))`.
    pub fn native_module(
        mut self,
        make: impl FnOnce(&Context) -> &'static PyModuleDef + 'static,
    ) -> Self {
        self.native_modules.push(Box::new(make));
        self
    }

    /// Builds the RustPython interpreter with the stdlib, the native modules and the frame hook.
    pub(crate) fn build_raw(self) -> rustpython_vm::Interpreter {
        let mut builder = rustpython_vm::InterpreterBuilder::new()
            .settings(self.settings)
            .init_stdlib();
        builder = rynamo_shims::register(builder);
        let dynamo = crate::dynamo::py_module::module_def(&builder.ctx);
        builder = builder.add_native_module(dynamo);
        let aot = crate::dynamo::aot_module::module_def(&builder.ctx);
        builder = builder.add_native_module(aot);
        for make in self.native_modules {
            let def = make(&builder.ctx);
            builder = builder.add_native_module(def);
        }
        builder
            .init_hook(|vm| {
                crate::backends::register_defaults();
                crate::eval_frame::install(vm)
            })
            .interpreter()
    }

    /// Builds the interpreter.
    pub fn build(self) -> Interpreter {
        crate::plugins::load_from_env();
        let inner = self.build_raw();
        let main = inner
            .enter(|vm| vm.new_scope_with_main())
            .expect("invariant: a fresh interpreter can create __main__");
        Interpreter { inner, main }
    }
}

/// An embedded Rynamo interpreter. Code runs in its `__main__` module, which persists between
/// calls.
pub struct Interpreter {
    inner: rustpython_vm::Interpreter,
    main: Scope,
}

impl Interpreter {
    /// A [`Builder`].
    pub fn builder() -> Builder {
        Builder::new()
    }

    /// Runs `f` with the VM: the escape hatch to everything RustPython offers.
    pub fn enter<R>(&self, f: impl FnOnce(&VirtualMachine) -> R) -> R {
        self.inner.enter(f)
    }

    /// Runs `f`, converting a Python exception into [`Error`] and flushing `sys.stdout`.
    pub fn with_vm<R>(&self, f: impl FnOnce(&VirtualMachine, &Scope) -> PyResult<R>) -> Result<R> {
        self.inner.enter(|vm| {
            let result = f(vm, &self.main);
            flush_stdio(vm);
            result.map_err(|exc| Error::from_exception(&exc, vm))
        })
    }

    /// Runs Python source in `__main__`. `path` names it in tracebacks.
    pub fn run_source(&self, source: &str, path: &str) -> Result<()> {
        self.with_vm(|vm, scope| vm.run_string(scope.clone(), source, path).map(drop))
    }

    /// Runs a Python file in `__main__` (its directory is not added to `sys.path`).
    pub fn run_file(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let source = std::fs::read_to_string(path).map_err(|source| Error::Io {
            path: path.display().to_string(),
            source,
        })?;
        self.run_source(&source, &path.display().to_string())
    }

    /// Evaluates an expression in `__main__` and converts the result.
    pub fn eval<T: FromPy>(&self, expr: &str) -> Result<T> {
        self.with_vm(|vm, scope| {
            // The builtin `eval` raises a proper SyntaxError (with caret) on bad input.
            let eval = vm.builtins.as_object().get_attr("eval", vm)?;
            let value = eval.call((expr.to_owned(), scope.globals.clone()), vm)?;
            T::from_py(value, vm)
        })
    }

    /// Calls a Python callable by name with Rust arguments and converts the result. `name` is
    /// looked up in `__main__` (then builtins), or is a dotted path into a module
    /// (`"json.dumps"`).
    pub fn call<T: FromPy>(&self, name: &str, args: impl IntoPyArgs) -> Result<T> {
        self.with_vm(|vm, scope| {
            let callable = self.resolve(name, vm, scope)?;
            let value = callable.call(args.into_py_args(vm), vm)?;
            T::from_py(value, vm)
        })
    }

    /// Loads a backend plugin (a shared library) and registers it; returns its backend name, for
    /// `torch.compile(backend=name)`.
    pub fn load_plugin(&self, path: impl AsRef<Path>) -> Result<String> {
        crate::plugins::load(path).map_err(|message| Error::Python {
            type_name: "RuntimeError".into(),
            traceback: format!("RuntimeError: {message}\n"),
            message,
        })
    }

    /// Looks up a global of `__main__`.
    pub fn get<T: FromPy>(&self, name: &str) -> Result<T> {
        self.with_vm(|vm, scope| {
            let value = self.resolve(name, vm, scope)?;
            T::from_py(value, vm)
        })
    }

    fn resolve(&self, name: &str, vm: &VirtualMachine, scope: &Scope) -> PyResult<PyObjectRef> {
        if let Some(value) = scope.globals.get_item_opt(name, vm)? {
            return Ok(value);
        }
        if let Some((module, attr)) = name.rsplit_once('.') {
            let module = vm.import(&vm.ctx.new_str(module), 0)?;
            return module.get_attr(&vm.ctx.new_str(attr), vm);
        }
        vm.builtins.as_object().get_attr(&vm.ctx.new_str(name), vm)
    }
}

/// Flushes `sys.stdout` and `sys.stderr`; output written by embedded code is otherwise lost.
pub(crate) fn flush_stdio(vm: &VirtualMachine) {
    for name in ["stdout", "stderr"] {
        if let Ok(stream) = vm.sys_module.get_attr(name, vm) {
            let _ = vm.call_method(&stream, "flush", ());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_carry_the_traceback() {
        let interp = Interpreter::builder().build();
        let err = interp
            .run_source(
                "def f():\n    raise ValueError('bad input')\nf()\n",
                "embedded.py",
            )
            .expect_err("raises");
        assert_eq!(err.python_type(), Some("ValueError"));
        let text = err.to_string();
        assert!(text.contains("embedded.py\", line 2, in f"), "{text}");
        assert!(text.contains("ValueError: bad input"), "{text}");
    }

    #[test]
    fn state_persists_between_calls() {
        let interp = Interpreter::builder().build();
        interp.run_source("counter = 40", "<a>").expect("runs");
        interp.run_source("counter += 2", "<b>").expect("runs");
        assert_eq!(interp.get::<i64>("counter").expect("exists"), 42);
        let dumped: String = interp.call("json.dumps", ((1, 2),)).expect("calls");
        assert_eq!(dumped, "[1, 2]");
    }

    #[test]
    fn loading_a_missing_plugin_is_an_error() {
        let interp = Interpreter::builder().build();
        let err = interp
            .load_plugin("/nonexistent/libp.so")
            .expect_err("missing file");
        assert!(err.to_string().contains("/nonexistent/libp.so"), "{err}");
    }

    #[test]
    fn conversion_errors_are_python_type_errors() {
        let interp = Interpreter::builder().build();
        let err = interp.eval::<i64>("'text'").expect_err("not an int");
        assert_eq!(err.python_type(), Some("TypeError"));
    }
}
