//! Splits a graph into runs of consecutive nodes that execute on the same side (plugin or
//! fallback). Node order is kept, so side effects keep their order.
//!
//! ```text
//!   nodes:   n0 n1 | n2 | n3 n4        mask: P P F P P
//!   segments [P: n0..2] [F: n2..3] [P: n3..5]
//!   each segment is a standalone Graph: inputs = values it reads but does not define (first use
//!   order); outputs = values it defines that a later node or the graph output reads.
//! ```

use std::collections::HashMap;
use std::ops::Range;

use rynamo_graph::{Graph, OpFlags, ValueId};

/// One run of nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct Segment {
    /// Runs on the plugin (else on the fallback backend).
    pub on_plugin: bool,
    /// Node indices in the parent graph.
    pub nodes: Range<usize>,
    /// The nodes as a standalone graph.
    pub graph: Graph,
    /// Parent values feeding `graph`'s inputs, in order.
    pub inputs: Vec<ValueId>,
    /// Parent values `graph`'s outputs define, in order.
    pub outputs: Vec<ValueId>,
}

/// The nodes the host lets a plugin run at all: not in-place, random, data-dependent or host
/// calls, and none at all when the graph mutates anything other than through trailing
/// write-backs of its inputs (what `rynamo_passes::functionalize_inputs` leaves). Plugins compute
/// into fresh buffers and cannot see host aliasing or the host RNG stream, so such nodes stay on
/// the fallback; the write-backs run there too, after everything the plugin computed.
pub fn host_policy(g: &Graph) -> Vec<bool> {
    let mutates = rynamo_passes::write_backs(g).is_none();
    g.nodes()
        .iter()
        .map(|n| {
            let f = n.op.flags();
            !mutates
                && !f.contains(OpFlags::INPLACE)
                && !f.contains(OpFlags::MUTATES_ARGS)
                && !f.contains(OpFlags::RANDOM)
                && !f.contains(OpFlags::DATA_DEPENDENT)
                && !f.contains(OpFlags::HOST)
        })
        .collect()
}

/// Splits `g` by `on_plugin` (one flag per node). Plugin segments whose values nobody reads are
/// dropped (they are pure by [`host_policy`]).
pub fn partition(g: &Graph, on_plugin: &[bool]) -> Vec<Segment> {
    debug_assert_eq!(on_plugin.len(), g.nodes().len());
    // Last reader of each value: a node index, or usize::MAX for graph outputs.
    let mut last_use: HashMap<ValueId, usize> = HashMap::new();
    for (i, n) in g.nodes().iter().enumerate() {
        for v in n.inputs() {
            last_use.insert(v, i);
        }
    }
    for &o in g.outputs() {
        last_use.insert(o, usize::MAX);
    }
    let mut segs = Vec::new();
    let mut start = 0;
    while start < on_plugin.len() {
        let side = on_plugin[start];
        let end = (start..on_plugin.len())
            .find(|&i| on_plugin[i] != side)
            .unwrap_or(on_plugin.len());
        let seg = extract(g, start..end, side, &last_use);
        if !(seg.on_plugin && seg.outputs.is_empty()) {
            segs.push(seg);
        }
        start = end;
    }
    segs
}

fn extract(
    g: &Graph,
    nodes: Range<usize>,
    on_plugin: bool,
    last_use: &HashMap<ValueId, usize>,
) -> Segment {
    let mut sub = Graph::new();
    let mut map: HashMap<ValueId, ValueId> = HashMap::new();
    let mut inputs = Vec::new();
    for n in &g.nodes()[nodes.clone()] {
        for v in n.inputs() {
            if let std::collections::hash_map::Entry::Vacant(e) = map.entry(v) {
                let info = g.value(v);
                e.insert(sub.add_input(info.name.clone(), info.meta.clone()));
                inputs.push(v);
            }
        }
        for &o in &n.outputs {
            let info = g.value(o);
            map.insert(o, sub.add_value(info.name.clone(), info.meta.clone()));
        }
        let args = n
            .args
            .iter()
            .map(|a| {
                a.try_map(|v| Ok::<_, ()>(map[v]))
                    .expect("invariant: infallible map")
            })
            .collect();
        let outs = n.outputs.iter().map(|o| map[o]).collect();
        sub.push_node(n.op, args, outs);
    }
    let outputs: Vec<ValueId> = g.nodes()[nodes.clone()]
        .iter()
        .flat_map(|n| n.outputs.iter().copied())
        .filter(|o| last_use.get(o).is_some_and(|&u| u >= nodes.end))
        .collect();
    sub.set_outputs(outputs.iter().map(|o| map[o]).collect());
    Segment {
        on_plugin,
        nodes,
        graph: sub,
        inputs,
        outputs,
    }
}
