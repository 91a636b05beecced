//! Splits a joint graph ([`super::joint`]) into a forward and a backward graph with a min-cut
//! rematerialization partitioner (AOTAutograd's `min_cut_rematerialization_partition`).
//!
//! Every forward-region value (one not depending on a tangent) becomes an edge `in -> out` whose
//! capacity is the cost of saving it: its bytes, scaled by `1.1^distance-to-backward` so that,
//! between equal sizes, values close to their backward use are saved. Uses are infinite edges;
//! values the backward reads are joined to the sink; primals and values that must not be
//! recomputed (matrix products, convolutions, random or impure ops, reductions that shrink their
//! input more than 4x, ops outside the recomputable list) are joined to the source. The minimum
//! cut is the set of values saved; everything else the backward needs is recomputed there. A
//! cheap pointwise chain is therefore recomputed rather than saved whenever that saves memory,
//! and what is saved never exceeds what saving every needed forward value (PyTorch's default
//! partition) would keep: that set is itself a cut.
//!
//! The forward graph takes the primals and returns the forward outputs then the saved values;
//! the backward graph takes the saved values then the tangents and returns the gradients.

use std::collections::{HashMap, HashSet};

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;

use super::joint::Joint;
use crate::{Graph, GraphBuilder, Lowering, Op, OpFlags, Result, ValueId};

/// A partitioned joint graph.
#[derive(Clone, Debug)]
pub struct Partition {
    /// Primals in; forward outputs, then saved values, out.
    pub fw: Graph,
    /// Saved values, then tangents, in; one gradient per `grad_primals` entry out.
    pub bw: Graph,
    /// Number of forward outputs at the head of `fw`'s outputs.
    pub num_fw_outputs: usize,
    /// Number of saved values (the tail of `fw`'s outputs, the head of `bw`'s inputs).
    pub num_saved: usize,
}

impl Partition {
    /// Bytes of the saved values (the activations kept between forward and backward).
    pub fn saved_bytes(&self) -> usize {
        self.fw.outputs()[self.num_fw_outputs..]
            .iter()
            .map(|v| nbytes(&self.fw, *v))
            .sum()
    }
}

fn nbytes(g: &Graph, v: ValueId) -> usize {
    let m = &g.value(v).meta;
    m.shape.iter().product::<usize>() * m.dtype.itemsize()
}

/// Whether the backward may recompute a value of `op` instead of loading it.
fn recomputable(op: Op) -> bool {
    let f = op.flags();
    if f.is_impure() || f.contains(OpFlags::DATA_DEPENDENT) {
        return false;
    }
    matches!(
        op.lowering(),
        Lowering::Pointwise | Lowering::View | Lowering::Creation | Lowering::Reduction
    ) || matches!(op, Op::Gather | Op::IndexSelect)
}

/// How the joint graph's values relate to the two halves.
struct Regions {
    /// The node defining each value (None for graph inputs).
    producer: HashMap<ValueId, usize>,
    /// Values depending on a tangent (backward region).
    on_tangent: HashSet<ValueId>,
}

fn regions(j: &Joint) -> Regions {
    let g = &j.graph;
    let mut producer = HashMap::new();
    let mut on_tangent: HashSet<ValueId> = g.inputs()[j.num_primals..].iter().copied().collect();
    for (i, n) in g.nodes().iter().enumerate() {
        let dep = n.inputs().any(|v| on_tangent.contains(&v));
        for &o in &n.outputs {
            producer.insert(o, i);
            if dep {
                on_tangent.insert(o);
            }
        }
    }
    Regions {
        producer,
        on_tangent,
    }
}

/// Splits `j` (see the module docs).
pub fn partition(j: &Joint) -> Result<Partition> {
    let g = &j.graph;
    let r = regions(j);
    let fw_outputs: Vec<ValueId> = g.outputs()[..j.num_fw_outputs].to_vec();
    let grad_outputs: Vec<ValueId> = g.outputs()[j.num_fw_outputs..].to_vec();
    let primals: Vec<ValueId> = g.inputs()[..j.num_primals].to_vec();
    let tangents: Vec<ValueId> = g.inputs()[j.num_primals..].to_vec();

    // Forward-region values the backward reads directly.
    let mut needed_by_bw: HashSet<ValueId> = HashSet::new();
    for n in g.nodes() {
        if n.outputs.iter().any(|o| r.on_tangent.contains(o)) {
            needed_by_bw.extend(n.inputs().filter(|v| !r.on_tangent.contains(v)));
        }
    }
    for v in &grad_outputs {
        if !r.on_tangent.contains(v) {
            needed_by_bw.insert(*v);
        }
    }
    let saved = if needed_by_bw.is_empty() {
        Vec::new()
    } else {
        min_cut(g, &r, &needed_by_bw)
    };
    // Forward: what the outputs and saved values need, from the primals.
    let mut fw_outs = fw_outputs.clone();
    fw_outs.extend(&saved);
    let fw = extract(g, &primals, &fw_outs, "primals", Some(&r))?;
    let mut bw_ins = saved.clone();
    bw_ins.extend(&tangents);
    let bw = extract(g, &bw_ins, &grad_outputs, "bw", None)?;
    Ok(Partition {
        fw,
        bw,
        num_fw_outputs: fw_outputs.len(),
        num_saved: saved.len(),
    })
}

/// The saved values: the minimum cut between the primals (and unrecomputable values) and the
/// values the backward reads.
fn min_cut(g: &Graph, r: &Regions, needed_by_bw: &HashSet<ValueId>) -> Vec<ValueId> {
    // Large but finite: flow arithmetic on infinities would make NaNs.
    const INF: f64 = 1e30;
    let fw_values: Vec<ValueId> = g
        .inputs()
        .iter()
        .copied()
        .chain(g.nodes().iter().flat_map(|n| n.outputs.iter().copied()))
        .filter(|v| !r.on_tangent.contains(v))
        .collect();
    // Distance (in nodes) from each forward value to its nearest backward use.
    let mut dist: HashMap<ValueId, usize> = HashMap::new();
    for n in g.nodes().iter().rev() {
        let is_bw = n.outputs.iter().any(|o| r.on_tangent.contains(o));
        let d_out = if is_bw {
            0
        } else {
            n.outputs
                .iter()
                .filter_map(|o| dist.get(o))
                .min()
                .map_or(usize::MAX, |d| d.saturating_add(1))
        };
        for v in n.inputs() {
            if !r.on_tangent.contains(&v) {
                let e = dist.entry(v).or_insert(usize::MAX);
                *e = (*e).min(d_out);
            }
        }
    }
    let mut net: DiGraph<(), f64> = DiGraph::new();
    let source = net.add_node(());
    let sink = net.add_node(());
    let mut split: HashMap<ValueId, (NodeIndex, NodeIndex)> = HashMap::new();
    for &v in &fw_values {
        let a = net.add_node(());
        let b = net.add_node(());
        let d = dist.get(&v).copied().unwrap_or(usize::MAX).clamp(1, 100);
        let w = nbytes(g, v).max(1) as f64 * 1.1f64.powi(d as i32);
        net.add_edge(a, b, w);
        split.insert(v, (a, b));
        let banned = match r.producer.get(&v) {
            None => true, // a primal
            Some(&i) => {
                let n = &g.nodes()[i];
                !recomputable(n.op) || shrinking_reduction(g, i)
            }
        };
        if banned {
            net.add_edge(source, a, INF);
        }
        if needed_by_bw.contains(&v) {
            net.add_edge(b, sink, INF);
        }
    }
    for n in g.nodes() {
        if n.outputs.iter().any(|o| r.on_tangent.contains(o)) {
            continue;
        }
        for v in n.inputs() {
            for o in &n.outputs {
                net.add_edge(split[&v].1, split[o].0, INF);
            }
        }
    }
    let (_, flows) = petgraph::algo::dinics(&net, source, sink);
    // The source side of the minimum cut: reachable through edges with residual capacity.
    let mut reach = vec![false; net.node_count()];
    let mut stack = vec![source];
    reach[source.index()] = true;
    while let Some(u) = stack.pop() {
        for e in net.edges(u) {
            let t = e.target();
            if !reach[t.index()] && flows[e.id().index()] < *e.weight() {
                reach[t.index()] = true;
                stack.push(t);
            }
        }
        for e in net.edges_directed(u, petgraph::Direction::Incoming) {
            let s = e.source();
            if !reach[s.index()] && flows[e.id().index()] > 0.0 {
                reach[s.index()] = true;
                stack.push(s);
            }
        }
    }
    fw_values
        .into_iter()
        .filter(|v| {
            let (a, b) = split[v];
            reach[a.index()] && !reach[b.index()]
        })
        .collect()
}

/// A reduction whose output is less than a quarter of its inputs (PyTorch bans recomputing
/// those: the saved output is small, the recomputation reads much more).
fn shrinking_reduction(g: &Graph, i: usize) -> bool {
    let n = &g.nodes()[i];
    if n.op.lowering() != Lowering::Reduction {
        return false;
    }
    let out: usize = n.outputs.iter().map(|o| nbytes(g, *o)).sum();
    let inp: usize = n.inputs().map(|v| nbytes(g, v)).sum();
    out * 4 < inp
}

/// The subgraph computing `outputs` from `inputs` (new graph inputs, in order), with every node
/// of `g` they need, in `g`'s order. With `forward`, the impure nodes of the forward region run
/// there even when nothing reads their outputs (a running-statistics update, an RNG draw).
fn extract(
    g: &Graph,
    inputs: &[ValueId],
    outputs: &[ValueId],
    prefix: &str,
    forward: Option<&Regions>,
) -> Result<Graph> {
    let given: HashSet<ValueId> = inputs.iter().copied().collect();
    let mut need: HashSet<ValueId> = outputs.iter().copied().collect();
    let mut keep = vec![false; g.nodes().len()];
    for (i, n) in g.nodes().iter().enumerate().rev() {
        let impure_fw = forward.is_some_and(|r| {
            n.op.flags().is_impure() && !n.outputs.iter().any(|o| r.on_tangent.contains(o))
        });
        if impure_fw
            || n.outputs
                .iter()
                .any(|o| need.contains(o) && !given.contains(o))
        {
            keep[i] = true;
            need.extend(n.inputs());
        }
    }
    let mut gb = GraphBuilder::new();
    let mut map: HashMap<ValueId, ValueId> = HashMap::new();
    for (k, &v) in inputs.iter().enumerate() {
        let name = if prefix == "primals" {
            g.value(v).name.clone()
        } else {
            format!("{}_{}", g.value(v).name, k)
        };
        map.insert(v, gb.input(&name, g.value(v).meta.clone()));
    }
    for (i, n) in g.nodes().iter().enumerate() {
        if !keep[i] {
            continue;
        }
        let args = n
            .args
            .iter()
            .map(|a| {
                a.try_map(|v| {
                    map.get(v).copied().ok_or_else(|| {
                        crate::Error::Graph(format!(
                            "internal: partition: {} needed but neither given nor computed",
                            g.value(*v).name
                        ))
                    })
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let outs = gb.call(n.op, args)?;
        for (o, no) in n.outputs.iter().zip(outs) {
            map.entry(*o).or_insert(no);
        }
    }
    let outs = outputs
        .iter()
        .map(|o| {
            map.get(o).copied().ok_or_else(|| {
                crate::Error::Graph(format!(
                    "internal: partition: output {} not computed",
                    g.value(*o).name
                ))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(gb.finish(outs))
}
