//! The FX view of a captured graph: a `torch.fx.GraphModule` built through the FX graph API
//! (`placeholder`, `call_function`, `call_method`, `output`), so backends written for PyTorch
//! see what they expect (`gm.graph.nodes`, `gm.code`, `gm.forward`, `print_readable()`).

use std::collections::HashMap;

use rustpython_vm::builtins::PyBaseExceptionRef;
use rustpython_vm::{AsObject, PyObjectRef, PyResult, VirtualMachine};
use rynamo_graph::schema::Default as ParamDefault;
use rynamo_graph::{Graph, Value, ValueId};
use rynamo_tensor::IndexItem;

use super::bridge;
use super::output_graph::{FxTarget, OutputGraph};
use super::stats::FxView;

/// One parameter of an FX view's `forward`, as Dynamo lifts them: a graph input, or a size
/// symbol (`s0: "Sym(s0)"`) placed before the input whose dimension first introduces it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FxParam {
    /// The graph input at this position.
    Input(usize),
    /// Dimension `dim` of the graph input at `pos`: the caller passes the concrete size.
    Size {
        /// The input's position.
        pos: usize,
        /// The dimension.
        dim: usize,
    },
}

/// A built FX view: the GraphModule, what its `forward` takes, and an example of each (a
/// `torch.SymInt` for a size symbol), as a backend receives them.
pub struct FxModule {
    /// The `torch.fx.GraphModule`.
    pub gm: PyObjectRef,
    /// Its `forward`'s parameters.
    pub params: Vec<FxParam>,
    /// Their example values (`example_inputs`).
    pub examples: Vec<PyObjectRef>,
}

/// Tensor methods whose sizes are separate arguments (`x.view(2, -1)`).
const SIZE_VARARG_METHODS: [&str; 5] = ["view", "reshape", "expand", "permute", "repeat"];

/// Builds the GraphModule of a finished trace.
pub fn graph_module(graph: &Graph, out: &OutputGraph, vm: &VirtualMachine) -> PyResult<FxModule> {
    let view = FxView::of(std::rc::Rc::new(graph.clone()), out, String::new());
    build_module(&view, vm)
}

/// The `print_readable()` text of a finished trace's graph.
pub fn readable(
    graph: &Graph,
    out: &OutputGraph,
    name: &str,
    vm: &VirtualMachine,
) -> PyResult<String> {
    let mut view = FxView::of(std::rc::Rc::new(graph.clone()), out, name.to_owned());
    view.fn_name = name.to_owned();
    let gm = build(&view, vm)?;
    let text = vm.call_method(&gm, "print_readable", (false,))?;
    Ok(text.str(vm)?.to_string())
}

/// Builds a GraphModule from an [`FxView`].
pub fn build(view: &FxView, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
    Ok(build_module(view, vm)?.gm)
}

/// Builds the FX view of [`FxView`]: the GraphModule and its calling convention.
pub fn build_module(view: &FxView, vm: &VirtualMachine) -> PyResult<FxModule> {
    let fx = bridge::import_module("torch.fx", vm)?;
    let graph_cls = fx.get_attr("Graph", vm)?;
    let g = graph_cls.call((), vm)?;
    let graph = &*view.graph;
    let mut nodes: Vec<Option<PyObjectRef>> = vec![None; graph.values().len()];
    // Placeholders in Dynamo's order: each size symbol just before the input that first has it.
    let mut placeholders: Vec<(FxParam, PyObjectRef, PyObjectRef)> = Vec::new();
    let mut symbol_nodes: HashMap<usize, PyObjectRef> = HashMap::new();
    let mut dim_nodes: HashMap<(usize, usize), PyObjectRef> = HashMap::new();
    for (pos, (vid, (src, example))) in graph.inputs().iter().zip(&view.inputs).enumerate() {
        let dims = view.dim_symbols.iter().find(|(p, _)| *p == pos);
        for (d, s) in dims.iter().flat_map(|(_, ds)| ds.iter().enumerate()) {
            let Some(s) = s else { continue };
            if let Some(n) = symbol_nodes.get(s) {
                dim_nodes.insert((pos, d), n.clone());
                continue;
            }
            let name = format!("s{s}");
            let node = vm.call_method(&g, "placeholder", (name.clone(),))?;
            let hint = graph.value(*vid).meta.shape.get(d).copied().unwrap_or(0);
            let sym_int = bridge::import_module("torch", vm)?.get_attr("SymInt", vm)?;
            let ex = sym_int.call((name.clone(), hint), vm)?;
            if let Ok(meta) = node.get_attr("meta", vm) {
                let _ = meta.set_item(
                    "type_str",
                    vm.ctx.new_str(format!("Sym({name})")).into(),
                    vm,
                );
                let _ = meta.set_item("example_value", ex.clone(), vm);
                let source = format!("{src}.size()[{d}]");
                let _ = meta.set_item("source", vm.ctx.new_str(source).into(), vm);
            }
            symbol_nodes.insert(*s, node.clone());
            dim_nodes.insert((pos, d), node.clone());
            placeholders.push((FxParam::Size { pos, dim: d }, node, ex));
        }
        let node = vm.call_method(&g, "placeholder", (src.identifier(),))?;
        // Dynamo records the example value and the source in the node's meta.
        if let Ok(meta) = node.get_attr("meta", vm) {
            let dims = view.dim_symbols.iter().find(|(p, _)| *p == pos);
            let ty = match view.int_symbols.iter().find(|(p, _)| *p == pos) {
                Some((_, s)) => format!("Sym(s{s})"),
                None => type_str(&graph.value(*vid).meta, dims.map(|(_, d)| d.as_slice())),
            };
            let _ = meta.set_item("type_str", vm.ctx.new_str(ty).into(), vm);
            let _ = meta.set_item("example_value", example.clone(), vm);
            let _ = meta.set_item("source", vm.ctx.new_str(src.to_string()).into(), vm);
        }
        nodes[vid.0 as usize] = Some(node.clone());
        // A dynamic int's example is its symbol (`torch.SymInt`), as PyTorch passes it.
        let example = match view.int_symbols.iter().find(|(p, _)| *p == pos) {
            Some((_, s)) => {
                let sym_int = bridge::import_module("torch", vm)?.get_attr("SymInt", vm)?;
                sym_int.call((format!("s{s}"), example.clone()), vm)?
            }
            None => example.clone(),
        };
        placeholders.push((FxParam::Input(pos), node, example));
    }
    let shapes = view
        .shape_probe
        .as_ref()
        .map(|p| p.infer(graph))
        .unwrap_or_default();
    let set_grad =
        bridge::import_module("torch._C", vm).and_then(|c| c.get_attr("_set_grad_enabled", vm));
    let mut mode = view.grad_enabled_at_start;
    let switch = |to: bool, mode: &mut bool| -> PyResult<()> {
        if *mode != to {
            let f = set_grad.clone()?;
            let args = vm.ctx.new_tuple(vec![vm.ctx.new_bool(to).into()]);
            vm.call_method(&g, "call_function", (f, args, vm.ctx.new_dict()))?;
            *mode = to;
        }
        Ok(())
    };
    let mut sizes = SymNodes {
        g: &g,
        graph,
        dims: &dim_nodes,
        probe: view.shape_probe.as_deref(),
        made: HashMap::new(),
        fresh: Vec::new(),
    };
    for (i, n) in graph.nodes().iter().enumerate() {
        switch(view.grad_enabled.get(i).copied().unwrap_or(mode), &mut mode)?;
        let schema = n.op.schema();
        let mut args = Vec::new();
        let kwargs = vm.ctx.new_dict();
        let name = n.outputs.first().map(|o| graph.value(*o).name.as_str());
        for (k, (p, a)) in schema.params.iter().zip(&n.args).enumerate() {
            // Symbolic sizes are computed in the FX code from the inputs' sizes.
            let mut syms = Vec::new();
            for s in view
                .sym_args
                .iter()
                .filter(|s| s.arg == k && Some(s.node.as_str()) == name)
            {
                syms.push((s.slot, sizes.node(&s.expr, &nodes, vm)?));
            }
            let is_default = syms.is_empty()
                && match &p.default {
                    Some(ParamDefault::None) => matches!(a, Value::None),
                    Some(ParamDefault::Value(d)) => default_eq(d, a),
                    None => false,
                };
            // A one-dimension `dim` list prints as the int users write (`x.sum(1)`).
            let one_dim = match a {
                Value::IntList(l) if p.name == "dim" && l.len() == 1 => Some(Value::Int(l[0])),
                _ => None,
            };
            let v = arg_to_py(one_dim.as_ref().unwrap_or(a), &nodes, &syms, vm)?;
            if p.kw_only {
                if !is_default {
                    kwargs.set_item(p.name.as_str(), v, vm)?;
                }
            } else {
                args.push((v, is_default));
            }
        }
        // Trailing positional arguments left at their defaults are dropped, as users write them.
        while args.last().is_some_and(|(_, d)| *d) {
            args.pop();
        }
        let info = view.fx.get(i).and_then(Option::as_ref);
        let mut args: Vec<PyObjectRef> = args.into_iter().map(|(v, _)| v).collect();
        // Size methods take their sizes as separate arguments, as users call them
        // (`x.view(b, -1)`).
        if let Some(FxTarget::Method(name)) = info.map(|f| &f.target)
            && SIZE_VARARG_METHODS.contains(&name.as_ref())
            && args.len() == 2
            && args[1].class().is(vm.ctx.types.list_type)
        {
            let sizes = vm.extract_elements_with(&args[1], Ok)?;
            args.truncate(1);
            args.extend(sizes);
        }
        let args = vm.ctx.new_tuple(args);
        let node = match info.map(|f| &f.target) {
            Some(FxTarget::Host {
                func,
                args: host_args,
                kwargs: host_kwargs,
            }) => {
                let inputs = match n.args.first() {
                    Some(Value::TensorList(ts)) => ts.clone(),
                    _ => Vec::new(),
                };
                let arg = |a: &super::host_call::HostArg| match a {
                    super::host_call::HostArg::Tensor(k) => value_node(inputs[*k], &nodes, vm),
                    super::host_call::HostArg::Const(c) => Ok(c.clone()),
                };
                let call_args = host_args.iter().map(arg).collect::<PyResult<Vec<_>>>()?;
                let call_kwargs = vm.ctx.new_dict();
                for (k, a) in host_kwargs {
                    call_kwargs.set_item(k.as_str(), arg(a)?, vm)?;
                }
                vm.call_method(
                    &g,
                    "call_function",
                    (func.clone(), vm.ctx.new_tuple(call_args), call_kwargs),
                )?
            }
            Some(FxTarget::Function(f)) if !vm.is_none(f) => {
                vm.call_method(&g, "call_function", (f.clone(), args, kwargs))?
            }
            Some(FxTarget::Method(name)) => {
                vm.call_method(&g, "call_method", (name.to_string(), args, kwargs))?
            }
            // `torch.<name>` only for ops on the `torch` surface: `torch.batch_norm` and kin are
            // ATen's signatures (`_refs_nn_forms.py`), not the nn op's argument order.
            _ => match bridge::torch_attr(n.op.py_name(), vm)
                .filter(|_| n.op.flags().contains(rynamo_graph::OpFlags::FUNCTION))
            {
                Some(f) => vm.call_method(&g, "call_function", (f, args, kwargs))?,
                // Graphs not traced from user code (AOT's forward and backward) name ops that
                // are only Tensor methods (`expand`) or `torch.nn.functional` functions.
                None if n.op.flags().contains(rynamo_graph::OpFlags::METHOD) => vm.call_method(
                    &g,
                    "call_method",
                    (n.op.py_name().to_string(), args, kwargs),
                )?,
                // Ops on no Python surface (convolution_backward_input, ...) are called
                // through `torch._C._registry_op`.
                None => {
                    let f = bridge::import_module("torch.nn.functional", vm)
                        .and_then(|m| m.get_attr(n.op.py_name(), vm))
                        .or_else(|_| {
                            let c = bridge::import_module("torch._C", vm)?;
                            vm.call_method(&c, "_registry_op", (n.op.name(),))
                        })?;
                    vm.call_method(&g, "call_function", (f, args, kwargs))?
                }
            },
        };
        if let Some(meta) = node.get_attr("meta", vm).ok()
            && let Some(info) = info
            && let Some((file, line, func)) = &info.stack
        {
            let code = super::frame_logs::source_line(file, *line, vm)
                .map(|c| c.trim().to_owned())
                .unwrap_or_default();
            let _ = meta.set_item(
                "stack_trace",
                vm.ctx
                    .new_str(format!(
                        "  File \"{file}\", line {line}, in {func}\n    {code}"
                    ))
                    .into(),
                vm,
            );
            let _ = meta.set_item(
                "source_comment",
                vm.ctx
                    .new_str(format!("File: {file}:{line} in {func}, code: {code}"))
                    .into(),
                vm,
            );
        }
        // Size arithmetic made for this node's arguments was traced at its line.
        for made in std::mem::take(&mut sizes.fresh) {
            if let (Ok(from), Ok(to)) = (node.get_attr("meta", vm), made.get_attr("meta", vm)) {
                for key in ["stack_trace", "source_comment"] {
                    if let Ok(v) = from.get_item(key, vm) {
                        let _ = to.set_item(key, v, vm);
                    }
                }
            }
        }
        if let (Some(meta), [one]) = (node.get_attr("meta", vm).ok(), n.outputs.as_slice()) {
            let value = graph.value(*one);
            let text = match shapes.get(&value.name) {
                Some(dims) => sym_type_str(&value.meta, dims),
                None => type_str(&value.meta, None),
            };
            let _ = meta.set_item("type_str", vm.ctx.new_str(text).into(), vm);
        }
        // A one-output op returns its tensor; a `Tensor[]` or tuple op returns a sequence even
        // with one piece (`torch.split(x, 1)` of one row), read through `getitem`.
        let sequence = !matches!(n.op.schema().returns, rynamo_graph::Returns::Tensor)
            && n.op != rynamo_graph::Op::HostCall;
        match n.outputs.as_slice() {
            [one] if !sequence => nodes[one.0 as usize] = Some(node),
            many => {
                let getitem = vm.import("operator", 0)?.get_attr("getitem", vm)?;
                for (k, o) in many.iter().enumerate() {
                    let item = vm.call_method(
                        &g,
                        "call_function",
                        (
                            getitem.clone(),
                            vm.ctx
                                .new_tuple(vec![node.clone(), vm.ctx.new_int(k).into()]),
                            vm.ctx.new_dict(),
                        ),
                    )?;
                    nodes[o.0 as usize] = Some(item);
                }
            }
        }
        // Computed sizes the trace used as constants are checked where they are computed
        // (`torch._check`, as PyTorch's runtime asserts).
        for o in &n.outputs {
            let name = &graph.value(*o).name;
            for a in view.size_assumptions.iter().filter(|a| &a.value == name) {
                sizes.check(value_node(*o, &nodes, vm)?, a, vm)?;
            }
        }
    }
    switch(view.grad_enabled_at_start, &mut mode)?;
    let outs = graph
        .outputs()
        .iter()
        .map(|o| value_node(*o, &nodes, vm))
        .collect::<PyResult<Vec<_>>>()?;
    vm.call_method(&g, "output", (vm.ctx.new_tuple(outs),))?;
    // An input only whose sizes the program read is no input of Dynamo's graph: its sizes are
    // (`remove_unused_graphargs`). Static graphs read no sizes this way.
    if !symbol_nodes.is_empty() {
        let mut kept = Vec::with_capacity(placeholders.len());
        for (param, node, ex) in placeholders {
            let unused = matches!(param, FxParam::Input(p) if !view.int_symbols.iter().any(|(q, _)| *q == p))
                && node.get_attr("users", vm)?.length(vm)? == 0;
            if unused {
                vm.call_method(&g, "erase_node", (node,))?;
            } else {
                kept.push((param, node, ex));
            }
        }
        placeholders = kept;
    }
    let gm_cls = fx.get_attr("GraphModule", vm)?;
    let root = vm.ctx.new_dict();
    let gm = gm_cls.call((root, g, view.fn_name.clone()), vm)?;
    let (params, examples) = placeholders.into_iter().map(|(p, _, ex)| (p, ex)).unzip();
    Ok(FxModule {
        gm,
        params,
        examples,
    })
}

fn value_node(
    v: ValueId,
    nodes: &[Option<PyObjectRef>],
    vm: &VirtualMachine,
) -> PyResult<PyObjectRef> {
    nodes
        .get(v.0 as usize)
        .cloned()
        .flatten()
        .ok_or_else(|| vm.new_runtime_error(format!("graph value {v} has no FX node")))
}

/// The FX nodes computing symbolic sizes (`x.size(d)` and `operator` arithmetic), one per
/// distinct expression.
struct SymNodes<'a> {
    g: &'a PyObjectRef,
    graph: &'a Graph,
    /// The `Sym(s0)` placeholder of each dynamic input dimension `(position, dimension)`.
    dims: &'a HashMap<(usize, usize), PyObjectRef>,
    /// Names size arithmetic's symbolic values (`mul: "Sym(s0*s1)"`).
    probe: Option<&'a super::fx_sym_shapes::ShapeProbe>,
    made: HashMap<String, PyObjectRef>,
    /// Nodes made since the last node that used them took them (they share its source line).
    fresh: Vec<PyObjectRef>,
}

impl SymNodes<'_> {
    fn node(
        &mut self,
        e: &super::sym::SymExpr,
        nodes: &[Option<PyObjectRef>],
        vm: &VirtualMachine,
    ) -> PyResult<PyObjectRef> {
        use super::sym::{SymExpr, SymOp};
        let key = e.render(&|pos, d| format!("{pos}.{d}"));
        if let Some(n) = self.made.get(&key) {
            return Ok(n.clone());
        }
        let op = |name: &'static str| -> PyResult<PyObjectRef> {
            vm.import("operator", 0)?.get_attr(name, vm)
        };
        let n = match e {
            SymExpr::Int(i) => return Ok(vm.ctx.new_int(*i).into()),
            SymExpr::Val(name, d) => {
                let v = (0..self.graph.values().len())
                    .find(|i| self.graph.values()[*i].name == *name)
                    .ok_or_else(|| vm.new_runtime_error(format!("graph value {name} is gone")))?;
                let x = value_node(ValueId(v as u32), nodes, vm)?;
                let args = vm.ctx.new_tuple(vec![x, vm.ctx.new_int(*d).into()]);
                vm.call_method(self.g, "call_method", ("size", args, vm.ctx.new_dict()))?
            }
            SymExpr::Dim(pos, d) if self.dims.contains_key(&(*pos, *d)) => {
                return Ok(self.dims[&(*pos, *d)].clone());
            }
            SymExpr::Dim(pos, d) => {
                let v = self.graph.inputs().get(*pos).copied().ok_or_else(|| {
                    vm.new_runtime_error(format!("graph input {pos} of a symbolic size is gone"))
                })?;
                let x = value_node(v, nodes, vm)?;
                if *d == super::sym::VALUE {
                    // A dynamic int input is its placeholder (`L_n_: "Sym(s0)"`).
                    return Ok(x);
                }
                let args = vm.ctx.new_tuple(vec![x, vm.ctx.new_int(*d).into()]);
                vm.call_method(self.g, "call_method", ("size", args, vm.ctx.new_dict()))?
            }
            // `torch.sym_max(l_n_, 2)`, as PyTorch's graphs call `max` of SymInts.
            SymExpr::Bin(o @ (SymOp::Max | SymOp::Min), a, b) => {
                let name = if *o == SymOp::Max {
                    "sym_max"
                } else {
                    "sym_min"
                };
                let f = bridge::import_module("torch", vm)?.get_attr(name, vm)?;
                let args = vm
                    .ctx
                    .new_tuple(vec![self.node(a, nodes, vm)?, self.node(b, nodes, vm)?]);
                vm.call_method(self.g, "call_function", (f, args, vm.ctx.new_dict()))?
            }
            SymExpr::Bin(o, a, b) => {
                let f = op(match o {
                    SymOp::Add => "add",
                    SymOp::Sub => "sub",
                    SymOp::Mul => "mul",
                    SymOp::FloorDiv => "floordiv",
                    SymOp::Mod => "mod",
                    SymOp::Max | SymOp::Min => unreachable!("matched above"),
                })?;
                let args = vm
                    .ctx
                    .new_tuple(vec![self.node(a, nodes, vm)?, self.node(b, nodes, vm)?]);
                vm.call_method(self.g, "call_function", (f, args, vm.ctx.new_dict()))?
            }
            SymExpr::Float(f) => return Ok(vm.ctx.new_float(*f).into()),
            // As PyTorch's graphs: `truediv = l_n_ / 2`, `sym_float = torch.sym_float(l_n_)`.
            SymExpr::TrueDiv(a, b) => {
                let args = vm
                    .ctx
                    .new_tuple(vec![self.node(a, nodes, vm)?, self.node(b, nodes, vm)?]);
                vm.call_method(
                    self.g,
                    "call_function",
                    (op("truediv")?, args, vm.ctx.new_dict()),
                )?
            }
            // `torch._sym_sqrt(truediv)`, `torch.sym_int(truediv)`, `math.floor(truediv)`.
            SymExpr::Fn(f, a) => {
                use super::sym::FloatFn;
                let (module, name) = match f {
                    FloatFn::Sqrt => ("torch", "_sym_sqrt"),
                    FloatFn::Trunc => ("torch", "sym_int"),
                    FloatFn::Floor => ("math", "floor"),
                    FloatFn::Ceil => ("math", "ceil"),
                };
                let func = bridge::import_module(module, vm)?.get_attr(name, vm)?;
                let args = vm.ctx.new_tuple(vec![self.node(a, nodes, vm)?]);
                vm.call_method(self.g, "call_function", (func, args, vm.ctx.new_dict()))?
            }
            SymExpr::ToFloat(a) => {
                let f = bridge::import_module("torch", vm)?.get_attr("sym_float", vm)?;
                let args = vm.ctx.new_tuple(vec![self.node(a, nodes, vm)?]);
                vm.call_method(self.g, "call_function", (f, args, vm.ctx.new_dict()))?
            }
            SymExpr::Neg(a) | SymExpr::Abs(a) => {
                let args = vm.ctx.new_tuple(vec![self.node(a, nodes, vm)?]);
                vm.call_method(
                    self.g,
                    "call_function",
                    (
                        op(if matches!(e, SymExpr::Abs(_)) {
                            "abs"
                        } else {
                            "neg"
                        })?,
                        args,
                        vm.ctx.new_dict(),
                    ),
                )?
            }
        };
        if let Some(text) = self.probe.and_then(|p| p.render_expr(e, self.graph))
            && let Ok(meta) = n.get_attr("meta", vm)
        {
            let _ = meta.set_item(
                "type_str",
                vm.ctx.new_str(format!("Sym({text})")).into(),
                vm,
            );
        }
        self.fresh.push(n.clone());
        self.made.insert(key, n.clone());
        Ok(n)
    }

    /// `torch._check(x.size(dim) == size)` for an assumption on the value of node `x`.
    fn check(
        &mut self,
        x: PyObjectRef,
        a: &super::sym::Assumption,
        vm: &VirtualMachine,
    ) -> PyResult<()> {
        let args = vm.ctx.new_tuple(vec![x, vm.ctx.new_int(a.dim).into()]);
        let size = vm.call_method(self.g, "call_method", ("size", args, vm.ctx.new_dict()))?;
        let eq = vm.import("operator", 0)?.get_attr("eq", vm)?;
        let args = vm.ctx.new_tuple(vec![size, vm.ctx.new_int(a.size).into()]);
        let cond = vm.call_method(self.g, "call_function", (eq, args, vm.ctx.new_dict()))?;
        let check = bridge::import_module("torch", vm)?.get_attr("_check", vm)?;
        let args = vm.ctx.new_tuple(vec![cond]);
        vm.call_method(self.g, "call_function", (check, args, vm.ctx.new_dict()))?;
        Ok(())
    }
}

fn arg_to_py(
    a: &Value<ValueId>,
    nodes: &[Option<PyObjectRef>],
    syms: &[(super::sym::Slot, PyObjectRef)],
    vm: &VirtualMachine,
) -> PyResult<PyObjectRef> {
    let sym = |item: usize, part: u8| {
        syms.iter()
            .find(|(s, _)| s.item == item && s.part == part)
            .map(|(_, n)| n.clone())
    };
    let int = |i: i64, item: usize, part: u8| -> PyObjectRef {
        sym(item, part).unwrap_or_else(|| vm.ctx.new_int(i).into())
    };
    // A SymFloat argument is its node (`l_x_ * truediv`).
    let float = |f: f64| -> PyObjectRef {
        sym(0, super::sym::FLOAT_PART).unwrap_or_else(|| vm.ctx.new_float(f).into())
    };
    Ok(match a {
        Value::None => vm.ctx.none(),
        Value::Tensor(v) => value_node(*v, nodes, vm)?,
        Value::TensorList(vs) => vm
            .ctx
            .new_list(
                vs.iter()
                    .map(|v| value_node(*v, nodes, vm))
                    .collect::<PyResult<_>>()?,
            )
            .into(),
        Value::Scalar(s) => match s {
            rynamo_tensor::Scalar::Bool(b) => vm.ctx.new_bool(*b).into(),
            rynamo_tensor::Scalar::Int(i) => int(*i, 0, 0),
            rynamo_tensor::Scalar::Float(f) => float(*f),
        },
        Value::Int(i) => int(*i, 0, 0),
        Value::IntList(v) => vm
            .ctx
            .new_list(v.iter().enumerate().map(|(k, i)| int(*i, k, 0)).collect())
            .into(),
        Value::Float(f) => float(*f),
        Value::Bool(b) => vm.ctx.new_bool(*b).into(),
        Value::Str(s) => vm.ctx.new_str(s.as_str()).into(),
        Value::DType(d) => bridge::dtype_object(*d, vm),
        Value::Index(items) => {
            let objs = items
                .iter()
                .enumerate()
                .map(|(k, it)| -> PyResult<PyObjectRef> {
                    Ok(match it {
                        IndexItem::Int(i) => int(*i, k, 0),
                        IndexItem::Slice { start, stop, step } => {
                            let o = |x: &Option<i64>, part: u8| {
                                x.map_or_else(|| vm.ctx.none(), |v| int(v, k, part))
                            };
                            rustpython_vm::PyPayload::into_pyobject(
                                rustpython_vm::builtins::PySlice {
                                    start: Some(o(start, 1)),
                                    stop: o(stop, 2),
                                    step: Some(o(step, 3)),
                                },
                                vm,
                            )
                        }
                        IndexItem::None => vm.ctx.none(),
                        IndexItem::Ellipsis => vm.ctx.ellipsis.clone().into(),
                        IndexItem::Bool(b) => vm.ctx.new_bool(*b).into(),
                        IndexItem::Tensor(v) => value_node(*v, nodes, vm)?,
                    })
                })
                .collect::<PyResult<Vec<_>>>()?;
            if objs.len() == 1 {
                objs.into_iter().next().expect("invariant: one item")
            } else {
                vm.ctx.new_tuple(objs).into()
            }
        }
    })
}

fn default_eq(d: &Value<rynamo_graph::schema::NoTensor>, a: &Value<ValueId>) -> bool {
    match (d, a) {
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::IntList(x), Value::IntList(y)) => x == y,
        (Value::Scalar(x), Value::Scalar(y)) => x == y,
        (Value::Scalar(x), Value::Int(y)) | (Value::Int(y), Value::Scalar(x)) => {
            matches!(x, rynamo_tensor::Scalar::Int(v) if v == y)
        }
        (Value::None, Value::None) => true,
        _ => false,
    }
}

/// Text of a Python exception.
pub fn error_text(e: &PyBaseExceptionRef, vm: &VirtualMachine) -> String {
    e.as_object()
        .str(vm)
        .map(|s| s.to_string())
        .unwrap_or_default()
}

/// `f32[s0, s0*s1]`: a computed value's annotation from its symbolic dimensions (the traced
/// size where no expression fits).
fn sym_type_str(meta: &rynamo_tensor::TensorMeta, dims: &[Option<String>]) -> String {
    let dims: Vec<String> = meta
        .shape
        .iter()
        .enumerate()
        .map(|(d, n)| {
            dims.get(d)
                .cloned()
                .flatten()
                .unwrap_or_else(|| n.to_string())
        })
        .collect();
    format!("{}[{}]", meta.dtype.short_name(), dims.join(", "))
}

/// `f32[3, 4]`: how `print_readable` annotates a value; `f32[s0, 4]` where `symbols` names a
/// dynamic dimension.
fn type_str(meta: &rynamo_tensor::TensorMeta, symbols: Option<&[Option<usize>]>) -> String {
    let dims: Vec<String> = meta
        .shape
        .iter()
        .enumerate()
        .map(
            |(d, n)| match symbols.and_then(|s| s.get(d).copied().flatten()) {
                Some(s) => format!("s{s}"),
                None => n.to_string(),
            },
        )
        .collect();
    format!("{}[{}]", meta.dtype.short_name(), dims.join(", "))
}
