//! Calling an op from Python: keyword options that steer the call, binding, the eager call
//! through the registry, and the Python result.

use rustpython_vm::builtins::PyTuple;
use rustpython_vm::function::FuncArgs;
use rustpython_vm::{AsObject, PyObjectRef, PyRef, PyResult, VirtualMachine};
use rynamo_graph::schema::ParamType;
use rynamo_graph::{IValue, Lowering, MetaValue, Op, OpFlags, Returns, Value, registry};
use rynamo_tensor::{DEFAULT_FLOAT, Tensor};

use crate::dtype::PyDevice;
use crate::generator::PyGenerator;
use crate::ops::{PyOpFunction, Surface, bind_overload, py_to_value, to_py_err};
use crate::tensor::{PyTensor, wrap_tensor};

/// Keyword arguments of PyTorch's Python signatures that steer a call rather than bind to the
/// op schema. [`take_call_options`] removes them from the keyword list before binding.
#[derive(Debug, Default)]
pub struct CallOptions {
    /// `inplace=True` of `torch.nn.functional` ops: the result is written into the input.
    pub inplace: bool,
    /// `requires_grad=True` of creation ops: the result's flag.
    pub requires_grad: bool,
    /// `generator=` of random ops.
    pub generator: Option<PyRef<PyGenerator>>,
    /// `memory_format=` of the ops that take one: the result's stride order.
    pub memory_format: Option<String>,
}

/// The ops whose Python signatures take `memory_format=`.
const MEMORY_FORMAT_OPS: &[&str] = &[
    "contiguous",
    "clone",
    "empty",
    "empty_like",
    "zeros_like",
    "ones_like",
    "full_like",
    "rand_like",
    "randn_like",
    "randint_like",
];

/// Keywords handled outside the schema, when no overload's schema has a parameter of that name.
const OPTION_KEYWORDS: &[&str] = &[
    "out",
    "device",
    "requires_grad",
    "layout",
    "pin_memory",
    "memory_format",
    "non_blocking",
    "generator",
    "inplace",
    "_stacklevel",
];

/// Removes the steering keywords (see [`CallOptions`]) from `kwargs` (and a trailing positional
/// `inplace` flag of `torch.nn.functional` ops), checking their values.
pub fn take_call_options(
    func: &PyOpFunction,
    positional: &mut Vec<PyObjectRef>,
    kwargs: &mut Vec<(String, PyObjectRef)>,
    vm: &VirtualMachine,
) -> PyResult<CallOptions> {
    let mut opts = CallOptions::default();
    let in_schema = |name: &str| {
        func.overloads
            .iter()
            .any(|op| op.schema().params.iter().any(|p| p.name == name))
    };
    let mut i = 0;
    while i < kwargs.len() {
        let key = kwargs[i].0.as_str();
        if !OPTION_KEYWORDS.contains(&key) || in_schema(key) {
            i += 1;
            continue;
        }
        let (key, value) = kwargs.remove(i);
        apply_option(func, &mut opts, &key, &value, vm)?;
    }
    if func.surface == Surface::NnFunctional {
        let max_positional = func
            .overloads
            .iter()
            .map(|op| op.schema().n_positional())
            .max()
            .unwrap_or(0);
        let trailing_bool = positional.len() == max_positional + 1
            && positional
                .last()
                .is_some_and(|v| v.class().is(vm.ctx.types.bool_type));
        if trailing_bool {
            let flag = positional.pop().expect("invariant: checked non-empty");
            opts.inplace = flag.try_to_bool(vm)?;
        }
    }
    Ok(opts)
}

fn apply_option(
    func: &PyOpFunction,
    opts: &mut CallOptions,
    key: &str,
    value: &PyObjectRef,
    vm: &VirtualMachine,
) -> PyResult<()> {
    let is_none = vm.is_none(value);
    match key {
        "device" if !is_none => {
            if let Some(d) = PyDevice::from_py(value, vm)? {
                d.check_cpu(vm)?;
            }
        }
        "requires_grad" => opts.requires_grad = value.clone().try_to_bool(vm)?,
        "inplace" if func.surface == Surface::NnFunctional => {
            opts.inplace = value.clone().try_to_bool(vm)?;
        }
        "generator" if !is_none => {
            let is_random = func
                .overloads
                .iter()
                .any(|op| op.flags().contains(OpFlags::RANDOM));
            if !is_random {
                return Err(unexpected(func, key, vm));
            }
            let g = value.clone().downcast::<PyGenerator>().map_err(|v| {
                vm.new_type_error(format!(
                    "{}(): argument 'generator' must be torch.Generator, not {}",
                    func.name,
                    v.class().name()
                ))
            })?;
            opts.generator = Some(g);
        }
        "memory_format" if !is_none => {
            if !MEMORY_FORMAT_OPS.contains(&func.name) {
                return Err(unexpected(func, key, vm));
            }
            opts.memory_format = crate::memory_format::name_of(value, vm)?;
        }
        "out" if !is_none => {
            return Err(vm.new_not_implemented_error(format!(
                "{}(): the out= argument is not supported",
                func.name
            )));
        }
        "inplace" | "non_blocking" | "pin_memory"
            if !is_none && value.clone().try_to_bool(vm)? =>
        {
            return Err(unexpected(func, key, vm));
        }
        _ => {}
    }
    Ok(())
}

fn unexpected(
    func: &PyOpFunction,
    key: &str,
    vm: &VirtualMachine,
) -> rustpython_vm::builtins::PyBaseExceptionRef {
    vm.new_type_error(format!(
        "{}() got an unexpected keyword argument '{key}'",
        func.name
    ))
}

/// Calls `func` with Python arguments: binds, runs the eager kernel through the registry (one
/// dispatch), and builds the Python result.
pub fn call_op(func: &PyOpFunction, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    let mut positional = args.args;
    let mut kwargs: Vec<(String, PyObjectRef)> = args
        .kwargs
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    let opts = take_call_options(func, &mut positional, &mut kwargs, vm)?;
    let self_obj = positional.first().cloned().or_else(|| {
        kwargs
            .iter()
            .find(|(k, _)| k == "self" || k == "input")
            .map(|(_, v)| v.clone())
    });
    let pos_vals = positional
        .iter()
        .map(|o| py_to_value(o, vm))
        .collect::<PyResult<Vec<_>>>()?;
    let kw_vals = kwargs
        .iter()
        .map(|(k, o)| Ok((k.clone(), py_to_value(o, vm)?)))
        .collect::<PyResult<Vec<_>>>()?;
    let (op, mut bound) =
        bind_overload(func.overloads, pos_vals, kw_vals).map_err(|e| to_py_err(&e, vm))?;
    apply_default_dtype(op, &mut bound, vm)?;
    if !opts.inplace {
        // `F.relu(x, inplace=True)` and kin are in-place: autocast leaves them alone.
        crate::autocast::apply_eager(op, &mut bound).map_err(|e| to_py_err(&e, vm))?;
    }
    // `x.contiguous(memory_format=f)` is `x` itself when x already has f's layout.
    if let (Op::Contiguous, Some(format), Some(Value::Tensor(x))) =
        (op, &opts.memory_format, bound.first())
        && crate::memory_format::is_contiguous_as(x, format)
        && let Some(obj) = self_obj.clone()
    {
        return Ok(obj);
    }
    let inplace_target = match (opts.inplace, bound.first()) {
        (true, Some(Value::Tensor(x))) => Some(x.clone()),
        _ => None,
    };
    if inplace_target.is_some() {
        read_a_copy_under_autograd(&mut bound, vm)?;
    }
    let mut outs = run(op, &bound, opts.generator.as_ref().map(|g| &***g), vm)?;
    if let Some(format) = &opts.memory_format
        && outs.len() == 1
    {
        let before = outs[0].strides().to_vec();
        let t = crate::memory_format::apply(outs.remove(0), format, vm)?;
        let restrided = t.strides() != before.as_slice();
        outs.push(t);
        if restrided {
            return outputs(op, outs, opts.requires_grad, vm);
        }
    }
    if opts.inplace {
        return write_back(inplace_target, outs, self_obj, vm);
    }
    if op.flags().contains(OpFlags::INPLACE) {
        return self_obj.ok_or_else(|| vm.new_runtime_error(format!("{op}: no self argument")));
    }
    if let Some(obj) = self_obj.filter(|_| returns_self(op, &bound, &outs)) {
        return Ok(obj);
    }
    outputs(op, outs, opts.requires_grad, vm)
}

/// PyTorch returns the input object itself, not a new alias, from `contiguous()` of a
/// contiguous tensor and from a `to`/`type` that changes nothing (`x.contiguous() is x`; code
/// relies on it to skip work).
fn returns_self(op: Op, bound: &[IValue], outs: &[Tensor]) -> bool {
    let (Some(Value::Tensor(x)), [out]) = (bound.first(), outs) else {
        return false;
    };
    matches!(op, Op::Contiguous | Op::To | Op::Type)
        && out.shares_storage(x)
        && out.offset() == x.offset()
        && out.dtype() == x.dtype()
        && out.shape() == x.shape()
        && out.strides() == x.strides()
}

/// Runs the eager kernel; a user generator stands in for the default one during the call.
pub(crate) fn run(
    op: Op,
    args: &[IValue],
    generator: Option<&PyGenerator>,
    vm: &VirtualMachine,
) -> PyResult<Vec<Tensor>> {
    let call = || registry::call(op, args).map_err(|e| to_py_err(&e, vm));
    match generator {
        Some(g) => g.with_as_default(call),
        None => call(),
    }
}

/// Creation ops fill in the default dtype (`torch.set_default_dtype`) where the op would pick
/// the runtime's built-in float default (or its complex counterpart).
fn apply_default_dtype(op: Op, bound: &mut [IValue], vm: &VirtualMachine) -> PyResult<()> {
    let default = crate::state::default_dtype();
    if default == DEFAULT_FLOAT || op.lowering() != Lowering::Creation {
        return Ok(());
    }
    let params = &op.schema().params;
    let takes_tensor = params
        .iter()
        .any(|p| matches!(p.ty, ParamType::Tensor | ParamType::TensorList));
    let Some(i) = params.iter().position(|p| p.ty == ParamType::DType) else {
        return Ok(());
    };
    if takes_tensor || !matches!(bound[i], Value::None) {
        return Ok(());
    }
    let metas: Vec<MetaValue> = bound
        .iter()
        .map(|v| v.try_map(|t| Ok::<_, ()>(t.meta())))
        .collect::<Result<_, ()>>()
        .map_err(|()| vm.new_runtime_error("internal: meta conversion failed"))?;
    let out = registry::meta(op, &metas).map_err(|e| to_py_err(&e, vm))?;
    match out.first().map(|m| m.dtype) {
        Some(d) if d == DEFAULT_FLOAT => bound[i] = Value::DType(default),
        // `torch.full(size, 1+2j)`: the default complex dtype follows the default float one.
        Some(d) if d.is_complex() && Some(d) == DEFAULT_FLOAT.to_complex() => {
            if let Some(c) = default.to_complex() {
                bound[i] = Value::DType(c);
            }
        }
        _ => {}
    }
    Ok(())
}

/// `F.op(x, inplace=True)` while autograd records `x`: the op reads a copy of `x`. Its backward
/// formula reads its saved input, which `write_back` then overwrites: without the copy,
/// `nn.LeakyReLU(inplace=True)` and kin raised "modified by an inplace operation" at
/// `backward()`. PyTorch's in-place variants save the original values the same way
/// (`original_self`) or differentiate through the result.
fn read_a_copy_under_autograd(bound: &mut [IValue], vm: &VirtualMachine) -> PyResult<()> {
    let Some(Value::Tensor(x)) = bound.first() else {
        return Ok(());
    };
    if !crate::state::is_grad_enabled() || !x.needs_grad() {
        return Ok(());
    }
    let copy = registry::call(Op::Clone, &[Value::Tensor(x.clone())])
        .map_err(|e| to_py_err(&e, vm))?
        .remove(0);
    bound[0] = Value::Tensor(copy);
    Ok(())
}

/// `F.op(x, inplace=True)`: copies the result into the input and returns the input object.
fn write_back(
    dst: Option<Tensor>,
    outs: Vec<Tensor>,
    self_obj: Option<PyObjectRef>,
    vm: &VirtualMachine,
) -> PyResult {
    let (Some(dst), Some(src)) = (dst, outs.into_iter().next()) else {
        return Err(vm.new_runtime_error("inplace=True needs a tensor input and output"));
    };
    registry::call(Op::Copy_, &[Value::Tensor(dst), Value::Tensor(src)])
        .map_err(|e| to_py_err(&e, vm))?;
    self_obj.ok_or_else(|| vm.new_runtime_error("inplace=True needs an input object"))
}

/// The Python result of an op: a tensor, a tuple of tensors (`Tensor[]` returns), or a
/// `torch.return_types.<name>` for named tuple returns. Dynamo builds graph outputs with the
/// same function, so compiled and eager calls return the same Python types.
pub fn outputs(op: Op, outs: Vec<Tensor>, requires_grad: bool, vm: &VirtualMachine) -> PyResult {
    if requires_grad
        && outs
            .iter()
            .any(|t| !(t.dtype().is_floating_point() || t.dtype().is_complex()))
    {
        return Err(vm.new_runtime_error(
            "Only Tensors of floating point and complex dtype can require gradients",
        ));
    }
    let wrap = |t: Tensor| -> PyObjectRef {
        let obj = wrap_tensor(t, vm);
        if requires_grad && let Some(pt) = obj.downcast_ref::<PyTensor>() {
            pt.set_requires_grad(true);
        }
        obj
    };
    match &op.schema().returns {
        Returns::Tensor => {
            let t = outs
                .into_iter()
                .next()
                .ok_or_else(|| vm.new_runtime_error(format!("{op}: returned no tensor")))?;
            Ok(wrap(t))
        }
        Returns::List => {
            let items: Vec<PyObjectRef> = outs.into_iter().map(wrap).collect();
            Ok(vm.ctx.new_tuple(items).into())
        }
        // `-> ()`: in-place multi-tensor ops (`_fused_adam_`) return `None`, as PyTorch's.
        Returns::Tuple(names) if names.is_empty() => Ok(vm.ctx.none()),
        Returns::Tuple(_) => {
            let items: Vec<PyObjectRef> = outs.into_iter().map(wrap).collect();
            let tuple: PyRef<PyTuple> = vm.ctx.new_tuple(items);
            // `import a.b` gives `a`; the submodule itself is in `sys.modules`.
            vm.import("torch.return_types", 0)?;
            let module = vm
                .sys_module
                .get_attr("modules", vm)?
                .get_item("torch.return_types", vm)?;
            match module.get_attr(op.py_name(), vm) {
                Ok(cls) => cls.call((tuple,), vm),
                Err(_) => Ok(tuple.into()),
            }
        }
    }
}
