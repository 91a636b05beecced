//! The frame-evaluation hook: Rynamo's stand-in for CPython's PEP 523 API.
//!
//! RustPython 0.6 has no eval-frame hook, but the `function` type's call slots (`vectorcall` and
//! `call`) are public atomics. [`install`] saves the originals and stores [`hook_vectorcall`] and
//! [`hook_call`] in their place, so every call of a Python function passes through here: direct
//! calls, bound methods (their slot re-dispatches through the function's), and calls made from
//! builtins such as `map` or `sorted(key=)`.
//!
//! ```text
//!   call of a Python function
//!     └─ hook: one thread-local flag read ── disarmed ──> original slot (unchanged frame)
//!                 │ armed
//!                 └─ generator/coroutine? ── yes ──> original slot
//!                 └─ FrameHandler::on_frame(frame, mode) ──> RunUnchanged | RunCode | Return | Raise
//! ```
//!
//! **Invariants**
//! - The disarmed path costs one `const` thread-local read (measured in `benches/hook_overhead`).
//! - While armed, `vm.use_tracing` is set: RustPython's specialised call instructions
//!   (`CALL_PY_EXACT_ARGS` and kin) push frames without going through the slots unless tracing is
//!   on. It is switched off again when the outermost armed region ends.
//! - The handler runs with the hook disabled, so Python code it calls (backends, guards) is never
//!   intercepted recursively.
//! - A handler that fails (`Err`) or panics never takes the program down: the frame runs
//!   unchanged and the failure is logged once per code object.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;
use std::sync::OnceLock;

use rustpython_vm::builtins::{PyCode, PyFunction};
use rustpython_vm::bytecode::CodeFlags;
use rustpython_vm::function::FuncArgs;
use rustpython_vm::{AsObject, Py, PyObject, PyObjectRef, PyRef, PyResult, VirtualMachine};

/// The `vectorcall` slot signature (PEP 590): callable, owned args (positional then keyword
/// values), the positional count, and the keyword names.
type VectorcallFn =
    fn(&PyObject, Vec<PyObjectRef>, usize, Option<&[PyObjectRef]>, &VirtualMachine) -> PyResult;
/// The generic `call` slot signature.
type CallFn = fn(&PyObject, FuncArgs, &VirtualMachine) -> PyResult;

static ORIG_VECTORCALL: OnceLock<VectorcallFn> = OnceLock::new();
static ORIG_CALL: OnceLock<CallFn> = OnceLock::new();

/// How the handler is asked to treat a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Look up the cache; on a miss, compile.
    Compile,
    /// Look up the cache; on a miss, run the frame unchanged (PyTorch's "run-only" / frozen mode).
    RunOnly,
}

/// What to do with an intercepted frame.
pub enum FrameAction {
    /// Run the original code.
    RunUnchanged,
    /// Run the original code, the frames it calls only running cached code whose guards pass
    /// (Dynamo's `FrameExecStrategy(RUN_ONLY, RUN_ONLY)` once the recompile limit is hit: the
    /// module's `forward` under a `__call__` that hit it is not compiled on its own).
    RunUnchangedRunOnly,
    /// Run this code object instead, with the function's globals, closure and defaults.
    RunCode(PyRef<PyCode>),
    /// Skip the frame and return this value.
    Return(PyObjectRef),
    /// Raise this exception to the caller (e.g. an `Unsupported` error under `fullgraph=True`).
    Raise(rustpython_vm::builtins::PyBaseExceptionRef),
}

/// An intercepted call of a Python function.
pub struct Frame<'a> {
    /// The function being called.
    pub func: &'a Py<PyFunction>,
    /// Its code object (`func.__code__`).
    pub code: PyRef<PyCode>,
    /// The call's arguments, as passed (not yet bound to parameters).
    pub args: &'a FuncArgs,
}

/// Decides what to do with each intercepted frame. Dynamo's frame converter implements this.
pub trait FrameHandler {
    /// Called for every non-generator Python frame while the hook is armed.
    ///
    /// `Err` means the handler itself failed: the frame then runs unchanged and the failure is
    /// logged. To raise into user code on purpose, return `Ok(FrameAction::Raise(..))`.
    fn on_frame(&self, frame: &Frame<'_>, mode: Mode, vm: &VirtualMachine)
    -> PyResult<FrameAction>;

    /// Whether an exception's traceback entry for a frame of `replacement` (code returned as
    /// [`FrameAction::RunCode`]) should be hidden, given the code of the entry after it: true
    /// when the next frame continues the same user function, so the traceback shows that
    /// function once, at the line that raised.
    fn hides_frame(&self, _replacement: &PyCode, _next: &PyCode) -> bool {
        false
    }
}

/// The thread-local callback state.
#[derive(Clone, Default)]
pub enum CallbackState {
    /// Frames run unchanged; the hook costs one flag read.
    #[default]
    Disabled,
    /// Cached code runs when its guards pass; nothing new is compiled.
    RunOnly(Rc<dyn FrameHandler>),
    /// Cached code runs when its guards pass; misses are compiled.
    Compile(Rc<dyn FrameHandler>),
}

impl CallbackState {
    fn is_armed(&self) -> bool {
        !matches!(self, Self::Disabled)
    }
}

thread_local! {
    /// Mirrors `STATE.is_armed()`; read on every call, so it is a `const` `Cell<bool>`.
    static ARMED: Cell<bool> = const { Cell::new(false) };
    static STATE: RefCell<CallbackState> = const { RefCell::new(CallbackState::Disabled) };
    /// Code objects (file, line, name) whose handler failure was already logged.
    static LOGGED_FAILURES: RefCell<HashSet<(String, u32, String)>> = RefCell::new(HashSet::new());
}

/// Replaces the function type's call slots with the hook. Idempotent; call once per process
/// before any frame should be intercepted (the interpreter builder does it at VM start).
pub fn install(vm: &VirtualMachine) {
    let slots = &vm.ctx.types.function_type.slots;
    if is_installed(vm) {
        return; // a second interpreter in the same process: the slots are process-wide
    }
    let Some(orig_vc) = slots.vectorcall.load() else {
        return;
    };
    let _ = ORIG_VECTORCALL.set(orig_vc);
    if let Some(orig_call) = slots.call.load() {
        let _ = ORIG_CALL.set(orig_call);
        slots.call.store(Some(hook_call));
    }
    slots.vectorcall.store(Some(hook_vectorcall));
}

/// Puts the original call slots back (for measuring the hook's own cost; nothing else needs it).
pub fn uninstall(vm: &VirtualMachine) {
    let slots = &vm.ctx.types.function_type.slots;
    if let Some(orig) = ORIG_VECTORCALL.get() {
        slots.vectorcall.store(Some(*orig));
    }
    if let Some(orig) = ORIG_CALL.get() {
        slots.call.store(Some(*orig));
    }
}

/// Whether the hook is in the function type's slots.
pub fn is_installed(vm: &VirtualMachine) -> bool {
    let slots = &vm.ctx.types.function_type.slots;
    slots
        .vectorcall
        .load()
        .is_some_and(|f| f as usize == hook_vectorcall as VectorcallFn as usize)
}

/// Sets this thread's callback state and returns the previous one. Arming sets
/// `vm.use_tracing`; disarming clears it (unless a `sys.settrace` function needs it).
pub fn set_callback_state(state: CallbackState, vm: &VirtualMachine) -> CallbackState {
    let armed = state.is_armed();
    let prev = STATE.with(|s| std::mem::replace(&mut *s.borrow_mut(), state));
    ARMED.with(|a| a.set(armed));
    sync_use_tracing(armed, vm);
    prev
}

/// This thread's callback state.
pub fn callback_state() -> CallbackState {
    STATE.with(|s| s.borrow().clone())
}

/// Whether the hook is armed on this thread.
#[inline]
pub fn is_armed() -> bool {
    ARMED.with(Cell::get)
}

/// Runs `f` with `state` installed, restoring the previous state afterwards (also on error).
pub fn with_callback_state<R>(
    state: CallbackState,
    vm: &VirtualMachine,
    f: impl FnOnce() -> R,
) -> R {
    struct Restore<'vm> {
        prev: Option<CallbackState>,
        vm: &'vm VirtualMachine,
    }
    impl Drop for Restore<'_> {
        fn drop(&mut self) {
            if let Some(prev) = self.prev.take() {
                set_callback_state(prev, self.vm);
            }
        }
    }
    let prev = set_callback_state(state, vm);
    let _restore = Restore {
        prev: Some(prev),
        vm,
    };
    f()
}

fn sync_use_tracing(armed: bool, vm: &VirtualMachine) {
    // NOTE: `sys.settrace`/`setprofile` also rely on `use_tracing`; never switch it off under them.
    let traced =
        vm.trace_func.borrow().is(&vm.ctx.none) && vm.profile_func.borrow().is(&vm.ctx.none);
    vm.use_tracing.set(armed || !traced);
}

fn orig_vectorcall() -> VectorcallFn {
    *ORIG_VECTORCALL
        .get()
        .expect("invariant: the hook is only reachable after install() saved the slot")
}

fn orig_call() -> CallFn {
    *ORIG_CALL
        .get()
        .expect("invariant: the hook is only reachable after install() saved the slot")
}

/// The `vectorcall` slot of `function` while Rynamo runs.
fn hook_vectorcall(
    callable: &PyObject,
    args: Vec<PyObjectRef>,
    nargs: usize,
    kwnames: Option<&[PyObjectRef]>,
    vm: &VirtualMachine,
) -> PyResult {
    if !is_armed() {
        return orig_vectorcall()(callable, args, nargs, kwnames, vm);
    }
    let func_args = FuncArgs::from_vectorcall_owned(args, nargs, kwnames);
    intercept(callable, func_args, vm)
}

/// The `call` slot of `function` while Rynamo runs.
fn hook_call(callable: &PyObject, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    if !is_armed() {
        return orig_call()(callable, args, vm);
    }
    intercept(callable, args, vm)
}

fn intercept(callable: &PyObject, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    let Some(func) = callable.downcast_ref::<PyFunction>() else {
        return orig_call()(callable, args, vm);
    };
    let Some(code) = crate::function_parts::code(func, vm) else {
        return orig_call()(callable, args, vm);
    };
    // Generators and coroutines pass through untouched, as in Dynamo.
    if code
        .flags
        .intersects(CodeFlags::GENERATOR | CodeFlags::COROUTINE | CodeFlags::ASYNC_GENERATOR)
    {
        return orig_call()(callable, args, vm);
    }
    let (handler, mode) = match callback_state() {
        CallbackState::Disabled => return orig_call()(callable, args, vm),
        CallbackState::RunOnly(h) => (h, Mode::RunOnly),
        CallbackState::Compile(h) => (h, Mode::Compile),
    };
    let frame = Frame {
        func,
        code: code.clone(),
        args: &args,
    };
    // The handler runs disarmed: the Python it calls (backends, guards) must not be intercepted.
    let outcome = with_callback_state(CallbackState::Disabled, vm, || {
        catch_unwind(AssertUnwindSafe(|| handler.on_frame(&frame, mode, vm)))
    });
    let action = match outcome {
        Ok(Ok(action)) => action,
        Ok(Err(exc)) => {
            log_handler_failure(&code, || {
                let mut text = String::new();
                let _ = vm.write_exception(&mut text, &exc);
                text
            });
            FrameAction::RunUnchanged
        }
        Err(panic) => {
            let msg = panic_message(&*panic);
            log_handler_failure(&code, || format!("panic: {msg}\n"));
            FrameAction::RunUnchanged
        }
    };
    match action {
        FrameAction::RunUnchanged => orig_call()(callable, args, vm),
        FrameAction::RunUnchangedRunOnly => {
            with_callback_state(CallbackState::RunOnly(handler.clone()), vm, || {
                orig_call()(callable, args, vm)
            })
        }
        FrameAction::Return(value) => Ok(value),
        FrameAction::Raise(exc) => Err(exc),
        FrameAction::RunCode(new_code) => {
            let replacement = crate::function_parts::replacement(func, &new_code, vm)?;
            orig_call()(&replacement, args, vm)
                .map_err(|e| hide_replacement_frame(e, &new_code, &*handler, vm))
        }
    }
}

/// Drops the replacement code's own traceback entry when the handler says the frame after it
/// continues the same user function (a resume function, which carries the user's function
/// name): the traceback then shows the user's frames, not the generated code that called the
/// compiled graph and the resume function.
fn hide_replacement_frame(
    exc: rustpython_vm::builtins::PyBaseExceptionRef,
    new_code: &PyRef<PyCode>,
    handler: &dyn FrameHandler,
    vm: &VirtualMachine,
) -> rustpython_vm::builtins::PyBaseExceptionRef {
    let code_of = |tb: &rustpython_vm::builtins::PyTraceback| {
        tb.frame
            .as_object()
            .get_attr("f_code", vm)
            .ok()
            .and_then(|c| c.downcast::<PyCode>().ok())
    };
    if let Some(tb) = exc.traceback() {
        let next = tb.next.lock().clone();
        let hide = code_of(&tb).is_some_and(|c| c.is(new_code))
            && next
                .as_ref()
                .and_then(|n| code_of(n))
                .is_some_and(|n| handler.hides_frame(new_code, &n));
        if hide {
            exc.set_traceback(next);
        }
    }
    exc
}

fn log_handler_failure(code: &PyRef<PyCode>, detail: impl FnOnce() -> String) {
    let line = code.first_line_number.map_or(0, |l| l.get() as u32);
    let key = (
        code.source_path.to_string(),
        line,
        code.qualname.to_string(),
    );
    let first = LOGGED_FAILURES.with(|s| s.borrow_mut().insert(key.clone()));
    if first {
        eprintln!(
            "[rynamo] frame handler failed on {} ({}:{}); running it unchanged.\n{}",
            key.2,
            key.0,
            key.1,
            detail()
        );
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_owned()
    }
}
