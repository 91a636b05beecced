//! Two vectors per iteration for pointwise phases: the body is duplicated, copy B working 8
//! columns (one vector) after copy A, and the copies are interleaved node by node.
//!
//! Why: a chain of transcendentals (W1's `sigmoid(sin(x) * 1.5 + cos(x))`, W3's tanh-GELU) is
//! one long dependency chain per vector, ~200 cycles of latency over ~110 instructions. The
//! out-of-order window holds little more than one iteration of it, so the core idles on
//! latency: alone, `sin` and `sigmoid` run at 1.3 and 0.8 ns/element, chained at 3.6. With the
//! copies interleaved, the second chain is a few dozen instructions behind the first and both
//! make progress at once.
//!
//! Each copy computes exactly what the single-vector loop computes for its columns, so results
//! are bitwise those of the plain loop (`tests/ulp.rs` checks lanes against tails). Phases with
//! reductions are left alone: accumulating two vectors per step would change the summation
//! order. Values computed once per row (constants, row values, broadcast loads and what depends
//! only on them) are shared by both copies.

use crate::loop_ir::{Phase, V};
use crate::regalloc::PhasePlan;

/// Whether doubling is on (`RYNAMO_JIT_UNROLL=0` turns it off, to measure it).
pub fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("RYNAMO_JIT_UNROLL").map_or(true, |v| v != "0"))
}

/// A phase with its body doubled.
pub struct Doubled {
    /// The doubled phase (copies interleaved; hoistable nodes once).
    pub phase: Phase,
    /// Its plan.
    pub plan: PhasePlan,
    /// Per node of `phase`: whether it belongs to copy B (loads one vector further on).
    pub b_nodes: Vec<bool>,
    /// Per store of `phase`: whether it stores copy B.
    pub b_stores: Vec<bool>,
}

/// `p` doubled, or `None` when it reduces (see the module docs). `hoisted` marks the nodes the
/// single plan hoists.
pub fn double(p: &Phase, hoisted: &[bool]) -> Option<(Phase, Vec<bool>, Vec<bool>)> {
    if !p.reduces.is_empty() {
        return None;
    }
    let n = p.body.len();
    let (mut map_a, mut map_b) = (vec![0 as V; n], vec![0 as V; n]);
    let mut body = Vec::with_capacity(2 * n);
    let mut b_nodes = Vec::with_capacity(2 * n);
    let remap = |inst: crate::loop_ir::Inst, map: &[V]| {
        use crate::loop_ir::Inst::*;
        let m = |v: V| map[v as usize];
        match inst {
            Unary(op, a) => Unary(op, m(a)),
            Binary(op, a, b) => Binary(op, m(a), m(b)),
            Select(c, a, b) => Select(m(c), m(a), m(b)),
            Cast(a) => Cast(m(a)),
            Call1(f, a) => Call1(f, m(a)),
            Call2(f, a, b) => Call2(f, m(a), m(b)),
            leaf @ (Load(_) | Const(_) | RowVal(_)) => leaf,
        }
    };
    for (i, node) in p.body.iter().enumerate() {
        let mut a = *node;
        a.inst = remap(node.inst, &map_a);
        map_a[i] = body.len() as V;
        body.push(a);
        b_nodes.push(false);
        if hoisted[i] {
            map_b[i] = map_a[i];
            continue;
        }
        let mut b = *node;
        b.inst = remap(node.inst, &map_b);
        map_b[i] = body.len() as V;
        body.push(b);
        b_nodes.push(true);
    }
    let mut stores = Vec::with_capacity(2 * p.stores.len());
    let mut b_stores = Vec::with_capacity(2 * p.stores.len());
    for &(acc, v) in &p.stores {
        stores.push((acc, map_a[v as usize]));
        stores.push((acc, map_b[v as usize]));
        b_stores.extend([false, true]);
    }
    let phase = Phase {
        body,
        reduces: Vec::new(),
        stores,
        // Row stores run once, after the single-vector loop and the tail.
        row_stores: Vec::new(),
    };
    Some((phase, b_nodes, b_stores))
}
