//! Vector division by a loop-invariant divisor (softmax's `e / sum(e)`, `x / d[row]`), bitwise
//! what `vdivps` gives, at a fraction of its cost.
//!
//! The divider takes a new zmm division only every ~10 cycles (a ymm every ~5), so a loop that
//! otherwise loads and stores runs at the divider's pace: softmax's last pass did. With
//! `y = RN(1/b)` computed once per row (the divisor `b` is hoisted), each vector computes
//!
//! ```text
//!   q0 = RN(a * y)           one multiply
//!   r  = a - q0 * b          exact with an FMA (the residual is representable, see below)
//!   q  = RN(q0 + r * y)      Markstein's correction: the correctly rounded a / b
//! ```
//!
//! Three FMA-port instructions and a range check. The correction is exact only away from
//! overflow and underflow, so a vector takes it only when every lane has `|q0|` in
//! `[2^-60, 2^40]`, and a row only when `|b|` is in `[2^-40, 2^40]` (otherwise `y` is set to NaN,
//! which fails every vector's check). Then `y` is normal, `a = q b` lies in `[2^-100, 2^80]`, and
//! the exponents of `b` and `q0` sum to at least -100 >= `e_min + p - 1` = -103, the condition
//! for `a - q0 b` to be a float. Zeros, NaNs, infinities, subnormals and extreme ratios fail the
//! check and that vector runs `vdivps` out of line (a stub after the loop, so the common path
//! takes no branch). `tests/div.rs` compares against the division bit for bit on every tier, hard
//! cases (`a` next to `b` times a rounding midpoint) and the range edges included.
//!
//! Markstein's theorem asks for `q0` within one ulp of `a / b`; `RN(a * RN(1/b))` is only known
//! to be within 1.5. The sequence was therefore also checked off-line against the division
//! (scalar `mul_add`, which rounds as the vector FMA does) for every one of the 2^23 divisor
//! significands with ~6,000 dividends each (random, next to rounding midpoints, next to `b`,
//! next to 1 and 2): 5.1e10 quotients, no difference. In range, the result depends only on the
//! significands, so this covers every exponent the check lets through.
//!
//! The divider itself is idle meanwhile, so in a body of four or more copies (see `unroll.rs`)
//! the first copy divides with `vdivps` ([`Emitter::divides_on_divider`]): three micro-ops and a
//! ~10-cycle divider slot on AVX-512 (one and ~5 on AVX2) against the seven of the sequence,
//! while the other copies keep the FMA ports busy for longer than that slot. The same quotient
//! either way. W2 (softmax rows) ran 2.2% faster single-threaded.
//!
//! Cost on inputs that fail the check: a vector with one zero or tiny lane (softmax rows with
//! masked `-inf` entries give `e = 0`) pays the multiply, the check and `vdivps`, and a pattern
//! of such vectors that the branch predictor cannot follow costs mispredictions on top.
//!
//! AVX2 and AVX-512 only (the correction needs an FMA); SSE2 and scalar tails divide.

use std::collections::HashMap;

use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi};
use iced_x86::Code;

use super::asm::{Asm, F, I, Mem, W, x64};
use super::emit::{Emitter, RSP};
use super::evex::Op::Z;
use super::math::{T0, T1, ld};
use crate::loop_ir::{BOp, Inst, Phase, Ty, V};
use crate::poly::K as Tab;
use crate::regalloc::PhasePlan;

/// An out-of-line `d = a / b` (`vdivps`) for vectors that fail the check, jumping back after.
pub(super) struct Stub {
    entry: DynamicLabel,
    back: DynamicLabel,
    d: u8,
    a: u8,
    b: u8,
}

/// The hoisted divisors of `p`'s vector f32 divisions, in order of first use: each gets a
/// reciprocal slot. Empty unless the phase runs in vector mode on an FMA tier.
pub(super) fn divisors(p: &Phase, plan: &PhasePlan, fma: bool) -> Vec<V> {
    if !fma || !plan.vector {
        return Vec::new();
    }
    let hoisted = &plan.order[..plan.hoisted];
    let mut out = Vec::new();
    for &v in &plan.order[plan.hoisted..] {
        let n = p.body[v as usize];
        if let Inst::Binary(BOp::Div, _, b) = n.inst
            && n.ty == Ty::F32
            && hoisted.contains(&b)
            && !out.contains(&b)
        {
            out.push(b);
        }
    }
    out
}

impl Emitter<'_> {
    /// Once per row, after the hoisted values: `y = 1/b` into each divisor's slot, or NaN when
    /// `|b|` is outside `[2^-40, 2^40]` (every lane holds the same `b`).
    pub(super) fn enter_divisors(&mut self, divisors: &[V]) {
        self.recips.clear();
        for (i, &b) in divisors.iter().enumerate() {
            let slot = self.mem(RSP, self.frame.recip + self.frame.vs * i as i32);
            let rb = self.src(b, 15, true);
            ld(self, W::Ps, T0, Tab::One);
            self.a.f(F::Div, W::Ps, T0, T0, rb);
            let ok = self.a.label();
            self.out_of_range(T1, rb, Tab::DivisorLo, Tab::DivisorSpan);
            x64!(self.a.ops ; jz =>ok);
            ld(self, W::Ps, T0, Tab::Nan);
            self.a.bind(ok);
            self.a.store(W::Ps, slot, T0);
            self.recips.insert(b, slot);
        }
    }

    /// Whether node `v` (a division by a hoisted divisor) is the first copy of a body of four
    /// or more, which divides with `vdivps` (see the module docs).
    pub(super) fn divides_on_divider(&self, v: V) -> bool {
        self.copies >= 4 && self.copy_of_node.get(v as usize) == Some(&0)
    }

    /// `d = a / b` for a divisor with a reciprocal slot (vector mode).
    pub(super) fn div_by_recip(&mut self, d: u8, a: u8, b: u8, y: Mem) {
        let (entry, back) = (self.a.label(), self.a.label());
        self.a.fm(F::Mul, W::Ps, T0, a, y);
        self.out_of_range(T1, T0, Tab::QuotientLo, Tab::QuotientSpan);
        x64!(self.a.ops ; jnz =>entry);
        self.a.mov(T1, a);
        self.a.fnma_acc(T1, T0, b);
        self.a.fma_acc_m(W::Ps, T0, T1, y);
        self.a.mov(d, T0);
        self.a.bind(back);
        self.stubs.push(Stub {
            entry,
            back,
            d,
            a,
            b,
        });
    }

    /// Flags for `jnz` when some lane of `x` has `|x|` outside `[lo, hi]` (NaN included), with
    /// `t` as scratch: `bits(|x|) - bits(lo)` is at most `bits(hi) - bits(lo)` unsigned exactly
    /// in range; the table's `lo` entry adds 2^31 and its `span` entry subtracts it, so a signed
    /// compare decides.
    fn out_of_range(&mut self, t: u8, x: u8, lo: Tab, span: Tab) {
        let m = self.tab(Tab::AbsMask);
        self.a.fm(F::And, W::Ps, t, x, m);
        let m = self.tab(lo);
        self.a.im(I::Sub, W::Ps, t, t, m);
        let m = self.tab(span);
        self.a.any_gt_m(t, m);
    }

    /// Emits the pending stubs (after a loop's backward jump, where nothing falls into them).
    pub(super) fn flush_stubs(&mut self) {
        for s in std::mem::take(&mut self.stubs) {
            self.a.bind(s.entry);
            self.a.f(F::Div, W::Ps, s.d, s.a, s.b);
            x64!(self.a.ops ; jmp =>s.back);
        }
    }
}

/// Where each divisor's reciprocal lives in the current phase.
pub(super) type Recips = HashMap<V, Mem>;

impl Asm {
    /// `d = d - a * b` (packed f32, AVX2 or AVX-512).
    fn fnma_acc(&mut self, d: u8, a: u8, b: u8) {
        if self.zmm() {
            self.ev(
                Code::EVEX_Vfnmadd231ps_zmm_k1z_zmm_zmmm512b32_er,
                &[Z(d), Z(a), Z(b)],
            );
        } else {
            x64!(self.ops; vfnmadd231ps Ry(d), Ry(a), Ry(b));
        }
    }
}
