//! Linear-scan register allocation for one phase (Poletto and Sarkar), shared by all targets.
//!
//! The phase is linearised as `hoisted ++ loop`. Values defined before the loop and read in it
//! live to the loop's end, so one location per value stays valid across iterations. A value that
//! does not get a register lives in a stack slot for its whole life (no splitting): the emitter
//! reloads it into a scratch register at each use.

use std::collections::HashMap;

use crate::loop_ir::{BOp, ColStride, Inst, Kernel, Phase, Ty, UOp, V};

/// Where a value lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loc {
    /// A register from the pool (its hardware number).
    Reg(u8),
    /// A stack slot index.
    Slot(u32),
}

/// The allocation of one phase.
#[derive(Clone, Debug)]
pub struct Alloc {
    /// Location per value (`None` for values never computed, e.g. dead ones).
    pub locs: Vec<Option<Loc>>,
    /// Stack slots used.
    pub slots: u32,
}

/// Allocates `order` (emission order; the first `hoisted` entries run once before the loop) from
/// `pool`. `uses[v]` lists the positions in `order` where `v` is read; `end` is the position of
/// the loop's end (stores and reductions read there).
pub fn allocate(
    n_values: usize,
    order: &[V],
    hoisted: usize,
    uses: &[Vec<usize>],
    pool: &[u8],
) -> Alloc {
    let end = order.len();
    let mut pos = vec![usize::MAX; n_values];
    for (i, &v) in order.iter().enumerate() {
        pos[v as usize] = i;
    }
    // (start, end, value)
    let mut intervals: Vec<(usize, usize, V)> = Vec::new();
    for &v in order {
        let s = pos[v as usize];
        let mut e = uses[v as usize].iter().copied().max().unwrap_or(s);
        if s < hoisted && uses[v as usize].iter().any(|&u| u >= hoisted) {
            e = end;
        }
        intervals.push((s, e, v));
    }
    let mut locs = vec![None; n_values];
    let mut free: Vec<u8> = pool.iter().rev().copied().collect();
    let mut active: Vec<(usize, V, u8)> = Vec::new();
    let mut slots = 0u32;
    for &(s, e, v) in &intervals {
        // A value whose last read is this instruction frees its register for the result.
        active.retain(|&(ae, _, r)| {
            if ae <= s && ae != usize::MAX {
                free.push(r);
                false
            } else {
                true
            }
        });
        if let Some(r) = free.pop() {
            locs[v as usize] = Some(Loc::Reg(r));
            active.push((e, v, r));
            continue;
        }
        // Spill whichever lives longest: the newcomer or the furthest active interval.
        let (idx, &(fe, fv, fr)) = active
            .iter()
            .enumerate()
            .max_by_key(|(_, a)| a.0)
            .expect("invariant: no free register means some are active");
        if fe > e {
            locs[fv as usize] = Some(Loc::Slot(slots));
            slots += 1;
            active.remove(idx);
            locs[v as usize] = Some(Loc::Reg(fr));
            active.push((e, v, fr));
        } else {
            locs[v as usize] = Some(Loc::Slot(slots));
            slots += 1;
        }
    }
    Alloc { locs, slots }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_registers_and_spills_the_longest() {
        // v0 lives to the end; v1 and v2 overlap it, so one of the three spills.
        let uses = vec![vec![4], vec![3], vec![3], vec![4], vec![]];
        let a = allocate(5, &[0, 1, 2, 3, 4], 0, &uses, &[0, 1]);
        assert!(a.locs.iter().all(Option::is_some));
        let regs = a
            .locs
            .iter()
            .filter(|l| matches!(l, Some(Loc::Reg(_))))
            .count();
        assert!(regs >= 3, "{a:?}");
        assert!(a.slots >= 1);
    }

    #[test]
    fn hoisted_values_live_across_the_loop() {
        // v0 hoisted, read at 2; v1 and v2 in the loop may not take v0's register.
        let uses = vec![vec![2], vec![2], vec![]];
        let a = allocate(3, &[0, 1, 2], 1, &uses, &[0, 1, 2]);
        assert_ne!(a.locs[0], a.locs[1]);
        assert_ne!(a.locs[0], a.locs[2]);
    }
}

/// Whether `p` can run in vector mode: f32 values and lane masks only (bools load and store as
/// bytes widened to and narrowed from masks), no strided or scalar-call nodes, contiguous f32 and
/// bool stores; rounding only where the target has a vector instruction for it
/// (`vector_rounding`: AVX2's `vroundps`, NEON's `frint*`; SSE2 calls the library).
pub fn vectorizable(k: &Kernel, p: &Phase, vector_rounding: bool) -> bool {
    let ty = |v: V| p.body[v as usize].ty;
    let nodes_ok = p.body.iter().all(|n| {
        let f32_or_mask = matches!(n.ty, Ty::F32 | Ty::Bool);
        f32_or_mask
            && match n.inst {
                Inst::Load(a) => {
                    let acc = k.accesses[a as usize];
                    acc.ty == n.ty && acc.col != ColStride::Strided
                }
                Inst::Const(_) => n.ty == Ty::F32,
                Inst::RowVal(s) => k.slots[s as usize] == Ty::F32,
                Inst::Unary(op, a) => match op {
                    UOp::Floor | UOp::Ceil | UOp::Trunc | UOp::Round => vector_rounding,
                    UOp::Not => ty(a) == Ty::Bool,
                    _ => ty(a) == Ty::F32,
                },
                Inst::Binary(op, a, _) => match op {
                    BOp::And | BOp::Or | BOp::Xor => ty(a) == Ty::Bool,
                    _ => ty(a) == Ty::F32,
                },
                Inst::Select(_, a, _) => ty(a) == Ty::F32,
                Inst::Cast(a) => matches!((ty(a), n.ty), (Ty::F32, Ty::Bool) | (Ty::Bool, Ty::F32)),
                Inst::Call1(..) | Inst::Call2(..) => false,
            }
    });
    nodes_ok
        && p.reduces.iter().all(|r| ty(r.value) == Ty::F32)
        && p.stores.iter().all(|&(a, v)| {
            let acc = k.accesses[a as usize];
            matches!(acc.ty, Ty::F32 | Ty::Bool) && acc.col == ColStride::Contig && ty(v) == acc.ty
        })
}

/// Per-phase decisions, the same for every target: emission order (hoisted values first),
/// register allocation from the target's pool, reduction accumulator pairs, and the base
/// registers of the first accesses.
#[derive(Clone, Debug)]
pub struct PhasePlan {
    /// Whether the phase runs in vector mode.
    pub vector: bool,
    /// Emission order: the first `hoisted` values run once before the loop.
    pub order: Vec<V>,
    /// How many of `order` are hoisted.
    pub hoisted: usize,
    /// Locations.
    pub alloc: Alloc,
    /// Two accumulator registers per reduction (reductions into one slot share them).
    pub accs: Vec<(u8, u8)>,
    /// Access -> base register (accesses past the register budget have none).
    pub bases: HashMap<u32, u8>,
}

/// Values computable once before the loop: constants, row values, broadcast loads, and what
/// depends only on those.
fn hoistable(k: &Kernel, p: &Phase) -> Vec<bool> {
    let mut h = vec![false; p.body.len()];
    for (i, n) in p.body.iter().enumerate() {
        h[i] = match n.inst {
            Inst::Const(_) | Inst::RowVal(_) => true,
            Inst::Load(a) => k.accesses[a as usize].col == ColStride::Broadcast,
            inst => inst.operands().iter().all(|&o| h[o as usize]),
        };
    }
    h
}

/// Plans phase `p` of `k` for a target with register `pool` (the last `2 * reductions` go to
/// accumulators) and `access_regs` for access base pointers.
pub fn plan_phase(
    k: &Kernel,
    p: &Phase,
    vector: bool,
    pool: &[u8],
    access_regs: &[u8],
) -> PhasePlan {
    let h = hoistable(k, p);
    let mut order: Vec<V> = (0..p.body.len() as V).filter(|&v| h[v as usize]).collect();
    let hoisted = order.len();
    order.extend((0..p.body.len() as V).filter(|&v| !h[v as usize]));
    let mut pos = vec![0; p.body.len()];
    for (i, &v) in order.iter().enumerate() {
        pos[v as usize] = i;
    }
    let mut uses = vec![Vec::new(); p.body.len()];
    for &v in &order {
        for o in p.body[v as usize].inst.operands() {
            uses[o as usize].push(pos[v as usize]);
        }
    }
    for r in &p.reduces {
        uses[r.value as usize].push(order.len());
    }
    for &(_, v) in &p.stores {
        uses[v as usize].push(order.len());
    }
    // One accumulator pair per row slot: reductions into the same slot (the copies of an
    // unrolled body, see `x64/unroll.rs`) share it.
    let mut slots: Vec<u32> = Vec::new();
    for r in &p.reduces {
        if !slots.contains(&r.slot) {
            slots.push(r.slot);
        }
    }
    let n_acc = 2 * slots.len();
    let (body_pool, acc_pool) = pool.split_at(pool.len() - n_acc);
    let alloc = allocate(p.body.len(), &order, hoisted, &uses, body_pool);
    let pairs: Vec<(u8, u8)> = acc_pool.chunks(2).map(|c| (c[0], c[1])).collect();
    let accs = p
        .reduces
        .iter()
        .map(|r| {
            let i = slots
                .iter()
                .position(|&s| s == r.slot)
                .expect("invariant: every slot was collected above");
            pairs[i]
        })
        .collect();
    let mut bases = HashMap::new();
    let used = p
        .body
        .iter()
        .filter_map(|n| match n.inst {
            Inst::Load(a) => Some(a),
            _ => None,
        })
        .chain(p.stores.iter().map(|s| s.0));
    for a in used {
        if !bases.contains_key(&a) && bases.len() < access_regs.len() {
            bases.insert(a, access_regs[bases.len()]);
        }
    }
    PhasePlan {
        vector,
        order,
        hoisted,
        alloc,
        accs,
        bases,
    }
}
