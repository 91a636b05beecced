//! The JIT's f32 transcendentals (exp, log, sin, cos, tanh, sigmoid, erf) written once, over a
//! small set of vector primitives ([`VecMath`], and [`VecTrig`]'s branches for sin and cos) that
//! each target's emitter implements (`x64/math.rs` and `x64/trig.rs`, `aarch64/math.rs`). One
//! algorithm per function on every target; coefficients and the derivations are in
//! [`crate::poly`].
//!
//! Invariants the targets keep:
//! - A primitive computes the same value on every target that has FMA (AVX2, AVX-512, NEON): the
//!   same IEEE operations in the same order, so the functions give the same bits there
//!   (`src/tests/math_bits.rs`). Where a target has a faster form of one step (`vscalefps` for
//!   `p * 2^k` on AVX-512) it is a primitive with the same result, not a second algorithm. SSE2
//!   has no FMA: its `fma*` round twice and [`VecMath::square_error`] is zero there, so its
//!   results may differ in the last bits (`tests/ulp.rs` holds it to its own bounds). erf is the
//!   exception: it fuses nothing, so that it computes eager's `erf_f32` bit for bit on every
//!   target, SSE2 included (`tests/erf_bits.rs`; see `log_erf.rs` for why). One known
//!   gap: sin and cos's f64 reduction (vectors with a lane above `poly::TRIG_FAST`) adds
//!   `q * lo` unfused on x86-64 vectors and fused on NEON and x86-64 scalars, which could differ
//!   in the last bit of an f64 that then rounds to f32 at a tie; no sweep has found one.
//! - Register contract: the temporaries are the five registers [`VecMath::T`] plus four scratch
//!   vectors in the frame (slots 0-3); `src` is read before any temporary is written and `d`
//!   is written last, so either may be a temporary or alias the other.
//! - Packed and scalar widths run the same sequence, so a vector lane and a scalar tail element
//!   get identical results (`tests/ulp.rs`).

mod exp;
mod log_erf;
pub mod nonpos;
mod trig;

pub use exp::{exp, exp_nonneg, exp_nonpos, sigmoid, tanh};
pub use log_erf::{erf, log};
pub(crate) use trig::forward_labels;
pub use trig::{Bound, VecTrig, trig};

use crate::loop_ir::UOp;
use crate::poly::K;

/// Float and bitwise binary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs, reason = "the IEEE operation of the same name")]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    /// `min(a, b)`: x86's `minps` returns `b` when either is NaN, NEON's `fmin` NaN, so a
    /// caller keeps the operand that may be NaN in `b`.
    Min,
    /// `max(a, b)`, as `Min`.
    Max,
    And,
    Or,
    Xor,
}

/// Integer operations on 32-bit lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs, reason = "the operation of the same name")]
pub enum IOp {
    Add,
    Sub,
}

/// Shifts of 32-bit lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shift {
    /// Left.
    Left,
    /// Logical right.
    Right,
    /// Arithmetic right.
    RightArith,
}

impl Shift {
    /// The targets' `Asm::shift` kind: 0 left, 1 logical right, 2 arithmetic right.
    pub fn kind(self) -> u8 {
        match self {
            Shift::Left => 0,
            Shift::Right => 1,
            Shift::RightArith => 2,
        }
    }
}

/// Float comparisons (all-ones lanes where true).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs, reason = "the predicate of the same name")]
pub enum Pred {
    Eq,
    Lt,
    Le,
    /// Not less-or-equal: greater than, or unordered.
    Nle,
    Unord,
}

/// A constant of [`crate::poly`]'s table: a named entry or an erf polynomial coefficient.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct C(pub i32);

impl From<K> for C {
    fn from(k: K) -> C {
        C(crate::poly::off(k))
    }
}

impl C {
    /// The coefficient of degree `i` of erf's polynomial `p` (eager's constants).
    pub fn erf(p: crate::poly::ErfPoly, i: usize) -> C {
        C(crate::poly::erf_coef_off(p, i))
    }
}

/// A target's emitter `e` at operand width `w`: what each target implements [`VecMath`] for.
pub struct At<'a, E, W> {
    /// The emitter.
    pub e: &'a mut E,
    /// The width every primitive emits at.
    pub w: W,
}

/// The primitives, on vector registers (`u8`, the target's numbering) at the width the
/// implementor was made for. `d` may alias any source unless said otherwise.
pub trait VecMath {
    /// The temporaries `T0..T4`.
    const T: [u8; 5];
    /// `d = a`.
    fn mov(&mut self, d: u8, a: u8);
    /// `d = 0`.
    fn zero(&mut self, d: u8);
    /// `d = c` (every lane).
    fn ld(&mut self, d: u8, c: C);
    /// `d = a op b`.
    fn f(&mut self, op: Op, d: u8, a: u8, b: u8);
    /// `d = a op c`.
    fn fk(&mut self, op: Op, d: u8, a: u8, c: C);
    /// `d = a op slot`.
    fn f_slot(&mut self, op: Op, d: u8, a: u8, slot: u8);
    /// `d = a * b + c`, fused (see the module docs for SSE2).
    fn fma(&mut self, d: u8, a: u8, b: u8, c: u8);
    /// `d = a * b + k`, fused.
    fn fma_k(&mut self, d: u8, a: u8, b: u8, k: C);
    /// `d = d + a * k`, fused.
    fn fma_acc_k(&mut self, d: u8, a: u8, k: C);
    /// `d = a op b` on int32 lanes.
    fn i(&mut self, op: IOp, d: u8, a: u8, b: u8);
    /// `d = a op k` on int32 lanes.
    fn ik(&mut self, op: IOp, d: u8, a: u8, k: C);
    /// `d = a shifted by n` on int32 lanes.
    fn shift(&mut self, s: Shift, d: u8, a: u8, n: u8);
    /// `d = float(a)`, `a` int32 lanes.
    fn cvt_i2f(&mut self, d: u8, a: u8);
    /// Scratch vector `slot` (0-3) = `r`.
    fn save(&mut self, slot: u8, r: u8);
    /// `r` = scratch vector `slot`.
    fn restore(&mut self, r: u8, slot: u8);
    /// `d = (a pred k)`, all-ones lanes where true.
    fn cmp_k(&mut self, p: Pred, d: u8, a: u8, k: C);
    /// `d = mask ? t : f`, `mask` from [`VecMath::cmp_k`].
    fn blend(&mut self, d: u8, f: u8, t: u8, mask: u8);
    /// `d = (a pred b) ? t : f`; `tmp` is clobbered (it may be any of the others but `d`).
    fn select(&mut self, p: Pred, dft: (u8, u8, u8), a: u8, b: u8, tmp: u8);
    /// `d = (a pred k) ? t : f`; `tmp` as in [`VecMath::select`].
    fn select_k(&mut self, p: Pred, dft: (u8, u8, u8), a: u8, k: C, tmp: u8);
    /// `kf` = `x` rounded to the nearest integer (ties to even) as a float, and, unless
    /// [`VecMath::scalef`] does the scaling, `ki` the same as int32.
    fn round_nearest(&mut self, kf: u8, ki: u8, x: u8);
    /// Whether `out = p * 2^kf` (`kf` an integral float) is one instruction here, rounded once;
    /// when it is, emits it and returns true. Otherwise the integer exponent arithmetic of
    /// [`exp`] does it, with the same result.
    fn scalef(&mut self, out: u8, p: u8, kf: u8) -> bool;
    /// A register whose lanes make [`VecMath::blend`] pick `t` where `x`'s sign bit is set:
    /// `x` itself where blends read only the sign bit, else `tmp` (written).
    fn sign_mask(&mut self, tmp: u8, x: u8) -> u8;
    /// Whether [`VecMath::sign_mask`] of a source that survives the temporaries should still
    /// read it from a scratch slot (where `tmp` is written in place anyway).
    fn sign_mask_reloads(&self) -> bool;
    /// `d = a * a - sq` exactly (`sq` the rounded square of `a`), with FMA; `0` without it.
    fn square_error(&mut self, d: u8, a: u8, sq: u8);
}

/// The [`VecMath`] methods that are one call of the target assembler's method of the same
/// shape, for an implementor with fields `e` (the emitter, its assembler `e.a`) and `w` (the
/// width), a method `k(C) -> Mem` (a table constant) and a function `scratch(e, slot) -> Mem`.
macro_rules! forward_primitives {
    () => {
        fn mov(&mut self, d: u8, a: u8) {
            self.e.a.mov(d, a);
        }

        fn zero(&mut self, d: u8) {
            self.e.a.zero(d);
        }

        fn f(&mut self, op: Op, d: u8, a: u8, b: u8) {
            self.e.a.f(op, self.w, d, a, b);
        }

        fn fk(&mut self, op: Op, d: u8, a: u8, c: C) {
            let m = self.k(c);
            self.e.a.fm(op, self.w, d, a, m);
        }

        fn f_slot(&mut self, op: Op, d: u8, a: u8, slot: u8) {
            let m = scratch(self.e, slot);
            self.e.a.fm(op, self.w, d, a, m);
        }

        fn fma(&mut self, d: u8, a: u8, b: u8, c: u8) {
            self.e.a.fma(self.w, d, a, b, c);
        }

        fn fma_k(&mut self, d: u8, a: u8, b: u8, k: C) {
            let m = self.k(k);
            self.e.a.fma_m(self.w, d, a, b, m);
        }
    };
}
pub(crate) use forward_primitives;

/// Emits `d = op(src)` for the transcendentals written here.
pub fn emit<M: VecMath>(m: &mut M, op: UOp, d: u8, src: u8) {
    match op {
        UOp::Exp => exp(m, d, src),
        UOp::Log => log(m, d, src),
        UOp::Tanh => tanh(m, d, src),
        UOp::Sigmoid => sigmoid(m, d, src),
        UOp::Erf => erf(m, d, src),
        _ => unreachable!("invariant: only exp, log, tanh, sigmoid and erf reach vmath::emit"),
    }
}

/// Horner: `acc = (...(acc * z + k0) * z + k1)...`, fused.
fn horner<M: VecMath>(m: &mut M, acc: u8, z: u8, ks: &[K]) {
    for &k in ks {
        m.fma_k(acc, acc, z, k.into());
    }
}
