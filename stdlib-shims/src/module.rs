//! The native module `torch._C`: the types, the dtype objects, one callable per `FUNCTION` op,
//! the `NN_FUNCTIONAL` ops (in `_C._nn`), and the functions over process state (grad mode,
//! default dtype, seeds, print options, dispatch counters). The Python sources of `torch`
//! re-export it.

pub(crate) use _c::module_def;

#[rustpython_vm::pymodule(name = "torch._C")]
mod _c {
    use rustpython_vm::builtins::{PyInt, PyModule, PyTuple};
    use rustpython_vm::function::{FuncArgs, KwArgs, OptionalArg};
    use rustpython_vm::{
        AsObject, Py, PyObject, PyObjectRef, PyPayload, PyRef, PyResult, VirtualMachine,
    };
    use rynamo_graph::registry::counters;
    use rynamo_tensor::{
        Category, DType, Operand, broadcast_shapes as rt_broadcast_shapes, can_cast as rt_can_cast,
        promote_types as rt_promote_types, result_type as rt_result_type,
    };

    use crate::dtype::{PyDType, PyDevice, dtype_from_py, dtype_object};
    use crate::generator::{PyGenerator, default_generator_object, fresh_seed, seed_from_py};
    use crate::ops::{PyOpFunction, Surface, surface_table, tensor_err};
    use crate::size::{PySize, new_size};
    use crate::state::{self, PrintOptions};
    use crate::tensor::{PyTensor, as_tensor, install_op_methods, wrap_tensor};

    /// The one tensor of `torch.numel(input)` / `torch.is_floating_point(input)`, positional or
    /// by keyword as PyTorch accepts it, with PyTorch's argument errors.
    fn tensor_input(name: &str, args: FuncArgs, vm: &VirtualMachine) -> PyResult<PyRef<PyTensor>> {
        let (obj, position) = match (args.args.as_slice(), args.kwargs.len()) {
            ([x], 0) => (x.clone(), " (position 1)"),
            ([], 1)
                if args
                    .kwargs
                    .keys()
                    .next()
                    .is_some_and(|k| k.as_str() == Ok("input")) =>
            {
                (
                    args.kwargs
                        .values()
                        .next()
                        .cloned()
                        .unwrap_or_else(|| vm.ctx.none()),
                    "",
                )
            }
            _ => {
                return Err(vm.new_type_error(format!(
                    "{name}() takes exactly one argument 'input' (a Tensor)"
                )));
            }
        };
        let kind = obj.class().name().to_string();
        obj.downcast::<PyTensor>().map_err(|_| {
            vm.new_type_error(format!(
                "{name}(): argument 'input'{position} must be Tensor, not {kind}"
            ))
        })
    }

    /// PyTorch's dtype aliases, beside each dtype's own name.
    const ALIASES: &[(&str, DType)] = &[
        ("float", DType::Float32),
        ("double", DType::Float64),
        ("half", DType::Float16),
        ("long", DType::Int64),
        ("int", DType::Int32),
        ("short", DType::Int16),
        ("cfloat", DType::Complex64),
        ("cdouble", DType::Complex128),
    ];

    pub(crate) fn module_exec(vm: &VirtualMachine, module: &Py<PyModule>) -> PyResult<()> {
        __module_exec(vm, module);
        crate::init_types();
        install_op_methods(&vm.ctx);
        let set =
            |name: &str, value: PyObjectRef| module.set_attr(vm.ctx.intern_str(name), value, vm);
        set("Tensor", PyTensor::class(&vm.ctx).to_owned().into())?;
        set("TensorBase", PyTensor::class(&vm.ctx).to_owned().into())?;
        set("Size", PySize::class(&vm.ctx).to_owned().into())?;
        set("dtype", PyDType::class(&vm.ctx).to_owned().into())?;
        set("device", PyDevice::class(&vm.ctx).to_owned().into())?;
        set("Generator", PyGenerator::class(&vm.ctx).to_owned().into())?;
        set("default_generator", default_generator_object())?;
        for d in DType::ALL {
            set(d.name(), dtype_object(d))?;
        }
        for &(alias, d) in ALIASES {
            set(alias, dtype_object(d))?;
        }
        for &(name, overloads) in surface_table(Surface::Function) {
            let f = PyOpFunction {
                name,
                overloads,
                surface: Surface::Function,
            };
            set(name, f.into_ref(&vm.ctx).into())?;
        }
        let nn = vm.ctx.new_dict();
        for &(name, overloads) in surface_table(Surface::NnFunctional) {
            let f = PyOpFunction {
                name,
                overloads,
                surface: Surface::NnFunctional,
            };
            nn.set_item(name, f.into_ref(&vm.ctx).into(), vm)?;
        }
        set("_nn", nn.into())
    }

    // === Dispatch counters ===

    /// Eager op calls since the last reset.
    #[pyfunction]
    fn _dispatch_count() -> u64 {
        counters::dispatch()
    }

    /// Ops run inside compiled graphs since the last reset.
    #[pyfunction]
    fn _in_graph_count() -> u64 {
        counters::in_graph()
    }

    #[pyfunction]
    fn _reset_dispatch_count() {
        counters::reset();
    }

    /// Test-only fault injection (issue 30): `_test_inject_panic(layer, name)` makes the named
    /// place panic (layers: `rynamo_tensor::unwind::fault::LAYERS`; name `*` matches any), so
    /// tests check that each layer turns a Rust panic into a `RuntimeError`;
    /// `_test_inject_panic(None)` stops it.
    #[pyfunction]
    fn _test_inject_panic(
        layer: Option<String>,
        name: OptionalArg<String>,
        vm: &VirtualMachine,
    ) -> PyResult<()> {
        use rynamo_tensor::unwind::fault;
        let Some(layer) = layer else {
            fault::disarm();
            return Ok(());
        };
        if !fault::LAYERS.iter().any(|(l, _)| *l == layer) {
            let known: Vec<&str> = fault::LAYERS.iter().map(|(l, _)| *l).collect();
            return Err(vm.new_value_error(format!(
                "unknown layer {layer:?}; layers: {}",
                known.join(", ")
            )));
        }
        fault::arm(&layer, name.as_deref().unwrap_or("*"));
        Ok(())
    }

    // === Tensor creation and predicates ===

    /// `torch.tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False)`.
    #[pyfunction]
    fn tensor(data: PyObjectRef, kwargs: KwArgs, vm: &VirtualMachine) -> PyResult {
        let mut dtype = None;
        let mut requires_grad = false;
        for (k, v) in kwargs {
            match k.to_string().as_str() {
                "dtype" if !vm.is_none(&v) => {
                    dtype = Some(dtype_from_py(&v, vm).ok_or_else(|| {
                        vm.new_type_error(format!(
                            "tensor(): argument 'dtype' must be torch.dtype, not {}",
                            v.class().name()
                        ))
                    })?);
                }
                "device" if !vm.is_none(&v) => {
                    if let Some(d) = PyDevice::from_py(&v, vm)? {
                        d.check_cpu(vm)?;
                    }
                }
                "requires_grad" => requires_grad = v.try_to_bool(vm)?,
                "dtype" | "device" | "pin_memory" => {}
                other => {
                    return Err(vm.new_type_error(format!(
                        "tensor() got an unexpected keyword argument '{other}'"
                    )));
                }
            }
        }
        let t = crate::ops::guarded("torch.tensor", vm, || {
            crate::creation::tensor_from_data(&data, dtype, vm)
        })?;
        if requires_grad && !(t.dtype().is_floating_point() || t.dtype().is_complex()) {
            return Err(vm.new_runtime_error(
                "Only Tensors of floating point and complex dtype can require gradients",
            ));
        }
        let obj = wrap_tensor(t, vm);
        if let Some(pt) = obj.downcast_ref::<PyTensor>() {
            pt.set_requires_grad(requires_grad);
        }
        Ok(obj)
    }

    #[pyfunction]
    fn is_tensor(obj: PyObjectRef) -> bool {
        obj.downcastable::<PyTensor>()
    }

    #[pyfunction]
    fn numel(args: FuncArgs, vm: &VirtualMachine) -> PyResult<usize> {
        Ok(tensor_input("numel", args, vm)?.tensor().numel())
    }

    #[pyfunction]
    fn is_floating_point(args: FuncArgs, vm: &VirtualMachine) -> PyResult<bool> {
        let input = tensor_input("is_floating_point", args, vm)?;
        Ok(input.tensor().dtype().is_floating_point())
    }

    // === Grad mode ===

    #[pyfunction]
    fn is_grad_enabled() -> bool {
        state::is_grad_enabled()
    }

    #[pyfunction]
    fn _set_grad_enabled(enabled: bool) {
        state::set_grad_enabled(enabled);
    }

    #[pyfunction]
    fn is_inference_mode_enabled() -> bool {
        state::is_inference_mode_enabled()
    }

    #[pyfunction]
    fn _set_inference_mode(enabled: bool) {
        state::set_inference_mode(enabled);
    }

    /// `torch._C._log_api_usage_once(event)`, which torchvision calls from every model builder:
    /// PyTorch passes the event to a logger that stays off unless an embedding application
    /// installs one, and nothing can install one here.
    #[pyfunction]
    fn _log_api_usage_once(_event: String) {}

    // === Default dtype ===

    #[pyfunction]
    fn get_default_dtype() -> PyObjectRef {
        dtype_object(state::default_dtype())
    }

    #[pyfunction]
    fn set_default_dtype(d: PyRef<PyDType>, vm: &VirtualMachine) -> PyResult<()> {
        if !d.dtype.is_floating_point() {
            return Err(vm.new_type_error(format!(
                "only floating-point types are supported as the default type, got {}",
                d.dtype
            )));
        }
        state::set_default_dtype(d.dtype);
        Ok(())
    }

    /// The native `nn.Module.__getattr__` (`nn_module.rs`), a method descriptor.
    #[pyfunction]
    fn _nn_module_getattr(vm: &VirtualMachine) -> PyObjectRef {
        crate::nn_module::getattr_descriptor(vm)
    }

    // === Threads ===

    /// `torch.get_num_threads()`: the kernels' thread count, the caller included.
    #[pyfunction]
    fn _get_num_threads() -> usize {
        rynamo_tensor::parallel::num_threads()
    }

    /// `torch.set_num_threads(n)` (the Python wrapper checks `n > 0`).
    #[pyfunction]
    fn _set_num_threads(n: usize) {
        rynamo_tensor::parallel::set_num_threads(n);
    }

    // === Seeds ===

    #[pyfunction]
    fn manual_seed(seed: PyRef<PyInt>, vm: &VirtualMachine) -> PyResult {
        rynamo_tensor::manual_seed(seed_from_py(&seed, vm)?);
        Ok(default_generator_object())
    }

    #[pyfunction]
    fn seed() -> u64 {
        let s = fresh_seed();
        rynamo_tensor::manual_seed(s);
        s
    }

    #[pyfunction]
    fn initial_seed() -> u64 {
        rynamo_tensor::random::default_generator().initial_seed()
    }

    // === Printing ===

    /// `torch.set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
    /// profile=None, sci_mode=None)`.
    #[pyfunction]
    fn set_printoptions(args: FuncArgs, vm: &VirtualMachine) -> PyResult<()> {
        const NAMES: [&str; 6] = [
            "precision",
            "threshold",
            "edgeitems",
            "linewidth",
            "profile",
            "sci_mode",
        ];
        if args.args.len() > NAMES.len() {
            return Err(vm.new_type_error("set_printoptions() takes at most 6 arguments"));
        }
        let mut given: [Option<PyObjectRef>; 6] = Default::default();
        for (i, a) in args.args.into_iter().enumerate() {
            given[i] = Some(a);
        }
        for (k, v) in args.kwargs {
            let k = k.to_string();
            let i = NAMES.iter().position(|n| *n == k).ok_or_else(|| {
                vm.new_type_error(format!(
                    "set_printoptions() got an unexpected keyword argument '{k}'"
                ))
            })?;
            given[i] = Some(v);
        }
        let given = given.map(|v| v.filter(|v| !vm.is_none(v)));
        let mut o = state::print_options();
        if let Some(profile) = &given[4] {
            let profile: String = profile.str(vm)?.to_string_lossy().into_owned();
            let base = PrintOptions::default();
            o = match profile.as_str() {
                "default" => base,
                "short" => PrintOptions {
                    precision: 2,
                    edgeitems: 2,
                    ..base
                },
                "full" => PrintOptions {
                    threshold: f64::INFINITY,
                    ..base
                },
                _ => o,
            };
        }
        let usize_of =
            |v: &PyObjectRef| -> PyResult<usize> { v.try_index(vm)?.try_to_primitive::<usize>(vm) };
        if let Some(v) = &given[0] {
            o.precision = usize_of(v)?;
        }
        if let Some(v) = &given[1] {
            o.threshold = v.try_float(vm)?.to_f64();
        }
        if let Some(v) = &given[2] {
            o.edgeitems = usize_of(v)?;
        }
        if let Some(v) = &given[3] {
            o.linewidth = usize_of(v)?;
        }
        // As in PyTorch, sci_mode is reset to None unless given.
        o.sci_mode = match &given[5] {
            Some(v) => Some(v.clone().try_to_bool(vm)?),
            None => None,
        };
        state::set_print_options(o);
        Ok(())
    }

    // === Dtype rules ===

    fn operand(obj: &PyObject, vm: &VirtualMachine) -> PyResult<Operand> {
        if let Some(t) = as_tensor(obj) {
            return Ok(if t.ndim() == 0 {
                Operand::ZeroDim(t.dtype())
            } else {
                Operand::Dimensioned(t.dtype())
            });
        }
        let s = crate::creation::scalar_from_py(obj, vm)?;
        Ok(Operand::Scalar(s.category()))
    }

    #[pyfunction]
    fn result_type(tensor: PyObjectRef, other: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        let ops = [operand(&tensor, vm)?, operand(&other, vm)?];
        Ok(dtype_object(rt_result_type(&ops)))
    }

    #[pyfunction]
    fn promote_types(type1: PyRef<PyDType>, type2: PyRef<PyDType>) -> PyObjectRef {
        dtype_object(rt_promote_types(type1.dtype, type2.dtype))
    }

    #[pyfunction]
    fn can_cast(from_: PyRef<PyDType>, to: PyRef<PyDType>) -> bool {
        rt_can_cast(from_.dtype, to.dtype)
    }

    #[pyfunction]
    fn broadcast_shapes(shapes: rustpython_vm::function::PosArgs, vm: &VirtualMachine) -> PyResult {
        let mut out: Vec<usize> = Vec::new();
        for s in shapes {
            let dims: Vec<usize> = if let Some(i) = s.try_index_opt(vm) {
                vec![i?.try_to_primitive(vm)?]
            } else {
                let items: Vec<PyObjectRef> = s.try_to_value(vm)?;
                items
                    .iter()
                    .map(|d| d.try_index(vm)?.try_to_primitive(vm))
                    .collect::<PyResult<_>>()?
            };
            out = rt_broadcast_shapes(&out, &dims)
                .map_err(|e| tensor_err(e, vm))?
                .to_vec();
        }
        Ok(new_size(&out, vm))
    }

    /// The category ladder as PyTorch names it (for `torch.finfo`/`iinfo` checks in Python).
    #[pyfunction]
    fn _dtype_category(d: PyRef<PyDType>) -> &'static str {
        match d.dtype.category() {
            Category::Bool => "bool",
            Category::Int => "int",
            Category::Float => "float",
            Category::Complex => "complex",
        }
    }

    /// `{op name: field names}` for every op returning a named tuple (`torch.return_types`).
    #[pyfunction]
    fn _return_types(vm: &VirtualMachine) -> PyResult<PyObjectRef> {
        let out = vm.ctx.new_dict();
        for &op in rynamo_graph::Op::ALL {
            if let rynamo_graph::Returns::Tuple(names) = &op.schema().returns
                && !names.is_empty()
                && out.get_item_opt(op.py_name(), vm)?.is_none()
            {
                let names: Vec<PyObjectRef> = names
                    .iter()
                    .map(|n| vm.ctx.new_str(n.as_str()).into())
                    .collect();
                out.set_item(op.py_name(), vm.ctx.new_tuple(names).into(), vm)?;
            }
        }
        Ok(out.into())
    }

    /// `torch.Tensor` methods for the Python functions `module.<name>` (see `py_method.rs`).
    #[pyfunction]
    fn _install_python_methods(module: String, names: Vec<String>, vm: &VirtualMachine) {
        crate::py_method::install(&module, &names, vm);
    }

    /// The registry op with schema name `name` as a callable, for ops on no Python surface
    /// (the backward ops autograd's formulas call): the FX view of an AOT backward graph calls
    /// them, so Python `aot_autograd` backends can run those graphs.
    #[pyfunction]
    fn _registry_op(name: String, vm: &VirtualMachine) -> PyResult<PyOpFunction> {
        let op = rynamo_graph::Op::ALL
            .iter()
            .find(|op| op.name() == name)
            .ok_or_else(|| vm.new_value_error(format!("no registry op named '{name}'")))?;
        Ok(PyOpFunction {
            name: op.py_name(),
            overloads: std::slice::from_ref(op),
            surface: Surface::Function,
        })
    }

    /// A tuple of every op name on `surface` ("function", "method", "nn").
    #[pyfunction]
    fn _op_names(surface: OptionalArg<String>, vm: &VirtualMachine) -> PyResult<PyRef<PyTuple>> {
        let s = match surface
            .as_option()
            .map(String::as_str)
            .unwrap_or("function")
        {
            "function" => Surface::Function,
            "method" => Surface::Method,
            "nn" => Surface::NnFunctional,
            other => return Err(vm.new_value_error(format!("unknown surface '{other}'"))),
        };
        let names: Vec<PyObjectRef> = surface_table(s)
            .iter()
            .map(|(n, _)| vm.ctx.new_str(*n).into())
            .collect();
        Ok(vm.ctx.new_tuple(names))
    }
}
