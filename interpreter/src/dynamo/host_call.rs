//! `allow_in_graph`: a Python function goes into the graph as one opaque call node
//! (`host_call` in the IR, `call_function` with the function as target in the FX view). Dynamo
//! does not trace into it; its output shapes come from calling it once on zero-filled tensors of
//! the traced shapes (Dynamo uses fake tensors for the same purpose).

use std::sync::Arc;

use rustpython_vm::builtins::{PyList, PyTuple};
use rustpython_vm::{AsObject, PyObjectRef, VirtualMachine};
use rynamo_graph::host::{self, HostCallee};
use rynamo_graph::{Op, Value};
use rynamo_tensor::{Tensor, TensorMeta};

use super::bridge;
use super::exc::{GraphBreak, GraphBreakKind};
use super::output_graph::FxTarget;
use super::symbolic_convert::Tracer;
use super::variables::{Kind, Vt};

/// One argument of an opaque call: a graph tensor (by input position) or a constant.
#[derive(Clone, Debug)]
pub enum HostArg {
    /// The `i`th tensor input of the node.
    Tensor(usize),
    /// A constant baked in at trace time.
    Const(PyObjectRef),
}

/// A Python function called from a graph.
struct PyCallee {
    func: PyObjectRef,
    name: String,
    args: Vec<HostArg>,
    kwargs: Vec<(String, HostArg)>,
    metas: Vec<TensorMeta>,
}

impl std::fmt::Debug for PyCallee {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PyCallee({})", self.name)
    }
}

impl HostCallee for PyCallee {
    fn name(&self) -> &str {
        &self.name
    }

    fn output_metas(&self) -> &[TensorMeta] {
        &self.metas
    }

    fn call(&self, inputs: &[Tensor]) -> rynamo_graph::Result<Vec<Tensor>> {
        use rustpython_vm::vm::thread;
        if !thread::current_vm_is_set() {
            return Err(rynamo_graph::Error::BadArgs(format!(
                "host_call {}: no Python interpreter on this thread",
                self.name
            )));
        }
        thread::with_current_vm(|vm| {
            let value = |a: &HostArg| match a {
                HostArg::Tensor(i) => bridge::wrap_tensor(inputs[*i].clone(), vm),
                HostArg::Const(c) => c.clone(),
            };
            let args: Vec<PyObjectRef> = self.args.iter().map(value).collect();
            let kwargs: rustpython_vm::function::KwArgs = self
                .kwargs
                .iter()
                .map(|(k, a)| (k.clone(), value(a)))
                .collect();
            let r = self
                .func
                .call(rustpython_vm::function::FuncArgs::new(args, kwargs), vm)
                .map_err(|e| {
                    rynamo_graph::Error::BadArgs(format!(
                        "{} raised: {}",
                        self.name,
                        super::fx::error_text(&e, vm)
                    ))
                })?;
            flatten_tensors(&r).map_err(rynamo_graph::Error::BadArgs)
        })
    }
}

/// The tensors a function returned (a tensor, or a tuple/list of tensors).
fn flatten_tensors(r: &PyObjectRef) -> Result<Vec<Tensor>, String> {
    if let Some(t) = bridge::as_tensor(r) {
        return Ok(vec![t]);
    }
    let items: Vec<PyObjectRef> = if let Some(t) = r.downcast_ref::<PyTuple>() {
        t.as_slice().to_vec()
    } else if let Some(l) = r.downcast_ref::<PyList>() {
        l.borrow_vec().to_vec()
    } else {
        return Err(format!(
            "an allow_in_graph function must return tensors, not {}",
            r.class().name()
        ));
    };
    items
        .iter()
        .map(|i| {
            bridge::as_tensor(i)
                .ok_or_else(|| "an allow_in_graph function must return tensors".to_owned())
        })
        .collect::<Result<Vec<Tensor>, _>>()
}

impl Tracer<'_> {
    /// A call of an `allow_in_graph` function: one opaque node.
    pub(crate) fn call_allowed_in_graph(
        &mut self,
        func: &PyObjectRef,
        name: &str,
        args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let mut template = Vec::with_capacity(args.len());
        let mut tensors = Vec::new();
        let mut examples = Vec::new();
        // Keyword arguments go after the positional ones in the same tensor list.
        let npos = args.len();
        let all: Vec<&Vt> = args.iter().chain(kwargs.iter().map(|(_, v)| v)).collect();
        for a in all {
            match &a.kind {
                Kind::Tensor(t) => {
                    template.push(HostArg::Tensor(tensors.len()));
                    tensors.push(self.out.current_value(t));
                    examples.push(bridge::wrap_tensor(zeros_with_layout(&t.meta())?, vm));
                }
                Kind::Const(c) => {
                    template.push(HostArg::Const(c.clone()));
                    examples.push(c.clone());
                }
                _ => {
                    return Err(GraphBreak::new(
                        GraphBreakKind::UnsupportedCall,
                        format!(
                            "allow_in_graph function {name} called with {} (only tensors and constants)",
                            a.describe()
                        ),
                    ));
                }
            }
        }
        let kw_template: Vec<(String, HostArg)> = kwargs
            .iter()
            .map(|(k, _)| k.clone())
            .zip(template.split_off(npos))
            .collect();
        let kw_examples: rustpython_vm::function::KwArgs = kwargs
            .iter()
            .map(|(k, _)| k.clone())
            .zip(examples.split_off(npos))
            .collect();
        // Output shapes: one call on zero-filled tensors, with Dynamo off.
        let probe = crate::eval_frame::with_callback_state(
            crate::eval_frame::CallbackState::Disabled,
            vm,
            || {
                func.call(
                    rustpython_vm::function::FuncArgs::new(examples, kw_examples),
                    vm,
                )
            },
        );
        let r = probe.map_err(|e| {
            GraphBreak::new(
                GraphBreakKind::UnsupportedCall,
                format!(
                    "allow_in_graph function {name} raised on example inputs: {}",
                    super::fx::error_text(&e, vm)
                ),
            )
        })?;
        let outs =
            flatten_tensors(&r).map_err(|m| GraphBreak::new(GraphBreakKind::UnsupportedCall, m))?;
        let returns_sequence = bridge::as_tensor(&r).is_none();
        let metas: Vec<TensorMeta> = outs.iter().map(|t| t.meta()).collect();
        let callee = host::register(Arc::new(PyCallee {
            func: func.clone(),
            name: name.to_owned(),
            args: template.clone(),
            kwargs: kw_template.clone(),
            metas,
        }));
        let rg = args
            .iter()
            .any(|a| a.as_tensor().is_some_and(|t| t.requires_grad));
        let node_args = vec![Value::TensorList(tensors), Value::Int(callee)];
        let outs = self.out.call_op(
            Op::HostCall,
            node_args,
            FxTarget::Host {
                func: func.clone(),
                args: template,
                kwargs: kw_template,
            },
            rg,
        )?;
        Ok(if returns_sequence {
            Vt::new(Kind::Tuple(outs))
        } else {
            outs.into_iter()
                .next()
                .ok_or_else(|| GraphBreak::new(GraphBreakKind::UnsupportedCall, "no output"))?
        })
    }
}

/// Whether `obj` was marked with `allow_in_graph`.
pub fn is_allowed_in_graph(obj: &PyObjectRef, vm: &VirtualMachine) -> bool {
    init_lazy_module(obj, vm);
    obj.as_object()
        .get_attr("_rynamo_allow_in_graph", vm)
        .ok()
        .and_then(|v| v.try_to_bool(vm).ok())
        .unwrap_or(false)
}

thread_local! {
    /// Root modules whose init (`torch._dynamo.decorators._lazy_module_init`) has not run yet.
    static LAZY_MODULES: std::cell::RefCell<Vec<&'static str>> =
        std::cell::RefCell::new(vec!["einops"]);
}

/// PyTorch's `_maybe_init_lazy_module`: the first traced call of a function of a registered
/// root module (einops) runs that module's init, which may mark its functions `allow_in_graph`
/// before they are looked up. A failing init is as if none ran (the call is traced through).
fn init_lazy_module(obj: &PyObjectRef, vm: &VirtualMachine) {
    if LAZY_MODULES.with(|m| m.borrow().is_empty()) {
        return;
    }
    let Some(module) = obj.get_attr("__module__", vm).ok().and_then(|m| {
        m.downcast_ref::<rustpython_vm::builtins::PyStr>()
            .and_then(|s| s.to_str().map(str::to_owned))
    }) else {
        return;
    };
    let root = module.split('.').next().unwrap_or("");
    let pending = LAZY_MODULES.with(|m| {
        let mut m = m.borrow_mut();
        let i = m.iter().position(|r| *r == root)?;
        Some(m.remove(i))
    });
    let Some(root) = pending else {
        return;
    };
    let ran = vm
        .import("torch._dynamo.decorators", 0)
        .and_then(|_| vm.sys_module.get_attr("modules", vm))
        .and_then(|m| m.get_item("torch._dynamo.decorators", vm))
        .and_then(|m| m.get_attr("_init_lazy_module", vm))
        .and_then(|f| f.call((root,), vm));
    drop(ran);
}

/// A zero-filled example with `meta`'s shape *and strides* (an expanded or transposed input
/// stays one): the probe call's output layout, recorded as the node's meta, is then the layout
/// the real call produces (view-returning functions follow their input's strides).
fn zeros_with_layout(meta: &TensorMeta) -> Result<Tensor, GraphBreak> {
    let layout_break = |e: rynamo_tensor::Error| {
        GraphBreak::new(
            GraphBreakKind::UnsupportedCall,
            format!("allow_in_graph example input layout: {e}"),
        )
    };
    if meta.shape.contains(&0) {
        return Ok(Tensor::zeros(&meta.shape, meta.dtype));
    }
    // The element offsets the layout reaches: from the most negative to the most positive.
    let (mut lo, mut hi) = (0isize, 0isize);
    for (&n, &st) in meta.shape.iter().zip(&meta.strides) {
        let reach = (n as isize - 1) * st;
        if reach < 0 {
            lo += reach;
        } else {
            hi += reach;
        }
    }
    let storage = Tensor::zeros(&[(hi - lo + 1) as usize], meta.dtype);
    let size: Vec<i64> = meta.shape.iter().map(|&n| n as i64).collect();
    let stride: Vec<i64> = meta.strides.iter().map(|&st| st as i64).collect();
    storage
        .as_strided(&size, &stride, Some(-lo as i64))
        .map_err(layout_break)
}
