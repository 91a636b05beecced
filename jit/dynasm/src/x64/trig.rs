//! Vector sin and cos on x86-64 (see [`crate::poly`] for the algorithm), and their sharing:
//! `sin(x)` and `cos(x)` of one `x` in one kernel body (rotary embeddings, the W1 workload of
//! `benchmarks.md`) reduce `x` once and evaluate both polynomials once, since each of them
//! already needs both; the second of the pair is a load of what the first stored.

use dynasmrt::{DynasmApi, DynasmLabelApi};
use iced_x86::Code;

use super::asm::{F, I, Mem, W, x64};
use super::emit::Emitter;
use super::evex::K1;
use super::evex::Op::{self, M, Y, Z};
use super::math::{T0, T1, T2, T3, T4, ld, scratch};
use crate::loop_ir::{Inst, Phase, Ty, UOp, V};
use crate::poly::K;

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

/// `d = sin(src)` or `cos(src)`; with `other`, the other function of `src` is stored there too.
///
/// The quotient `q` (nearest integer to `x * 2/pi`) comes from adding `1.5 * 2^23`, whose sum
/// holds `q` in its low mantissa bits: the quadrant needs no conversion. Vectors whose lanes are
/// all within `poly::TRIG_FAST` reduce in f32 (AVX2 only: three FMAs); others go to `wide`,
/// which reduces in f64 and keeps the f32 result for the lanes within the bound, so a lane's
/// result never depends on its neighbours (below `TRIG_LIMIT`; above, the library).
pub fn trig(e: &mut Emitter<'_>, w: W, d: u8, src: u8, cos: bool, other: Option<Mem>) {
    let (slow, wide, join, done) = (e.a.label(), e.a.label(), e.a.label(), e.a.label());
    let fast = e.a.avx();
    if fast {
        any_above_fast(e, w, T3, src);
    }
    e.a.mov(T0, src);
    ld(e, w, T2, K::TwoOverPi);
    let m = e.tab(K::RoundMagic);
    e.a.fma_m(w, T2, T2, T0, m);
    e.a.fm(F::Sub, w, T1, T2, m);
    if fast {
        x64!(e.a.ops ; jnz =>wide);
        reduce_f32(e, w, T0);
    } else {
        x64!(e.a.ops ; jmp =>wide);
    }
    e.a.bind(join);
    e.a.f(F::Mul, w, T1, T0, T0);
    ld(e, w, T3, K::Sin9);
    for k in [K::Sin7, K::Sin5, K::Sin3] {
        let m = e.tab(k);
        e.a.fma_m(w, T3, T3, T1, m);
    }
    e.a.f(F::Mul, w, T3, T3, T1);
    e.a.fma(w, T3, T3, T0, T0);
    ld(e, w, T4, K::Cos10);
    for k in [K::Cos8, K::Cos6, K::Cos4, K::Cos2, K::One] {
        let m = e.tab(k);
        e.a.fma_m(w, T4, T4, T1, m);
    }
    // r + r z P(z) is +0 for r = -0; sin(r) has the sign of r on |r| <= pi/4, so or it in.
    // (Cos never picks the sine polynomial at r = 0, where the quadrant is 0.)
    if !cos || other.is_some() {
        let m = e.tab(K::NegZero);
        if e.a.zmm() && w == W::Ps {
            // T3 | (T0 & -0.0) in one instruction (0xf8: A | (B & C)).
            e.a.ev(TERNLOG, &[Z(T3), Z(T0), M(m), Op::I(0xf8u8 as i8)]);
        } else {
            e.a.fm(F::And, w, T1, T0, m);
            e.a.f(F::Or, w, T3, T3, T1);
        }
    }
    let one = e.tab(K::IntOne);
    match other {
        None if cos => {
            e.a.im(I::Add, w, T2, T2, one);
            quadrant(e, w, d, T2);
        }
        None => quadrant(e, w, d, T2),
        // cos is sin a quadrant on: the other function first, into its slot, then `d`.
        Some(slot) if cos => {
            quadrant(e, w, T1, T2);
            e.a.store(w, slot, T1);
            e.a.im(I::Add, w, T2, T2, one);
            quadrant(e, w, d, T2);
        }
        Some(slot) => {
            e.a.im(I::Add, w, T0, T2, one);
            quadrant(e, w, T1, T0);
            e.a.store(w, slot, T1);
            quadrant(e, w, d, T2);
        }
    }
    x64!(e.a.ops ; jmp =>done);
    // x in T0, q in T1.
    e.a.bind(wide);
    above(e, w, T3, T0, K::TrigLimitBias);
    x64!(e.a.ops ; jnz =>slow);
    let x = scratch(e, 0);
    if fast {
        e.a.store(w, x, T0);
    }
    reduce_pio2(e, w);
    if fast {
        e.a.load(w, T3, x);
        above(e, w, T4, T3, K::TrigFastBias);
        reduce_f32(e, w, T3);
        e.a.blend(w, T0, T3, T0, T4);
    }
    let m = e.tab(K::RoundMagic);
    e.a.fm(F::Add, w, T2, T1, m);
    x64!(e.a.ops ; jmp =>join);
    e.a.bind(slow);
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
    e.a.bind(done);
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

/// `r -= q * pi/2` in f32 with `pi/2 = a + b + c` and the quotient `q` in `T1` (FMA only: the
/// first step is exact, see `poly::TRIG_FAST`).
fn reduce_f32(e: &mut Emitter<'_>, w: W, r: u8) {
    for k in [K::NegPio2A, K::NegPio2B, K::NegPio2C] {
        let m = e.tab(k);
        e.a.fma_acc_m(w, r, T1, m);
    }
}

/// `d` = sin of the reduced argument in quadrant `q` (a register whose low bits are the
/// quotient's), from the sine polynomial in `T3` and the cosine one in `T4`: odd -> cosine
/// polynomial; bit 1 -> negate. Writes `d` last; uses `T0`, `T1` (`q` may be `T0`).
fn quadrant(e: &mut Emitter<'_>, w: W, d: u8, q: u8) {
    if e.a.zmm() && w == W::Ps {
        // The same in four instructions: bit 0 straight into k1 (`vptestmd`), and the sign's
        // and-then-xor as one `vpternlogd` (0x6c: B ^ (A & C)).
        let one = e.tab(K::IntOne);
        e.a.ev(
            Code::EVEX_Vptestmd_kr_k1_zmm_zmmm512b32,
            &[Op::K(K1), Z(q), M(one)],
        );
        e.a.z_blend_k1(T1, T3, T4);
        e.a.shift(w, 0, T0, q, 30);
        let m = e.tab(K::NegZero);
        e.a.ev(TERNLOG, &[Z(T0), Z(T1), M(m), Op::I(0x6c)]);
        e.a.mov(d, T0);
        return;
    }
    e.a.shift(w, 0, T1, q, 31);
    if !e.a.avx() {
        // SSE2's blend takes whole-lane masks; vblendvps reads the sign bit only.
        e.a.shift(w, 2, T1, T1, 31);
    }
    e.a.blend(w, T1, T3, T4, T1);
    e.a.shift(w, 0, T0, q, 30);
    let m = e.tab(K::NegZero);
    e.a.fm(F::And, w, T0, T0, m);
    e.a.f(F::Xor, w, d, T1, T0);
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
