//! Per-phase planning for the AArch64 emitter: whether a phase runs in vector mode, which values
//! are hoisted out of the column loop, register allocation over the pool, accumulator registers
//! for reductions and base registers for accesses.

use std::collections::HashMap;

use super::emit::{ACCESS_REGS, POOL};
use crate::loop_ir::{BOp, ColStride, Inst, Kernel, Phase, Ty, UOp, V};
use crate::regalloc;

/// Per-phase decisions.
pub(super) struct PhasePlan {
    pub(super) vector: bool,
    pub(super) order: Vec<V>,
    pub(super) hoisted: usize,
    pub(super) alloc: regalloc::Alloc,
    pub(super) accs: Vec<(u8, u8)>,
    pub(super) bases: HashMap<u32, u8>,
}

/// Whether `p` can run in vector mode.
fn vectorizable(k: &Kernel, p: &Phase) -> bool {
    let ty = |v: V| p.body[v as usize].ty;
    let nodes_ok = p.body.iter().all(|n| {
        matches!(n.ty, Ty::F32 | Ty::Bool)
            && match n.inst {
                Inst::Load(a) => {
                    let acc = k.accesses[a as usize];
                    acc.ty == Ty::F32 && acc.col != ColStride::Strided
                }
                Inst::Const(_) => n.ty == Ty::F32,
                Inst::RowVal(s) => k.slots[s as usize] == Ty::F32,
                Inst::Unary(UOp::Not, a) => ty(a) == Ty::Bool,
                Inst::Unary(_, a) => ty(a) == Ty::F32,
                Inst::Binary(BOp::And | BOp::Or | BOp::Xor, a, _) => ty(a) == Ty::Bool,
                Inst::Binary(_, a, _) | Inst::Select(_, a, _) => ty(a) == Ty::F32,
                Inst::Cast(a) => matches!((ty(a), n.ty), (Ty::F32, Ty::Bool) | (Ty::Bool, Ty::F32)),
                Inst::Call1(..) | Inst::Call2(..) => false,
            }
    });
    nodes_ok
        && p.reduces.iter().all(|r| ty(r.value) == Ty::F32)
        && p.stores.iter().all(|&(a, v)| {
            let acc = k.accesses[a as usize];
            acc.ty == Ty::F32 && acc.col == ColStride::Contig && ty(v) == Ty::F32
        })
}

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

pub(super) fn plan_phase(k: &Kernel, p: &Phase) -> PhasePlan {
    let vector = vectorizable(k, p);
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
    let n_acc = 2 * p.reduces.len();
    let (body_pool, acc_pool) = POOL.split_at(POOL.len() - n_acc);
    let alloc = regalloc::allocate(p.body.len(), &order, hoisted, &uses, body_pool);
    let accs = acc_pool.chunks(2).map(|c| (c[0], c[1])).collect();
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
        if !bases.contains_key(&a) && bases.len() < ACCESS_REGS.len() {
            let r = ACCESS_REGS[bases.len()];
            bases.insert(a, r);
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
