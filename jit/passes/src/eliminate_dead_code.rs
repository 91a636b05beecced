//! Removes nodes whose outputs nothing uses, keeping impure nodes (in-place writes, RNG draws).

use std::collections::HashSet;

use rynamo_graph::{Graph, ValueId};

use crate::PassCx;

/// Dead-code elimination.
pub fn eliminate_dead_code(g: &mut Graph, _cx: &PassCx) {
    let mut live: HashSet<ValueId> = g.outputs().iter().copied().collect();
    let mut keep = vec![false; g.nodes().len()];
    for (i, n) in g.nodes().iter().enumerate().rev() {
        if n.op.flags().is_impure() || n.outputs.iter().any(|o| live.contains(o)) {
            keep[i] = true;
            live.extend(n.inputs());
        }
    }
    let mut it = keep.into_iter();
    g.nodes_mut().retain(|_| it.next().unwrap_or(true));
    g.compact();
}
