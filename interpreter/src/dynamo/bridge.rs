//! The one place Dynamo touches the `torch` package's native types (`rynamo-shims`): tensors,
//! dtypes, op functions, grad mode and `nn.Module`. Everything else in Dynamo goes through here,
//! so the coupling is visible in one file.

use std::cell::RefCell;

use rustpython_vm::{AsObject, PyObject, PyObjectRef, PyResult, VirtualMachine};
use rynamo_graph::Op;
use rynamo_tensor::{DType, Tensor, TensorMeta};

pub use rynamo_shims::ops::Surface;

/// dtype, shape, strides and `requires_grad` of a tensor object (no data touched).
pub fn tensor_meta(obj: &PyObject) -> Option<(TensorMeta, bool)> {
    let t = obj.downcast_ref::<rynamo_shims::tensor::PyTensor>()?;
    Some((t.meta(), t.requires_grad()))
}

/// Whether `obj` is a tensor with exactly `meta` and `requires_grad`: the allocation-free pass
/// path of TENSOR_MATCH (`None` when `obj` is not a tensor).
pub fn tensor_matches(obj: &PyObject, meta: &TensorMeta, requires_grad: bool) -> Option<bool> {
    let t = obj.downcast_ref::<rynamo_shims::tensor::PyTensor>()?;
    Some(t.requires_grad() == requires_grad && t.matches_meta(meta))
}

/// The tensor a tensor object holds (an alias, no copy).
pub fn as_tensor(obj: &PyObject) -> Option<Tensor> {
    rynamo_shims::tensor::as_tensor(obj)
}

/// A new `torch.Tensor` object holding `t`.
pub fn wrap_tensor(t: Tensor, vm: &VirtualMachine) -> PyObjectRef {
    rynamo_shims::tensor::wrap_tensor(t, vm)
}

/// `torch.is_grad_enabled()`.
pub fn grad_enabled() -> bool {
    rynamo_shims::state::is_grad_enabled()
}

/// `torch._C._set_grad_enabled(enabled)`.
pub fn set_grad_enabled(enabled: bool) {
    rynamo_shims::state::set_grad_enabled(enabled);
}

/// `torch.is_inference_mode_enabled()`.
pub fn inference_mode() -> bool {
    rynamo_shims::state::is_inference_mode_enabled()
}

/// `torch.get_default_dtype()`.
pub fn default_dtype() -> DType {
    rynamo_shims::state::default_dtype()
}

/// `torch._C._set_inference_mode(enabled)`.
pub fn set_inference_mode(enabled: bool) {
    rynamo_shims::state::set_inference_mode(enabled);
}

/// `x.type()` of a tensor with this dtype (`torch.FloatTensor`).
pub fn tensor_type_name(d: DType) -> &'static str {
    rynamo_shims::legacy_type_name(d)
}

/// The dtype a legacy type name stands for (`x.type("torch.LongTensor")`).
pub fn dtype_from_type_name(name: &str) -> Option<DType> {
    DType::ALL
        .into_iter()
        .find(|&d| rynamo_shims::legacy_type_name(d) == name)
}

/// The dtype a `torch.dtype` object stands for.
pub fn dtype_of(obj: &PyObject) -> Option<DType> {
    obj.downcast_ref::<rynamo_shims::PyDType>().map(|d| d.dtype)
}

/// Whether `obj` is a `torch.device`.
pub fn is_device(obj: &PyObject) -> bool {
    obj.downcast_ref::<rynamo_shims::PyDevice>().is_some()
}

/// Whether `obj` is one of torch's layout singletons (`torch.contiguous_format`,
/// `torch.channels_last`, `torch.channels_last_3d`, `torch.preserve_format`, `torch.strided`):
/// immutable, so a trace may fold them like dtypes.
pub fn is_format_singleton(obj: &PyObject, vm: &VirtualMachine) -> bool {
    let class = obj.class().name();
    if &*class != "memory_format" && &*class != "layout" {
        return false;
    }
    [
        "contiguous_format",
        "preserve_format",
        "channels_last",
        "channels_last_3d",
        "strided",
    ]
    .iter()
    .any(|n| torch_attr(n, vm).is_some_and(|s| s.is(obj)))
}

/// The registry overloads and surface of a `torch.<op>` / `Tensor.<op>` / `F.<op>` object.
pub fn op_function(obj: &PyObject) -> Option<(&'static [Op], Surface)> {
    rynamo_shims::ops::op_function(obj).map(|f| (f.overloads, f.surface))
}

/// The Python exception for a tensor or graph error.
pub fn to_py_err(
    err: &rynamo_graph::Error,
    vm: &VirtualMachine,
) -> rustpython_vm::builtins::PyBaseExceptionRef {
    rynamo_shims::ops::to_py_err(err, vm)
}

thread_local! {
    static NN_MODULE: RefCell<Option<PyObjectRef>> = const { RefCell::new(None) };
}

/// `torch.nn.Module`, imported once per thread.
fn nn_module_class(vm: &VirtualMachine) -> PyResult<PyObjectRef> {
    if let Some(c) = NN_MODULE.with(|m| m.borrow().clone()) {
        return Ok(c);
    }
    let nn = import_module("torch.nn", vm)?;
    let cls = nn.get_attr("Module", vm)?;
    NN_MODULE.with(|m| *m.borrow_mut() = Some(cls.clone()));
    Ok(cls)
}

/// Whether `obj` is an `nn.Module` instance.
pub fn is_nn_module(obj: &PyObject, vm: &VirtualMachine) -> bool {
    match nn_module_class(vm) {
        Ok(cls) => obj.is_instance(&cls, vm).unwrap_or(false),
        Err(_) => false,
    }
}

/// Forgets cached Python objects (a new interpreter on this thread).
pub fn reset() {
    NN_MODULE.with(|m| *m.borrow_mut() = None);
    TENSOR_CLASS.with(|t| *t.borrow_mut() = None);
}

/// The registry (`_parameters`, `_buffers`, `_modules`) of module `m` that holds `name`, as
/// `nn.Module.__getattr__` searches them (`rynamo_shims::nn_module::registry_of`).
pub fn module_registry(m: &PyObject, name: &str, vm: &VirtualMachine) -> Option<&'static str> {
    rynamo_shims::nn_module::registry_of(m, &vm.ctx.new_str(name), vm)
        .ok()
        .flatten()
        .map(|(reg, _)| reg)
}

/// The `torch.<name>` function object (for FX targets of tensor-method calls).
pub fn torch_attr(name: &str, vm: &VirtualMachine) -> Option<PyObjectRef> {
    let torch = vm.import("torch", 0).ok()?;
    torch
        .get_attr(&vm.ctx.new_str(name), vm)
        .ok()
        .filter(|o| !vm.is_none(o.as_object()))
}

thread_local! {
    static DISALLOWED: RefCell<std::collections::HashSet<Op>> = RefCell::new(std::collections::HashSet::new());
    static TENSOR_CLASS: RefCell<Option<PyObjectRef>> = const { RefCell::new(None) };
}

/// Whether `torch._dynamo.disallow_in_graph` was called on an op.
pub fn is_disallowed(op: Op) -> bool {
    DISALLOWED.with(|d| d.borrow().contains(&op))
}

/// Marks (or unmarks) ops as disallowed in graphs.
pub fn set_disallowed(ops: &[Op], disallowed: bool) {
    DISALLOWED.with(|d| {
        let mut d = d.borrow_mut();
        for op in ops {
            if disallowed {
                d.insert(*op);
            } else {
                d.remove(op);
            }
        }
    });
}

/// `torch.Tensor`.
pub fn tensor_class(vm: &VirtualMachine) -> Option<PyObjectRef> {
    if let Some(c) = TENSOR_CLASS.with(|t| t.borrow().clone()) {
        return Some(c);
    }
    let c = torch_attr("Tensor", vm)?;
    TENSOR_CLASS.with(|t| *t.borrow_mut() = Some(c.clone()));
    Some(c)
}

/// `torch.Size(shape)`.
pub fn make_size(shape: &[usize], vm: &VirtualMachine) -> PyObjectRef {
    rynamo_shims::new_size(shape, vm)
}

/// The `torch.<dtype>` object.
pub fn dtype_object(d: DType, _vm: &VirtualMachine) -> PyObjectRef {
    rynamo_shims::dtype_object(d)
}

/// `torch.device("cpu")`.
pub fn device_object(vm: &VirtualMachine) -> PyObjectRef {
    use rustpython_vm::PyPayload;
    rynamo_shims::PyDevice::CPU.into_pyobject(vm)
}

/// The per-module hook dicts `nn.Module.__call__` runs.
pub const MODULE_HOOK_DICTS: [&str; 4] = [
    "_forward_hooks",
    "_forward_pre_hooks",
    "_backward_hooks",
    "_backward_pre_hooks",
];

/// Whether an `nn.Module` has forward or backward hooks (then its `__call__` is traced, not just
/// `forward`).
pub fn module_has_hooks(m: &PyObject, vm: &VirtualMachine) -> bool {
    let non_empty = |name: &'static str| {
        m.get_attr(name, vm)
            .ok()
            .and_then(|d| d.length(vm).ok())
            .is_some_and(|n| n > 0)
    };
    MODULE_HOOK_DICTS.iter().any(|d| non_empty(d))
        || torch_attr("nn", vm).is_some_and(|nn| {
            nn.get_attr("modules", vm)
                .and_then(|mods| mods.get_attr("module", vm))
                .and_then(|module| module.get_attr("_global_hooks_active", vm))
                .ok()
                .and_then(|f| f.try_to_bool(vm).ok())
                .unwrap_or(false)
        })
}

/// The key of a container module's `i`th child in `_modules` (`"0"`, `"1"`, ... for
/// `Sequential`/`ModuleList`).
pub fn module_child_key(m: &PyObject, i: usize, vm: &VirtualMachine) -> Option<String> {
    let mods = m.get_attr("_modules", vm).ok()?;
    let keys = vm.call_method(&mods, "keys", ()).ok()?;
    let keys: Vec<PyObjectRef> = vm.extract_elements_with(&keys, Ok).ok()?;
    keys.get(i)?.str(vm).ok().map(|s| s.to_string())
}

/// Which Dynamo marker a function carries, if any.
pub fn dynamo_marker(f: &PyObject, vm: &VirtualMachine) -> Option<super::calls::Marker> {
    use super::calls::Marker;
    let flag = |name: &'static str| {
        f.get_attr(name, vm)
            .ok()
            .and_then(|v| v.try_to_bool(vm).ok())
            .unwrap_or(false)
    };
    if flag("_torchdynamo_disable") {
        let reason = f
            .get_attr("_torchdynamo_disable_reason", vm)
            .ok()
            .filter(|r| !vm.is_none(r))
            .and_then(|r| r.str(vm).ok().map(|s| s.to_string()));
        return Some(Marker::Disabled(reason));
    }
    if flag("_rynamo_graph_break") {
        return Some(Marker::GraphBreak);
    }
    if flag("_rynamo_is_compiling") {
        return Some(Marker::IsCompiling);
    }
    if flag("_dynamo_marked_constant") {
        return Some(Marker::AssumeConstant);
    }
    if flag("_dynamo_forbidden") {
        return Some(Marker::Forbidden);
    }
    None
}

/// Imports a (dotted) module and returns it, not its top-level package (`vm.import` returns
/// what `__import__` does).
pub fn import_module(name: &str, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
    vm.import(&vm.ctx.new_str(name), 0)?;
    let modules = vm.sys_module.get_attr("modules", vm)?;
    modules.get_item(name, vm)
}

/// Whether `obj.<name>` is a true flag.
pub fn flag(obj: &PyObject, name: &'static str, vm: &VirtualMachine) -> bool {
    obj.get_attr(name, vm)
        .ok()
        .and_then(|v| v.try_to_bool(vm).ok())
        .unwrap_or(false)
}

/// The Python function behind a `torch.Tensor` method written in Python (`x.movedim`), looked
/// up in this interpreter; `None` for registry-op and native methods.
pub fn python_tensor_method(name: &str, vm: &VirtualMachine) -> Option<PyObjectRef> {
    let class = tensor_class(vm)?;
    let method = class.get_attr(vm.ctx.intern_str(name), vm).ok()?;
    rynamo_shims::py_method::target(&method, vm)
}

/// A function-like descriptor read through an instance, bound to it (the shims' rule for their
/// Tensor methods, shared by compiled-function wrappers).
pub fn bind_to_instance(
    zelf: &PyObject,
    obj: Option<&PyObject>,
    vm: &VirtualMachine,
) -> PyObjectRef {
    rynamo_shims::ops::bind_to_instance(zelf, obj, vm)
}
