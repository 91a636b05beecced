//! `_rynamo_dynamo`: the native side of `torch._dynamo` (what PyTorch keeps in
//! `torch._C._dynamo`): compiled-function wrappers that arm the frame hook, the stance, resets,
//! logging switches, disallowed ops, and the records `explain()` reads.

use rustpython_vm::builtins::PyBaseExceptionRef;
use rustpython_vm::{PyObjectRef, VirtualMachine};

pub(crate) use dynamo_module::{compiled_graph, module_def};

/// A `torch._dynamo.exc.Unsupported` with `text` (falls back to RuntimeError if the Python
/// side is missing).
pub fn unsupported_error(text: &str, vm: &VirtualMachine) -> PyBaseExceptionRef {
    dynamo_error("Unsupported", text, vm)
}

/// An exception of class `torch._dynamo.exc.<class>` with `text` (every one is a
/// `RuntimeError`, which it falls back to if the Python side is missing).
pub fn dynamo_error(class: &str, text: &str, vm: &VirtualMachine) -> PyBaseExceptionRef {
    let made = super::bridge::import_module("torch._dynamo.exc", vm)
        .and_then(|m| m.get_attr(&vm.ctx.new_str(class), vm))
        .and_then(|cls| cls.call((text.to_owned(),), vm))
        .ok()
        .and_then(|e| {
            e.downcast::<rustpython_vm::builtins::PyBaseException>()
                .ok()
        });
    made.unwrap_or_else(|| vm.new_runtime_error(text.to_owned()))
}

thread_local! {
    /// Callback states replaced by `enter_run_only`, innermost last.
    static SAVED_STATES: std::cell::RefCell<Vec<crate::eval_frame::CallbackState>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// `warnings.warn(msg)`.
pub fn warn(msg: &str, vm: &VirtualMachine) -> rustpython_vm::PyResult<()> {
    let warnings = vm.import("warnings", 0)?;
    vm.call_method(&warnings, "warn", (msg.to_owned(),))?;
    Ok(())
}

/// Python value of a user stack: a list of `(filename, lineno, name)` tuples.
fn stack_to_py(stack: &[(String, u32, String)], vm: &VirtualMachine) -> PyObjectRef {
    vm.ctx
        .new_list(
            stack
                .iter()
                .map(|(f, l, n)| {
                    vm.ctx
                        .new_tuple(vec![
                            vm.ctx.new_str(f.as_str()).into(),
                            vm.ctx.new_int(*l).into(),
                            vm.ctx.new_str(n.as_str()).into(),
                        ])
                        .into()
                })
                .collect(),
        )
        .into()
}

#[rustpython_vm::pymodule(name = "_rynamo_dynamo")]
mod dynamo_module {
    use std::rc::Rc;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    use rustpython_vm::builtins::{PyCode, PyStrRef};
    use rustpython_vm::function::FuncArgs;
    use rustpython_vm::pyclass;
    use rustpython_vm::types::{Callable, GetDescriptor};
    use rustpython_vm::{
        AsObject, Py, PyObject, PyObjectRef, PyPayload, PyRef, PyResult, Traverse, VirtualMachine,
    };

    use super::super::compile::{BackendSpec, CompileConfig};
    use super::super::convert_frame::ConvertFrame;
    use super::super::{bridge, cache, config, logs, resume, stats};
    use crate::eval_frame::{CallbackState, with_callback_state};

    static NEXT_CONFIG_ID: AtomicU64 = AtomicU64::new(1);

    thread_local! {
        /// Backend identities and their config ids: compiled entries belong to a backend, not
        /// to one `torch.compile` wrapper (PyTorch's cache entries compare the backend object),
        /// so two wrappers of one function with the same backend share the code's entries.
        /// Callable backends are kept alive here, so their addresses are never reused.
        static BACKEND_IDS: std::cell::RefCell<Vec<(BackendSpec, u64)>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }

    /// The config id of a backend: the same for the same backend name or callable object.
    fn backend_id(backend: &BackendSpec) -> u64 {
        BACKEND_IDS.with(|ids| {
            let mut ids = ids.borrow_mut();
            let found = ids.iter().find(|(b, _)| match (b, backend) {
                (BackendSpec::Native(a), BackendSpec::Native(b)) => a == b,
                (BackendSpec::Callable(a), BackendSpec::Callable(b)) => a.is(b),
                _ => false,
            });
            if let Some((_, id)) = found {
                return *id;
            }
            let id = NEXT_CONFIG_ID.fetch_add(1, Ordering::Relaxed);
            ids.push((backend.clone(), id));
            id
        })
    }

    #[derive(Debug)]
    enum CallMode {
        Compile(Arc<CompileConfig>),
        RunOnly,
        Disabled,
    }

    /// A function with Dynamo attached: calling it arms the frame hook for the call.
    #[pyattr]
    #[pyclass(name = "CompiledFunction", module = "torch._dynamo", traverse)]
    #[derive(Debug, PyPayload)]
    pub struct PyCompiledFunction {
        func: PyObjectRef,
        #[pytraverse(skip)]
        mode: CallMode,
    }

    #[pyclass(with(Callable, GetDescriptor), flags(HAS_DICT))]
    impl PyCompiledFunction {}

    impl Callable for PyCompiledFunction {
        type Args = FuncArgs;

        fn call(zelf: &Py<Self>, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
            let state = match &zelf.mode {
                CallMode::Compile(cfg) => match config::stance().as_str() {
                    "force_eager" => CallbackState::Disabled,
                    _ => CallbackState::Compile(Rc::new(ConvertFrame {
                        config: cfg.clone(),
                    })),
                },
                CallMode::RunOnly => run_only_state(),
                CallMode::Disabled => CallbackState::Disabled,
            };
            with_callback_state(state, vm, || zelf.func.call(args, vm))
        }
    }

    impl GetDescriptor for PyCompiledFunction {
        fn descr_get(
            zelf: &PyObject,
            obj: Option<&PyObject>,
            _cls: Option<&PyObject>,
            vm: &VirtualMachine,
        ) -> PyResult {
            Ok(crate::dynamo::bridge::bind_to_instance(zelf, obj, vm))
        }
    }

    /// The compiled prefix of a frame with a graph break (`__compiled_fn_N` in the frame's
    /// globals): runs the graph, replays side effects, and returns the stack and live locals.
    #[pyattr]
    #[pyclass(name = "CompiledGraph", module = "torch._dynamo")]
    #[derive(Debug, PyPayload)]
    pub struct PyCompiledGraph {
        id: usize,
    }

    #[pyclass(with(Callable))]
    impl PyCompiledGraph {}

    impl Callable for PyCompiledGraph {
        type Args = FuncArgs;

        fn call(zelf: &Py<Self>, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
            super::super::graph_break::run_plan(zelf.id, args.args, vm)
        }
    }

    /// A `CompiledGraph` for plan `id`.
    pub(crate) fn compiled_graph(id: usize, vm: &VirtualMachine) -> PyObjectRef {
        PyCompiledGraph { id }.into_pyobject(vm)
    }

    fn backend_spec(backend: PyObjectRef, vm: &VirtualMachine) -> PyResult<BackendSpec> {
        if let Ok(s) = backend.clone().downcast::<rustpython_vm::builtins::PyStr>() {
            return Ok(BackendSpec::Native(s.expect_str().to_owned()));
        }
        if backend.is_callable() {
            return Ok(BackendSpec::Callable(backend));
        }
        Err(vm.new_type_error("backend must be a name or a callable"))
    }

    /// `compiled_function(fn, backend, fullgraph, dynamic=None, inner_frames=False)`: `fn`
    /// compiled with Dynamo. With `inner_frames`, `fn`'s own frame follows the skip rules and
    /// the frames it calls are compiled: `torch.compile(user_module)` runs `Module.__call__`
    /// (hooks) eagerly and compiles `forward`, as PyTorch's `OptimizedModule` does.
    #[pyfunction]
    fn compiled_function(
        func: PyObjectRef,
        backend: PyObjectRef,
        fullgraph: bool,
        dynamic: rustpython_vm::function::OptionalArg<PyObjectRef>,
        inner_frames: rustpython_vm::function::OptionalArg<bool>,
        vm: &VirtualMachine,
    ) -> PyResult<PyCompiledFunction> {
        let dynamic = match dynamic.into_option() {
            Some(d) if !vm.is_none(&d) => Some(d.try_to_bool(vm)?),
            _ => None,
        };
        let backend = backend_spec(backend, vm)?;
        let id = backend_id(&backend);
        // Otherwise the function's own code is compiled even when it lives in a skipped file
        // (the wrapper `torch._dynamo.eval_frame` puts around a built-in layer).
        let target = func
            .get_attr("__func__", vm)
            .unwrap_or_else(|_| func.clone());
        if !inner_frames.unwrap_or(false)
            && let Some(code) = target
                .get_attr("__code__", vm)
                .ok()
                .and_then(|c| c.downcast::<rustpython_vm::builtins::PyCode>().ok())
        {
            cache::set_always_optimized(code);
        }
        Ok(PyCompiledFunction {
            func,
            mode: CallMode::Compile(Arc::new(CompileConfig {
                backend,
                fullgraph,
                dynamic,
                id,
            })),
        })
    }

    /// `run_only_function(fn)`: calls use cached code but never compile (`torch._dynamo.run`).
    #[pyfunction]
    fn run_only_function(func: PyObjectRef) -> PyCompiledFunction {
        PyCompiledFunction {
            func,
            mode: CallMode::RunOnly,
        }
    }

    /// Run-only mode: cached entries run when their guards pass (whichever backend compiled
    /// them); nothing is compiled.
    fn run_only_state() -> CallbackState {
        CallbackState::RunOnly(Rc::new(ConvertFrame {
            config: Arc::new(CompileConfig {
                backend: BackendSpec::Native("eager".into()),
                fullgraph: false,
                dynamic: None,
                id: 0,
            }),
        }))
    }

    /// `enter_run_only()`: switches this thread to run-only mode until the matching
    /// [`exit_run_only`] (`with torch._dynamo.run():`, PyTorch's `RunOnlyContext`). The state it
    /// replaces is kept on a stack, so blocks nest.
    #[pyfunction]
    fn enter_run_only(vm: &VirtualMachine) {
        let prev = crate::eval_frame::set_callback_state(run_only_state(), vm);
        super::SAVED_STATES.with(|s| s.borrow_mut().push(prev));
    }

    /// `exit_run_only()`: restores the state the matching [`enter_run_only`] replaced.
    #[pyfunction]
    fn exit_run_only(vm: &VirtualMachine) {
        if let Some(prev) = super::SAVED_STATES.with(|s| s.borrow_mut().pop()) {
            crate::eval_frame::set_callback_state(prev, vm);
        }
    }

    /// `disabled_function(fn)`: Dynamo is off for the call and everything it calls.
    #[pyfunction]
    fn disabled_function(func: PyObjectRef) -> PyCompiledFunction {
        PyCompiledFunction {
            func,
            mode: CallMode::Disabled,
        }
    }

    /// Marks a code object so the hook never compiles it (non-recursive `disable`, `skip`).
    #[pyfunction]
    fn skip_code(code: PyRef<PyCode>) {
        cache::set_action(&code, cache::Action::Skip);
    }

    /// `call_skipping_frame(fn, args, kwargs)`: calls `fn`, with Dynamo skipping `fn`'s own frame
    /// (not the frames it calls): `disable(recursive=False)`.
    #[pyfunction]
    fn call_skipping_frame(
        func: PyObjectRef,
        args: PyObjectRef,
        kwargs: PyObjectRef,
        vm: &VirtualMachine,
    ) -> PyResult {
        let code = func.get_attr("__code__", vm).ok();
        let prev = super::super::convert_frame::set_skip_once(
            code.map(|c| c.as_object() as *const PyObject as usize),
        );
        let a: Vec<PyObjectRef> = vm.extract_elements_with(&args, Ok)?;
        let kw: rustpython_vm::function::KwArgs =
            match kwargs.downcast::<rustpython_vm::builtins::PyDict>() {
                Ok(d) => d
                    .items_vec()
                    .into_iter()
                    .map(|(k, v)| (k.str(vm).map(|s| s.to_string()).unwrap_or_default(), v))
                    .collect(),
                Err(_) => Default::default(),
            };
        let r = func.call(FuncArgs::new(a, kw), vm);
        super::super::convert_frame::set_skip_once(prev);
        r
    }

    /// Sets the compile stance; returns the previous one. Refused while code runs inside a
    /// compiled region (the hook armed to compile), as PyTorch's `_set_stance`: the stance is
    /// read when a compiled function is called, so switching it mid-region would leave it set
    /// for the rest of the process. Traced calls never get here: `set_stance` is
    /// `forbid_in_graph`; this catches calls from frames Dynamo skipped or resumed eagerly.
    #[pyfunction]
    fn set_stance(stance: PyStrRef, vm: &VirtualMachine) -> PyResult<String> {
        if matches!(
            crate::eval_frame::callback_state(),
            CallbackState::Compile(_)
        ) {
            return Err(vm.new_runtime_error("attempted to set_stance in a torch.compile region"));
        }
        Ok(config::set_stance(stance.expect_str()))
    }

    /// The compile stance.
    #[pyfunction]
    fn get_stance() -> String {
        config::stance()
    }

    /// Drops every compiled entry, resume function and record (`torch._dynamo.reset()`).
    #[pyfunction]
    fn reset() {
        cache::reset();
        resume::reset();
        super::super::graph_break::reset();
        stats::reset();
        bridge::reset();
    }

    /// Sets the logging switches from a `TORCH_LOGS`-style string.
    #[pyfunction]
    fn set_logs(spec: PyStrRef) {
        logs::set_spec(spec.expect_str());
    }

    /// Registers `torch._dynamo.config`.
    #[pyfunction]
    fn register_config(module: PyObjectRef) {
        config::register(module);
    }

    /// Marks an op (`torch.sub`) as disallowed in graphs; `False` if it is not a registry op.
    #[pyfunction]
    fn disallow_op(obj: PyObjectRef) -> bool {
        match bridge::op_function(&obj) {
            Some((ops, _)) => {
                bridge::set_disallowed(ops, true);
                true
            }
            None => false,
        }
    }

    /// Undoes [`disallow_op`].
    #[pyfunction]
    fn allow_op(obj: PyObjectRef) -> bool {
        match bridge::op_function(&obj) {
            Some((ops, _)) => {
                bridge::set_disallowed(ops, false);
                true
            }
            None => false,
        }
    }

    /// Whether `obj` is a registry op function (already allowed in graphs).
    #[pyfunction]
    fn is_op_function(obj: PyObjectRef) -> bool {
        bridge::op_function(&obj).is_some()
    }

    /// `(graph calls, ops run inside graphs)` since the last reset.
    #[pyfunction]
    fn graph_counters() -> (u64, u64) {
        stats::calls()
    }

    /// `[(phase, [seconds, ...]), ...]`: the compile phases' durations since the last reset
    /// (`rynamo_backend::timing`), for `compile_times()`.
    #[pyfunction]
    fn compile_phase_times(vm: &VirtualMachine) -> Vec<PyObjectRef> {
        rynamo_backend::timing::phase_times()
            .into_iter()
            .map(|(phase, secs)| {
                let secs = secs
                    .into_iter()
                    .map(|s| vm.ctx.new_float(s).into())
                    .collect();
                vm.ctx
                    .new_tuple(vec![
                        vm.ctx.new_str(phase).into(),
                        vm.ctx.new_list(secs).into(),
                    ])
                    .into()
            })
            .collect()
    }

    /// Every compiled graph since the last reset: a list of dicts with `name`, `compile_id`,
    /// `graph_module`, `op_count`, `guards` and `seconds`.
    #[pyfunction]
    fn graph_records(vm: &VirtualMachine) -> PyResult<Vec<PyObjectRef>> {
        stats::graphs()
            .into_iter()
            .map(|g| {
                let d = vm.ctx.new_dict();
                d.set_item("name", vm.ctx.new_str(g.view.fn_name.as_str()).into(), vm)?;
                d.set_item(
                    "compile_id",
                    vm.ctx
                        .new_str(format!("{}/{}", g.compile_id.0, g.compile_id.1))
                        .into(),
                    vm,
                )?;
                d.set_item("graph_module", super::super::fx::build(&g.view, vm)?, vm)?;
                d.set_item(
                    "op_count",
                    vm.ctx.new_int(g.view.graph.nodes().len()).into(),
                    vm,
                )?;
                let guards: Vec<PyObjectRef> = g
                    .guards
                    .iter()
                    .map(|(src, kind, code)| {
                        vm.ctx
                            .new_tuple(vec![
                                vm.ctx.new_str(src.as_str()).into(),
                                vm.ctx.new_str(*kind).into(),
                                vm.ctx.new_str(code.as_str()).into(),
                            ])
                            .into()
                    })
                    .collect();
                d.set_item("guards", vm.ctx.new_list(guards).into(), vm)?;
                d.set_item("seconds", vm.ctx.new_float(g.seconds).into(), vm)?;
                Ok(d.into())
            })
            .collect()
    }

    /// Every graph break since the last reset: `(reason, user stack, code)` tuples.
    #[pyfunction]
    fn break_records(vm: &VirtualMachine) -> Vec<PyObjectRef> {
        stats::breaks()
            .into_iter()
            .map(|b| {
                vm.ctx
                    .new_tuple(vec![
                        vm.ctx.new_str(b.reason).into(),
                        super::stack_to_py(&b.user_stack, vm),
                        vm.ctx.new_str(b.code).into(),
                    ])
                    .into()
            })
            .collect()
    }

    /// Forgets graph and break records (not the cache).
    #[pyfunction]
    fn reset_records() {
        stats::reset();
    }

    /// The generated graph-break reference (`docs/graph_breaks.md`).
    #[pyfunction]
    fn graph_break_registry() -> String {
        super::super::exc::registry_markdown()
    }

    /// `load_plugin(path)`: loads a backend plugin and returns its backend name.
    #[pyfunction]
    fn load_plugin(path: PyStrRef, vm: &VirtualMachine) -> PyResult<String> {
        crate::plugins::load(path.expect_str()).map_err(|e| vm.new_runtime_error(e))
    }

    /// Names of the native backends (the Rust registry: `eager`, `dynasm`, loaded plugins).
    #[pyfunction]
    fn native_backends(vm: &VirtualMachine) -> PyObjectRef {
        let names = rynamo_backend::global()
            .list()
            .into_iter()
            .map(|n| vm.ctx.new_str(n).into())
            .collect();
        vm.ctx.new_list(names).into()
    }

    /// Whether an object is a compiled function (for `torch._dynamo` helpers).
    #[pyfunction]
    fn is_compiled_function(obj: PyObjectRef) -> bool {
        obj.downcast_ref::<PyCompiledFunction>().is_some()
    }

    /// Address-based identity for debugging output.
    #[pyfunction]
    fn object_id(obj: PyObjectRef) -> usize {
        obj.as_object() as *const PyObject as usize
    }
}
