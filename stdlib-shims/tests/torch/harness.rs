//! Runs Python snippets in a fresh `rynamo::Interpreter` with `torch` imported, capturing
//! `print` output.

use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use rynamo::Interpreter;
use rynamo::vm::{PyObjectRef, PyResult, VirtualMachine};
use rynamo_shims::{as_tensor, wrap_tensor};
use rynamo_tensor::Tensor;

/// An interpreter with `torch` and `torch.nn.functional as F` imported.
pub struct Py {
    pub interp: Interpreter,
    _state: StateGuard,
}

/// The default dtype, the print options and the default generator are process-wide (as in
/// PyTorch), and tests run in parallel: tests share them read-only, and a test that changes
/// them or depends on a seeded random stream holds them exclusively.
static STATE: RwLock<()> = RwLock::new(());

enum StateGuard {
    Shared(#[allow(dead_code, reason = "held for its lifetime")] RwLockReadGuard<'static, ()>),
    Exclusive(#[allow(dead_code, reason = "held for its lifetime")] RwLockWriteGuard<'static, ()>),
}

/// Removes the indentation common to all non-blank lines (test sources are indented raw
/// strings).
pub fn dedent(src: &str) -> String {
    let indent = src
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    src.lines()
        .map(|l| {
            if l.len() >= indent {
                &l[indent..]
            } else {
                l.trim_start()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl Py {
    /// An interpreter that leaves process-wide state alone.
    pub fn new() -> Py {
        let guard = StateGuard::Shared(STATE.read().unwrap_or_else(|e| e.into_inner()));
        Py::with_guard(guard)
    }

    /// An interpreter for a test that changes process-wide state or seeds the generator.
    pub fn exclusive() -> Py {
        let guard = StateGuard::Exclusive(STATE.write().unwrap_or_else(|e| e.into_inner()));
        Py::with_guard(guard)
    }

    fn with_guard(guard: StateGuard) -> Py {
        let interp = Interpreter::builder().build();
        interp
            .run_source("import torch\nimport torch.nn.functional as F\n", "<setup>")
            .expect("import torch");
        Py {
            interp,
            _state: guard,
        }
    }

    /// Runs `src` and returns what it printed; panics with the traceback if it raises.
    #[track_caller]
    pub fn out(&self, src: &str) -> String {
        let (result, text) = self.run(src);
        if let Err(e) = result {
            panic!("script raised:\n{e}\n--- printed before the error ---\n{text}");
        }
        text
    }

    /// Runs `src`, expecting an exception; returns `(type name, message)`.
    #[track_caller]
    pub fn err(&self, src: &str) -> (String, String) {
        let (result, text) = self.run(src);
        match result {
            Ok(()) => panic!("script did not raise; it printed:\n{text}"),
            Err(rynamo::Error::Python {
                type_name, message, ..
            }) => (type_name, message),
            Err(e) => panic!("unexpected error kind: {e}"),
        }
    }

    fn run(&self, src: &str) -> (rynamo::Result<()>, String) {
        self.interp
            .run_source(
                "import io as _io, sys as _sys\n_cap = _io.StringIO()\n_saved = _sys.stdout\n_sys.stdout = _cap\n",
                "<capture>",
            )
            .expect("redirect stdout");
        let result = self.interp.run_source(&dedent(src), "<test>");
        self.interp
            .run_source("_sys.stdout = _saved\n", "<restore>")
            .expect("restore stdout");
        let text: String = self.interp.eval("_cap.getvalue()").expect("captured text");
        (result, text)
    }

    /// Binds a global of `__main__` to a new tensor object holding `t`.
    pub fn set_tensor(&self, name: &str, t: Tensor) {
        self.interp
            .with_vm(|vm, scope| {
                scope
                    .globals
                    .set_item(name, wrap_tensor(t, vm), vm)
                    .map(|_| ())
            })
            .expect("set global");
    }

    /// The tensors a global holds: one tensor, or a tuple/list of them.
    pub fn tensors(&self, name: &str) -> Vec<Tensor> {
        self.interp
            .with_vm(|vm, scope| {
                let obj = scope.globals.get_item(name, vm)?;
                tensors_of(&obj, vm)
            })
            .expect("global holds tensors")
    }
}

fn tensors_of(obj: &PyObjectRef, vm: &VirtualMachine) -> PyResult<Vec<Tensor>> {
    if let Some(t) = as_tensor(obj) {
        return Ok(vec![t]);
    }
    let items: Vec<PyObjectRef> = obj.clone().try_to_value(vm)?;
    items
        .iter()
        .map(|o| {
            as_tensor(o)
                .ok_or_else(|| vm.new_type_error(format!("not a tensor: {}", o.class().name())))
        })
        .collect()
}

/// Runs `src` in a fresh interpreter and compares its output with `expected` (both dedented
/// and trimmed at the end).
#[track_caller]
pub fn check(src: &str, expected: &str) {
    check_in(&Py::new(), src, expected);
}

/// [`check`] for a test that changes process-wide state.
#[track_caller]
pub fn check_exclusive(src: &str, expected: &str) {
    check_in(&Py::exclusive(), src, expected);
}

#[track_caller]
fn check_in(py: &Py, src: &str, expected: &str) {
    let got = py.out(src);
    let want = dedent(expected);
    assert_eq!(
        got.trim_end(),
        want.trim(),
        "\n--- got ---\n{got}\n--- expected ---\n{want}\n"
    );
}

/// Runs `src` in a fresh interpreter, expecting `type_name: message`.
#[track_caller]
pub fn check_err(src: &str, type_name: &str, message: &str) {
    let (t, m) = Py::new().err(src);
    assert_eq!((t.as_str(), m.as_str()), (type_name, message));
}
