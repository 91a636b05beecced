//! sin and cos (see [`crate::poly`] for the algorithm), and their sharing: `sin(x)` and `cos(x)`
//! of one `x` in one kernel body (rotary embeddings, the W1 workload of `benchmarks.md`) reduce
//! `x` once and evaluate both polynomials once, since each of them already needs both; the
//! second of the pair is a load of what the first stored.

use dynasmrt::DynamicLabel;

use super::{C, IOp, Op, Shift, VecMath, horner};
use crate::poly::K;

/// Which bound [`VecTrig::test_above`] tests `|x|` against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// `poly::TRIG_FAST`: the f32 reduction's range.
    Fast,
    /// `poly::TRIG_LIMIT`: the f64 reduction's range (beyond, the library).
    Limit,
}

/// The primitives sin and cos add to [`VecMath`]: branches, and the steps whose best form is the
/// target's own (the f64 reduction, the library call).
pub trait VecTrig: VecMath {
    /// A frame vector the pair's other result goes to.
    type Slot: Copy;
    /// A new label.
    fn label(&mut self) -> DynamicLabel;
    /// Binds `l` here.
    fn bind(&mut self, l: DynamicLabel);
    /// Jumps to `l`.
    fn jump(&mut self, l: DynamicLabel);
    /// Tests whether any lane (lane 0 for scalar widths) of `a` has `|a| > bound` (NaN
    /// included) for [`VecTrig::jump_if_above`]; `t` is clobbered. Vector operations may come
    /// between the two.
    fn test_above(&mut self, t: u8, a: u8, bound: Bound);
    /// Jumps to `l` when the last [`VecTrig::test_above`] found such a lane.
    fn jump_if_above(&mut self, l: DynamicLabel);
    /// Whether the target has FMA: the f32 reduction below `TRIG_FAST` needs it exact.
    fn fused(&self) -> bool;
    /// `T0 = T0 - T1 * pi/2` in f64 (`T1` the integral quotient, kept); clobbers `T2..T4`.
    fn reduce_pio2_f64(&mut self);
    /// `d |= a & -0.0` in one instruction where there is one (then returns true).
    fn or_sign_fused(&mut self, d: u8, a: u8) -> bool;
    /// [`quadrant`] in fewer instructions where the target can (then returns true).
    fn quadrant_fused(&mut self, d: u8, q: u8) -> bool;
    /// `slot = r`.
    fn store_slot(&mut self, slot: Self::Slot, r: u8);
    /// `d` = the library's sin (cos) of every lane of `src`, and the other function into
    /// `other`; every register but `d` kept.
    fn library(&mut self, d: u8, src: u8, cos: bool, other: Option<Self::Slot>);
}

/// [`VecTrig::label`] and [`VecTrig::bind`], for an implementor whose emitter's assembler
/// (`self.e.a`) has methods of those names.
macro_rules! forward_labels {
    () => {
        fn label(&mut self) -> dynasmrt::DynamicLabel {
            self.e.a.label()
        }

        fn bind(&mut self, l: dynasmrt::DynamicLabel) {
            self.e.a.bind(l);
        }
    };
}
pub(crate) use forward_labels;

/// `d = sin(src)` or `cos(src)`; with `other`, the other function of `src` is stored there too.
///
/// The quotient `q` (nearest integer to `x * 2/pi`) comes from adding `1.5 * 2^23`, whose sum
/// holds `q` in its low mantissa bits: the quadrant needs no conversion. Vectors whose lanes are
/// all within `poly::TRIG_FAST` reduce in f32 (three FMAs); others go to `wide`, which reduces in
/// f64 and keeps the f32 result for the lanes within the bound, so a lane's result never depends
/// on its neighbours (below `TRIG_LIMIT`; above, the library). Without FMA every vector takes
/// `wide`'s f64 reduction.
pub fn trig<M: VecTrig>(m: &mut M, d: u8, src: u8, cos: bool, other: Option<M::Slot>) {
    let [t0, t1, t2, t3, t4] = M::T;
    let (slow, wide, join, done) = (m.label(), m.label(), m.label(), m.label());
    let fast = m.fused();
    if fast {
        m.test_above(t3, src, Bound::Fast);
    }
    m.mov(t0, src);
    m.ld(t2, K::TwoOverPi.into());
    let magic = C::from(K::RoundMagic);
    m.fma_k(t2, t2, t0, magic);
    m.fk(Op::Sub, t1, t2, magic);
    if fast {
        m.jump_if_above(wide);
        reduce_f32(m, t0);
    } else {
        m.jump(wide);
    }
    m.bind(join);
    m.f(Op::Mul, t1, t0, t0);
    m.ld(t3, K::Sin9.into());
    horner(m, t3, t1, &[K::Sin7, K::Sin5, K::Sin3]);
    m.f(Op::Mul, t3, t3, t1);
    m.fma(t3, t3, t0, t0);
    m.ld(t4, K::Cos10.into());
    horner(m, t4, t1, &[K::Cos8, K::Cos6, K::Cos4, K::Cos2, K::One]);
    // r + r z P(z) is +0 for r = -0; sin(r) has the sign of r on |r| <= pi/4, so or it in.
    // (Cos never picks the sine polynomial at r = 0, where the quadrant is 0.)
    if (!cos || other.is_some()) && !m.or_sign_fused(t3, t0) {
        m.fk(Op::And, t1, t0, K::NegZero.into());
        m.f(Op::Or, t3, t3, t1);
    }
    let one = C::from(K::IntOne);
    match other {
        None if cos => {
            m.ik(IOp::Add, t2, t2, one);
            quadrant(m, d, t2);
        }
        None => quadrant(m, d, t2),
        // cos is sin a quadrant on: the other function first, into its slot, then `d`.
        Some(slot) if cos => {
            quadrant(m, t1, t2);
            m.store_slot(slot, t1);
            m.ik(IOp::Add, t2, t2, one);
            quadrant(m, d, t2);
        }
        Some(slot) => {
            m.ik(IOp::Add, t0, t2, one);
            quadrant(m, t1, t0);
            m.store_slot(slot, t1);
            quadrant(m, d, t2);
        }
    }
    m.jump(done);
    // x in t0, q in t1.
    m.bind(wide);
    m.test_above(t3, t0, Bound::Limit);
    m.jump_if_above(slow);
    if fast {
        m.save(0, t0);
    }
    m.reduce_pio2_f64();
    if fast {
        // Lanes within TRIG_FAST keep the f32 reduction (sign bit of t4 clear).
        m.restore(t3, 0);
        m.fk(Op::And, t4, t3, K::AbsMask.into());
        m.ik(IOp::Add, t4, t4, K::TrigFastBias.into());
        reduce_f32(m, t3);
        let above = m.sign_mask(t4, t4);
        m.blend(t0, t3, t0, above);
    }
    m.fk(Op::Add, t2, t1, magic);
    m.jump(join);
    m.bind(slow);
    m.library(d, src, cos, other);
    m.bind(done);
}

/// `r -= q * pi/2` in f32 with `pi/2 = a + b + c` and the quotient `q` in `T1` (exact with FMA:
/// see `poly::TRIG_FAST`).
fn reduce_f32<M: VecMath>(m: &mut M, r: u8) {
    for k in [K::NegPio2A, K::NegPio2B, K::NegPio2C] {
        m.fma_acc_k(r, M::T[1], k.into());
    }
}

/// `d` = sin of the reduced argument in quadrant `q` (a register whose low bits are the
/// quotient's), from the sine polynomial in `T3` and the cosine one in `T4`: odd -> cosine
/// polynomial; bit 1 -> negate. Writes `d` last; uses `T0`, `T1` (`q` may be `T0`).
fn quadrant<M: VecTrig>(m: &mut M, d: u8, q: u8) {
    let [t0, t1, _, t3, t4] = M::T;
    if m.quadrant_fused(d, q) {
        return;
    }
    m.shift(Shift::Left, t1, q, 31);
    let odd = m.sign_mask(t1, t1);
    m.blend(t1, t3, t4, odd);
    m.shift(Shift::Left, t0, q, 30);
    m.fk(Op::And, t0, t0, K::NegZero.into());
    m.f(Op::Xor, d, t1, t0);
}
