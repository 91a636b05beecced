//! The x86-64 primitives of [`crate::vmath`] (SSE2, AVX2, AVX-512), which writes exp, log, tanh,
//! sigmoid and erf once for every target; sin and cos are in `trig.rs`. A packed and a scalar
//! width run the same sequence, so a vector lane and a scalar tail element get identical results.
//!
//! Register contract (`vmath`'s): temporaries are xmm11-15 (`T0..T4`) plus four scratch vectors
//! in the frame; the source is read before any temporary is written and the destination is
//! written last, so either may be a temporary or alias each other.

use super::asm::{Mem, W};
use super::emit::Emitter;
use crate::loop_ir::UOp;
use crate::poly::K;
use crate::vmath::{self, At, C, IOp, Op, Pred, Shift, VecMath};

pub(super) const T0: u8 = 11;
pub(super) const T1: u8 = 12;
pub(super) const T2: u8 = 13;
pub(super) const T3: u8 = 14;
pub(super) const T4: u8 = 15;

/// Emits `d = op(src)`.
pub fn emit(e: &mut Emitter<'_>, op: UOp, w: W, d: u8, src: u8) {
    match op {
        UOp::Sin => super::trig::trig(e, w, d, src, false, None),
        UOp::Cos => super::trig::trig(e, w, d, src, true, None),
        _ => vmath::emit(&mut X64Math { e, w }, op, d, src),
    }
}

/// `out = e^src` for `src <= 0` (or NaN): [`vmath::exp_nonpos`], softmax's exp (`vmath/nonpos.rs`).
pub fn exp_nonpos(e: &mut Emitter<'_>, w: W, out: u8, src: u8) {
    vmath::exp_nonpos(&mut X64Math { e, w }, out, src);
}

/// Math scratch vector `i` (a full vector, never broadcast).
pub(super) fn scratch(e: &Emitter<'_>, i: u8) -> Mem {
    Mem::vec(4, e.frame.math + e.frame.vs * i32::from(i))
}

pub(super) fn ld(e: &mut Emitter<'_>, w: W, d: u8, k: K) {
    let m = e.tab(k);
    e.a.load(w, d, m);
}

/// The primitives at width `w`.
pub(super) type X64Math<'a, 'k> = At<'a, Emitter<'k>, W>;

impl X64Math<'_, '_> {
    fn k(&self, c: C) -> Mem {
        Mem::bcast(15, c.0)
    }

    /// Whether `p * 2^k` is one `vscalefps` (AVX-512 vectors): `p * 2^k` rounded once, the
    /// value the integer scalings compute (their first multiply is exact and the last rounds
    /// once), in one instruction instead of three to eight. Scalar tails keep the integer form.
    fn has_scalef(&self) -> bool {
        self.e.a.zmm() && self.w == W::Ps
    }
}

/// `Asm::cmp`'s immediate.
fn pred(p: Pred) -> i8 {
    match p {
        Pred::Eq => 0,
        Pred::Lt => 1,
        Pred::Le => 2,
        Pred::Unord => 3,
        Pred::Nle => 6,
    }
}

impl VecMath for X64Math<'_, '_> {
    const T: [u8; 5] = [T0, T1, T2, T3, T4];

    vmath::forward_primitives!();

    fn ld(&mut self, d: u8, c: C) {
        let m = self.k(c);
        self.e.a.load(self.w, d, m);
    }

    fn fma_acc_k(&mut self, d: u8, a: u8, k: C) {
        let m = self.k(k);
        self.e.a.fma_acc_m(self.w, d, a, m);
    }

    fn i(&mut self, op: IOp, d: u8, a: u8, b: u8) {
        self.e.a.i(op, self.w, d, a, b);
    }

    fn ik(&mut self, op: IOp, d: u8, a: u8, k: C) {
        let m = self.k(k);
        self.e.a.im(op, self.w, d, a, m);
    }

    fn shift(&mut self, s: Shift, d: u8, a: u8, n: u8) {
        self.e.a.shift(self.w, s.kind(), d, a, n as i8);
    }

    fn cvt_i2f(&mut self, d: u8, a: u8) {
        self.e.a.cvt_i2f(self.w, d, a);
    }

    fn save(&mut self, slot: u8, r: u8) {
        let m = scratch(self.e, slot);
        self.e.a.store(self.w, m, r);
    }

    fn restore(&mut self, r: u8, slot: u8) {
        let m = scratch(self.e, slot);
        self.e.a.load(self.w, r, m);
    }

    fn cmp_k(&mut self, p: Pred, d: u8, a: u8, k: C) {
        let m = self.k(k);
        self.e.a.cmp_m(self.w, pred(p), d, a, m);
    }

    fn blend(&mut self, d: u8, f: u8, t: u8, mask: u8) {
        self.e.a.blend(self.w, d, f, t, mask);
    }

    fn select(&mut self, p: Pred, dft: (u8, u8, u8), a: u8, b: u8, tmp: u8) {
        self.e.a.cmp_blend(self.w, pred(p), dft, a, b, tmp);
    }

    fn select_k(&mut self, p: Pred, dft: (u8, u8, u8), a: u8, k: C, tmp: u8) {
        let m = self.k(k);
        self.e.a.cmp_blend_m(self.w, pred(p), dft, a, m, tmp);
    }

    /// AVX: `vroundps` then an exact conversion; SSE2 (no `roundps`): `cvtps2dq` rounds to
    /// nearest even under the default MXCSR, and back.
    fn round_nearest(&mut self, kf: u8, ki: u8, x: u8) {
        let w = self.w;
        if self.has_scalef() {
            self.e.a.round(w, kf, x, 0);
        } else if self.e.a.avx() {
            self.e.a.round(w, kf, x, 0);
            self.e.a.cvt_f2i(w, ki, kf, true);
        } else {
            self.e.a.cvt_f2i(w, ki, x, false);
            self.e.a.cvt_i2f(w, kf, ki);
        }
    }

    fn scalef(&mut self, out: u8, p: u8, kf: u8) -> bool {
        if !self.has_scalef() {
            return false;
        }
        self.e.a.z_scalef(out, p, kf);
        true
    }

    /// `vblendvps` and AVX-512's `vpmovd2m` read only the sign bit; SSE2's blend takes whole-lane
    /// masks, so the sign is spread by an arithmetic shift.
    fn sign_mask(&mut self, tmp: u8, x: u8) -> u8 {
        if self.e.a.avx() {
            return x;
        }
        self.e.a.shift(self.w, 2, tmp, x, 31);
        tmp
    }

    fn sign_mask_reloads(&self) -> bool {
        !self.e.a.avx()
    }

    fn square_error(&mut self, d: u8, a: u8, sq: u8) {
        if !self.e.a.avx() {
            return self.e.a.zero(d);
        }
        self.fk(Op::Xor, d, sq, K::NegZero.into());
        self.e.a.fma(self.w, d, a, a, d);
    }
}
