//! Per-phase planning for the AArch64 emitter: whether a phase runs in vector mode, which values
//! are hoisted out of the column loop, register allocation over the pool, accumulator registers
//! for reductions and base registers for accesses.

use super::emit::{ACCESS_REGS, POOL};
use crate::loop_ir::{BOp, ColStride, Inst, Kernel, Phase, Ty, UOp, V};
use crate::regalloc;
pub(super) use crate::regalloc::PhasePlan;

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

pub(super) fn plan_phase(k: &Kernel, p: &Phase) -> PhasePlan {
    regalloc::plan_phase(k, p, vectorizable(k, p), &POOL, &ACCESS_REGS)
}
