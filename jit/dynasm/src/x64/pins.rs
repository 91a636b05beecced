//! Constants pinned in registers for one vector loop.
//!
//! The math routines read their coefficients as memory operands (`[r15 + disp]`, the `poly`
//! table; `[r14 + disp]`, the kernel's constant pool). W2's exp loop reads 15 of them per vector
//! besides its 3 data loads. On cores with two 256-bit loads per cycle (AMD Zen 3) those loads,
//! not the FMA pipes, bound the loop. Vector registers the loop body never names are free for its
//! whole run, so the most-read constants move into them before the loop starts, and the body
//! reads the registers instead. Measured by alternating the two codes in one process on Zen 3
//! (AVX2): W2 -8.5% on one thread (median 4.94 against 5.40 ms), -9% on two (2.61 against 2.88);
//! its exp loop pins 5 constants. On a Sapphire Rapids-class Xeon (AVX-512, the same 16-register
//! model) no difference showed. W1's and W3's unrolled loops name all 16 registers: nothing is
//! pinned there.
//!
//! How the loop's free registers and its constant reads are found: the body is emitted once into
//! a scratch assembler, its machine code decoded with iced-x86 to list every vector register it
//! names, and each constant read counted. Decoding the code, rather than modelling the
//! allocator's choices, also catches the registers that instruction selection picks on its own
//! (math temporaries, spill reloads, the compare scratch `FIX`). A register outside that list
//! is free in the real body too: pinning only turns memory operands into register operands.
//!
//! Calls (library fallbacks) keep pins: `save_all` and `restore_all` keep every register of
//! the 16-register model, the only registers pins use. SSE2 keeps memory operands (its
//! two-operand forms gain nothing). Results are bitwise unchanged: same constants, same
//! instructions.

use dynasmrt::x64::Assembler;
use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi};
use iced_x86::{Decoder, DecoderOptions, OpKind, Register};

use super::asm::{Asm, Mem, W, x64};
use super::emit::Emitter;
use crate::loop_ir::Phase;
use crate::regalloc::PhasePlan;

/// The pinned constants of the current loop and, while surveying, the reads counted.
#[derive(Default)]
pub struct Pins {
    /// `((base, disp), register)` per pinned constant.
    held: Vec<((u8, i32), u8)>,
    /// While a body is surveyed: reads per constant.
    tally: Option<Reads>,
}

/// Reads per constant, by `(base, disp)`.
type Reads = Vec<((u8, i32), u32)>;

impl Asm {
    /// The register holding constant `m` for a packed read of width `w`, if pinned; counts the
    /// read while surveying.
    pub(super) fn pinned(&mut self, w: W, m: Mem) -> Option<u8> {
        if !m.bcast || w != W::Ps || !self.avx() {
            return None;
        }
        let key = (m.base, m.disp);
        if let Some(t) = &mut self.pins.tally {
            match t.iter_mut().find(|(k, _)| *k == key) {
                Some((_, n)) => *n += 1,
                None => t.push((key, 1)),
            }
        }
        self.pins
            .held
            .iter()
            .find(|(k, _)| *k == key)
            .map(|&(_, r)| r)
    }

    /// Ends the current loop's pins.
    pub(super) fn unpin(&mut self) {
        self.pins.held.clear();
    }
}

/// Bit `r` set for every vector register (xmm/ymm/zmm `r`) `code` names, as an operand or as a
/// gather's index.
pub fn vector_registers(code: &[u8]) -> u32 {
    let mut used = 0u32;
    let mut note = |r: Register| {
        let first = if r.is_xmm() {
            Register::XMM0
        } else if r.is_ymm() {
            Register::YMM0
        } else if r.is_zmm() {
            Register::ZMM0
        } else {
            return;
        };
        used |= 1 << (r as u32 - first as u32);
    };
    let mut d = Decoder::new(64, code, DecoderOptions::NONE);
    while d.can_decode() {
        let ins = d.decode();
        for i in 0..ins.op_count() {
            if ins.op_kind(i) == OpKind::Register {
                note(ins.op_register(i));
            }
        }
        note(ins.memory_index());
    }
    used
}

/// Whether constants are pinned (`RYNAMO_JIT_PINS=0` turns it off, to measure it).
fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("RYNAMO_JIT_PINS").map_or(true, |v| v != "0"))
}

impl Emitter<'_> {
    /// Pins the constants `p`'s vector loop reads most into the registers its body never names,
    /// most-read first, and emits their loads. The caller has set `rcx` and `r13` and passes the
    /// check that skips the loop (`skip(self)` jumps past it when it would run no iteration), so
    /// rows too short for the loop load nothing. [`Asm::unpin`] ends the pins after the loop.
    pub(super) fn pin_constants(
        &mut self,
        p: &Phase,
        plan: &PhasePlan,
        skip: impl FnOnce(&mut Self),
    ) -> Result<(), String> {
        if !self.a.avx() || !enabled() {
            return Ok(());
        }
        let Some((used, mut reads)) = self.survey(p, plan)? else {
            return Ok(());
        };
        let free: Vec<u8> = (0..16u8).filter(|r| used & (1 << r) == 0).collect();
        if free.is_empty() || reads.is_empty() {
            return Ok(());
        }
        // Most-read first; equal counts by address, so the choice is deterministic.
        reads.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        skip(self);
        for (&r, &(key, _)) in free.iter().zip(&reads) {
            self.a.load(W::Ps, r, Mem::bcast(key.0, key.1));
            self.a.pins.held.push((key, r));
        }
        Ok(())
    }

    /// The vector registers `p`'s loop body names and its constant reads, from a throwaway
    /// emission; `None` when the scratch code cannot be finished (then nothing is pinned).
    fn survey(&mut self, p: &Phase, plan: &PhasePlan) -> Result<Option<(u32, Reads)>, String> {
        debug_assert!(
            self.stubs.is_empty(),
            "invariant: stubs are made in vector loops and flushed after each"
        );
        let Ok(scratch) = Assembler::new() else {
            return Ok(None);
        };
        let real = std::mem::replace(&mut self.a.ops, scratch);
        self.a.pins.tally = Some(Vec::new());
        let emitted = self.body(p, plan, true);
        // Division stubs jump back into the body: they land in the scratch code with it.
        self.flush_stubs();
        let reads = self.a.pins.tally.take().unwrap_or_default();
        let scratch = std::mem::replace(&mut self.a.ops, real);
        emitted?;
        let Ok(code) = scratch.finalize() else {
            return Ok(None);
        };
        Ok(Some((vector_registers(&code), reads)))
    }

    /// The vector loop of `p` (`step` columns per iteration) as `phase` runs it: `r13` holds the
    /// last column an iteration may start at (`signed`: `rcx <= r13`, else `rcx < r13`),
    /// constants pinned when `pin`.
    pub(super) fn vector_loop(
        &mut self,
        p: &Phase,
        plan: &PhasePlan,
        step: i32,
        signed: bool,
        pin: bool,
    ) -> Result<(), String> {
        let (top, out) = (self.a.label(), self.a.label());
        let exit = |e: &mut Self, out: DynamicLabel| {
            if signed {
                x64!(e.a.ops ; cmp rcx, r13 ; jg =>out);
            } else {
                x64!(e.a.ops ; cmp rcx, r13 ; jae =>out);
            }
        };
        if pin {
            self.pin_constants(p, plan, |e| exit(e, out))?;
        }
        self.a.bind(top);
        exit(self, out);
        self.body(p, plan, true)?;
        x64!(self.a.ops ; add rcx, step ; jmp =>top);
        self.flush_stubs();
        self.a.bind(out);
        self.a.unpin();
        Ok(())
    }
}
