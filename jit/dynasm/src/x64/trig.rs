//! The x86-64 primitives of [`crate::vmath::trig`] (sin and cos), and which sin/cos of one value
//! share a reduction ([`pairs`]).

use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi};
use iced_x86::Code;

use super::asm::{F, I, Mem, W, x64};
use super::emit::Emitter;
use super::evex::K1;
use super::evex::Op::{self, M, Y, Z};
use super::math::{T0, T1, T2, T3, T4, X64Math, scratch};
use crate::loop_ir::{Inst, Phase, Ty, UOp, V};
use crate::poly::K;
use crate::vmath::{self, Bound, VecTrig};

/// `vpternlogd zmm, zmm, zmm/m32bcst, imm8`: any bitwise function of three operands (the
/// destination is the first), chosen by the immediate's truth table.
const TERNLOG: Code = Code::EVEX_Vpternlogd_zmm_k1z_zmm_zmmm512b32_imm8;

/// Pairs `(first, second)` of `sin(x)`/`cos(x)` (either order) on one f32 `x` that are emitted
/// in the same region of `order` (both among the first `hoisted`, or both after), in emission
/// order. Each value is in at most one pair.
pub fn pairs(p: &Phase, order: &[V], hoisted: usize) -> Vec<(V, V)> {
    let trig = |v: V| match p.body[v as usize] {
        n if n.ty != Ty::F32 => None,
        crate::loop_ir::Node {
            inst: Inst::Unary(op @ (UOp::Sin | UOp::Cos), x),
            ..
        } => Some((op, x)),
        _ => None,
    };
    let mut out = Vec::new();
    let mut used = vec![false; p.body.len()];
    for region in [&order[..hoisted], &order[hoisted..]] {
        for (i, &a) in region.iter().enumerate() {
            let Some((op, x)) = trig(a) else { continue };
            if used[a as usize] {
                continue;
            }
            let partner = region[i + 1..]
                .iter()
                .copied()
                .find(|&b| !used[b as usize] && trig(b).is_some_and(|(o, y)| y == x && o != op));
            if let Some(b) = partner {
                used[a as usize] = true;
                used[b as usize] = true;
                out.push((a, b));
            }
        }
    }
    out
}

/// `d = sin(src)` or `cos(src)` ([`vmath::trig`]); with `other`, the other function of `src` is
/// stored there too.
pub fn trig(e: &mut Emitter<'_>, w: W, d: u8, src: u8, cos: bool, other: Option<Mem>) {
    vmath::trig(&mut X64Math { e, w }, d, src, cos, other);
}

impl VecTrig for X64Math<'_, '_> {
    type Slot = Mem;

    vmath::forward_labels!();

    fn jump(&mut self, l: DynamicLabel) {
        x64!(self.e.a.ops ; jmp =>l);
    }

    /// The flags, for `jnz`.
    fn test_above(&mut self, t: u8, a: u8, bound: Bound) {
        match bound {
            Bound::Fast => any_above_fast(self.e, self.w, t, a),
            Bound::Limit => above(self.e, self.w, t, a, K::TrigLimitBias),
        }
    }

    fn jump_if_above(&mut self, l: DynamicLabel) {
        x64!(self.e.a.ops ; jnz =>l);
    }

    fn fused(&self) -> bool {
        self.e.a.avx()
    }

    fn reduce_pio2_f64(&mut self) {
        reduce_pio2(self.e, self.w);
    }

    /// AVX-512 vectors: `T3 | (T0 & -0.0)` as one `vpternlogd` (0xf8: A | (B & C)).
    fn or_sign_fused(&mut self, d: u8, a: u8) -> bool {
        if !(self.e.a.zmm() && self.w == W::Ps) {
            return false;
        }
        let m = self.e.tab(K::NegZero);
        self.e
            .a
            .ev(TERNLOG, &[Z(d), Z(a), M(m), Op::I(0xf8u8 as i8)]);
        true
    }

    /// AVX-512 vectors: four instructions, bit 0 straight into k1 (`vptestmd`), and the sign's
    /// and-then-xor as one `vpternlogd` (0x6c: B ^ (A & C)).
    fn quadrant_fused(&mut self, d: u8, q: u8) -> bool {
        if !(self.e.a.zmm() && self.w == W::Ps) {
            return false;
        }
        let a = &mut self.e.a;
        let one = Mem::bcast(15, crate::poly::off(K::IntOne));
        a.ev(
            Code::EVEX_Vptestmd_kr_k1_zmm_zmmm512b32,
            &[Op::K(K1), Z(q), M(one)],
        );
        a.z_blend_k1(T1, T3, T4);
        a.shift(W::Ps, 0, T0, q, 30);
        let m = Mem::bcast(15, crate::poly::off(K::NegZero));
        a.ev(TERNLOG, &[Z(T0), Z(T1), M(m), Op::I(0x6c)]);
        a.mov(d, T0);
        true
    }

    fn store_slot(&mut self, slot: Mem, r: u8) {
        self.e.a.store(self.w, slot, r);
    }

    fn library(&mut self, d: u8, src: u8, cos: bool, other: Option<Mem>) {
        let (e, w) = (&mut *self.e, self.w);
        let buf = Mem::vec(4, e.frame.call);
        e.a.store(w, buf, src);
        if let Some(slot) = other {
            let keep = scratch(e, 0);
            e.a.store(w, keep, src);
            lanes_call(e, w, !cos);
            e.a.load(w, T0, buf);
            e.a.store(w, slot, T0);
            e.a.load(w, T0, keep);
            e.a.store(w, buf, T0);
        }
        lanes_call(e, w, cos);
        e.a.load(w, d, buf);
    }
}

/// `t`'s sign bits = `|a| > limit` per lane (`bias` from `poly::bias_above`), and the flags set
/// so that `jnz` jumps when any lane (lane 0 for scalar widths) is above.
fn above(e: &mut Emitter<'_>, w: W, t: u8, a: u8, bias: K) {
    let m = e.tab(K::AbsMask);
    e.a.fm(F::And, w, t, a, m);
    let m = e.tab(bias);
    e.a.im(I::Add, w, t, t, m);
    // Packed: the sign-bit lane test every tier has; scalar: lane 0's sign bit.
    match (e.a.avx(), w) {
        (_, W::Ps) => e.a.any_lane(W::Ps, t),
        (true, _) => x64!(e.a.ops ; vmovd eax, Rx(t) ; shr eax, 31),
        (false, _) => x64!(e.a.ops ; movmskps eax, Rx(t) ; test eax, 1),
    }
}

/// Flags for `jnz` when any lane has `|a| > TRIG_FAST` (NaN included), `t` clobbered: on
/// AVX-512 one signed compare of `bits(|a|)` into `k1` (`|a|`'s bits are non-negative as int32
/// and order like the floats), elsewhere [`above`].
fn any_above_fast(e: &mut Emitter<'_>, w: W, t: u8, a: u8) {
    if !(e.a.zmm() && w == W::Ps) {
        return above(e, w, t, a, K::TrigFastBias);
    }
    let m = e.tab(K::AbsMask);
    e.a.fm(F::And, w, t, a, m);
    let m = e.tab(K::TrigFastBits);
    e.a.any_gt_m(t, m);
}

/// Library sin or cos of every lane of the call buffer, in place, every register kept.
fn lanes_call(e: &mut Emitter<'_>, w: W, cos: bool) {
    e.save_all();
    let lanes = if w == W::Ps { e.a.lanes() as i32 } else { 1 };
    let (o, which) = (e.frame.call, i32::from(cos));
    x64!(e.a.ops ; lea rdi, [rsp + o] ; mov esi, lanes ; mov edx, which);
    e.raw_call(crate::helpers::trig_lanes as unsafe extern "C" fn(*mut f32, usize, usize) as usize);
    e.restore_all();
}

/// `T0 = x - q * pi/2` computed in f64 (exact product with the 33-bit `hi`), from `x` in `T0` and
/// the float quotient `q` in `T1` (kept); uses `T2..T4` and, on SSE2, xmm10.
fn reduce_pio2(e: &mut Emitter<'_>, w: W) {
    let (hi, lo) = (
        crate::poly::off(K::NegPio2HiD),
        crate::poly::off(K::NegPio2LoD),
    );
    if e.a.zmm() && w == W::Ps {
        return reduce_pio2_zmm(e);
    }
    match (e.a.avx(), w) {
        // NOTE: dynasm 5.1 encodes vfmadd231pd as the ps form, so multiply then add; q * hi is
        // exact anyway, and q * lo is far below the result's ulp.
        (true, W::Ps) => x64!(e.a.ops
            ; vcvtps2pd Ry(T2), Rx(T0) ; vcvtps2pd Ry(T3), Rx(T1)
            ; vmulpd ymm10, Ry(T3), [r15 + hi] ; vaddpd Ry(T2), Ry(T2), ymm10
            ; vmulpd ymm10, Ry(T3), [r15 + lo] ; vaddpd Ry(T2), Ry(T2), ymm10
            ; vcvtpd2ps Rx(T2), Ry(T2)
            ; vextractf128 Rx(T3), Ry(T0), 1 ; vcvtps2pd Ry(T3), Rx(T3)
            ; vextractf128 Rx(T4), Ry(T1), 1 ; vcvtps2pd Ry(T4), Rx(T4)
            ; vmulpd ymm10, Ry(T4), [r15 + hi] ; vaddpd Ry(T3), Ry(T3), ymm10
            ; vmulpd ymm10, Ry(T4), [r15 + lo] ; vaddpd Ry(T3), Ry(T3), ymm10
            ; vcvtpd2ps Rx(T3), Ry(T3)
            ; vinsertf128 Ry(T0), Ry(T2), Rx(T3), 1),
        (true, _) => x64!(e.a.ops
            ; vcvtss2sd Rx(T2), Rx(T2), Rx(T0) ; vcvtss2sd Rx(T3), Rx(T3), Rx(T1)
            ; vfmadd231sd Rx(T2), Rx(T3), QWORD [r15 + hi] ; vfmadd231sd Rx(T2), Rx(T3), QWORD [r15 + lo]
            ; vcvtsd2ss Rx(T0), Rx(T0), Rx(T2)),
        (false, W::Ps) => x64!(e.a.ops
            ; cvtps2pd Rx(T2), Rx(T0) ; cvtps2pd Rx(T3), Rx(T1)
            ; movapd xmm10, Rx(T3) ; mulpd xmm10, [r15 + hi] ; addpd Rx(T2), xmm10
            ; mulpd Rx(T3), [r15 + lo] ; addpd Rx(T2), Rx(T3) ; cvtpd2ps Rx(T2), Rx(T2)
            ; movhlps Rx(T3), Rx(T0) ; cvtps2pd Rx(T3), Rx(T3) ; movhlps Rx(T4), Rx(T1) ; cvtps2pd Rx(T4), Rx(T4)
            ; movapd xmm10, Rx(T4) ; mulpd xmm10, [r15 + hi] ; addpd Rx(T3), xmm10
            ; mulpd Rx(T4), [r15 + lo] ; addpd Rx(T3), Rx(T4) ; cvtpd2ps Rx(T3), Rx(T3)
            ; movlhps Rx(T2), Rx(T3) ; movaps Rx(T0), Rx(T2)),
        (false, _) => x64!(e.a.ops
            ; cvtss2sd Rx(T2), Rx(T0) ; cvtss2sd Rx(T3), Rx(T1)
            ; movsd xmm10, Rx(T3) ; mulsd xmm10, QWORD [r15 + hi] ; addsd Rx(T2), xmm10
            ; mulsd Rx(T3), QWORD [r15 + lo] ; addsd Rx(T2), Rx(T3) ; cvtsd2ss Rx(T0), Rx(T2)),
    }
}

/// [`reduce_pio2`] on 16 lanes: each half of `x` and `q` in f64 as AVX2 computes its 8 lanes
/// (multiply then add, for bitwise the same results), the f64 constants read with `{1to8}`.
fn reduce_pio2_zmm(e: &mut Emitter<'_>) {
    let (hi, lo) = (
        Mem::bcast(15, crate::poly::off(K::NegPio2HiD)),
        Mem::bcast(15, crate::poly::off(K::NegPio2LoD)),
    );
    let a = &mut e.a;
    let cvt = Code::EVEX_Vcvtps2pd_zmm_k1z_ymmm256b32_sae;
    let mul = Code::EVEX_Vmulpd_zmm_k1z_zmm_zmmm512b64_er;
    let add = Code::EVEX_Vaddpd_zmm_k1z_zmm_zmmm512b64_er;
    let high = Code::EVEX_Vextractf32x8_ymmm256_k1z_zmm_imm8;
    // Lanes 0-7 into T2, 8-15 into T3 (x's high half there, q's in T4).
    a.ev(cvt, &[Z(T2), Y(T0)]);
    a.ev(cvt, &[Z(T3), Y(T1)]);
    for (acc, q) in [(T2, T3), (T3, T4)] {
        if acc == T3 {
            a.ev(high, &[Y(T3), Z(T0), Op::I(1)]);
            a.ev(cvt, &[Z(T3), Y(T3)]);
            a.ev(high, &[Y(T4), Z(T1), Op::I(1)]);
            a.ev(cvt, &[Z(T4), Y(T4)]);
        }
        for c in [hi, lo] {
            a.ev(mul, &[Z(10), Z(q), M(c)]);
            a.ev(add, &[Z(acc), Z(acc), Z(10)]);
        }
        a.ev(
            Code::EVEX_Vcvtpd2ps_ymm_k1z_zmmm512b64_er,
            &[Y(acc), Z(acc)],
        );
    }
    a.ev(
        Code::EVEX_Vinsertf32x8_zmm_k1z_zmm_ymmm256_imm8,
        &[Z(T0), Z(T2), Y(T3), Op::I(1)],
    );
}
