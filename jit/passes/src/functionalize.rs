//! Functionalization (PyTorch's `FunctionalTensor` pass, narrowed to what is provably safe): an
//! in-place op on a tensor the graph itself allocated, and that nothing else aliases, becomes its
//! out-of-place op (`copy_(self, src)`: `clone(src)`), and later reads of the tensor read the new
//! value. `out += identity` and `relu(x, inplace=True)` (a relu and a `copy_`) inside a compiled ResNet block then fuse like their out-of-place forms;
//! before, any in-place op sent the whole graph to the eager interpreter.
//!
//! Safe means eager could not tell the difference: the mutated tensor (with the in-place ops'
//! outputs, which are the same tensor) is not a graph input, was produced by an op that allocates
//! its output, and no op takes a view of it or may return it. Anything else keeps its in-place
//! node (the JIT leaves such graphs to the eager interpreter; plugin backends run
//! [`crate::functionalize_inputs`] after this pass).

use std::collections::HashSet;

use rynamo_graph::{Arg, Graph, Lowering, Node, Op, OpFlags, Value, ValueId, registry};

use crate::PassCx;

/// The out-of-place op with the same arguments, for the ops this pass rewrites (the scatters
/// keep their in-place node: their functional forms copy the whole destination).
fn functional_twin(op: Op) -> Option<Op> {
    op.functional_twin()
        .filter(|_| !matches!(op, Op::Scatter_ | Op::ScatterValue_ | Op::ScatterAdd_))
}

/// The out-of-place form of in-place node `op(args)`: its op and arguments. `copy_(self, src)`
/// becomes `clone(src)` (a value of its own, so later writes to `src` cannot reach it).
fn rewritten(op: Op, args: &[Arg]) -> Option<(Op, Vec<Arg>)> {
    match op {
        Op::Copy_ => Some((Op::Clone, vec![args.get(1)?.clone()])),
        _ => Some((functional_twin(op)?, args.to_vec())),
    }
}

/// Whether an output of node `n` may share storage with an input: views, and ops that return
/// their input (or a view of it) when nothing needs copying. A conversion that changes the dtype
/// (`step.to(torch.float64)`) always copies.
fn may_alias(g: &Graph, n: &Node) -> bool {
    let f = n.op.flags();
    if f.contains(OpFlags::VIEW) || f.contains(OpFlags::HOST) || n.op.lowering() == Lowering::View {
        return true;
    }
    match n.op {
        Op::To | Op::Type => {
            let input = n.inputs().next().map(|v| g.value(v).meta.dtype);
            let output = n.outputs.first().map(|&o| g.value(o).meta.dtype);
            input.is_none() || input == output
        }
        Op::GetItem | Op::Contiguous => true,
        _ => false,
    }
}

/// The in-place chain rooted at `root` (defined before node `start`): the indices of the in-place
/// nodes that write it, in order, and the values naming it (`root` and their outputs). `None`
/// when it is not safe to rewrite.
pub(crate) fn chain(g: &Graph, start: usize, root: ValueId) -> Option<(Vec<usize>, Vec<ValueId>)> {
    let nodes = g.nodes();
    let mut names = vec![root];
    let mut writes = Vec::new();
    for (i, n) in nodes.iter().enumerate().skip(start) {
        let reads_it = n.inputs().any(|v| names.contains(&v));
        if !reads_it {
            continue;
        }
        if may_alias(g, n) {
            return None;
        }
        let writes_it = matches!(n.args.first(), Some(Value::Tensor(v)) if names.contains(v));
        if n.op.flags().contains(OpFlags::INPLACE) && writes_it {
            rewritten(n.op, &n.args)?;
            writes.push(i);
            names.extend(n.outputs.iter().copied());
        }
    }
    Some((writes, names))
}

/// The pass.
pub fn functionalize(g: &mut Graph, _cx: &PassCx) {
    // The tensors some in-place op writes: only those can root a chain, so the pass scans the
    // graph once per written tensor, not once per value.
    let written: HashSet<ValueId> = g
        .nodes()
        .iter()
        .filter(|n| n.op.flags().contains(OpFlags::INPLACE))
        .filter_map(|n| match n.args.first() {
            Some(Value::Tensor(v)) => Some(*v),
            _ => None,
        })
        .collect();
    if written.is_empty() {
        return;
    }
    // Rewrites change ops and arguments, never the node count.
    for i in 0..g.nodes().len() {
        let roots: Vec<ValueId> = g.nodes()[i].outputs.clone();
        let producer = &g.nodes()[i];
        if may_alias(g, producer) || producer.op.flags().contains(OpFlags::INPLACE) {
            continue;
        }
        for root in roots.into_iter().filter(|r| written.contains(r)) {
            if let Some((writes, names)) = chain(g, i + 1, root)
                && !writes.is_empty()
            {
                let _ = rewrite(g, i + 1, &writes, &names);
            }
        }
    }
}

/// Rewrites the chain's in-place nodes (from node `start` on) out of place, when every one's meta
/// agrees, and points each later read and graph output at the latest value, which it returns.
pub(crate) fn rewrite(
    g: &mut Graph,
    start: usize,
    writes: &[usize],
    names: &[ValueId],
) -> Option<ValueId> {
    for &w in writes {
        let n = &g.nodes()[w];
        let (op, args) = rewritten(n.op, &n.args).expect("invariant: checked by `chain`");
        let arg_metas = g.arg_metas(&args).ok()?;
        let metas = registry::meta(op, &arg_metas).ok()?;
        // Same dtype, shape and strides: the in-place result kept the tensor's layout.
        if metas.len() != 1 || metas[0] != g.value(n.outputs[0]).meta {
            return None;
        }
    }
    let mut current = names[0];
    let len = g.nodes().len();
    for i in start..len {
        let n = &mut g.nodes_mut()[i];
        for a in &mut n.args {
            *a = a
                .try_map(|v| Ok::<_, ()>(if names.contains(v) { current } else { *v }))
                .expect("invariant: renaming cannot fail");
        }
        if writes.contains(&i) {
            (n.op, n.args) = rewritten(n.op, &n.args).expect("invariant: checked by `chain`");
            current = n.outputs[0];
        }
    }
    let outs = g
        .outputs()
        .iter()
        .map(|&o| if names.contains(&o) { current } else { o })
        .collect();
    g.set_outputs(outs);
    Some(current)
}
