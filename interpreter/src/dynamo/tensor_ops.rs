//! Tensor operations while tracing: registry ops reached through `torch.<op>`, tensor methods,
//! and Python operators on tensors. Each becomes a graph node whose shape and dtype come from the
//! registry's meta rule; metadata queries (`size()`, `dim()`, ...) become guarded constants.

use std::rc::Rc;

use rustpython_vm::{AsObject, PyObjectRef};
use rynamo_graph::{Arg, Op, OpFlags, PyOperator, Value};

use super::bridge::{self, Surface};
use super::exc::{GraphBreak, GraphBreakKind};
use super::output_graph::FxTarget;
use super::symbolic_convert::Tracer;
use super::tensor_args::device_is_cpu;
use super::variables::{Kind, Vt};

impl Tracer<'_> {
    /// Converts trackers to op argument values; `None` if one is not representable.
    fn op_args(&self, vts: &[Vt]) -> Option<Vec<Arg>> {
        vts.iter().map(|v| self.op_arg(v)).collect()
    }

    /// One tracker as an op argument value (tensors, numbers, int lists, dtypes, slices/indexes).
    pub(crate) fn op_arg(&self, v: &Vt) -> Option<Arg> {
        if let Kind::Tensor(t) = &v.kind {
            return Some(Value::Tensor(self.out.current_value(t)));
        }
        self.out.arg_of(v, self.vm)
    }

    /// Calls registry overloads with trackers, adding a graph node.
    pub(crate) fn call_op_overloads(
        &mut self,
        overloads: &[Op],
        args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
        target: FxTarget,
    ) -> Result<Vt, GraphBreak> {
        let name = overloads.first().map_or("?", |o| o.py_name());
        if let Some(op) = overloads.first()
            && bridge::is_disallowed(*op)
        {
            return Err(GraphBreak::new(
                GraphBreakKind::DisallowedOp,
                format!("torch.{name} was marked with disallow_in_graph"),
            ));
        }
        if let Some(op) = overloads.first()
            && op.flags().contains(OpFlags::MUTATES_ARGS)
            && op.schema().returns == rynamo_graph::Returns::Tuple(Vec::new())
        {
            // The multi-tensor optimizer ops (`_fused_adam_`) write every tensor of their list
            // arguments, which the tracker cannot follow: they run eagerly.
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedCall,
                format!("torch.{name}() writes into its tensor-list arguments"),
            ));
        }
        let unsupported = || {
            GraphBreak::new(
                GraphBreakKind::UnsupportedCall,
                format!("{name}() with arguments Dynamo cannot pass to the op"),
            )
        };
        let positional = self.op_args(&args).ok_or_else(unsupported)?;
        let mut kw = Vec::with_capacity(kwargs.len());
        for (k, v) in &kwargs {
            kw.push((k.clone(), self.op_arg(v).ok_or_else(unsupported)?));
        }
        let requires_grad = self.out.grad_enabled
            && args
                .iter()
                .chain(kwargs.iter().map(|(_, v)| v))
                .any(|v| v.as_tensor().is_some_and(|t| t.requires_grad));
        let (op, bound) = rynamo_shims::ops::bind_overload(overloads, positional, kw)
            .map_err(|e| GraphBreak::new(GraphBreakKind::OpError, format!("{name}(): {e}")))?;
        let bound = self.autocast_args(op, bound, requires_grad)?;
        let outs = self.out.call_op(op, bound, target, requires_grad)?;
        if op.flags().contains(OpFlags::INPLACE) {
            // The mutated tensor keeps its Python identity: its tracker (and every alias of it)
            // now reads the node's output.
            if let Some(Kind::Tensor(t)) = args.first().map(|a| &a.kind)
                && let Some(o) = outs.first().and_then(Vt::as_tensor)
            {
                self.out.set_current(t, o.value);
                return Ok(args[0].clone());
            }
        }
        if let rynamo_graph::Returns::List = &op.schema().returns {
            // `Tensor[]` (split, chunk, unbind): a tuple however many pieces, one included.
            return Ok(Vt::new(Kind::Tuple(outs)));
        }
        if let rynamo_graph::Returns::Tuple(_) = &op.schema().returns
            && let Some(cls) = bridge::import_module("torch.return_types", self.vm)
                .ok()
                .and_then(|m| m.get_attr(op.py_name(), self.vm).ok())
        {
            // `torch.max(x, dim)` returns `torch.return_types.max`, as eagerly.
            return Ok(Vt::new(Kind::NamedTuple(cls, outs)));
        }
        Ok(match outs.len() {
            1 => outs.into_iter().next().expect("invariant: one output"),
            _ => Vt::new(Kind::Tuple(outs)),
        })
    }

    /// `x.name(*args, **kwargs)` for a tensor `x`.
    pub(crate) fn call_tensor_method(
        &mut self,
        recv: Vt,
        name: &str,
        args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let Some(t) = recv.as_tensor().cloned() else {
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedOperation,
                "method of a non-tensor",
            ));
        };
        let c_int = |i: i64| Vt::constant(vm.ctx.new_int(i).into());
        let dim_arg = |args: &[Vt], kwargs: &[(String, Vt)]| -> Option<Option<i64>> {
            let v = args
                .first()
                .or_else(|| kwargs.iter().find(|(k, _)| k == "dim").map(|(_, v)| v));
            match v {
                None => Some(None),
                Some(v) => v
                    .as_const()
                    .and_then(|c| c.try_to_value::<i64>(vm).ok())
                    .map(Some),
            }
        };
        let wrap_dim = |d: i64| -> Result<usize, GraphBreak> {
            rynamo_tensor::layout::wrap_dim(d, t.meta().shape.len())
                .map_err(|e| GraphBreak::new(GraphBreakKind::OpError, e.to_string()))
        };
        if super::inplace::is_inplace_view(name) {
            return self.call_inplace_view(recv, name, args, kwargs);
        }
        match name {
            "size" => {
                let d = dim_arg(&args, &kwargs).ok_or_else(|| {
                    GraphBreak::new(
                        GraphBreakKind::UnsupportedOperation,
                        "size(dim) with a traced dim",
                    )
                })?;
                // Dynamic dimensions of an input read as SymInts (`sym_trace.rs`).
                return Ok(match d {
                    None => self.out.sizes_of(&t, vm),
                    Some(d) => self.out.size_of(&t, wrap_dim(d)?, vm),
                });
            }
            "stride" => {
                let d = dim_arg(&args, &kwargs).ok_or_else(|| {
                    GraphBreak::new(
                        GraphBreakKind::UnsupportedOperation,
                        "stride(dim) with a traced dim",
                    )
                })?;
                self.out.specialise(t.value, None);
                return Ok(match d {
                    None => Vt::constant(
                        vm.ctx
                            .new_tuple(
                                t.meta()
                                    .strides
                                    .iter()
                                    .map(|s| vm.ctx.new_int(*s).into())
                                    .collect(),
                            )
                            .into(),
                    ),
                    Some(d) => c_int(t.meta().strides[wrap_dim(d)?] as i64),
                });
            }
            "dim" | "ndimension" => return Ok(c_int(t.meta().shape.len() as i64)),
            "numel" | "nelement" => return Ok(self.out.numel_of(&t, vm)),
            "element_size" => return Ok(c_int(t.meta().dtype.itemsize() as i64)),
            "is_contiguous" => {
                let format = super::layout_queries::format_arg(&args, &kwargs, vm)?;
                let m = t.meta();
                return Ok(Vt::constant(
                    vm.ctx
                        .new_bool(format.is_contiguous(&m.shape, &m.strides))
                        .into(),
                ));
            }
            "is_floating_point" => {
                return Ok(Vt::constant(
                    vm.ctx.new_bool(t.meta().dtype.is_floating_point()).into(),
                ));
            }
            "item" => {
                return Err(GraphBreak::new(GraphBreakKind::TensorItem, "Tensor.item()"));
            }
            "tolist" | "numpy" | "__int__" | "__float__" | "__index__" => {
                return Err(GraphBreak::new(
                    GraphBreakKind::TensorToPython,
                    format!("Tensor.{name}()"),
                ));
            }
            "__bool__" => {
                return Err(GraphBreak::new(
                    GraphBreakKind::DataDependentBranch,
                    "bool() of a tensor",
                ));
            }
            "cpu" | "cuda" => {
                self.out.identity_calls += 1;
                return Ok(recv);
            }
            // A tensor that is already contiguous is returned as it is (eager's `contiguous`).
            "contiguous"
                if args.is_empty()
                    && kwargs.is_empty()
                    && rynamo_tensor::layout::is_contiguous(&t.meta().shape, &t.meta().strides) =>
            {
                self.out.identity_calls += 1;
                return Ok(recv);
            }
            "to" | "clone" if super::layout_queries::asked_channels_last(&kwargs, vm).is_some() => {
                return self.call_in_format(recv, name, args, kwargs);
            }
            "contiguous" if !(args.is_empty() && kwargs.is_empty()) => {
                return self.contiguous_in_format(recv, &args, &kwargs);
            }
            "detach" if t.requires_grad => {
                // The graph has no detach op: a view would carry the autograd history.
                return Err(GraphBreak::new(
                    GraphBreakKind::UnsupportedOperation,
                    "Tensor.detach() of a tensor that requires grad",
                ));
            }
            "detach" => {
                // A new tensor object sharing the data (not the tensor itself): a same-shape
                // view (the tensor has no autograd history to drop).
                self.out.specialise(t.value, None);
                let shape = Vt::constant(bridge::make_size(&t.meta().shape, vm));
                let mut v = self.call_tensor_method(recv, "view", vec![shape], vec![])?;
                if let Kind::Tensor(tv) = &mut v.kind {
                    tv.requires_grad = false;
                }
                return Ok(v);
            }
            "is_complex" | "is_signed" if args.is_empty() && kwargs.is_empty() => {
                let v = match name {
                    "is_complex" => t.meta().dtype.is_complex(),
                    _ => t.meta().dtype.is_signed(),
                };
                return Ok(Vt::constant(vm.ctx.new_bool(v).into()));
            }
            "type" if args.is_empty() && kwargs.is_empty() => {
                return Ok(Vt::constant(
                    vm.ctx
                        .new_str(bridge::tensor_type_name(t.meta().dtype))
                        .into(),
                ));
            }
            "type" if args.len() == 1 && kwargs.is_empty() => {
                // `x.type(torch.int64)` / `x.type("torch.LongTensor")`: `to` that dtype.
                let d = match args[0].as_const() {
                    Some(c) if bridge::dtype_of(c).is_some() => c.clone(),
                    Some(c) => {
                        let name = c.str(vm).map(|s| s.to_string()).unwrap_or_default();
                        let d = bridge::dtype_from_type_name(&name).ok_or_else(|| {
                            GraphBreak::new(
                                GraphBreakKind::UnsupportedOperation,
                                format!("Tensor.type({name:?})"),
                            )
                        })?;
                        bridge::dtype_object(d, vm)
                    }
                    None => {
                        return Err(GraphBreak::new(
                            GraphBreakKind::UnsupportedOperation,
                            "Tensor.type() of a traced value",
                        ));
                    }
                };
                return self.call_tensor_method(recv, "to", vec![Vt::constant(d)], vec![]);
            }
            "requires_grad_" => {
                let flag = match args.first().map(|a| a.as_const()) {
                    None => true,
                    Some(Some(c)) if c.class().is(vm.ctx.types.bool_type) => {
                        c.is(&vm.ctx.true_value)
                    }
                    Some(_) => {
                        return Err(GraphBreak::new(
                            GraphBreakKind::UnsupportedOperation,
                            "Tensor.requires_grad_() of a non-constant flag",
                        ));
                    }
                };
                // Setting what is already set changes nothing; anything else changes the real
                // tensor's autograd state (every alias's, an input's after the call), which the
                // trace does not model: it runs eagerly.
                if flag == t.requires_grad {
                    return Ok(recv);
                }
                return Err(GraphBreak::new(
                    GraphBreakKind::UnsupportedOperation,
                    "Tensor.requires_grad_() changing the flag",
                ));
            }
            "float" | "double" | "half" | "bfloat16" | "long" | "int" | "short" | "bool"
            | "byte" | "char" => {
                let dtype = match name {
                    "float" => "float32",
                    "double" => "float64",
                    "half" => "float16",
                    "bfloat16" => "bfloat16",
                    "long" => "int64",
                    "int" => "int32",
                    "short" => "int16",
                    "bool" => "bool",
                    "byte" => "uint8",
                    _ => "int8",
                };
                let d = rynamo_tensor::DType::from_name(dtype).ok_or_else(|| {
                    GraphBreak::new(
                        GraphBreakKind::UnsupportedOperation,
                        format!("dtype {dtype}"),
                    )
                })?;
                let dt = Vt::constant(bridge::dtype_object(d, vm));
                return self.call_tensor_method(recv, "to", vec![dt], vec![]);
            }
            "type_as" => {
                let other = args
                    .first()
                    .and_then(|a| a.as_tensor())
                    .cloned()
                    .ok_or_else(|| {
                        GraphBreak::new(
                            GraphBreakKind::UnsupportedOperation,
                            "type_as of a non-tensor",
                        )
                    })?;
                let dt = Vt::constant(bridge::dtype_object(other.meta().dtype, vm));
                return self.call_tensor_method(recv, "to", vec![dt], vec![]);
            }
            "expand_as" | "view_as" | "reshape_as" => {
                // The `*_as` forms are the plain op with the other tensor's shape.
                let other = args
                    .first()
                    .and_then(|a| a.as_tensor())
                    .cloned()
                    .ok_or_else(|| {
                        GraphBreak::new(
                            GraphBreakKind::UnsupportedOperation,
                            format!("Tensor.{name} of a non-tensor"),
                        )
                    })?;
                self.out.specialise(other.value, None);
                let shape = Vt::constant(bridge::make_size(&other.meta().shape, vm));
                return self.call_tensor_method(recv, &name[..name.len() - 3], vec![shape], vec![]);
            }
            "unbind" => {
                let d = dim_arg(&args, &kwargs).ok_or_else(|| {
                    GraphBreak::new(
                        GraphBreakKind::UnsupportedOperation,
                        "unbind(dim) with a traced dim",
                    )
                })?;
                let d = d.unwrap_or(0);
                let n = t.meta().shape[wrap_dim(d)?];
                self.out.specialise(t.value, Some(wrap_dim(d)?));
                let mut parts = Vec::with_capacity(n);
                for i in 0..n {
                    parts.push(self.call_tensor_method(
                        recv.clone(),
                        "select",
                        vec![c_int(d), c_int(i as i64)],
                        vec![],
                    )?);
                }
                return Ok(Vt::new(Kind::Tuple(parts)));
            }
            "new_zeros" | "new_ones" | "new_empty" | "new_full" => {
                // `torch.<factory>(size, dtype=x.dtype)`; the size is varargs or one sequence.
                let factory = &name[4..];
                let mut args = args;
                let fill = if factory == "full" {
                    if args.len() < 2 {
                        return Err(GraphBreak::new(
                            GraphBreakKind::UnsupportedOperation,
                            "new_full(size, fill_value)",
                        ));
                    }
                    args.pop()
                } else {
                    None
                };
                // One sequence argument is the size; ints (SymInts too: reading one as a
                // constant would specialise it) are varargs.
                let size = match args.as_slice() {
                    [one]
                        if match &one.kind {
                            Kind::Const(c) => c.try_to_value::<i64>(vm).is_err(),
                            Kind::SymInt(_) => false,
                            _ => true,
                        } =>
                    {
                        one.clone()
                    }
                    many => Vt::new(Kind::Tuple(many.to_vec())),
                };
                let mut kw: Vec<(String, Vt)> = kwargs;
                self.take_call_options(Op::overloads(factory), &mut kw)?;
                if !kw.iter().any(|(k, _)| k == "dtype") {
                    kw.push((
                        "dtype".into(),
                        Vt::constant(bridge::dtype_object(t.meta().dtype, vm)),
                    ));
                }
                let mut all = vec![size];
                all.extend(fill);
                let f = bridge::torch_attr(factory, vm).unwrap_or_else(|| vm.ctx.none());
                return self.call_op_overloads(
                    Op::overloads(factory),
                    all,
                    kw,
                    FxTarget::Function(f),
                );
            }
            "to" => {
                // Devices are all "cpu": drop them; a tensor argument means its dtype.
                let mut rest = Vec::new();
                for a in args {
                    if let Some(o) = a.as_tensor() {
                        rest.push(Vt::constant(bridge::dtype_object(o.meta().dtype, vm)));
                    } else if a.as_const().is_some_and(|c| {
                        bridge::is_device(c)
                            || c.downcast_ref::<rustpython_vm::builtins::PyStr>().is_some()
                    }) {
                        // Only the CPU exists: `to("cpu")` changes nothing, another device
                        // raises eagerly.
                        if !a.as_const().is_some_and(|c| device_is_cpu(c, vm)) {
                            return Err(GraphBreak::new(
                                GraphBreakKind::OpError,
                                "Tensor.to() a device other than the CPU",
                            ));
                        }
                        continue;
                    } else {
                        rest.push(a);
                    }
                }
                let mut kwargs = kwargs;
                self.take_call_options(Op::overloads("to"), &mut kwargs)?;
                if rest.is_empty() && kwargs.iter().all(|(k, _)| k != "dtype") {
                    self.out.identity_calls += 1;
                    return Ok(recv);
                }
                // Eager's `to` returns the tensor itself when the dtype already matches and no
                // copy is asked for (so `x.float() is x` for a float tensor).
                let dtype_arg = rest
                    .first()
                    .or_else(|| kwargs.iter().find(|(k, _)| k == "dtype").map(|(_, v)| v));
                let copy = kwargs
                    .iter()
                    .find(|(k, _)| k == "copy")
                    .map(|(_, v)| v.as_const().map(|c| c.is(&vm.ctx.true_value)));
                if rest.len() <= 1
                    && kwargs.iter().all(|(k, _)| k == "dtype" || k == "copy")
                    && matches!(copy, None | Some(Some(false)))
                    && dtype_arg
                        .and_then(|d| d.as_const())
                        .and_then(|c| bridge::dtype_of(c))
                        .is_some_and(|d| d == t.meta().dtype)
                {
                    self.out.identity_calls += 1;
                    return Ok(recv);
                }
                let mut all = vec![recv];
                all.extend(rest);
                return self.call_op_overloads(
                    Op::overloads("to"),
                    all,
                    kwargs,
                    FxTarget::Method("to".into()),
                );
            }
            "new_tensor" => {
                // `x.new_tensor(data)`: `torch.tensor(data)` with the receiver's dtype.
                if let (Some(t), Some(tensor_fn)) = (
                    recv.as_tensor(),
                    super::bridge::torch_attr("tensor", self.vm),
                ) {
                    let mut kwargs = kwargs.clone();
                    if !kwargs.iter().any(|(k, _)| k == "dtype") {
                        let d = super::bridge::dtype_object(t.meta().dtype, self.vm);
                        kwargs.push(("dtype".into(), Vt::constant(d)));
                    }
                    if let Some(r) = self.call_tensor_literal(&tensor_fn, &args, &kwargs) {
                        return r;
                    }
                }
            }
            _ => {}
        }
        let overloads: Vec<Op> = Op::overloads(name)
            .iter()
            .copied()
            .filter(|o| o.flags().contains(OpFlags::METHOD))
            .collect();
        if overloads.is_empty() {
            if name == "backward" {
                return Err(GraphBreak::new(
                    GraphBreakKind::AutogradCall,
                    "call_method TensorVariable() backward".to_string(),
                ));
            }
            // Methods written in Python on `torch.Tensor` (`torch/__init__.py` installs the
            // `torch._refs*` decompositions as methods, `x.movedim(...)`): inlined with the
            // tensor as their first argument, as a call of the function would be.
            if let Some(f) = bridge::python_tensor_method(name, vm) {
                let mut all = vec![recv];
                all.extend(args);
                return self.call_vt(Vt::new(Kind::Function(f)), all, kwargs);
            }
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedOperation,
                format!("Tensor.{name}() is not a registry op Dynamo can trace"),
            ));
        }
        let mut all = vec![recv];
        all.extend(args);
        self.call_op_overloads(&overloads, all, kwargs, FxTarget::Method(name.into()))
    }

    /// A Python binary operator where at least one side is a tensor. The FX view shows it as
    /// Dynamo does: `operator.add` and friends.
    pub(crate) fn tensor_binary(
        &mut self,
        which: usize,
        lhs: Vt,
        rhs: Vt,
    ) -> Result<Vt, GraphBreak> {
        let o = PyOperator::from_binary_op(which).ok_or_else(|| {
            GraphBreak::new(
                GraphBreakKind::UnsupportedOpcode,
                format!("BINARY_OP {which}"),
            )
        })?;
        let pyname = o.name();
        let Some(ops) = o.ops() else {
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedOperation,
                format!("operator {pyname} on tensors"),
            ));
        };
        let op_name = ops.op.py_name();
        let target = self
            .operator_fn(pyname)
            .map_or(FxTarget::Method(op_name.into()), FxTarget::Function);
        if let Some(ip) = ops.inplace
            && lhs.as_tensor().is_some()
        {
            return self.call_op_overloads(
                Op::overloads(ip.py_name()),
                vec![lhs, rhs],
                vec![],
                target,
            );
        }
        if o.is_inplace() && lhs.as_tensor().is_some() {
            // `x &= y`, `x @= y`, ... without an in-place registry op: eager computes the
            // result and copies it into `x` (same object; every alias sees it), refusing a
            // result dtype that cannot be cast to `x`'s.
            let out = self.tensor_binary_out_of_place(op_name, pyname, lhs.clone(), rhs)?;
            let (Some(dst), Some(src)) = (lhs.as_tensor(), out.as_tensor()) else {
                return Err(GraphBreak::new(
                    GraphBreakKind::UnsupportedOperation,
                    format!("operator {pyname} on tensors"),
                ));
            };
            if !rynamo_tensor::can_cast(src.meta().dtype, dst.meta().dtype) {
                return Err(GraphBreak::new(
                    GraphBreakKind::OpError,
                    format!(
                        "result type {} can't be cast to the desired output type {}",
                        src.meta().dtype.name(),
                        dst.meta().dtype.name()
                    ),
                ));
            }
            return self.call_method(lhs, "copy_", vec![out], Vec::new());
        }
        self.tensor_binary_out_of_place(op_name, pyname, lhs, rhs)
    }

    /// The out-of-place form of a binary operator on tensors.
    fn tensor_binary_out_of_place(
        &mut self,
        op_name: &str,
        pyname: &str,
        lhs: Vt,
        rhs: Vt,
    ) -> Result<Vt, GraphBreak> {
        let target = self
            .operator_fn(pyname)
            .map_or(FxTarget::Method(op_name.into()), FxTarget::Function);
        let ops = Op::overloads(op_name);
        if ops.is_empty() {
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedOperation,
                format!("operator {pyname} on tensors"),
            ));
        }
        self.call_op_overloads(ops, vec![lhs, rhs], vec![], target)
    }

    /// A comparison where at least one side is a tensor (`<` is index 0 ... `>=` is 5).
    pub(crate) fn tensor_compare(
        &mut self,
        which: usize,
        lhs: Vt,
        rhs: Vt,
    ) -> Result<Vt, GraphBreak> {
        let o = PyOperator::from_compare_op(which).ok_or_else(|| {
            GraphBreak::new(
                GraphBreakKind::UnsupportedOpcode,
                format!("COMPARE_OP {which}"),
            )
        })?;
        // `c < x` is `x > c`: keep the tensor first, as Python's reflected dispatch does.
        let (o, lhs, rhs) = if lhs.as_tensor().is_none() {
            (o.swapped(), rhs, lhs)
        } else {
            (o, lhs, rhs)
        };
        let name = o.ops().map_or(o.name(), |ops| ops.op.py_name());
        let target = self
            .operator_fn(o.name())
            .map_or(FxTarget::Method(name.into()), FxTarget::Function);
        self.call_op_overloads(Op::overloads(name), vec![lhs, rhs], vec![], target)
    }

    /// `operator.<name>` (FX targets of Python operators).
    pub(crate) fn operator_fn(&self, name: &str) -> Option<PyObjectRef> {
        let m = self.vm.import("operator", 0).ok()?;
        m.get_attr(&self.vm.ctx.new_str(name), self.vm).ok()
    }

    /// A registry op object reached as `torch.<op>` / `F.<op>`.
    pub(crate) fn call_torch_function(
        &mut self,
        overloads: &'static [Op],
        surface: Surface,
        obj: PyObjectRef,
        args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
    ) -> Result<Vt, GraphBreak> {
        let mut kwargs = kwargs;
        // `F.relu(x, inplace=True)` and friends: the op, then its result copied into the input
        // (what the eager surface does); `inplace=False` is the plain op.
        let mut inplace = false;
        if surface == Surface::NnFunctional
            && let Some(i) = kwargs.iter().position(|(k, _)| k == "inplace")
        {
            let (_, flag) = kwargs.remove(i);
            inplace = flag
                .as_const()
                .and_then(|c| c.clone().try_to_bool(self.vm).ok())
                .ok_or_else(|| {
                    GraphBreak::new(
                        GraphBreakKind::UnsupportedOperation,
                        "inplace= must be a constant bool",
                    )
                })?;
        }
        self.take_call_options(overloads, &mut kwargs)?;
        let target = match surface {
            Surface::Method => {
                FxTarget::Method(overloads.first().map_or("?", |o| o.py_name()).into())
            }
            _ => FxTarget::Function(obj),
        };
        let input = args.first().cloned();
        let mut args = args;
        // While autograd records the input, the op reads a copy: its backward needs the values
        // the write-back overwrites (the eager surface does the same, `call.rs`).
        if let Some(x) = input.clone().filter(|x| {
            inplace && bridge::grad_enabled() && x.as_tensor().is_some_and(|t| t.requires_grad)
        }) {
            args[0] = self.call_method(x, "clone", Vec::new(), Vec::new())?;
        }
        let out = self.call_op_overloads(overloads, args, kwargs, target)?;
        match input {
            Some(x) if inplace && x.as_tensor().is_some() => {
                self.call_method(x, "copy_", vec![out], Vec::new())
            }
            _ => Ok(out),
        }
    }
}

/// Rc helper used by FX targets.
pub fn name_rc(s: &str) -> Rc<str> {
    Rc::from(s)
}
