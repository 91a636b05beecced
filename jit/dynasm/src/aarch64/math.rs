//! Vectorised f32 math on AArch64: exp, log, sin, cos, tanh, sigmoid and erf, in 4-lane or
//! scalar form with the same operation sequence (fused multiply-adds in both), so a vector lane
//! and a scalar tail element get identical results. The algorithms are the x86-64 ones step for
//! step (see `x64/math.rs`); coefficients are in [`crate::poly`].
//!
//! Register contract: temporaries are v23-v29 (`T0..T6`) plus four scratch vectors in the frame;
//! the source is read before any temporary is written and the destination is written last, so
//! either may be a temporary or alias each other.

use dynasmrt::{DynasmApi, DynasmLabelApi};

use super::asm::{Cmp, F, I, K0, K1, Mem, SP, W, a64};
use super::emit::Emitter;
use crate::loop_ir::UOp;
use crate::poly::{self, K};

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
        UOp::Exp => exp_into(e, w, d, src),
        UOp::Log => log(e, w, d, src),
        UOp::Sin => trig(e, w, d, src, false),
        UOp::Cos => trig(e, w, d, src, true),
        UOp::Tanh => tanh(e, w, d, src),
        UOp::Sigmoid => sigmoid(e, w, d, src),
        UOp::Erf => erf(e, w, d, src),
        _ => unreachable!("invariant: only transcendentals reach math::emit"),
    }
}

fn scratch(e: &Emitter<'_>, i: u32) -> Mem {
    Mem {
        base: SP,
        disp: e.frame.math + 16 * i,
    }
}

/// Table entry into a register (all lanes).
fn ld(e: &mut Emitter<'_>, d: u8, k: K) {
    let m = e.tab(k);
    e.a.load(W::Ps, d, m);
}

fn save(e: &mut Emitter<'_>, m: Mem, r: u8) {
    e.a.store(W::Ps, m, r);
}

fn restore(e: &mut Emitter<'_>, r: u8, m: Mem) {
    e.a.load(W::Ps, r, m);
}

/// Round to nearest even into `kf` (float) and `ki` (int32) from `x` (already scaled).
fn round_both(e: &mut Emitter<'_>, w: W, kf: u8, ki: u8, x: u8) {
    e.a.round(w, kf, x, 0);
    e.a.cvt_f2i(ki, kf, true);
}

/// `out = e^src`: range reduction by `k ln2`, degree-6 polynomial (`poly`), scaling by `2^k` in two
/// halves so results down in the denormals round once.
pub fn exp_into(e: &mut Emitter<'_>, w: W, out: u8, src: u8) {
    e.a.mov(T0, src);
    ld(e, T1, K::ExpHi);
    e.a.f(F::Min, w, T0, T1, T0);
    ld(e, T1, K::ExpLo);
    e.a.f(F::Max, w, T0, T1, T0);
    let m = e.tab(K::Log2e);
    e.a.fm(F::Mul, w, T1, T0, m);
    round_both(e, w, T1, T2, T1);
    ld(e, T4, K::NegLn2Hi);
    e.a.fma(w, T3, T1, T4, T0);
    ld(e, T4, K::NegLn2Lo);
    e.a.fma(w, T3, T1, T4, T3);
    ld(e, T4, K::Exp6);
    for k in [K::Exp5, K::Exp4, K::Exp3, K::Exp2, K::One, K::One] {
        let m = e.tab(k);
        e.a.fma_m(w, T4, T4, T3, m);
    }
    e.a.shift(2, T1, T2, 1);
    e.a.i(I::Sub, T2, T2, T1);
    let m = e.tab(K::Int127);
    e.a.im(I::Add, T1, T1, m);
    e.a.im(I::Add, T2, T2, m);
    e.a.shift(0, T1, T1, 23);
    e.a.shift(0, T2, T2, 23);
    e.a.f(F::Mul, w, T4, T4, T1);
    e.a.f(F::Mul, w, out, T4, T2);
}

/// `1/(1+e)` for `x >= 0` and `e/(1+e)` below, with `e = exp(-|x|) <= 1`: one division.
fn sigmoid(e: &mut Emitter<'_>, w: W, d: u8, src: u8) {
    let x = scratch(e, 0);
    save(e, x, src);
    let m = e.tab(K::AbsMask);
    e.a.fm(F::And, w, T0, src, m);
    let m = e.tab(K::NegZero);
    e.a.fm(F::Xor, w, T0, T0, m);
    exp_into(e, w, T4, T0);
    let m = e.tab(K::One);
    e.a.fm(F::Add, w, T3, T4, m);
    // One division, its numerator picked by the sign of x (as on x86-64).
    ld(e, T2, K::One);
    restore(e, T0, x);
    e.a.zero(T1);
    e.a.cmp(w, Cmp::Lt, T1, T0, T1);
    e.a.blend(T2, T2, T4, T1);
    e.a.f(F::Div, w, d, T2, T3);
}

fn log(e: &mut Emitter<'_>, w: W, d: u8, src: u8) {
    let x = scratch(e, 0);
    save(e, x, src);
    e.a.mov(T0, src);
    // Denormals: scale by 2^23 and take 23 off the exponent.
    let m = e.tab(K::FltMin);
    e.a.cmp_m(w, Cmp::Lt, T1, T0, m);
    let m = e.tab(K::Pow2_23);
    e.a.fm(F::Mul, w, T2, T0, m);
    e.a.blend(T0, T0, T2, T1);
    let m = e.tab(K::LogNeg23);
    e.a.fm(F::And, w, T1, T1, m);
    // Exponent and mantissa in [1, 2), then [sqrt(1/2), sqrt(2)).
    e.a.shift(1, T2, T0, 23);
    let m = e.tab(K::Int127);
    e.a.im(I::Sub, T2, T2, m);
    let m = e.tab(K::MantMask);
    e.a.fm(F::And, w, T3, T0, m);
    let m = e.tab(K::One);
    e.a.fm(F::Or, w, T3, T3, m);
    let m = e.tab(K::Sqrt2);
    e.a.cmp_m(w, Cmp::Nle, T4, T3, m);
    let m = e.tab(K::Half);
    e.a.fm(F::Mul, w, T0, T3, m);
    e.a.blend(T3, T3, T0, T4);
    let m = e.tab(K::IntOne);
    e.a.fm(F::And, w, T0, T4, m);
    e.a.i(I::Add, T2, T2, T0);
    e.a.cvt_i2f(T2, T2);
    e.a.f(F::Add, w, T2, T2, T1);
    // s = (m-1)/(m+1); log m = 2s + 2 s z P(z).
    let one = e.tab(K::One);
    e.a.fm(F::Sub, w, T0, T3, one);
    e.a.fm(F::Add, w, T1, T3, one);
    e.a.f(F::Div, w, T0, T0, T1);
    e.a.f(F::Mul, w, T1, T0, T0);
    ld(e, T3, K::Log11);
    for k in [K::Log9, K::Log7, K::Log5, K::Log3] {
        let m = e.tab(k);
        e.a.fma_m(w, T3, T3, T1, m);
    }
    e.a.f(F::Mul, w, T3, T3, T1);
    e.a.f(F::Mul, w, T3, T3, T0);
    e.a.f(F::Add, w, T3, T3, T3);
    let m = e.tab(K::Ln2Lo);
    e.a.fm(F::Mul, w, T4, T2, m);
    e.a.f(F::Add, w, T3, T3, T4);
    e.a.f(F::Add, w, T0, T0, T0);
    e.a.f(F::Add, w, T3, T3, T0);
    let m = e.tab(K::Ln2Hi);
    e.a.fm(F::Mul, w, T4, T2, m);
    e.a.f(F::Add, w, T3, T3, T4);
    // Specials: x < 0 -> NaN, 0 -> -inf, inf -> inf, NaN -> NaN.
    restore(e, T0, x);
    e.a.zero(T1);
    e.a.cmp(w, Cmp::Lt, T2, T0, T1);
    ld(e, T4, K::Nan);
    e.a.blend(T3, T3, T4, T2);
    e.a.cmp(w, Cmp::Eq, T2, T0, T1);
    ld(e, T4, K::NegInf);
    e.a.blend(T3, T3, T4, T2);
    ld(e, T1, K::Inf);
    e.a.cmp(w, Cmp::Eq, T2, T0, T1);
    e.a.blend(T3, T3, T1, T2);
    e.a.cmp(w, Cmp::Unord, T2, T0, T0);
    e.a.blend(d, T3, T0, T2);
}

fn trig(e: &mut Emitter<'_>, w: W, d: u8, src: u8, cos: bool) {
    let (slow, done) = (e.a.label(), e.a.label());
    let m = e.tab(K::AbsMask);
    e.a.fm(F::And, w, T0, src, m);
    let m = e.tab(K::TrigLimit);
    e.a.cmp_m(w, Cmp::Nle, T0, T0, m);
    e.a.jump_if_any(w, T0, slow);
    e.a.mov(T0, src);
    let m = e.tab(K::TwoOverPi);
    e.a.fm(F::Mul, w, T1, T0, m);
    round_both(e, w, T1, T2, T1);
    // q = -0 would turn x = -0 into +0 below; -0 + 0 = +0.
    let m = e.tab(K::Zero);
    e.a.fm(F::Add, w, T1, T1, m);
    reduce_pio2(e, w);
    e.a.cvt_f2i(T2, T1, true);
    if cos {
        let m = e.tab(K::IntOne);
        e.a.im(I::Add, T2, T2, m);
    }
    e.a.f(F::Mul, w, T1, T0, T0);
    ld(e, T3, K::Sin9);
    for k in [K::Sin7, K::Sin5, K::Sin3] {
        let m = e.tab(k);
        e.a.fma_m(w, T3, T3, T1, m);
    }
    e.a.f(F::Mul, w, T3, T3, T1);
    e.a.fma(w, T3, T3, T0, T0);
    ld(e, T4, K::Cos10);
    for k in [K::Cos8, K::Cos6, K::Cos4, K::Cos2, K::One] {
        let m = e.tab(k);
        e.a.fma_m(w, T4, T4, T1, m);
    }
    // r + r z P(z) is +0 for r = -0; keep the signed zero.
    if !cos {
        e.a.zero(T1);
        e.a.cmp(w, Cmp::Eq, T1, T0, T1);
        e.a.blend(T3, T3, T0, T1);
    }
    // Quadrant: odd -> cos polynomial; bit 1 -> negate.
    let m = e.tab(K::IntOne);
    e.a.fm(F::And, w, T0, T2, m);
    e.a.im(I::CmpEq, T0, T0, m);
    e.a.blend(T1, T3, T4, T0);
    let m = e.tab(K::IntTwo);
    e.a.fm(F::And, w, T0, T2, m);
    e.a.shift(0, T0, T0, 30);
    e.a.f(F::Xor, w, d, T1, T0);
    a64!(e.a.ops ; b =>done);
    e.a.bind(slow);
    let buf = Mem {
        base: SP,
        disp: e.frame.call,
    };
    e.a.store(W::Ps, buf, src);
    e.save_all();
    let lanes = if w == W::Ps { 4 } else { 1 };
    e.a.imm(0, u64::from(e.frame.call));
    a64!(e.a.ops ; add x0, sp, x0 ; movz x1, lanes ; movz x2, u32::from(cos));
    e.a.call(crate::helpers::trig_lanes as unsafe extern "C" fn(*mut f32, usize, usize) as usize);
    e.restore_all();
    e.a.load(W::Ps, d, buf);
    e.a.bind(done);
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

fn tanh(e: &mut Emitter<'_>, w: W, d: u8, src: u8) {
    let (x, big) = (scratch(e, 0), scratch(e, 1));
    save(e, x, src);
    let m = e.tab(K::AbsMask);
    e.a.fm(F::And, w, T0, src, m);
    e.a.f(F::Add, w, T1, T0, T0);
    exp_into(e, w, T4, T1);
    let m = e.tab(K::One);
    e.a.fm(F::Add, w, T4, T4, m);
    ld(e, T3, K::Two);
    e.a.f(F::Div, w, T3, T3, T4);
    ld(e, T4, K::One);
    e.a.f(F::Sub, w, T4, T4, T3);
    save(e, big, T4);
    restore(e, T0, x);
    e.a.f(F::Mul, w, T1, T0, T0);
    ld(e, T3, K::Tanh15);
    for k in [K::Tanh13, K::Tanh11, K::Tanh9, K::Tanh7, K::Tanh5, K::Tanh3] {
        let m = e.tab(k);
        e.a.fma_m(w, T3, T3, T1, m);
    }
    e.a.f(F::Mul, w, T3, T3, T1);
    e.a.fma(w, T3, T3, T0, T0);
    // x + x z P(z) is +0 for x = -0; keep the signed zero.
    e.a.zero(T1);
    e.a.cmp(w, Cmp::Eq, T1, T0, T1);
    e.a.blend(T3, T3, T0, T1);
    let m = e.tab(K::NegZero);
    e.a.fm(F::And, w, T2, T0, m);
    restore(e, T4, big);
    e.a.f(F::Or, w, T4, T4, T2);
    let m = e.tab(K::AbsMask);
    e.a.fm(F::And, w, T1, T0, m);
    let m = e.tab(K::TanhSmall);
    e.a.cmp_m(w, Cmp::Lt, T1, T1, m);
    e.a.blend(d, T4, T3, T1);
}

fn erf(e: &mut Emitter<'_>, w: W, d: u8, src: u8) {
    let (x, a, tmp) = (scratch(e, 0), scratch(e, 1), scratch(e, 2));
    save(e, x, src);
    let m = e.tab(K::AbsMask);
    e.a.fm(F::And, w, T0, src, m);
    save(e, a, T0);
    // e^{-a^2} with a^2 = hi + lo exactly (FMA), as e^{-hi} (1 - lo).
    e.a.f(F::Mul, w, T1, T0, T0);
    let m = e.tab(K::NegZero);
    e.a.fm(F::Xor, w, T2, T1, m);
    e.a.fma(w, T2, T0, T0, T2);
    save(e, tmp, T2);
    let m = e.tab(K::NegZero);
    e.a.fm(F::Xor, w, T1, T1, m);
    exp_into(e, w, T4, T1);
    restore(e, T3, tmp);
    ld(e, T2, K::One);
    e.a.f(F::Sub, w, T2, T2, T3);
    e.a.f(F::Mul, w, T4, T4, T2);
    save(e, tmp, T4);
    // Q(t) by Clenshaw, t = (2a - 5) / 3.
    restore(e, T0, a);
    let m = e.tab(K::ErfA);
    e.a.fm(F::Mul, w, T0, T0, m);
    let m = e.tab(K::ErfB);
    e.a.fm(F::Add, w, T0, T0, m);
    e.a.f(F::Add, w, T1, T0, T0);
    e.a.zero(T2);
    e.a.zero(T3);
    for k in (1..=poly::ERF_CHEB_DEGREE).rev() {
        let m = cheb(e, k);
        e.a.fma_m(w, T4, T1, T2, m);
        e.a.f(F::Sub, w, T4, T4, T3);
        e.a.mov(T3, T2);
        e.a.mov(T2, T4);
    }
    e.a.f(F::Mul, w, T4, T0, T2);
    e.a.f(F::Sub, w, T4, T4, T3);
    let m = cheb(e, 0);
    e.a.fm(F::Add, w, T4, T4, m);
    restore(e, T3, tmp);
    e.a.f(F::Mul, w, T4, T4, T3);
    ld(e, T3, K::One);
    e.a.f(F::Sub, w, T4, T3, T4);
    // a >= 4 -> 1.
    restore(e, T0, a);
    ld(e, T2, K::ErfBig);
    e.a.cmp(w, Cmp::Le, T1, T2, T0);
    ld(e, T2, K::One);
    e.a.blend(T4, T4, T2, T1);
    save(e, tmp, T4);
    // Small: x P(x^2).
    restore(e, T0, x);
    e.a.f(F::Mul, w, T1, T0, T0);
    ld(e, T3, K::ErfT10);
    for k in [
        K::ErfT9,
        K::ErfT8,
        K::ErfT7,
        K::ErfT6,
        K::ErfT5,
        K::ErfT4,
        K::ErfT3,
        K::ErfT2,
        K::ErfT1,
        K::ErfT0,
    ] {
        let m = e.tab(k);
        e.a.fma_m(w, T3, T3, T1, m);
    }
    e.a.f(F::Mul, w, T3, T3, T0);
    let m = e.tab(K::NegZero);
    e.a.fm(F::And, w, T2, T0, m);
    restore(e, T4, tmp);
    e.a.f(F::Or, w, T4, T4, T2);
    restore(e, T1, a);
    let m = e.tab(K::ErfSmall);
    e.a.cmp_m(w, Cmp::Lt, T1, T1, m);
    e.a.blend(d, T4, T3, T1);
}

fn cheb(e: &Emitter<'_>, k: usize) -> Mem {
    let mut m = e.tab(K::Zero);
    m.disp = poly::cheb_off(k) as u32;
    m
}
