//! Replaces a pure node by an earlier identical one (same op, same arguments).
//!
//! In-place ops mutate storage that other values may alias, so the key includes the number of
//! mutating nodes seen so far: no expression is shared across a mutation. A node whose value is
//! a graph output is kept: merged, two outputs would be one tensor, and the caller's later
//! in-place write through one would change the other (fuzz seed 17, program 6550: `v1 = x * 2;
//! v2 = x * 2`, a graph break, then `v1.clamp_(-1, 1)` changed v2).

use std::collections::HashMap;

use rynamo_graph::{Graph, OpFlags, ValueId};

use crate::PassCx;

/// Common-subexpression elimination.
pub fn eliminate_common_subexpressions(g: &mut Graph, _cx: &PassCx) {
    let mut seen: HashMap<String, Vec<ValueId>> = HashMap::new();
    let mut replace: HashMap<ValueId, ValueId> = HashMap::new();
    let mut mutations = 0usize;
    let mut remove = Vec::with_capacity(g.nodes().len());
    let outputs: std::collections::HashSet<ValueId> = g.outputs().iter().copied().collect();
    for i in 0..g.nodes().len() {
        // Earlier replacements feed into later keys.
        if !replace.is_empty() {
            let n = &mut g.nodes_mut()[i];
            for a in &mut n.args {
                *a = a
                    .try_map(|v| Ok::<_, ()>(*replace.get(v).unwrap_or(v)))
                    .expect("invariant: infallible map");
            }
        }
        let n = &g.nodes()[i];
        let flags = n.op.flags();
        if flags.contains(OpFlags::INPLACE) || flags.contains(OpFlags::MUTATES_ARGS) {
            mutations += 1;
        }
        if flags.is_impure() || n.outputs.iter().any(|o| outputs.contains(o)) {
            remove.push(false);
            continue;
        }
        // Arguments print exactly (floats round-trip, values by id), so the text is a faithful key.
        let args: Vec<String> = n.args.iter().map(|a| a.to_string()).collect();
        let key = format!("{}({})#{mutations}", n.op.name(), args.join(", "));
        match seen.get(&key) {
            Some(prev) => {
                for (o, p) in n.outputs.iter().zip(prev) {
                    replace.insert(*o, *p);
                }
                remove.push(true);
            }
            None => {
                seen.insert(key, n.outputs.clone());
                remove.push(false);
            }
        }
    }
    if replace.is_empty() {
        return;
    }
    g.replace_uses(&replace);
    let mut it = remove.into_iter();
    g.nodes_mut().retain(|_| !it.next().unwrap_or(false));
}
