//! Vectorised f32 math on x86-64: exp, log, tanh, sigmoid and erf (sin and cos: `trig.rs`), in packed (8 or 4
//! lanes) or scalar form with the same operation sequence, so a vector lane and a scalar tail
//! element get identical results. Algorithms and coefficients are in [`crate::poly`].
//!
//! Register contract: temporaries are xmm11-15 (`T0..T4`) plus four scratch vectors in the frame;
//! the source is read before any temporary is written and the destination is written last, so
//! either may be a temporary or alias each other.

use super::asm::{F, I, Mem, W};
use super::emit::Emitter;
use crate::loop_ir::UOp;
use crate::poly::{self, K};

pub(super) const T0: u8 = 11;
pub(super) const T1: u8 = 12;
pub(super) const T2: u8 = 13;
pub(super) const T3: u8 = 14;
pub(super) const T4: u8 = 15;

/// Emits `d = op(src)`.
pub fn emit(e: &mut Emitter<'_>, op: UOp, w: W, d: u8, src: u8) {
    match op {
        UOp::Exp => exp_into(e, w, d, src),
        UOp::Log => log(e, w, d, src),
        UOp::Sin => super::trig::trig(e, w, d, src, false, None),
        UOp::Cos => super::trig::trig(e, w, d, src, true, None),
        UOp::Tanh => tanh(e, w, d, src),
        UOp::Sigmoid => sigmoid(e, w, d, src),
        UOp::Erf => erf(e, w, d, src),
        _ => unreachable!("invariant: only transcendentals reach math::emit"),
    }
}

/// Math scratch vector `i` (a full vector, never broadcast).
pub(super) fn scratch(e: &Emitter<'_>, i: i32) -> Mem {
    Mem::vec(4, e.frame.math + e.frame.vs * i)
}

pub(super) fn ld(e: &mut Emitter<'_>, w: W, d: u8, k: K) {
    let m = e.tab(k);
    e.a.load(w, d, m);
}

/// Round to nearest into `kf` (float) and `ki` (int32) from `x` (already scaled).
pub(super) fn round_both(e: &mut Emitter<'_>, w: W, kf: u8, ki: u8, x: u8) {
    if e.a.avx() {
        e.a.round(w, kf, x, 0);
        e.a.cvt_f2i(w, ki, kf, true);
    } else {
        e.a.cvt_f2i(w, ki, x, false);
        e.a.cvt_i2f(w, kf, ki);
    }
}

/// `out = e^src`: range reduction by `k ln2`, degree-6 polynomial (`poly`), scaling by `2^k` in two
/// halves so results down in the denormals round once.
pub fn exp_into(e: &mut Emitter<'_>, w: W, out: u8, src: u8) {
    e.a.mov(T0, src);
    ld(e, w, T1, K::ExpHi);
    e.a.f(F::Min, w, T0, T1, T0);
    ld(e, w, T1, K::ExpLo);
    e.a.f(F::Max, w, T0, T1, T0);
    let m = e.tab(K::Log2e);
    e.a.fm(F::Mul, w, T1, T0, m);
    let by_scalef = scalef(e, w);
    if by_scalef {
        e.a.round(w, T1, T1, 0);
    } else {
        round_both(e, w, T1, T2, T1);
    }
    ld(e, w, T4, K::NegLn2Hi);
    e.a.fma(w, T3, T1, T4, T0);
    ld(e, w, T4, K::NegLn2Lo);
    e.a.fma(w, T3, T1, T4, T3);
    ld(e, w, T4, K::Exp6);
    for k in [K::Exp5, K::Exp4, K::Exp3, K::Exp2, K::One, K::One] {
        let m = e.tab(k);
        e.a.fma_m(w, T4, T4, T3, m);
    }
    if by_scalef {
        e.a.z_scalef(out, T4, T1);
        return;
    }
    e.a.shift(w, 2, T1, T2, 1);
    e.a.i(I::Sub, w, T2, T2, T1);
    let m = e.tab(K::Int127);
    e.a.im(I::Add, w, T1, T1, m);
    e.a.im(I::Add, w, T2, T2, m);
    e.a.shift(w, 0, T1, T1, 23);
    e.a.shift(w, 0, T2, T2, 23);
    e.a.f(F::Mul, w, T4, T4, T1);
    e.a.f(F::Mul, w, out, T4, T2);
}

/// Whether the `2^k` scaling of exp is one `vscalefps` (AVX-512 vectors): `p * 2^k` rounded once,
/// the value the integer scalings compute (their first multiply is exact and the last rounds
/// once), in one instruction instead of three to eight. Scalar tails keep the integer form.
fn scalef(e: &Emitter<'_>, w: W) -> bool {
    e.a.zmm() && w == W::Ps
}

/// `1/(1+e)` for `x >= 0` and `e/(1+e)` below, with `e = exp(-|x|) <= 1`: no overflow,
/// accurate down into the denormals, one division whose numerator the sign of `x` picks
/// (`vblendvps` reads only the sign bit, so `x` is its own mask on AVX2). One rounding fewer
/// than `e * (1/(1+e))`, and one multiply fewer.
fn sigmoid(e: &mut Emitter<'_>, w: W, d: u8, src: u8) {
    let keep = (T0..=T4).contains(&src) || !e.a.avx();
    let x = scratch(e, 0);
    if keep {
        e.a.store(w, x, src);
    }
    let m = e.tab(K::NegZero);
    e.a.fm(F::Or, w, T0, src, m);
    exp_nonpos(e, w, T4, T0);
    let m = e.tab(K::One);
    e.a.fm(F::Add, w, T3, T4, m);
    ld(e, w, T2, K::One);
    let mask = if keep {
        e.a.load(w, T0, x);
        if !e.a.avx() {
            e.a.shift(w, 2, T0, T0, 31);
        }
        T0
    } else {
        src
    };
    e.a.blend(w, T2, T2, T4, mask);
    e.a.f(F::Div, w, d, T2, T3);
}

/// `out = e^src` for `src <= 0` (or NaN): sigmoid's, and softmax's `exp(x - max x)` (see
/// [`super::nonpos`]). As [`exp_into`] computes it but without its upper clamp, and scaled by
/// `2^(k+64)` then `2^-64` (one multiply fewer than two halves; the first is exact, the second
/// rounds once, so the value is the same). `k` comes from adding `1.5 * 2^23` in one FMA, which
/// leaves it in the low mantissa bits: `<< 23` puts it in the exponent field. Clobbers `T0`-`T4`.
pub fn exp_nonpos(e: &mut Emitter<'_>, w: W, out: u8, src: u8) {
    exp_lean(e, w, out, src, false);
}

/// `out = e^min(src, 88)` for `src >= 0` (or NaN): tanh's `e^{2|x|}`, where anything past
/// `e^88` gives the same `tanh` (1.0). As [`exp_nonpos`], but the result is normal, so one
/// scaling by `2^k` (`k <= 127`) is exact. Clobbers `T0`-`T4`.
fn exp_nonneg(e: &mut Emitter<'_>, w: W, out: u8, src: u8) {
    exp_lean(e, w, out, src, true);
}

fn exp_lean(e: &mut Emitter<'_>, w: W, out: u8, src: u8, nonneg: bool) {
    e.a.mov(T0, src);
    // maxps/minps return their second operand for NaN: keep t there.
    if nonneg {
        ld(e, w, T1, K::ExpNonnegHi);
        e.a.f(F::Min, w, T0, T1, T0);
    } else {
        ld(e, w, T1, K::ExpLo);
        e.a.f(F::Max, w, T0, T1, T0);
    }
    ld(e, w, T1, K::Log2e);
    let m = e.tab(K::RoundMagic);
    e.a.fma_m(w, T1, T1, T0, m);
    e.a.fm(F::Sub, w, T2, T1, m);
    for k in [K::NegLn2Hi, K::NegLn2Lo] {
        let m = e.tab(k);
        e.a.fma_acc_m(w, T0, T2, m);
    }
    ld(e, w, T4, K::Exp6);
    for k in [K::Exp5, K::Exp4, K::Exp3, K::Exp2, K::One, K::One] {
        let m = e.tab(k);
        e.a.fma_m(w, T4, T4, T0, m);
    }
    if scalef(e, w) {
        e.a.z_scalef(out, T4, T2);
        return;
    }
    e.a.shift(w, 0, T1, T1, 23);
    if nonneg {
        // + bits(1.0) = 127 << 23: 2^k.
        let m = e.tab(K::One);
        e.a.im(I::Add, w, T1, T1, m);
        e.a.f(F::Mul, w, out, T4, T1);
    } else {
        let m = e.tab(K::ExpScaleBias);
        e.a.im(I::Add, w, T1, T1, m);
        e.a.f(F::Mul, w, T4, T4, T1);
        let m = e.tab(K::Pow2Neg64);
        e.a.fm(F::Mul, w, out, T4, m);
    }
}

fn log(e: &mut Emitter<'_>, w: W, d: u8, src: u8) {
    let x = scratch(e, 0);
    e.a.store(w, x, src);
    e.a.mov(T0, src);
    // Denormals: scale by 2^23 and take 23 off the exponent.
    let m = e.tab(K::FltMin);
    e.a.cmp_m(w, 1, T1, T0, m);
    let m = e.tab(K::Pow2_23);
    e.a.fm(F::Mul, w, T2, T0, m);
    e.a.blend(w, T0, T0, T2, T1);
    let m = e.tab(K::LogNeg23);
    e.a.fm(F::And, w, T1, T1, m);
    // Exponent and mantissa in [1, 2), then [sqrt(1/2), sqrt(2)).
    e.a.shift(w, 1, T2, T0, 23);
    let m = e.tab(K::Int127);
    e.a.im(I::Sub, w, T2, T2, m);
    let m = e.tab(K::MantMask);
    e.a.fm(F::And, w, T3, T0, m);
    let m = e.tab(K::One);
    e.a.fm(F::Or, w, T3, T3, m);
    let m = e.tab(K::Sqrt2);
    e.a.cmp_m(w, 6, T4, T3, m);
    let m = e.tab(K::Half);
    e.a.fm(F::Mul, w, T0, T3, m);
    e.a.blend(w, T3, T3, T0, T4);
    let m = e.tab(K::IntOne);
    e.a.fm(F::And, w, T0, T4, m);
    e.a.i(I::Add, w, T2, T2, T0);
    e.a.cvt_i2f(w, T2, T2);
    e.a.f(F::Add, w, T2, T2, T1);
    // s = (m-1)/(m+1); log m = 2s + 2 s z P(z).
    let one = e.tab(K::One);
    e.a.fm(F::Sub, w, T0, T3, one);
    e.a.fm(F::Add, w, T1, T3, one);
    e.a.f(F::Div, w, T0, T0, T1);
    e.a.f(F::Mul, w, T1, T0, T0);
    ld(e, w, T3, K::Log11);
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
    e.a.load(w, T0, x);
    e.a.zero(T1);
    ld(e, w, T4, K::Nan);
    e.a.cmp_blend(w, 1, (T3, T3, T4), T0, T1, T2);
    ld(e, w, T4, K::NegInf);
    e.a.cmp_blend(w, 0, (T3, T3, T4), T0, T1, T2);
    ld(e, w, T1, K::Inf);
    e.a.cmp_blend(w, 0, (T3, T3, T1), T0, T1, T2);
    e.a.cmp_blend(w, 3, (d, T3, T0), T0, T0, T2);
}

fn tanh(e: &mut Emitter<'_>, w: W, d: u8, src: u8) {
    // Both branches work on `a = |x|` and the sign goes back on last: the odd polynomial rounds
    // symmetrically, so `sign | P(a)` is bitwise the old `P(x)`, and `a = +0` keeps `-0`'s sign.
    let (a, big, sign) = (scratch(e, 0), scratch(e, 1), scratch(e, 2));
    let m = e.tab(K::NegZero);
    e.a.fm(F::And, w, T1, src, m);
    e.a.store(w, sign, T1);
    let m = e.tab(K::AbsMask);
    e.a.fm(F::And, w, T2, src, m);
    e.a.store(w, a, T2);
    // Large a: 1 - 2/(e^{2a} + 1). (Through the lean exp as 1 - 2t/(1 + t), t = e^{-2a}, it
    // measured 2.1 ulp on AVX2, over the bound; (1 - t)/(1 + t) 2.2 ulp.)
    e.a.f(F::Add, w, T1, T2, T2);
    exp_nonneg(e, w, T4, T1);
    let m = e.tab(K::One);
    e.a.fm(F::Add, w, T4, T4, m);
    ld(e, w, T3, K::Two);
    e.a.f(F::Div, w, T3, T3, T4);
    ld(e, w, T4, K::One);
    e.a.f(F::Sub, w, T3, T4, T3);
    e.a.store(w, big, T3);
    // Small a: a + a z P(z), z = a^2.
    e.a.load(w, T0, a);
    e.a.f(F::Mul, w, T1, T0, T0);
    ld(e, w, T3, K::Tanh15);
    for k in [K::Tanh13, K::Tanh11, K::Tanh9, K::Tanh7, K::Tanh5, K::Tanh3] {
        let m = e.tab(k);
        e.a.fma_m(w, T3, T3, T1, m);
    }
    e.a.f(F::Mul, w, T3, T3, T1);
    e.a.fma(w, T3, T3, T0, T0);
    let m = e.tab(K::TanhSmall);
    e.a.load(w, T4, big);
    e.a.cmp_blend_m(w, 1, (T3, T4, T3), T0, m, T1);
    e.a.fm(F::Or, w, d, T3, sign);
}

fn erf(e: &mut Emitter<'_>, w: W, d: u8, src: u8) {
    let (x, a, tmp) = (scratch(e, 0), scratch(e, 1), scratch(e, 2));
    e.a.store(w, x, src);
    let m = e.tab(K::AbsMask);
    e.a.fm(F::And, w, T0, src, m);
    e.a.store(w, a, T0);
    // e^{-a^2} with a^2 = hi + lo exactly (FMA), as e^{-hi} (1 - lo).
    e.a.f(F::Mul, w, T1, T0, T0);
    if e.a.avx() {
        let m = e.tab(K::NegZero);
        e.a.fm(F::Xor, w, T2, T1, m);
        e.a.fma(w, T2, T0, T0, T2);
    } else {
        e.a.zero(T2);
    }
    e.a.store(w, tmp, T2);
    let m = e.tab(K::NegZero);
    e.a.fm(F::Xor, w, T1, T1, m);
    exp_into(e, w, T4, T1);
    e.a.load(w, T3, tmp);
    ld(e, w, T2, K::One);
    e.a.f(F::Sub, w, T2, T2, T3);
    e.a.f(F::Mul, w, T4, T4, T2);
    e.a.store(w, tmp, T4);
    // Q(t) by Clenshaw, t = (2a - 5) / 3.
    e.a.load(w, T0, a);
    let m = e.tab(K::ErfA);
    e.a.fm(F::Mul, w, T0, T0, m);
    let m = e.tab(K::ErfB);
    e.a.fm(F::Add, w, T0, T0, m);
    e.a.f(F::Add, w, T1, T0, T0);
    e.a.zero(T2);
    e.a.zero(T3);
    for k in (1..=poly::ERF_CHEB_DEGREE).rev() {
        let m = Mem::bcast(15, poly::cheb_off(k));
        e.a.fma_m(w, T4, T1, T2, m);
        e.a.f(F::Sub, w, T4, T4, T3);
        e.a.mov(T3, T2);
        e.a.mov(T2, T4);
    }
    e.a.f(F::Mul, w, T4, T0, T2);
    e.a.f(F::Sub, w, T4, T4, T3);
    let m = Mem::bcast(15, poly::cheb_off(0));
    e.a.fm(F::Add, w, T4, T4, m);
    e.a.load(w, T3, tmp);
    e.a.f(F::Mul, w, T4, T4, T3);
    ld(e, w, T3, K::One);
    e.a.f(F::Sub, w, T4, T3, T4);
    // a >= 4 -> 1.
    e.a.load(w, T0, a);
    ld(e, w, T2, K::ErfBig);
    // T3 still holds 1.
    e.a.cmp_blend(w, 2, (T4, T4, T3), T2, T0, T1);
    e.a.store(w, tmp, T4);
    // Small: x P(x^2).
    e.a.load(w, T0, x);
    e.a.f(F::Mul, w, T1, T0, T0);
    ld(e, w, T3, K::ErfT10);
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
    e.a.load(w, T4, tmp);
    e.a.f(F::Or, w, T4, T4, T2);
    e.a.load(w, T1, a);
    let m = e.tab(K::ErfSmall);
    e.a.cmp_blend_m(w, 1, (d, T4, T3), T1, m, T1);
}
