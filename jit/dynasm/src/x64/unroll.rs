//! Several vectors per iteration for pointwise phases: the body is copied (4, 3 or 2 times,
//! as registers allow), copy `c` working `c` vectors after copy 0, and the copies are interleaved
//! node by node.
//!
//! Why: a chain of transcendentals (W1's `sigmoid(sin(x) * 1.5 + cos(x))`, W3's tanh-GELU) is
//! one long dependency chain per vector, ~200 cycles of latency over ~110 instructions. The
//! out-of-order window holds little more than one iteration of it, so the core idles on
//! latency: alone, `sin` and `sigmoid` run at 1.3 and 0.8 ns/element, chained at 3.6. With the
//! copies interleaved, each chain is a few dozen instructions behind the previous one and they
//! make progress at once.
//!
//! Each copy computes exactly what the single-vector loop computes for its columns, so results
//! are bitwise those of the plain loop (`tests/ulp.rs` checks lanes against tails). Values
//! computed once per row (constants, row values, broadcast loads and what depends only on them)
//! are shared by all copies.
//!
//! Phases that reduce are copied too, keeping their results bitwise: each reduction becomes one
//! entry per copy, in copy order, on the same row slot (so on the same accumulators, see
//! `regalloc::plan_phase`). Sums add copy 0's vector, then copy 1's, ...: lane `j` of an
//! accumulator sees the row's elements `j, j + W, j + 2W, ...` in exactly the single-vector
//! loop's order. Max/min first combine the copies (see `Emitter::acc_steps`), which picks the
//! same element as the sequential chain and shortens its latency chain by the number of copies.

use crate::loop_ir::{ColStride, Inst, Kernel, Phase, Reduce, Ty, V};
use crate::regalloc::{Loc, PhasePlan};

/// The most copies to try (`RYNAMO_JIT_UNROLL=<n>`; 0 or 1 turn the interleaving off, to
/// measure it). Default 4.
pub fn max_copies() -> usize {
    static N: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *N.get_or_init(|| {
        std::env::var("RYNAMO_JIT_UNROLL")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(4)
    })
}

/// A phase with its body copied.
pub struct Copied {
    /// The copied phase (copies interleaved; hoistable nodes once).
    pub phase: Phase,
    /// Its plan.
    pub plan: PhasePlan,
    /// How many copies (vectors per iteration).
    pub copies: usize,
    /// Per node of `phase`: which copy it belongs to (copy `c` works `c` vectors on).
    pub copy_of_node: Vec<u8>,
    /// Per store of `phase`: which copy it stores.
    pub copy_of_store: Vec<u8>,
}

/// `p` with its body in `copies` interleaved copies (`None` for fewer than two). `hoisted` marks
/// the nodes the single plan hoists. Reductions become one entry per copy, grouped by reduction
/// and in copy order (see the module docs).
pub fn copy(p: &Phase, hoisted: &[bool], copies: usize) -> Option<(Phase, Vec<u8>, Vec<u8>)> {
    if copies < 2 {
        return None;
    }
    let n = p.body.len();
    let mut maps = vec![vec![0 as V; n]; copies];
    let mut body = Vec::with_capacity(copies * n);
    let mut copy_of_node = Vec::with_capacity(copies * n);
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
        for c in 0..copies {
            if c > 0 && hoisted[i] {
                maps[c][i] = maps[0][i];
                continue;
            }
            let mut x = *node;
            x.inst = remap(node.inst, &maps[c]);
            maps[c][i] = body.len() as V;
            body.push(x);
            copy_of_node.push(c as u8);
        }
    }
    let mut stores = Vec::with_capacity(copies * p.stores.len());
    let mut copy_of_store = Vec::with_capacity(copies * p.stores.len());
    for &(acc, v) in &p.stores {
        for (c, map) in maps.iter().enumerate() {
            stores.push((acc, map[v as usize]));
            copy_of_store.push(c as u8);
        }
    }
    let reduces = p
        .reduces
        .iter()
        .flat_map(|r| {
            maps.iter().map(move |map| Reduce {
                value: map[r.value as usize],
                ..*r
            })
        })
        .collect();
    let phase = Phase {
        body,
        reduces,
        stores,
        // Row stores run once, after the single-vector loop and the tail.
        row_stores: Vec::new(),
    };
    Some((phase, copy_of_node, copy_of_store))
}

/// Per node of `p`: the access of a contiguous f32 load, which a spilled value reloads from its
/// source instead of a spill slot (see `Emitter::remat`).
pub fn rematerializable(k: &Kernel, p: &Phase) -> Vec<Option<u32>> {
    p.body
        .iter()
        .map(|n| match n.inst {
            Inst::Load(a)
                if n.ty == Ty::F32
                    && k.accesses[a as usize].ty == Ty::F32
                    && k.accesses[a as usize].col == ColStride::Contig =>
            {
                Some(a)
            }
            _ => None,
        })
        .collect()
}

/// The most copies of vector phase `p` (planned as `plan`) that [`max_copies`] allows and that
/// spill no more per-element values than `plan` does; `plan_phase` plans a copied phase.
pub fn plan(
    k: &Kernel,
    p: &Phase,
    plan: &PhasePlan,
    plan_phase: impl Fn(&Kernel, &Phase) -> PhasePlan,
) -> Option<Copied> {
    let mut hoisted = vec![false; p.body.len()];
    for &v in &plan.order[..plan.hoisted] {
        hoisted[v as usize] = true;
    }
    // Spilled per-row values and loads are one L1 load per use; spills of other per-element
    // values (a store and a load each) would cost more than the overlap gains.
    let spilled = |p: &Phase, plan: &PhasePlan| {
        let remat = rematerializable(k, p);
        plan.order[plan.hoisted..]
            .iter()
            .filter(|&&v| {
                remat[v as usize].is_none()
                    && matches!(plan.alloc.locs[v as usize], Some(Loc::Slot(_)))
            })
            .count()
    };
    [4, 3, 2]
        .into_iter()
        .filter(|&c| c <= max_copies())
        .find_map(|copies| {
            let (phase, copy_of_node, copy_of_store) = copy(p, &hoisted, copies)?;
            let plan2 = plan_phase(k, &phase);
            (spilled(&phase, &plan2) <= spilled(p, plan)).then_some(Copied {
                phase,
                plan: plan2,
                copies,
                copy_of_node,
                copy_of_store,
            })
        })
}
