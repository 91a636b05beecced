//! Dynamo's settings. `torch._dynamo.config` is a Python module users assign to; Dynamo reads
//! the few settings it needs from it when it decides something (a compile, a recompile), never
//! on the cached-call path. The compile stance is native: it is consulted on every armed call.

use std::cell::RefCell;

use rustpython_vm::{AsObject, PyObjectRef, PyResult, VirtualMachine};

thread_local! {
    static STANCE: RefCell<String> = RefCell::new("default".to_owned());
    static VM_CONFIG: RefCell<Option<PyObjectRef>> = const { RefCell::new(None) };
}

/// The current `torch.compiler.set_stance` stance.
pub fn stance() -> String {
    STANCE.with(|s| s.borrow().clone())
}

/// Sets the stance; returns the previous one.
pub fn set_stance(s: &str) -> String {
    STANCE.with(|cur| std::mem::replace(&mut *cur.borrow_mut(), s.to_owned()))
}

/// Registers the Python config module (done by `torch._dynamo` at import).
pub fn register(module: PyObjectRef) {
    VM_CONFIG.with(|c| *c.borrow_mut() = Some(module));
}

/// Forgets the config module (the interpreter on this thread went away).
pub fn clear() {
    VM_CONFIG.with(|c| *c.borrow_mut() = None);
}

fn get(name: &str, vm: &VirtualMachine) -> Option<PyObjectRef> {
    let m = VM_CONFIG.with(|c| c.borrow().clone())?;
    m.get_attr(&vm.ctx.new_str(name), vm).ok()
}

fn get_bool(name: &str, default: bool) -> bool {
    with_vm(|vm| get(name, vm).and_then(|v| v.try_to_bool(vm).ok()))
        .flatten()
        .unwrap_or(default)
}

fn get_usize(name: &str, default: usize) -> usize {
    with_vm(|vm| get(name, vm).and_then(|v| v.try_to_value::<usize>(vm).ok()))
        .flatten()
        .unwrap_or(default)
}

/// Runs `f` with the current thread's VM, if one is entered.
fn with_vm<R>(f: impl FnOnce(&VirtualMachine) -> R) -> Option<R> {
    use rustpython_vm::vm::thread;
    thread::current_vm_is_set().then(|| thread::with_current_vm(f))
}

/// `config.cache_size_limit` (alias `recompile_limit`), default 8.
pub fn cache_size_limit() -> usize {
    get_usize("recompile_limit", 8)
}

/// `config.fail_on_recompile_limit_hit`: hitting the recompile limit raises instead of falling
/// back to run-only mode.
pub fn fail_on_recompile_limit_hit() -> bool {
    get_bool("fail_on_recompile_limit_hit", false)
}

/// `config.suppress_errors`.
pub fn suppress_errors() -> bool {
    get_bool("suppress_errors", false)
}

/// `config.capture_scalar_outputs`.
pub fn capture_scalar_outputs() -> bool {
    get_bool("capture_scalar_outputs", false)
}

/// `config.automatic_dynamic_shapes`: a dimension whose size changed is dynamic when the frame
/// recompiles.
pub fn automatic_dynamic_shapes() -> bool {
    get_bool("automatic_dynamic_shapes", true)
}

/// `config.assume_static_by_default`: without it every dimension starts dynamic.
pub fn assume_static_by_default() -> bool {
    get_bool("assume_static_by_default", true)
}

/// `config.force_parameter_static_shapes`: `nn.Parameter` sizes stay static.
pub fn force_parameter_static_shapes() -> bool {
    get_bool("force_parameter_static_shapes", true)
}

/// `config.allow_ignore_mark_dynamic`: a trace that specialises a `mark_dynamic` dimension
/// keeps it static instead of raising ConstraintViolationError.
pub fn allow_ignore_mark_dynamic() -> bool {
    get_bool("allow_ignore_mark_dynamic", false)
}

/// `config.verbose`.
pub fn verbose() -> bool {
    get_bool("verbose", false)
}

/// Whether `obj` is in `config.reorderable_logging_functions`.
pub fn is_reorderable_logging_function(obj: &PyObjectRef) -> bool {
    with_vm(|vm| {
        get("reorderable_logging_functions", vm)
            .and_then(|set| vm._contains(&set, obj.as_object()).ok())
            .unwrap_or(false)
    })
    .unwrap_or(false)
}

/// `config.error_on_graph_break` (set by `torch._dynamo.error_on_graph_break(True)`).
pub fn error_on_graph_break() -> bool {
    get_bool("error_on_graph_break", false)
}

/// Sets `config.error_on_graph_break`, as the real `error_on_graph_break(value)` manager's
/// `__enter__` / `__exit__` do.
pub fn set_error_on_graph_break(value: bool, vm: &VirtualMachine) -> PyResult<()> {
    match VM_CONFIG.with(|c| c.borrow().clone()) {
        Some(m) => m.set_attr("error_on_graph_break", vm.ctx.new_bool(value), vm),
        None => Ok(()),
    }
}
