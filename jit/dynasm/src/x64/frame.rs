//! What [`super::emit`] decides before emitting a kernel: per phase, whether it runs in vector
//! mode, its plan (emission order, registers), its unrolled copy, and which values get a frame
//! slot per row; then the frame's layout, sized for the largest of them.

use super::div;
use super::trig;
use super::unroll::{self, Copied};
use crate::loop_ir::{Kernel, MAX_REDUCES, Phase, V};
use crate::regalloc::{self, PhasePlan};

/// Base-pointer registers of a phase's first six accesses (rsi, rdi, r8-r11).
const ACCESS_REGS: [u8; 6] = [6, 7, 8, 9, 10, 11];
/// Allocatable vector registers.
const POOL: [u8; 10] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

/// Offset in the argument block of access `a`'s base pointer.
pub(super) fn ptr_off(a: usize) -> i32 {
    (32 + 24 * a) as i32
}
/// ... of its row stride in bytes.
pub(super) fn rs_off(a: usize) -> i32 {
    (40 + 24 * a) as i32
}
/// ... of its column stride in bytes.
pub(super) fn cs_off(a: usize) -> i32 {
    (48 + 24 * a) as i32
}

/// Stack frame offsets (from rsp, aligned to the slot size). Every slot is `vs` bytes, one vector
/// register ([`Asm::slot`]: 32 on SSE2 and AVX2, 64 on AVX-512), so that slots stay aligned.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    /// Bytes per slot.
    pub vs: i32,
    /// One vector per row slot (reductions' results).
    pub(super) rows: i32,
    /// The first phase's row slots for the next row, while the current row's last phase still
    /// reads `rows` (see `emit.rs`: the first phase runs one row ahead). Row-slot sized; unused
    /// when the kernel does not run ahead.
    pub(super) ahead: i32,
    /// One vector per spill slot.
    pub(super) spill: i32,
    /// Math scratch (4 vectors).
    pub math: i32,
    /// One vector per shared sin/cos pair (see `trig.rs`).
    pub(super) trig: i32,
    /// One vector per hoisted divisor's reciprocal (see `div.rs`).
    pub(super) recip: i32,
    /// Every vector register, around calls.
    pub(super) save: i32,
    /// The caller-saved GP registers, around calls.
    pub(super) gp_save: i32,
    /// Argument/result scratch for calls (1 vector).
    pub call: i32,
    /// Total bytes.
    pub(super) size: i32,
}

impl Frame {
    pub(super) fn new(
        vs: i32,
        row_slots: usize,
        spills: u32,
        trig_pairs: usize,
        divisors: usize,
    ) -> Frame {
        let rows = 0;
        let ahead = rows + vs * row_slots as i32;
        let spill = ahead + vs * row_slots as i32;
        let math = spill + vs * spills as i32;
        let trig = math + vs * 4;
        let recip = trig + vs * trig_pairs as i32;
        let save = recip + vs * divisors as i32;
        let gp_save = save + vs * 16;
        let call = gp_save + 64;
        Frame {
            vs,
            rows,
            ahead,
            spill,
            math,
            trig,
            recip,
            save,
            gp_save,
            call,
            size: call + vs,
        }
    }
}

/// Values of one phase (or its unrolled copy) that get a frame slot per row.
#[derive(Clone, Debug, Default)]
pub(super) struct SlotUsers {
    /// Shared sin/cos pairs (`trig.rs`).
    pub pairs: Vec<(V, V)>,
    /// Hoisted divisors whose reciprocal is kept (`div.rs`).
    pub divisors: Vec<V>,
}

impl SlotUsers {
    fn of(p: &Phase, plan: &PhasePlan, avx: bool) -> SlotUsers {
        SlotUsers {
            pairs: trig::pairs(p, &plan.order, plan.hoisted),
            divisors: div::divisors(p, plan, avx),
        }
    }
}

/// One phase ready to emit.
pub(super) struct Prepared {
    /// Its plan.
    pub plan: PhasePlan,
    /// Its slot users.
    pub slots: SlotUsers,
    /// Its unrolled copy (several vectors per iteration) and that copy's slot users.
    pub copied: Option<(Copied, SlotUsers)>,
}

/// Plans every phase of `k` and lays out the frame (`vs` bytes per slot).
pub(super) fn prepare(k: &Kernel, avx: bool, vs: i32) -> Result<(Vec<Prepared>, Frame), String> {
    if k.phases.iter().any(|p| p.reduces.len() > MAX_REDUCES) {
        return Err("too many reductions in one phase".into());
    }
    let plan_of = |p: &Phase, vector| regalloc::plan_phase(k, p, vector, &POOL, &ACCESS_REGS);
    let phases: Vec<Prepared> = k
        .phases
        .iter()
        .map(|p| {
            let plan = plan_of(p, regalloc::vectorizable(k, p, avx));
            let copied = if avx && plan.vector {
                unroll::plan(k, p, &plan, |_, p| plan_of(p, true))
            } else {
                None
            };
            Prepared {
                slots: SlotUsers::of(p, &plan, avx),
                copied: copied.map(|d| {
                    let slots = SlotUsers::of(&d.phase, &d.plan, avx);
                    (d, slots)
                }),
                plan,
            }
        })
        .collect();
    let all = || {
        phases.iter().flat_map(|q| {
            std::iter::once((&q.plan, &q.slots)).chain(q.copied.as_ref().map(|(d, s)| (&d.plan, s)))
        })
    };
    let frame = Frame::new(
        vs,
        k.slots.len(),
        all().map(|(p, _)| p.alloc.slots).max().unwrap_or(0),
        all().map(|(_, s)| s.pairs.len()).max().unwrap_or(0),
        all().map(|(_, s)| s.divisors.len()).max().unwrap_or(0),
    );
    Ok((phases, frame))
}
