//! The autograd layer of the dispatcher: when grad mode is on and an argument needs grad, the
//! op runs and a backward [`Node`] is recorded; its outputs get the node as `grad_fn`.
//!
//! Also handled here, as PyTorch's `ADInplaceOrView` kernel does:
//! - in-place ops: the leaf checks, then the mutated tensor's history is rebased onto the new
//!   node (on a view, its base's history is rebased through [`super::copy_slices`]);
//! - views: every output sharing input 0's storage records that input's root as its base, with
//!   or without grad mode, so a later in-place write through the view can rebase the base.

use std::sync::{Arc, Mutex};

use rynamo_tensor::{IndexItem, Tensor, TensorMeta};

use super::leaf;
use super::node::{Backward, Edge, Node};
use super::saved::{SavedTensor, backward_twice};
use super::vjp::{self, VjpCtx, VjpRule};
use crate::{Error, IValue, Op, OpFlags, Result, Value};

/// Whether any tensor argument needs grad (one atomic load per tensor).
pub(crate) fn any_needs_grad(args: &[IValue]) -> bool {
    args.iter().any(|a| match a {
        Value::Tensor(t) => t.needs_grad(),
        Value::TensorList(ts) => ts.iter().any(Tensor::needs_grad),
        Value::Index(items) => items
            .iter()
            .any(|i| matches!(i, IndexItem::Tensor(t) if t.needs_grad())),
        _ => false,
    })
}

/// The tensors of a call in slot order (argument order, lists and indices flattened).
fn slots(args: &[IValue]) -> Vec<&Tensor> {
    args.iter().flat_map(Value::tensors).collect()
}

/// Where a gradient for `t` must go: its `grad_fn` output, or its accumulator when it is a
/// leaf that requires grad; `None` when no gradient flows into it.
pub(crate) fn gradient_edge(t: &Tensor) -> Option<Edge> {
    let meta = t.autograd()?;
    let s = meta.lock();
    if let Some((f, nr)) = &s.grad_fn {
        let node = f.clone().downcast::<Node>().ok()?;
        return Some(Edge {
            node,
            input_nr: *nr,
        });
    }
    if s.requires_grad {
        drop(s);
        return Some(Edge {
            node: leaf::accumulator(t),
            input_nr: 0,
        });
    }
    None
}

fn runtime(msg: &str) -> Error {
    Error::Tensor(rynamo_tensor::Error::Runtime(msg.into()))
}

/// PyTorch's `check_inplace`: a leaf that requires grad (or a view of one) may not be written
/// in place while grad mode is on.
fn check_inplace(t: &Tensor) -> Result<()> {
    let Some(meta) = t.autograd() else {
        return Ok(());
    };
    let s = meta.lock();
    if s.grad_fn.is_none() && s.requires_grad {
        return Err(runtime(
            "a leaf Variable that requires grad is being used in an in-place operation.",
        ));
    }
    if let Some(base) = &s.view_base
        && let Some(bm) = base.autograd()
    {
        let b = bm.lock();
        if b.grad_fn.is_none() && b.requires_grad {
            return Err(runtime(
                "a view of a leaf Variable that requires grad is being used in an in-place operation.",
            ));
        }
    }
    Ok(())
}

/// Inference mode: the op runs without autograd and its new outputs are inference tensors. As
/// in PyTorch, only tensors allocated here are: an output sharing a normal input's storage (that
/// input written in place, or a view of it) stays a normal tensor, so a KV cache made outside
/// inference mode and filled inside it can still be written in place afterwards.
pub(crate) fn call_inference(
    op: Op,
    args: &[IValue],
    below: impl FnOnce(Op, &[IValue]) -> Result<Vec<Tensor>>,
) -> Result<Vec<Tensor>> {
    let mut outs = below(op, args)?;
    for o in &mut outs {
        let aliases_normal = args
            .iter()
            .any(|a| matches!(a, Value::Tensor(x) if o.shares_storage(x) && !is_inference(x)));
        let meta = o.ensure_autograd();
        if !aliases_normal {
            meta.update(|s| s.is_inference = true);
        }
    }
    Ok(outs)
}

fn is_inference(t: &Tensor) -> bool {
    t.autograd().is_some_and(|m| m.is_inference())
}

/// Outside inference mode, inference tensors may not be written in place.
pub(crate) fn check_inference_inplace(op: Op, args: &[IValue]) -> Result<()> {
    if op.flags().contains(OpFlags::INPLACE)
        && let Some(Value::Tensor(t)) = args.first()
        && is_inference(t)
    {
        return Err(runtime(
            "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.",
        ));
    }
    Ok(())
}

/// Records views made without a node (grad mode off, or nothing needing grad): an output that
/// shares input 0's storage gets input 0's root as its base.
pub(crate) fn note_views(op: Op, args: &[IValue], outs: &mut [Tensor]) {
    if op.flags().contains(OpFlags::INPLACE) {
        return;
    }
    let Some(Value::Tensor(x)) = args.first() else {
        return;
    };
    if x.autograd().is_none() {
        return;
    }
    for o in outs.iter_mut() {
        if o.shares_storage(x) && !o.same_identity(x) {
            let base = view_root(x);
            let inference = is_inference(x);
            o.ensure_autograd().update(|s| {
                s.view_base = Some(base);
                s.is_inference = inference;
            });
        }
    }
}

/// The tensor a view ultimately views (`x._base`, or `x` itself when it is not a view).
pub(crate) fn view_root(x: &Tensor) -> Tensor {
    x.autograd()
        .and_then(|m| m.lock().view_base.clone())
        .unwrap_or_else(|| x.clone())
}

/// What an op node keeps for its formula.
pub(crate) struct SavedArgs {
    pub(crate) args: Vec<Value<usize>>,
    pub(crate) inputs: Vec<Option<SavedTensor>>,
    pub(crate) outputs: Vec<Option<SavedTensor>>,
}

/// The backward of a recorded registry op: its [`VjpRule`] on the saved tensors.
pub(crate) struct OpBackward {
    pub(crate) op: Op,
    pub(crate) rule: &'static VjpRule,
    pub(crate) saved: Mutex<Option<SavedArgs>>,
}

impl Backward for OpBackward {
    fn apply(&self, node: &Arc<Node>, grads: Vec<Option<Tensor>>) -> Result<Vec<Option<Tensor>>> {
        let guard = self.saved.lock().unwrap_or_else(|e| e.into_inner());
        let saved = guard.as_ref().ok_or_else(backward_twice)?;
        let inputs = saved
            .inputs
            .iter()
            .map(|s| s.as_ref().map(|s| s.unpack(node)).transpose())
            .collect::<Result<Vec<_>>>()?;
        let outputs = saved
            .outputs
            .iter()
            .map(|s| s.as_ref().map(|s| s.unpack(node)).transpose())
            .collect::<Result<Vec<_>>>()?;
        let args = saved.args.clone();
        drop(guard);
        let needs: Vec<bool> = node.next_edges().iter().map(Option::is_some).collect();
        // In-place ops use their functional twin's formula, which reads the op by that name.
        let c = VjpCtx {
            op: formula_op(self.op),
            args: &args,
            inputs: &inputs,
            input_metas: node.input_metas(),
            outputs: &outputs,
            output_metas: node.output_metas(),
            grads: &grads,
            needs: &needs,
        };
        vjp::run_eager(self.rule, &c)
    }

    fn release(&self) {
        *self.saved.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

/// The backward of an op without a formula: fails when reached, with PyTorch's message.
struct NotImplemented {
    op: Op,
}

impl Backward for NotImplemented {
    fn apply(&self, _: &Arc<Node>, _: Vec<Option<Tensor>>) -> Result<Vec<Option<Tensor>>> {
        Err(Error::Tensor(rynamo_tensor::Error::NotImplemented(
            format!(
                "the derivative for '{}' is not implemented.",
                self.op.name()
            ),
        )))
    }
}

/// Runs `op` through `below` (observers and kernel) and records its node. The caller checked
/// that grad mode is on and some argument needs grad.
pub(crate) fn call_recorded(
    op: Op,
    args: &[IValue],
    below: impl FnOnce(Op, &[IValue]) -> Result<Vec<Tensor>>,
) -> Result<Vec<Tensor>> {
    if vjp::non_differentiable(op) {
        let mut outs = below(op, args)?;
        note_views(op, args, &mut outs);
        return Ok(outs);
    }
    // Ops recorded as a decomposition (PyTorch's CompositeImplicitAutograd) run as their parts.
    if let Some(d) = vjp::composite(op)
        && let Some(outs) = (d.eager)(&mut super::Eager, args)?
    {
        return Ok(outs);
    }
    let inplace = op.flags().contains(OpFlags::INPLACE);
    let rule = vjp::rule(op);
    let self_t = match args.first() {
        Some(Value::Tensor(t)) => Some(t),
        _ => None,
    };
    if inplace && let Some(t) = self_t {
        check_inplace(t)?;
    }
    // An in-place op whose formula reads `self` needs its value from before the write.
    let original_self = match (inplace, rule, self_t) {
        (true, Some(r), Some(t)) if r.saves.arg(formula_op(op), 0) => Some(t.deep_clone()),
        _ => None,
    };
    let slot_ts = slots(args);
    let edges: Vec<Option<Edge>> = slot_ts
        .iter()
        .map(|t| {
            if t.needs_grad() {
                gradient_edge(t)
            } else {
                None
            }
        })
        .collect();
    let input_metas: Vec<TensorMeta> = slot_ts.iter().map(|t| t.meta()).collect();

    let mut outs = below(op, args)?;

    let differentiable = |t: &Tensor| t.dtype().is_floating_point() || t.dtype().is_complex();
    if !outs.iter().any(differentiable) || edges.iter().all(Option::is_none) {
        note_views(op, args, &mut outs);
        return Ok(outs);
    }
    let output_metas: Vec<TensorMeta> = outs.iter().map(Tensor::meta).collect();
    let (name, backward): (&'static str, Box<dyn Backward>) = match rule {
        Some(r) => {
            let saved = save(r, formula_op(op), args, &slot_ts, original_self, &outs)?;
            (
                vjp::names::node_name(op, args, r.name),
                Box::new(OpBackward {
                    op,
                    rule: r,
                    saved: Mutex::new(Some(saved)),
                }),
            )
        }
        None => ("NotImplemented", Box::new(NotImplemented { op })),
    };
    let node = Node::new(name, edges, input_metas, output_metas, backward);

    for (j, o) in outs.iter_mut().enumerate() {
        if !differentiable(o) || rule.is_some_and(|r| !r.differentiable_output(j)) {
            continue;
        }
        if inplace && j == 0 {
            super::copy_slices::rebase(o, &node)?;
            continue;
        }
        if slot_ts.iter().any(|t| t.same_identity(o)) {
            continue; // a returned input (contiguous() of a contiguous tensor) keeps its history
        }
        let handle: rynamo_tensor::autograd_meta::GradFn = node.clone();
        let base = match self_t {
            Some(x) if o.shares_storage(x) => Some(view_root(x)),
            _ => None,
        };
        o.ensure_autograd().update(|s| {
            s.grad_fn = Some((handle, j as u32));
            if base.is_some() {
                s.view_base = base;
            }
        });
    }
    Ok(outs)
}

/// The op whose schema a formula reads `op`'s arguments by (an in-place op's functional twin,
/// which takes the same arguments).
fn formula_op(op: Op) -> Op {
    op.functional_twin().unwrap_or(op)
}

fn save(
    r: &VjpRule,
    op: Op,
    args: &[IValue],
    slot_ts: &[&Tensor],
    original_self: Option<Tensor>,
    outs: &[Tensor],
) -> Result<SavedArgs> {
    let mut next = 0usize;
    let mut inputs: Vec<Option<SavedTensor>> = Vec::with_capacity(slot_ts.len());
    let mut plain = Vec::with_capacity(args.len());
    // Whether a tensor of an argument other than `i` needs grad (for `Saves::cross`).
    let other_needs = |i: usize| {
        args.iter()
            .enumerate()
            .any(|(j, a)| j != i && a.tensors().iter().any(|t| t.needs_grad()))
    };
    let check = |t: &Tensor| -> Result<()> {
        if is_inference(t) {
            return Err(runtime(
                "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.",
            ));
        }
        Ok(())
    };
    for (i, a) in args.iter().enumerate() {
        let keep = r.saves.arg(op, i) && (!r.saves.is_cross(op, i) || other_needs(i));
        let v = a.try_map(|t| {
            let s = next;
            next += 1;
            let saved = if keep {
                let t = match (i, &original_self) {
                    (0, Some(orig)) => orig,
                    _ => t,
                };
                check(t)?;
                Some(SavedTensor::input(t)?)
            } else {
                None
            };
            inputs.push(saved);
            Ok::<_, crate::Error>(s)
        })?;
        plain.push(v);
    }
    let outputs = outs
        .iter()
        .enumerate()
        .map(|(j, o)| {
            if !r.saves.output(j) {
                return Ok(None);
            }
            check(o)?;
            SavedTensor::output(o, j as u32).map(Some)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(SavedArgs {
        args: plain,
        inputs,
        outputs,
    })
}
