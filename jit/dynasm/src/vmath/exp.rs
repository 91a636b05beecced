//! exp in its three forms (any `x`; `x <= 0`; `x >= 0`), and the two functions built on it,
//! sigmoid and tanh.

use super::{C, IOp, Op, Pred, Shift, VecMath, horner};
use crate::poly::K;

/// The polynomial of `e^r` on `|r| <= ln2/2`: `p = 1 + r + r^2 g(r)` by Horner from `Exp6`, in
/// `p` (`r` kept).
fn exp_poly<M: VecMath>(m: &mut M, p: u8, r: u8) {
    m.ld(p, K::Exp6.into());
    horner(
        m,
        p,
        r,
        &[K::Exp5, K::Exp4, K::Exp3, K::Exp2, K::One, K::One],
    );
}

/// `out = e^src`: clamp to `[-104, 89]`, `k` = nearest integer of `x log2 e`, `r = x - k ln2`
/// (two FMAs, `ln2 = hi + lo`), degree-6 polynomial (`poly`), then `p * 2^k` in two halves
/// (`2^(k - k/2)`, `2^(k/2)`) so results down in the denormals round once.
pub fn exp<M: VecMath>(m: &mut M, out: u8, src: u8) {
    let [t0, t1, t2, t3, t4] = M::T;
    m.mov(t0, src);
    // min/max return their second operand for NaN: keep x there.
    m.ld(t1, K::ExpHi.into());
    m.f(Op::Min, t0, t1, t0);
    m.ld(t1, K::ExpLo.into());
    m.f(Op::Max, t0, t1, t0);
    m.fk(Op::Mul, t1, t0, K::Log2e.into());
    m.round_nearest(t1, t2, t1);
    m.ld(t4, K::NegLn2Hi.into());
    m.fma(t3, t1, t4, t0);
    m.ld(t4, K::NegLn2Lo.into());
    m.fma(t3, t1, t4, t3);
    exp_poly(m, t4, t3);
    if m.scalef(out, t4, t1) {
        return;
    }
    // k = (k - (k >> 1)) + (k >> 1), each half a power of two built in the exponent field.
    m.shift(Shift::RightArith, t1, t2, 1);
    m.i(IOp::Sub, t2, t2, t1);
    m.ik(IOp::Add, t1, t1, K::Int127.into());
    m.ik(IOp::Add, t2, t2, K::Int127.into());
    m.shift(Shift::Left, t1, t1, 23);
    m.shift(Shift::Left, t2, t2, 23);
    m.f(Op::Mul, t4, t4, t1);
    m.f(Op::Mul, out, t4, t2);
}

/// `out = e^src` for `src <= 0` (or NaN): sigmoid's, and softmax's `exp(x - max x)` (x86-64's
/// `nonpos.rs`). As [`exp`] computes it but without its upper clamp, `k` from adding
/// `1.5 * 2^23` in one FMA (which leaves it in the low mantissa bits: `<< 23` puts it in the
/// exponent field), and scaled by `2^(k+64)` then `2^-64` (one multiply fewer than two halves;
/// the first is exact, the second rounds once, so the value is the same).
pub fn exp_nonpos<M: VecMath>(m: &mut M, out: u8, src: u8) {
    exp_lean(m, out, src, false);
}

/// `out = e^min(src, 88)` for `src >= 0` (or NaN): tanh's `e^{2|x|}`, where anything past
/// `e^88` gives the same `tanh` (1.0). As [`exp_nonpos`], but the result is normal, so one
/// scaling by `2^k` (`k <= 127`) is exact.
pub fn exp_nonneg<M: VecMath>(m: &mut M, out: u8, src: u8) {
    exp_lean(m, out, src, true);
}

fn exp_lean<M: VecMath>(m: &mut M, out: u8, src: u8, nonneg: bool) {
    let [t0, t1, t2, _, t4] = M::T;
    m.mov(t0, src);
    // min/max return their second operand for NaN: keep x there.
    if nonneg {
        m.ld(t1, K::ExpNonnegHi.into());
        m.f(Op::Min, t0, t1, t0);
    } else {
        m.ld(t1, K::ExpLo.into());
        m.f(Op::Max, t0, t1, t0);
    }
    m.ld(t1, K::Log2e.into());
    let magic = C::from(K::RoundMagic);
    m.fma_k(t1, t1, t0, magic);
    m.fk(Op::Sub, t2, t1, magic);
    m.fma_acc_k(t0, t2, K::NegLn2Hi.into());
    m.fma_acc_k(t0, t2, K::NegLn2Lo.into());
    exp_poly(m, t4, t0);
    if m.scalef(out, t4, t2) {
        return;
    }
    m.shift(Shift::Left, t1, t1, 23);
    if nonneg {
        // + bits(1.0) = 127 << 23: 2^k.
        m.ik(IOp::Add, t1, t1, K::One.into());
        m.f(Op::Mul, out, t4, t1);
    } else {
        m.ik(IOp::Add, t1, t1, K::ExpScaleBias.into());
        m.f(Op::Mul, t4, t4, t1);
        m.fk(Op::Mul, out, t4, K::Pow2Neg64.into());
    }
}

/// `1/(1+e)` for `x >= 0` and `e/(1+e)` below, with `e = exp(-|x|) <= 1`: no overflow,
/// accurate down into the denormals, one division whose numerator the sign of `x` picks. One
/// rounding fewer than `e * (1/(1+e))`, and one multiply fewer.
pub fn sigmoid<M: VecMath>(m: &mut M, d: u8, src: u8) {
    let [t0, _, t2, t3, t4] = M::T;
    let keep = M::T.contains(&src) || m.sign_mask_reloads();
    if keep {
        m.save(0, src);
    }
    m.fk(Op::Or, t0, src, K::NegZero.into());
    exp_nonpos(m, t4, t0);
    m.fk(Op::Add, t3, t4, K::One.into());
    m.ld(t2, K::One.into());
    let x = if keep {
        m.restore(t0, 0);
        t0
    } else {
        src
    };
    let mask = m.sign_mask(t0, x);
    m.blend(t2, t2, t4, mask);
    m.f(Op::Div, d, t2, t3);
}

/// `tanh(x)` on `a = |x|` with the sign put back last: the odd polynomial rounds symmetrically,
/// so `sign | P(a)` is bitwise `P(x)`, and `a = +0` keeps `-0`'s sign. Below `a = 0.5`
/// `a + a z P(z)` (`z = a^2`), above `1 - 2/(e^{2a} + 1)`. (Through the `x <= 0` exp as
/// `1 - 2t/(1 + t)`, `t = e^{-2a}`, it measured 2.1 ulp on AVX2, over the bound;
/// `(1 - t)/(1 + t)` 2.2 ulp.)
pub fn tanh<M: VecMath>(m: &mut M, d: u8, src: u8) {
    let [t0, t1, t2, t3, t4] = M::T;
    let (a, big, sign) = (0, 1, 2);
    m.fk(Op::And, t1, src, K::NegZero.into());
    m.save(sign, t1);
    m.fk(Op::And, t2, src, K::AbsMask.into());
    m.save(a, t2);
    m.f(Op::Add, t1, t2, t2);
    exp_nonneg(m, t4, t1);
    m.fk(Op::Add, t4, t4, K::One.into());
    m.ld(t3, K::Two.into());
    m.f(Op::Div, t3, t3, t4);
    m.ld(t4, K::One.into());
    m.f(Op::Sub, t3, t4, t3);
    m.save(big, t3);
    m.restore(t0, a);
    m.f(Op::Mul, t1, t0, t0);
    m.ld(t3, K::Tanh15.into());
    horner(
        m,
        t3,
        t1,
        &[K::Tanh13, K::Tanh11, K::Tanh9, K::Tanh7, K::Tanh5, K::Tanh3],
    );
    m.f(Op::Mul, t3, t3, t1);
    m.fma(t3, t3, t0, t0);
    m.restore(t4, big);
    m.select_k(Pred::Lt, (t3, t4, t3), t0, K::TanhSmall.into(), t1);
    m.f_slot(Op::Or, d, t3, sign);
}
