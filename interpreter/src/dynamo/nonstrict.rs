//! `nonstrict_trace`: a function Dynamo would break inside is traced non-strictly instead. It
//! runs once, with Dynamo off, on example tensors (zero-filled, of the traced shapes); every op
//! it runs through the registry is recorded into the graph (an observer on
//! `rynamo_graph::registry::call`), with tensors identified by their storage and view. Tensors
//! it creates without an op (`torch.tensor([42])`) and tensors it reads from globals become
//! constants of the graph, not guarded (PyTorch's semantics). Python control flow inside sees the
//! example values, as PyTorch's non-strict tracing sees fake ones.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use rustpython_vm::builtins::{PyDict, PyList, PyTuple};
use rustpython_vm::{AsObject, PyObjectRef, VirtualMachine};
use rynamo_graph::{Arg, IValue, Op, Value, ValueId};
use rynamo_tensor::{IndexItem, Tensor};

use super::bridge;
use super::exc::{GraphBreak, GraphBreakKind};
use super::output_graph::FxTarget;
use super::source::{ConstObj, Source};
use super::symbolic_convert::Tracer;
use super::variables::{DictVar, Kind, ListVar, Vt};

/// A tensor's identity: its storage, offset, dtype and geometry.
type TensorKey = (usize, usize, String);

fn key(t: &Tensor) -> TensorKey {
    (
        std::sync::Arc::as_ptr(t.storage()) as *const () as usize,
        t.offset(),
        format!("{:?}{:?}{:?}", t.dtype(), t.shape(), t.strides()),
    )
}

/// What the observer collected.
#[derive(Default)]
struct Recording {
    calls: Vec<(Op, Vec<IValue>, Vec<Tensor>)>,
}

impl Tracer<'_> {
    /// Calls a `nonstrict_trace`d function: its ops go into the graph, traced non-strictly.
    pub(crate) fn call_nonstrict(
        &mut self,
        func: &PyObjectRef,
        name: &str,
        args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let mut ids: HashMap<TensorKey, ValueId> = HashMap::new();
        let mut made = HashMap::new();
        let mut py_args = Vec::with_capacity(args.len());
        for a in &args {
            py_args.push(self.example_of(a, &mut ids, &mut made)?);
        }
        let py_kwargs = kwargs
            .iter()
            .map(|(k, v)| Ok((k.clone(), self.example_of(v, &mut ids, &mut made)?)))
            .collect::<Result<Vec<_>, GraphBreak>>()?;
        let rec = Rc::new(RefCell::new(Recording::default()));
        let sink = rec.clone();
        let observer = rynamo_graph::registry::push_observer(Box::new(move |op, a, out| {
            sink.borrow_mut().calls.push((op, a.to_vec(), out.to_vec()));
        }));
        let result = crate::eval_frame::with_callback_state(
            crate::eval_frame::CallbackState::Disabled,
            vm,
            || {
                let kw: rustpython_vm::function::KwArgs = py_kwargs.into_iter().collect();
                func.call(rustpython_vm::function::FuncArgs::new(py_args, kw), vm)
            },
        );
        rynamo_graph::registry::remove_observer(observer);
        let result = result.map_err(|e| {
            GraphBreak::new(
                GraphBreakKind::UnsupportedCall,
                format!(
                    "nonstrict_trace function {name} raised on example inputs: {}",
                    super::fx::error_text(&e, vm)
                ),
            )
        })?;
        let calls = std::mem::take(&mut rec.borrow_mut().calls);
        for (op, a, outs) in calls {
            let mut converted = Vec::with_capacity(a.len());
            for v in &a {
                converted.push(self.record_arg(v, &mut ids)?);
            }
            let vts =
                self.out
                    .call_op(op, converted, FxTarget::Method(op.py_name().into()), false)?;
            for (t, vt) in outs.iter().zip(&vts) {
                if let Some(tv) = vt.as_tensor() {
                    ids.insert(key(t), tv.value);
                }
            }
        }
        self.tracker_of_result(&result, &mut ids, &mut HashMap::new())
    }

    /// The example Python value standing for a tracker (zero tensors of the traced metas).
    /// `made` holds the example made for each list and dict tracker so far (by address), made
    /// before its items: one reached twice is one object, and one that holds itself becomes an
    /// example that does, as the real argument does.
    fn example_of(
        &self,
        v: &Vt,
        ids: &mut HashMap<TensorKey, ValueId>,
        made: &mut HashMap<usize, PyObjectRef>,
    ) -> Result<PyObjectRef, GraphBreak> {
        let vm = self.vm;
        Ok(match &v.kind {
            Kind::Tensor(t) => {
                let z = Tensor::zeros(&t.meta().shape, t.meta().dtype);
                ids.insert(key(&z), self.out.current_value(t));
                bridge::wrap_tensor(z, vm)
            }
            Kind::Const(c) => c.clone(),
            Kind::Tuple(items) => {
                let objs = items
                    .iter()
                    .map(|i| self.example_of(i, ids, made))
                    .collect::<Result<Vec<_>, _>>()?;
                vm.ctx.new_tuple(objs).into()
            }
            Kind::List(l) => {
                let addr = Rc::as_ptr(l) as usize;
                if let Some(obj) = made.get(&addr) {
                    return Ok(obj.clone());
                }
                let list = vm.ctx.new_list(Vec::new());
                made.insert(addr, list.clone().into());
                let items = l.borrow().items.clone();
                *list.borrow_vec_mut() = items
                    .iter()
                    .map(|i| self.example_of(i, ids, made))
                    .collect::<Result<Vec<_>, _>>()?;
                list.into()
            }
            Kind::Dict(d) => {
                let addr = Rc::as_ptr(d) as usize;
                if let Some(obj) = made.get(&addr) {
                    return Ok(obj.clone());
                }
                let dict = vm.ctx.new_dict();
                made.insert(addr, dict.clone().into());
                let items = d.borrow().items.clone();
                for (k, x) in &items {
                    let ex = self.example_of(x, ids, made)?;
                    dict.set_item(&**k, ex, vm)
                        .map_err(|_| unsupported("dict key"))?;
                }
                dict.into()
            }
            Kind::NNModule(o)
            | Kind::Object(o)
            | Kind::Function(o)
            | Kind::Module(o)
            | Kind::Class(o) => o.clone(),
            _ => return Err(unsupported(&v.describe())),
        })
    }

    /// A recorded op argument as a graph argument: known tensors by identity, others constants.
    fn record_arg(
        &mut self,
        v: &IValue,
        ids: &mut HashMap<TensorKey, ValueId>,
    ) -> Result<Arg, GraphBreak> {
        let mut tensor = |t: &Tensor| -> ValueId {
            if let Some(id) = ids.get(&key(t)) {
                return *id;
            }
            let id = self.constant_tensor(t.clone());
            ids.insert(key(t), id);
            id
        };
        Ok(match v {
            Value::Tensor(t) => Value::Tensor(tensor(t)),
            Value::TensorList(ts) => Value::TensorList(ts.iter().map(&mut tensor).collect()),
            Value::Index(items) => Value::Index(
                items
                    .iter()
                    .map(|it| match it {
                        IndexItem::Tensor(t) => IndexItem::Tensor(tensor(t)),
                        other => other.map(|_| unreachable!("invariant: tensors handled above")),
                    })
                    .collect(),
            ),
            other => other
                .try_map(|_: &Tensor| -> Result<ValueId, ()> {
                    unreachable!("invariant: no tensors left")
                })
                .map_err(|_| unsupported("argument"))?,
        })
    }

    /// A tensor made inside the function without an op: a constant input of the graph.
    fn constant_tensor(&mut self, t: Tensor) -> ValueId {
        let obj = bridge::wrap_tensor(t.clone(), self.vm);
        let src = Rc::new(Source::Const(ConstObj(obj.clone())));
        self.out.constant_input(&obj, t.meta(), &src)
    }

    /// The tracker for a value the function returned.
    fn tracker_of_result(
        &mut self,
        r: &PyObjectRef,
        ids: &mut HashMap<TensorKey, ValueId>,
        seen: &mut HashMap<usize, Vt>,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        if let Some(t) = bridge::as_tensor(r) {
            let id = match ids.get(&key(&t)) {
                Some(id) => *id,
                None => self.constant_tensor(t.clone()),
            };
            let meta = Rc::new(self.out.graph.meta(id).clone());
            return Ok(Vt::new(Kind::Tensor(super::variables::TensorVar::new(
                id, meta, false,
            ))));
        }
        if let Some(tup) = r.downcast_ref::<PyTuple>() {
            let items = tup
                .as_slice()
                .iter()
                .map(|i| self.tracker_of_result(i, ids, seen))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(Vt::new(Kind::Tuple(items)));
        }
        // Lists and dicts get their tracker before their items are converted, so one that
        // holds itself (or is reached twice) is one tracker.
        let addr = &**r as *const rustpython_vm::PyObject as usize;
        if let Some(vt) = seen.get(&addr) {
            return Ok(vt.clone());
        }
        if let Some(l) = r.downcast_ref::<PyList>() {
            let list = Rc::new(RefCell::new(ListVar::default()));
            let vt = Vt::new(Kind::List(list.clone()));
            seen.insert(addr, vt.clone());
            let items = l
                .borrow_vec()
                .to_vec()
                .iter()
                .map(|i| self.tracker_of_result(i, ids, seen))
                .collect::<Result<Vec<_>, _>>()?;
            list.borrow_mut().items = items;
            return Ok(vt);
        }
        if let Some(d) = r.downcast_ref::<PyDict>() {
            let dict = Rc::new(RefCell::new(DictVar::default()));
            let vt = Vt::new(Kind::Dict(dict.clone()));
            seen.insert(addr, vt.clone());
            let mut items = Vec::new();
            for (k, v) in d.items_vec() {
                items.push((k, self.tracker_of_result(&v, ids, seen)?));
            }
            dict.borrow_mut().items = items;
            return Ok(vt);
        }
        if super::variables::builder::is_literal(r, vm) {
            return Ok(Vt::constant(r.clone()));
        }
        Err(unsupported(&format!("a returned {}", r.class().name())))
    }
}

fn unsupported(what: &str) -> GraphBreak {
    GraphBreak::new(
        GraphBreakKind::UnsupportedCall,
        format!(
            "nonstrict_trace with {what} (inputs and outputs must be tensors, numbers, or lists/tuples/dicts of them)"
        ),
    )
}

/// The function a `nonstrict_trace` wrapper traces, if `obj` is one.
pub fn nonstrict_target(obj: &PyObjectRef, vm: &VirtualMachine) -> Option<PyObjectRef> {
    let marked = obj
        .as_object()
        .get_attr("_rynamo_nonstrict_trace", vm)
        .ok()
        .and_then(|v| v.try_to_bool(vm).ok())
        .unwrap_or(false);
    if !marked {
        return None;
    }
    obj.get_attr("_torchdynamo_orig_callable", vm).ok()
}
