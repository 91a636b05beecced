//! log and erf.

use super::{C, IOp, Op, Pred, Shift, VecMath, exp, horner};
use crate::poly::{self, K};

/// `log(x)`: denormals scaled by `2^23` first; `x = 2^e m` with `m` in `[sqrt(1/2), sqrt(2))`;
/// `log m = 2s + 2 s z P(z)`, `s = (m-1)/(m+1)`, `z = s^2`; plus `e ln2` (`ln2 = hi + lo`, the
/// low part added first). Specials: `x < 0` -> NaN, `0` -> -inf, `inf` -> inf, NaN -> NaN.
pub fn log<M: VecMath>(m: &mut M, d: u8, src: u8) {
    let [t0, t1, t2, t3, t4] = M::T;
    let x = 0;
    m.save(x, src);
    m.mov(t0, src);
    // Denormals: scale by 2^23 and take 23 off the exponent.
    m.cmp_k(Pred::Lt, t1, t0, K::FltMin.into());
    m.fk(Op::Mul, t2, t0, K::Pow2_23.into());
    m.blend(t0, t0, t2, t1);
    m.fk(Op::And, t1, t1, K::LogNeg23.into());
    // Exponent and mantissa in [1, 2), then [sqrt(1/2), sqrt(2)).
    m.shift(Shift::Right, t2, t0, 23);
    m.ik(IOp::Sub, t2, t2, K::Int127.into());
    m.fk(Op::And, t3, t0, K::MantMask.into());
    m.fk(Op::Or, t3, t3, K::One.into());
    m.cmp_k(Pred::Nle, t4, t3, K::Sqrt2.into());
    m.fk(Op::Mul, t0, t3, K::Half.into());
    m.blend(t3, t3, t0, t4);
    m.fk(Op::And, t0, t4, K::IntOne.into());
    m.i(IOp::Add, t2, t2, t0);
    m.cvt_i2f(t2, t2);
    m.f(Op::Add, t2, t2, t1);
    let one = C::from(K::One);
    m.fk(Op::Sub, t0, t3, one);
    m.fk(Op::Add, t1, t3, one);
    m.f(Op::Div, t0, t0, t1);
    m.f(Op::Mul, t1, t0, t0);
    m.ld(t3, K::Log11.into());
    horner(m, t3, t1, &[K::Log9, K::Log7, K::Log5, K::Log3]);
    m.f(Op::Mul, t3, t3, t1);
    m.f(Op::Mul, t3, t3, t0);
    m.f(Op::Add, t3, t3, t3);
    m.fk(Op::Mul, t4, t2, K::Ln2Lo.into());
    m.f(Op::Add, t3, t3, t4);
    m.f(Op::Add, t0, t0, t0);
    m.f(Op::Add, t3, t3, t0);
    m.fk(Op::Mul, t4, t2, K::Ln2Hi.into());
    m.f(Op::Add, t3, t3, t4);
    // Specials.
    m.restore(t0, x);
    m.zero(t1);
    m.ld(t4, K::Nan.into());
    m.select(Pred::Lt, (t3, t3, t4), t0, t1, t2);
    m.ld(t4, K::NegInf.into());
    m.select(Pred::Eq, (t3, t3, t4), t0, t1, t2);
    m.ld(t1, K::Inf.into());
    m.select(Pred::Eq, (t3, t3, t1), t0, t1, t2);
    m.select(Pred::Unord, (d, t3, t0), t0, t0, t2);
}

/// `erf(x)`: below `|x| = 1` `x P(x^2)`; up to 4, `1 - e^{-a^2} Q(t)` (`a = |x|`) with `Q` a
/// Chebyshev series in `t = (2a - 5) / 3` (Clenshaw) and `e^{-a^2}` as `e^{-hi} (1 - lo)` for
/// `a^2 = hi + lo`; above, 1. The sign goes back on the large branch last.
pub fn erf<M: VecMath>(m: &mut M, d: u8, src: u8) {
    let [t0, t1, t2, t3, t4] = M::T;
    let (x, a, tmp) = (0, 1, 2);
    m.save(x, src);
    m.fk(Op::And, t0, src, K::AbsMask.into());
    m.save(a, t0);
    m.f(Op::Mul, t1, t0, t0);
    m.square_error(t2, t0, t1);
    m.save(tmp, t2);
    m.fk(Op::Xor, t1, t1, K::NegZero.into());
    exp(m, t4, t1);
    m.restore(t3, tmp);
    m.ld(t2, K::One.into());
    m.f(Op::Sub, t2, t2, t3);
    m.f(Op::Mul, t4, t4, t2);
    m.save(tmp, t4);
    // Q(t) by Clenshaw: b_k = 2t b_{k+1} - b_{k+2} + c_k in t2, b_{k+1} in t3.
    m.restore(t0, a);
    m.fk(Op::Mul, t0, t0, K::ErfA.into());
    m.fk(Op::Add, t0, t0, K::ErfB.into());
    m.f(Op::Add, t1, t0, t0);
    m.zero(t2);
    m.zero(t3);
    for k in (1..=poly::ERF_CHEB_DEGREE).rev() {
        m.fma_k(t4, t1, t2, C::cheb(k));
        m.f(Op::Sub, t4, t4, t3);
        m.mov(t3, t2);
        m.mov(t2, t4);
    }
    m.f(Op::Mul, t4, t0, t2);
    m.f(Op::Sub, t4, t4, t3);
    m.fk(Op::Add, t4, t4, C::cheb(0));
    m.restore(t3, tmp);
    m.f(Op::Mul, t4, t4, t3);
    m.ld(t3, K::One.into());
    m.f(Op::Sub, t4, t3, t4);
    // a >= 4 -> 1 (t3 still holds it).
    m.restore(t0, a);
    m.ld(t2, K::ErfBig.into());
    m.select(Pred::Le, (t4, t4, t3), t2, t0, t1);
    m.save(tmp, t4);
    // Small: x P(x^2).
    m.restore(t0, x);
    m.f(Op::Mul, t1, t0, t0);
    m.ld(t3, K::ErfT10.into());
    for n in (0..10).rev() {
        m.fma_k(t3, t3, t1, C::erf_taylor(n));
    }
    m.f(Op::Mul, t3, t3, t0);
    m.fk(Op::And, t2, t0, K::NegZero.into());
    m.restore(t4, tmp);
    m.f(Op::Or, t4, t4, t2);
    m.restore(t1, a);
    m.select_k(Pred::Lt, (d, t4, t3), t1, K::ErfSmall.into(), t1);
}
