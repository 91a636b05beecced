//! Indexing a tensor while tracing: `x[index]` and `x[index] = value` become `__getitem__` /
//! `__setitem__` graph nodes, with the index expression (ints, slices, `None`, `...`, tensors and
//! lists of ints) translated to the registry's `IndexItem`s.

use rustpython_vm::{AsObject, PyObjectRef};
use rynamo_graph::{Op, Value};
use rynamo_tensor::IndexItem;

use super::exc::{GraphBreak, GraphBreakKind};
use super::output_graph::FxTarget;
use super::symbolic_convert::Tracer;
use super::variables::{Kind, Vt};

impl Tracer<'_> {
    /// `x[index]` for a tensor `x`.
    pub(crate) fn tensor_getitem(&mut self, x: Vt, index: Vt) -> Result<Vt, GraphBreak> {
        let items = self.index_items(&index)?;
        let op = Op::overloads("__getitem__");
        let target = FxTarget::Function(
            self.operator_fn("getitem")
                .unwrap_or_else(|| self.vm.ctx.none()),
        );
        let xv = self
            .op_arg(&x)
            .ok_or_else(|| GraphBreak::new(GraphBreakKind::UnsupportedOperation, "getitem"))?;
        let (op, bound) =
            rynamo_shims::ops::bind_overload(op, vec![xv, Value::Index(items)], vec![]).map_err(
                |e| GraphBreak::new(GraphBreakKind::OpError, format!("__getitem__: {e}")),
            )?;
        let rg = x.as_tensor().is_some_and(|t| t.requires_grad);
        let outs = self.out.call_op(op, bound, target, rg).map_err(|b| {
            if b.context.contains("data-dependent") || b.context.contains("DataDependent") {
                GraphBreak::new(
                    GraphBreakKind::TensorToPython,
                    "boolean-mask indexing has a data-dependent shape",
                )
            } else {
                b
            }
        })?;
        outs.into_iter()
            .next()
            .ok_or_else(|| GraphBreak::new(GraphBreakKind::OpError, "getitem produced nothing"))
    }

    /// `x[index] = value` for a tensor `x`.
    pub(crate) fn tensor_setitem(&mut self, x: Vt, index: Vt, value: Vt) -> Result<(), GraphBreak> {
        let items = self.index_items(&index)?;
        let xv = self
            .op_arg(&x)
            .ok_or_else(|| GraphBreak::new(GraphBreakKind::UnsupportedOperation, "setitem"))?;
        let vv = self.op_arg(&value).ok_or_else(|| {
            GraphBreak::new(GraphBreakKind::UnsupportedOperation, "setitem value")
        })?;
        let ops = Op::overloads("__setitem__");
        let (op, bound) =
            rynamo_shims::ops::bind_overload(ops, vec![xv, Value::Index(items), vv], vec![])
                .map_err(|e| {
                    GraphBreak::new(GraphBreakKind::OpError, format!("__setitem__: {e}"))
                })?;
        let target = FxTarget::Function(
            self.operator_fn("setitem")
                .unwrap_or_else(|| self.vm.ctx.none()),
        );
        let outs = self.out.call_op(op, bound, target, false)?;
        if let (Some(t), Some(o)) = (x.as_tensor(), outs.first().and_then(Vt::as_tensor)) {
            self.out.set_current(t, o.value);
        }
        Ok(())
    }

    /// An index expression (`x[0, 1:3, None, ..., mask]`) as index items.
    fn index_items(
        &mut self,
        index: &Vt,
    ) -> Result<Vec<IndexItem<rynamo_graph::ValueId>>, GraphBreak> {
        let parts: Vec<Vt> = match &index.kind {
            Kind::Tuple(items) => items.clone(),
            // PyTorch's `treatSequenceAsTuple`: a short list holding a tensor, a sequence, a
            // slice, `...` or `None` indexes as the tuple of its items.
            Kind::List(l)
                if l.borrow().deque.is_none()
                    && l.borrow().items.len() < 32
                    && l.borrow().items.iter().any(|i| match &i.kind {
                        Kind::Tensor(_) | Kind::List(_) | Kind::Tuple(_) | Kind::Slice(_) => true,
                        Kind::Const(c) => {
                            self.vm.is_none(c)
                                || c.is(&self.vm.ctx.ellipsis)
                                || c.class().is(self.vm.ctx.types.slice_type)
                                || c.class().is(self.vm.ctx.types.tuple_type)
                        }
                        _ => false,
                    }) =>
            {
                l.borrow().items.clone()
            }
            Kind::Const(c) if c.class().is(self.vm.ctx.types.tuple_type) => c
                .downcast_ref::<rustpython_vm::builtins::PyTuple>()
                .map(|t| t.as_slice().iter().cloned().map(Vt::constant).collect())
                .unwrap_or_default(),
            _ => vec![index.clone()],
        };
        let mut items = Vec::with_capacity(parts.len());
        for p in &parts {
            items.push(self.index_item(p)?);
        }
        Ok(items)
    }

    fn index_item(&mut self, p: &Vt) -> Result<IndexItem<rynamo_graph::ValueId>, GraphBreak> {
        if let Kind::List(l) = &p.kind
            && l.borrow().deque.is_none()
        {
            return self.list_index(p);
        }
        let vm = self.vm;
        let bad = || {
            GraphBreak::new(
                GraphBreakKind::UnsupportedOperation,
                format!("index {}", p.describe()),
            )
        };
        let as_opt_int = |v: &PyObjectRef| -> Result<Option<i64>, GraphBreak> {
            if vm.is_none(v) {
                Ok(None)
            } else {
                v.try_to_value::<i64>(vm).map(Some).map_err(|_| bad())
            }
        };
        match &p.kind {
            Kind::Tensor(t)
                if t.meta().shape.is_empty()
                    && t.meta().dtype.is_integral(false)
                    && !matches!(
                        t.meta().dtype,
                        rynamo_tensor::DType::Bool | rynamo_tensor::DType::UInt8
                    ) =>
            {
                // PyTorch indexes with a 0-d integer tensor as with its value (`select`, a view
                // of the tensor). A literal's value is known (FakeTensor's `constant`); another
                // tensor's exists only when the graph runs, where `__getitem__` selects by it
                // (`rynamo_tensor::index::getitem`), as PyTorch's graph does with the tensor.
                if let Some(v) = self.out.int_constants.get(&self.out.current_value(t)) {
                    return Ok(IndexItem::Int(*v));
                }
                Ok(IndexItem::Tensor(self.out.current_value(t)))
            }
            Kind::Tensor(t) => Ok(IndexItem::Tensor(self.out.current_value(t))),
            Kind::Slice(parts) => {
                // A SymInt bound travels as its sentinel; `call_op` records it.
                let part = |v: &Vt| -> Result<Option<i64>, GraphBreak> {
                    if let Kind::SymInt(s) = &v.kind {
                        return Ok(Some(super::sym::sentinel(s.id)));
                    }
                    as_opt_int(&v.as_const().cloned().ok_or_else(bad)?)
                };
                Ok(IndexItem::Slice {
                    start: part(&parts[0])?,
                    stop: part(&parts[1])?,
                    step: part(&parts[2])?,
                })
            }
            Kind::SymInt(s) => Ok(IndexItem::Int(super::sym::sentinel(s.id))),
            Kind::Const(c) => {
                if vm.is_none(c) {
                    Ok(IndexItem::None)
                } else if c.is(&vm.ctx.ellipsis) {
                    Ok(IndexItem::Ellipsis)
                } else if c.class().is(vm.ctx.types.bool_type) {
                    Ok(IndexItem::Bool(c.is(&vm.ctx.true_value)))
                } else if let Some(s) = c.downcast_ref::<rustpython_vm::builtins::PySlice>() {
                    let get = |o: Option<&PyObjectRef>| -> Result<Option<i64>, GraphBreak> {
                        match o {
                            None => Ok(None),
                            Some(v) => as_opt_int(v),
                        }
                    };
                    Ok(IndexItem::Slice {
                        start: get(s.start.as_ref())?,
                        stop: as_opt_int(&s.stop)?,
                        step: get(s.step.as_ref())?,
                    })
                } else {
                    c.try_to_value::<i64>(vm)
                        .map(IndexItem::Int)
                        .map_err(|_| bad())
                }
            }
            _ => Err(bad()),
        }
    }
}
