//! Per-phase planning for the AArch64 emitter: whether a phase runs in vector mode, which values
//! are hoisted out of the column loop, register allocation over the pool, accumulator registers
//! for reductions and base registers for accesses.

use super::emit::{ACCESS_REGS, POOL};
use crate::loop_ir::{Kernel, Phase};
use crate::regalloc;
pub(super) use crate::regalloc::PhasePlan;

pub(super) fn plan_phase(k: &Kernel, p: &Phase) -> PhasePlan {
    regalloc::plan_phase(
        k,
        p,
        regalloc::vectorizable(k, p, true),
        &POOL,
        &ACCESS_REGS,
    )
}
