//! The AArch64 (NEON) primitives of [`crate::vmath`], which writes exp, log, sin, cos, tanh,
//! sigmoid and erf once for every target. A 4-lane and a scalar width run the same sequence
//! (fused multiply-adds in both), so a vector lane and a scalar tail element get identical
//! results.
//!
//! Register contract (`vmath`'s): temporaries are v23-v27 (`T0..T4`) plus four scratch vectors
//! in the frame, and the reserved `K0`/`K1` of `asm.rs`; the source is read before any temporary
//! is written and the destination is written last, so either may be a temporary or alias each
//! other.

use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi};

use super::asm::{Cmp, I, K0, K1, Mem, SP, W, X9, a64};
use super::emit::Emitter;
use crate::loop_ir::UOp;
use crate::poly::K;
use crate::vmath::{self, At, Bound, C, IOp, Op, Pred, Shift, VecMath, VecTrig};

const T0: u8 = 23;
const T1: u8 = 24;
const T2: u8 = 25;
const T3: u8 = 26;
const T4: u8 = 27;
/// A temporary the instruction selector may borrow outside math sequences.
pub(super) const T6: u8 = 29;

/// Emits `d = op(src)`.
pub fn emit(e: &mut Emitter<'_>, op: UOp, w: W, d: u8, src: u8) {
    match op {
        UOp::Sin => vmath::trig(&mut NeonMath { e, w }, d, src, false, None),
        UOp::Cos => vmath::trig(&mut NeonMath { e, w }, d, src, true, None),
        _ => vmath::emit(&mut NeonMath { e, w }, op, d, src),
    }
}

/// `out = e^src` for `src <= 0` (or NaN): [`vmath::exp_nonpos`], softmax's exp
/// (`vmath/nonpos.rs`).
pub fn exp_nonpos(e: &mut Emitter<'_>, w: W, out: u8, src: u8) {
    vmath::exp_nonpos(&mut NeonMath { e, w }, out, src);
}

fn scratch(e: &Emitter<'_>, i: u8) -> Mem {
    Mem {
        base: SP,
        disp: e.frame.math + 16 * u32::from(i),
    }
}

/// The primitives at width `w`. Constants and scratch operands are loaded into `K0` first (NEON
/// has no load-op forms); integer and bitwise operations use the full 128-bit forms.
type NeonMath<'a, 'k> = At<'a, Emitter<'k>, W>;

impl NeonMath<'_, '_> {
    fn k(&self, c: C) -> Mem {
        let mut m = self.e.tab(K::Zero);
        m.disp = c.0 as u32;
        m
    }
}

fn i_op(op: IOp) -> I {
    match op {
        IOp::Add => I::Add,
        IOp::Sub => I::Sub,
    }
}

fn cmp(p: Pred) -> Cmp {
    match p {
        Pred::Eq => Cmp::Eq,
        Pred::Lt => Cmp::Lt,
        Pred::Le => Cmp::Le,
        Pred::Nle => Cmp::Nle,
        Pred::Unord => Cmp::Unord,
    }
}

impl VecMath for NeonMath<'_, '_> {
    const T: [u8; 5] = [T0, T1, T2, T3, T4];

    vmath::forward_primitives!();

    fn ld(&mut self, d: u8, c: C) {
        let m = self.k(c);
        self.e.a.load(W::Ps, d, m);
    }

    fn fma_acc_k(&mut self, d: u8, a: u8, k: C) {
        let m = self.k(k);
        self.e.a.load(W::Ps, K0, m);
        self.e.a.fma(self.w, d, a, K0, d);
    }

    fn i(&mut self, op: IOp, d: u8, a: u8, b: u8) {
        self.e.a.i(i_op(op), d, a, b);
    }

    fn ik(&mut self, op: IOp, d: u8, a: u8, k: C) {
        let m = self.k(k);
        self.e.a.im(i_op(op), d, a, m);
    }

    fn shift(&mut self, s: Shift, d: u8, a: u8, n: u8) {
        self.e.a.shift(s.kind(), d, a, u32::from(n));
    }

    fn cvt_i2f(&mut self, d: u8, a: u8) {
        self.e.a.cvt_i2f(d, a);
    }

    fn save(&mut self, slot: u8, r: u8) {
        let m = scratch(self.e, slot);
        self.e.a.store(W::Ps, m, r);
    }

    fn restore(&mut self, r: u8, slot: u8) {
        let m = scratch(self.e, slot);
        self.e.a.load(W::Ps, r, m);
    }

    fn cmp_k(&mut self, p: Pred, d: u8, a: u8, k: C) {
        let m = self.k(k);
        self.e.a.cmp_m(self.w, cmp(p), d, a, m);
    }

    fn blend(&mut self, d: u8, f: u8, t: u8, mask: u8) {
        self.e.a.blend(d, f, t, mask);
    }

    fn select(&mut self, p: Pred, (d, f, t): (u8, u8, u8), a: u8, b: u8, tmp: u8) {
        self.e.a.cmp(self.w, cmp(p), tmp, a, b);
        self.e.a.blend(d, f, t, tmp);
    }

    fn select_k(&mut self, p: Pred, (d, f, t): (u8, u8, u8), a: u8, k: C, tmp: u8) {
        self.cmp_k(p, tmp, a, k);
        self.e.a.blend(d, f, t, tmp);
    }

    fn round_nearest(&mut self, kf: u8, ki: u8, x: u8) {
        self.e.a.round(self.w, kf, x, 0);
        self.e.a.cvt_f2i(ki, kf, true);
    }

    fn scalef(&mut self, _out: u8, _p: u8, _kf: u8) -> bool {
        false
    }

    /// `bsl` takes whole-lane masks: the sign spread by an arithmetic shift.
    fn sign_mask(&mut self, tmp: u8, x: u8) -> u8 {
        self.e.a.shift(2, tmp, x, 31);
        tmp
    }

    fn sign_mask_reloads(&self) -> bool {
        false
    }

    fn square_error(&mut self, d: u8, a: u8, sq: u8) {
        self.fk(Op::Xor, d, sq, K::NegZero.into());
        self.e.a.fma(self.w, d, a, a, d);
    }
}

impl VecTrig for NeonMath<'_, '_> {
    type Slot = Mem;

    vmath::forward_labels!();

    fn jump(&mut self, l: DynamicLabel) {
        a64!(self.e.a.ops ; b =>l);
    }

    /// `bits(|a|) + bias` has its sign bit set exactly where `|a| > bound` (`poly::bias_above`):
    /// the sign bits, their lanes' maximum into `x9` for `cbnz` (nothing between touches `x9`).
    fn test_above(&mut self, t: u8, a: u8, bound: Bound) {
        let bias = match bound {
            Bound::Fast => K::TrigFastBias,
            Bound::Limit => K::TrigLimitBias,
        };
        self.fk(Op::And, t, a, K::AbsMask.into());
        self.ik(IOp::Add, t, t, bias.into());
        self.e.a.shift(1, t, t, 31);
        if self.w == W::Ps {
            a64!(self.e.a.ops ; umaxv S(K0), V(t).S4 ; fmov W(X9), S(K0));
        } else {
            a64!(self.e.a.ops ; fmov W(X9), S(t));
        }
    }

    fn jump_if_above(&mut self, l: DynamicLabel) {
        a64!(self.e.a.ops ; cbnz W(X9), =>l);
    }

    fn fused(&self) -> bool {
        true
    }

    fn reduce_pio2_f64(&mut self) {
        reduce_pio2(self.e, self.w);
    }

    fn or_sign_fused(&mut self, _d: u8, _a: u8) -> bool {
        false
    }

    fn quadrant_fused(&mut self, _d: u8, _q: u8) -> bool {
        false
    }

    fn store_slot(&mut self, slot: Mem, r: u8) {
        self.e.a.store(W::Ps, slot, r);
    }

    fn library(&mut self, d: u8, src: u8, cos: bool, other: Option<Mem>) {
        assert!(other.is_none(), "invariant: NEON does not pair sin and cos");
        let e = &mut *self.e;
        let buf = Mem {
            base: SP,
            disp: e.frame.call,
        };
        e.a.store(W::Ps, buf, src);
        e.save_all();
        let lanes = if self.w == W::Ps { 4 } else { 1 };
        e.a.imm(0, u64::from(e.frame.call));
        a64!(e.a.ops ; add x0, sp, x0 ; movz x1, lanes ; movz x2, u32::from(cos));
        e.a.call(
            crate::helpers::trig_lanes as unsafe extern "C" fn(*mut f32, usize, usize) as usize,
        );
        e.restore_all();
        e.a.load(W::Ps, d, buf);
    }
}

/// `T0 = x - q * pi/2` computed in f64 (exact product with the 33-bit `hi`), from `x` in `T0` and
/// the float quotient `q` in `T1` (kept); uses `T2..T4`, `K0`, `K1`.
fn reduce_pio2(e: &mut Emitter<'_>, w: W) {
    let (hi, lo) = (e.tab(K::NegPio2HiD), e.tab(K::NegPio2LoD));
    if w == W::Ps {
        e.a.load(W::Ps, K0, hi);
        e.a.load(W::Ps, K1, lo);
        a64!(e.a.ops
            ; fcvtl V(T2).D2, V(T0).S2 ; fcvtl V(T3).D2, V(T1).S2
            ; fmla V(T2).D2, V(T3).D2, V(K0).D2 ; fmla V(T2).D2, V(T3).D2, V(K1).D2
            ; fcvtl2 V(T3).D2, V(T0).S4 ; fcvtl2 V(T4).D2, V(T1).S4
            ; fmla V(T3).D2, V(T4).D2, V(K0).D2 ; fmla V(T3).D2, V(T4).D2, V(K1).D2
            ; fcvtn V(T0).S2, V(T2).D2 ; fcvtn2 V(T0).S4, V(T3).D2
        );
    } else {
        e.a.load(W::Sd, K0, hi);
        e.a.load(W::Sd, K1, lo);
        a64!(e.a.ops
            ; fcvt D(T2), S(T0) ; fcvt D(T3), S(T1)
            ; fmadd D(T2), D(T3), D(K0), D(T2) ; fmadd D(T2), D(T3), D(K1), D(T2)
            ; fcvt S(T0), D(T2)
        );
    }
}
