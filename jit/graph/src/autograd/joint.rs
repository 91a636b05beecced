//! The joint forward-backward graph of a captured forward graph (AOTAutograd's joint trace): the
//! forward nodes, then one tangent input per differentiable output, then each differentiable
//! node's backward formula (its [`VjpRule`]'s graph instantiation) in reverse order, with the
//! engine's reduce-and-cast step applied to every gradient. The partitioner
//! ([`super::partition`]) splits it into a forward and a backward graph.
//!
//! Graph inputs are the primals (the forward's inputs) followed by the tangents; outputs are the
//! forward's outputs followed by the gradient of every primal that receives one.

use std::collections::HashMap;

use rynamo_tensor::TensorMeta;

use super::emit::Emit;
use super::vjp::{self, VjpCtx};
use crate::{Error, Graph, GraphBuilder, OpFlags, Result, Value, ValueId};

/// A joint graph with the layout of its inputs and outputs.
#[derive(Clone, Debug)]
pub struct Joint {
    /// The graph: inputs `primals ++ tangents`, outputs `forward outputs ++ gradients`.
    pub graph: Graph,
    /// Number of primals (the forward graph's inputs).
    pub num_primals: usize,
    /// Per forward output: the index of its tangent among the tangents, if it is differentiable.
    pub tangent_of_output: Vec<Option<usize>>,
    /// Number of forward outputs at the head of the outputs.
    pub num_fw_outputs: usize,
    /// The primals that get a gradient output, in output order.
    pub grad_primals: Vec<usize>,
}

impl Joint {
    /// Number of tangent inputs.
    pub fn num_tangents(&self) -> usize {
        self.tangent_of_output.iter().flatten().count()
    }
}

/// Why a graph has no joint graph (the caller runs it with eager autograd instead).
fn unsupported(msg: String) -> Error {
    Error::Graph(msg)
}

/// Builds the joint graph of `fw`, whose inputs flagged in `requires_grad` need gradients.
/// `no_grad[i]` marks node `i` as traced under `no_grad` (it is not differentiated). Fails for
/// graphs it cannot differentiate as a whole: in-place or argument-mutating ops, host calls, and
/// ops without a backward formula on a path that needs one.
pub fn build_joint(fw: &Graph, requires_grad: &[bool], no_grad: &[bool]) -> Result<Joint> {
    let (decomposed, no_grad) = record_composites(fw, requires_grad, no_grad)?;
    let (fw, no_grad) = (&decomposed, &no_grad[..]);
    let mut gb = GraphBuilder::new();
    let mut map: HashMap<ValueId, ValueId> = HashMap::new();
    let mut needs: HashMap<ValueId, bool> = HashMap::new();
    for (k, &v) in fw.inputs().iter().enumerate() {
        let info = fw.value(v);
        map.insert(
            v,
            gb.input(&format!("primals_{}", k + 1), info.meta.clone()),
        );
        needs.insert(v, requires_grad.get(k).copied().unwrap_or(false));
    }
    // Forward nodes, copied; which values need grad.
    for (i, n) in fw.nodes().iter().enumerate() {
        let f = n.op.flags();
        // In-place ops would need functionalization first. Ops that update buffers on the side
        // (batch_norm's running statistics) stay in the forward: the partitioner never
        // recomputes an impure op.
        if f.contains(OpFlags::INPLACE) && !is_counter_update(fw, n) {
            return Err(unsupported(format!("`{}` writes in place", n.op)));
        }
        if f.contains(OpFlags::HOST) {
            return Err(unsupported("a host call is opaque to autograd".into()));
        }
        let args = n
            .args
            .iter()
            .map(|a| a.try_map(|v| Ok::<_, Error>(map[v])))
            .collect::<Result<Vec<_>>>()?;
        let outs = gb.call(n.op, args)?;
        let any_in = !no_grad.get(i).copied().unwrap_or(false) && n.inputs().any(|v| needs[&v]);
        for (o, jo) in n.outputs.iter().zip(outs) {
            map.insert(*o, jo);
            needs.insert(*o, any_in && differentiable(fw, n, *o)?);
        }
    }
    // Tangents, one per differentiable output.
    let mut grads: HashMap<ValueId, ValueId> = HashMap::new();
    let mut tangent_of_output = Vec::with_capacity(fw.outputs().len());
    let mut t = 0;
    for &o in fw.outputs() {
        if needs[&o] {
            let m = &fw.value(o).meta;
            t += 1;
            let tv = gb.input(
                &format!("tangents_{t}"),
                TensorMeta::contiguous(m.dtype, &m.shape),
            );
            accumulate(&mut gb, &mut grads, o, tv)?;
            tangent_of_output.push(Some(t - 1));
        } else {
            tangent_of_output.push(None);
        }
    }
    // Backward, latest node first. The formulas are instantiated with grad mode off, as the
    // engine runs a backward without `create_graph`: the compiled backward is never
    // differentiated again (its results refuse a second differentiation), so the rules pick
    // their fused backward kernels (`batch_norm_backward`, `layer_norm_backward`, cumprod's
    // O(n) form) rather than the differentiable op-by-op forms. Those forms cost W12's step
    // five extra passes over every batch-normed activation in the forward (the saved
    // `x - mean`) and ~12 in the backward.
    let _backward_formulas = crate::autograd::NoGradGuard::new();
    for (i, n) in fw.nodes().iter().enumerate().rev() {
        if no_grad.get(i).copied().unwrap_or(false) {
            continue;
        }
        let out_grads: Vec<Option<ValueId>> =
            n.outputs.iter().map(|o| grads.get(o).copied()).collect();
        if out_grads.iter().all(Option::is_none) {
            continue;
        }
        let slot_vals: Vec<ValueId> = n.inputs().collect();
        let slot_needs: Vec<bool> = slot_vals.iter().map(|v| needs[v]).collect();
        if !slot_needs.iter().any(|b| *b) {
            continue;
        }
        let rule = vjp::rule(n.op).ok_or_else(|| {
            unsupported(format!("the derivative for '{}' is not implemented", n.op))
        })?;
        let mut next = 0usize;
        let plain: Vec<Value<usize>> = n
            .args
            .iter()
            .map(|a| {
                a.try_map(|_| {
                    next += 1;
                    Ok::<_, ()>(next - 1)
                })
                .expect("invariant: infallible map")
            })
            .collect();
        let inputs: Vec<Option<ValueId>> = slot_vals.iter().map(|v| Some(map[v])).collect();
        let input_metas: Vec<TensorMeta> = slot_vals
            .iter()
            .map(|v| fw.value(*v).meta.clone())
            .collect();
        let outputs: Vec<Option<ValueId>> = n
            .outputs
            .iter()
            .enumerate()
            .map(|(j, o)| rule.saves.output(j).then(|| map[o]))
            .collect();
        let output_metas: Vec<TensorMeta> = n
            .outputs
            .iter()
            .map(|o| fw.value(*o).meta.clone())
            .collect();
        let c = VjpCtx {
            op: n.op.functional_twin().unwrap_or(n.op),
            args: &plain,
            inputs: &inputs,
            input_metas: &input_metas,
            outputs: &outputs,
            output_metas: &output_metas,
            grads: &out_grads,
            needs: &slot_needs,
        };
        let slot_grads = (rule.graph)(&mut gb, &c)?;
        for ((g, v), m) in slot_grads.into_iter().zip(&slot_vals).zip(&input_metas) {
            let Some(g) = g else { continue };
            if !needs[v] {
                continue;
            }
            let g = reduce_and_cast(&mut gb, g, m)?;
            accumulate(&mut gb, &mut grads, *v, g)?;
        }
    }
    let mut outputs: Vec<ValueId> = fw.outputs().iter().map(|o| map[o]).collect();
    let num_fw_outputs = outputs.len();
    let mut grad_primals = Vec::new();
    for (k, v) in fw.inputs().iter().enumerate() {
        if let Some(g) = grads.get(v)
            && requires_grad.get(k).copied().unwrap_or(false)
        {
            outputs.push(*g);
            grad_primals.push(k);
        }
    }
    Ok(Joint {
        graph: gb.finish(outputs),
        num_primals: fw.inputs().len(),
        tangent_of_output,
        num_fw_outputs,
        grad_primals,
    })
}

/// `fw` with every op that eager autograd records as a decomposition (its `OpDef`'s
/// `recorded_as`: cross_entropy, dropout, SDPA, ...) replaced by that decomposition wherever an
/// input needs grad, as the engine records it; the per-node `no_grad` flags follow. The joint
/// graph then differentiates the parts with their own formulas.
fn record_composites(
    fw: &Graph,
    requires_grad: &[bool],
    no_grad: &[bool],
) -> Result<(Graph, Vec<bool>)> {
    let mut gb = GraphBuilder::new();
    let mut map: HashMap<ValueId, ValueId> = HashMap::new();
    let mut needs: HashMap<ValueId, bool> = HashMap::new();
    for (k, &v) in fw.inputs().iter().enumerate() {
        let info = fw.value(v);
        map.insert(v, gb.input(&info.name, info.meta.clone()));
        needs.insert(v, requires_grad.get(k).copied().unwrap_or(false));
    }
    let mut flags = Vec::with_capacity(fw.nodes().len());
    for (i, n) in fw.nodes().iter().enumerate() {
        let off = no_grad.get(i).copied().unwrap_or(false);
        let args = n
            .args
            .iter()
            .map(|a| a.try_map(|v| Ok::<_, Error>(map[v])))
            .collect::<Result<Vec<_>>>()?;
        let any_in = !off && n.inputs().any(|v| needs[&v]);
        let composite = vjp::composite(n.op).filter(|_| any_in);
        let outs = match composite {
            Some(c) => match (c.graph)(&mut gb, &args)? {
                Some(outs) => outs,
                None => gb.call(n.op, args)?,
            },
            None => gb.call(n.op, args)?,
        };
        if outs.len() != n.outputs.len() {
            return Err(unsupported(format!(
                "the decomposition of '{}' gives {} outputs, the op {}",
                n.op,
                outs.len(),
                n.outputs.len()
            )));
        }
        // The op's node, or its decomposition's nodes, all inherit its grad mode.
        flags.resize(gb.graph().nodes().len(), off);
        for (o, jo) in n.outputs.iter().zip(outs) {
            map.insert(*o, jo);
            needs.insert(*o, any_in && differentiable(fw, n, *o)?);
        }
    }
    let outputs = fw.outputs().iter().map(|o| map[o]).collect();
    Ok((gb.finish(outputs), flags))
}

/// Whether output `o` of node `n` (an input of which needs grad) carries a gradient: floating
/// and complex outputs do; a complex input or output of an op whose backward formula is written
/// for reals only is an error (its gradient would lack the conjugates), as in eager recording.
fn differentiable(fw: &Graph, n: &crate::Node, o: crate::ValueId) -> Result<bool> {
    let d = fw.value(o).meta.dtype;
    let complex = d.is_complex() || n.inputs().any(|v| fw.value(v).meta.dtype.is_complex());
    if complex
        && !crate::autograd::vjp::non_differentiable(n.op)
        && !crate::rules::complex::grad_ok(n.op)
    {
        return Err(crate::Error::Tensor(rynamo_tensor::Error::NotImplemented(
            format!(
                "the derivative for '{}' is not implemented for complex tensors",
                n.op.py_name()
            ),
        )));
    }
    Ok(d.is_floating_point() || d.is_complex())
}

/// Whether in-place node `n` updates a counter: an integer or bool tensor that only in-place
/// updates of itself read (batch norm's `num_batches_tracked.add_(1)`). Nothing differentiable
/// can see it, so the update stays in the forward graph as it is (impure, never recomputed).
fn is_counter_update(fw: &Graph, n: &crate::Node) -> bool {
    let Some(Value::Tensor(root)) = n.args.first() else {
        return false;
    };
    if fw.value(*root).meta.dtype.is_floating_point() {
        return false;
    }
    let mut names = vec![*root];
    for m in fw.nodes() {
        if !m.inputs().any(|v| names.contains(&v)) {
            continue;
        }
        let writes_it = m.op.flags().contains(OpFlags::INPLACE)
            && matches!(m.args.first(), Some(Value::Tensor(v)) if names.contains(v));
        if !writes_it || m.inputs().filter(|v| names.contains(v)).count() != 1 {
            return false;
        }
        names.extend(m.outputs.iter().copied());
    }
    true
}

/// The engine's `validate_outputs` step, as graph nodes: sum a broadcast gradient down to the
/// argument's shape and cast it to the argument's dtype.
fn reduce_and_cast(gb: &mut GraphBuilder, g: ValueId, m: &TensorMeta) -> Result<ValueId> {
    let mut g = g;
    if gb.meta(g).shape != m.shape {
        g = gb.sum_to(&g, &m.shape)?;
    }
    if gb.meta(g).dtype != m.dtype && (m.dtype.is_floating_point() || m.dtype.is_complex()) {
        g = gb.to_dtype(&g, m.dtype)?;
    }
    Ok(g)
}

fn accumulate(
    gb: &mut GraphBuilder,
    grads: &mut HashMap<ValueId, ValueId>,
    v: ValueId,
    g: ValueId,
) -> Result<()> {
    let new = match grads.get(&v) {
        None => g,
        Some(prev) => gb.add(prev, &g)?,
    };
    grads.insert(v, new);
    Ok(())
}
