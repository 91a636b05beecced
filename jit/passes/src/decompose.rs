//! Rewrites ops that declare a decomposition (`OpDef::decompose`: softmax and log_softmax,
//! layer_norm, var and std, f32 logsumexp, lerp / addcmul / addcdiv, evaluation-mode batch_norm)
//! into the ops it emits, which the JIT fuses. A decomposition returns nothing where it does not
//! apply (an integer input, training-mode batch_norm, ...), and one whose result would differ
//! in dtype or shape from the node's is rolled back: the node then stays as it is.

use rynamo_graph::{Arg, Graph, GraphBuilder, Op};

use crate::PassCx;

/// The pass.
pub fn decompose(g: &mut Graph, _cx: &PassCx) {
    if !g.nodes().iter().any(|n| n.op.def().decompose.is_some()) {
        return;
    }
    let old = std::mem::take(g);
    let (mut b, mut map) = GraphBuilder::rewriting(&old);
    for n in old.nodes() {
        let args: Vec<Arg> = n
            .args
            .iter()
            .map(|a| {
                a.try_map(|v| Ok::<_, ()>(map[v]))
                    .expect("invariant: defined before use")
            })
            .collect();
        let mark = b.graph().nodes().len();
        if let Some(v) = expand(&mut b, n.op, &args)
            && b.meta(v).dtype == old.value(n.outputs[0]).meta.dtype
            && b.meta(v).shape == old.value(n.outputs[0]).meta.shape
            && n.outputs.len() == 1
        {
            map.insert(n.outputs[0], v);
            continue;
        }
        // Roll back any partial expansion (its values, now unused, go at `compact`), then copy
        // the node as is.
        b.truncate_nodes(mark);
        let outs: Vec<_> = n.outputs.iter().map(|&o| old.value(o).clone()).collect();
        for (&o, new) in n.outputs.iter().zip(b.push_copied(n.op, args, &outs)) {
            map.insert(o, new);
        }
    }
    let outputs = old.outputs().iter().map(|o| map[o]).collect();
    let mut out = b.finish(outputs);
    out.compact();
    *g = out;
}

/// The decomposition's result, if `op` has one and it applies.
fn expand(b: &mut GraphBuilder, op: Op, args: &[Arg]) -> Option<rynamo_graph::ValueId> {
    let d = op.def().decompose?;
    (d.graph)(b, args).ok().flatten()
}
