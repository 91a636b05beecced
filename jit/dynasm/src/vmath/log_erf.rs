//! log and erf.

use super::{C, IOp, Op, Pred, Shift, VecMath, horner};
use crate::poly::{ErfPoly, K};

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

/// `erf(x)`, bit for bit eager's `rynamo_tensor::kernels::erf::erf_f32` (exact GELU's
/// `1 + erf(x / sqrt 2)` cancels for x below about -3.3, where one ulp of erf is 1e-3 of GELU, so
/// the JIT and eager must agree exactly): the same pieces in `a = |x|`, the same f32
/// coefficients (the table takes them from eager), the same operations in the same order, each
/// multiply and add rounded on its own as eager's Rust does (no FMA on any target), and the
/// pieces selected per lane:
/// - `a < SMALL_MAX`: `a + a S(a^2)`;
/// - below `ONE_FROM`: `1 - L(a - c)`, with `L` and `c` eager's lower or upper piece on either
///   side of `SPLIT`; both are evaluated in every lane (two independent chains, which the core
///   overlaps) and the right one kept, which is what eager computes for that lane;
/// - above: 1. NaN fails every comparison and keeps the erfc piece's NaN, as eager's does.
///
/// The sign goes back last, as `copysign`.
pub fn erf<M: VecMath>(m: &mut M, d: u8, src: u8) {
    let [t0, t1, t2, t3, t4] = M::T;
    let (x, small) = (0, 1);
    m.save(x, src);
    m.fk(Op::And, t0, src, K::AbsMask.into());
    // Small piece.
    m.f(Op::Mul, t1, t0, t0);
    horner_unfused(m, &[(t2, t1, ErfPoly::Small)]);
    m.f(Op::Mul, t2, t2, t0);
    m.f(Op::Add, t2, t2, t0);
    m.save(small, t2);
    // The two erfc pieces, then the one for each lane (`a < SPLIT`: lower).
    m.fk(Op::Sub, t1, t0, K::ErfCenterLo.into());
    m.fk(Op::Sub, t3, t0, K::ErfCenterHi.into());
    horner_unfused(m, &[(t2, t1, ErfPoly::Lower), (t4, t3, ErfPoly::Upper)]);
    m.select_k(Pred::Lt, (t2, t4, t2), t0, K::ErfSplit.into(), t1);
    m.ld(t3, K::One.into());
    m.f(Op::Sub, t3, t3, t2);
    // Small below SMALL_MAX; 1 from ONE_FROM on (`ONE_FROM <= a`, false for NaN).
    m.restore(t4, small);
    m.select_k(Pred::Lt, (t3, t3, t4), t0, K::ErfSmallMax.into(), t1);
    m.ld(t4, K::ErfOneFrom.into());
    m.ld(t2, K::One.into());
    m.select(Pred::Le, (t3, t3, t2), t4, t0, t1);
    // copysign(r, x).
    m.fk(Op::And, t3, t3, K::AbsMask.into());
    m.restore(t0, x);
    m.fk(Op::And, t0, t0, K::NegZero.into());
    m.f(Op::Or, d, t3, t0);
}

/// Horner for each `(acc, z, p)`: `acc = c_n`, then `acc = acc * z + c_k` down to `c_0`, the
/// multiply and the add rounded separately (eager's erf is plain Rust, which never fuses). The
/// chains are interleaved step by step, so independent ones overlap in the pipeline.
fn horner_unfused<M: VecMath>(m: &mut M, chains: &[(u8, u8, ErfPoly)]) {
    for &(acc, _, p) in chains {
        m.ld(acc, C::erf(p, p.coefs().len() - 1));
    }
    let top = chains.iter().map(|c| c.2.coefs().len()).max().unwrap_or(0);
    for step in 1..top {
        for &(acc, z, p) in chains {
            let n = p.coefs().len();
            if step < n {
                m.f(Op::Mul, acc, acc, z);
                m.fk(Op::Add, acc, acc, C::erf(p, n - 1 - step));
            }
        }
    }
}
