//! The AVX-512 (16-lane zmm) forms of [`Asm`]'s packed operations, encoded through `evex.rs`.
//!
//! Masks stay what they are on AVX2, all-ones lanes in a vector register, so instruction
//! selection and the math need no new model: a compare goes through `k1` and back
//! (`vcmpps k1` + `vpmovm2d`), a blend reads the mask's sign bits into `k1` (`vpmovd2m`, like
//! `vblendvps` reads only sign bits) and merges with `vblendmps`, a lane test is `vpmovd2m` +
//! `kortestw` (sign bits, like `vtestps`).

use iced_x86::Code;

use super::asm::{Asm, F, I, Mem};
use super::evex::K1;
use super::evex::Op::{self, K, M, M1, Z};

/// One-source packed operations (`d = op(a)`).
#[derive(Clone, Copy, Debug)]
pub enum Cvt {
    /// f32 to int32, nearest even.
    F2i,
    /// f32 to int32, toward zero.
    F2iTrunc,
    /// int32 to f32.
    I2f,
    /// `vrndscaleps` with this immediate (the `vroundps` one: scale 0).
    Round(i8),
    /// Square root.
    Sqrt,
}

impl Asm {
    /// Encodes one EVEX instruction.
    pub(super) fn ev(&mut self, code: Code, ops: &[Op]) {
        self.ev.emit(&mut self.ops, code, ops, None);
    }

    /// Encodes one EVEX instruction merge-masked by `k`.
    fn ev_k(&mut self, code: Code, ops: &[Op], k: u8) {
        self.ev.emit(&mut self.ops, code, ops, Some(k));
    }

    pub(super) fn z_mov(&mut self, d: u8, a: u8) {
        self.ev(Code::EVEX_Vmovaps_zmm_k1z_zmmm512, &[Z(d), Z(a)]);
    }

    /// `d = a op b`, `b` a register or memory (a broadcast constant or a full vector).
    pub(super) fn z_f(&mut self, op: F, d: u8, a: u8, b: Op) {
        let code = match op {
            F::Add => Code::EVEX_Vaddps_zmm_k1z_zmm_zmmm512b32_er,
            F::Sub => Code::EVEX_Vsubps_zmm_k1z_zmm_zmmm512b32_er,
            F::Mul => Code::EVEX_Vmulps_zmm_k1z_zmm_zmmm512b32_er,
            F::Div => Code::EVEX_Vdivps_zmm_k1z_zmm_zmmm512b32_er,
            F::Max => Code::EVEX_Vmaxps_zmm_k1z_zmm_zmmm512b32_sae,
            F::Min => Code::EVEX_Vminps_zmm_k1z_zmm_zmmm512b32_sae,
            F::And => Code::EVEX_Vandps_zmm_k1z_zmm_zmmm512b32,
            F::Or => Code::EVEX_Vorps_zmm_k1z_zmm_zmmm512b32,
            F::Xor => Code::EVEX_Vxorps_zmm_k1z_zmm_zmmm512b32,
        };
        self.ev(code, &[Z(d), Z(a), b]);
    }

    /// `d = a * b + c`, picking the 231 or 213 form by which operand `d` already holds.
    pub(super) fn z_fma(&mut self, d: u8, a: u8, b: u8, c: u8) {
        if d == c {
            self.ev(
                Code::EVEX_Vfmadd231ps_zmm_k1z_zmm_zmmm512b32_er,
                &[Z(d), Z(a), Z(b)],
            );
            return;
        }
        let other = self.factor_into(d, a, b);
        self.ev(
            Code::EVEX_Vfmadd213ps_zmm_k1z_zmm_zmmm512b32_er,
            &[Z(d), Z(other), Z(c)],
        );
    }

    /// `d = a * 2^floor(b)`, rounded once (`vscalefps`).
    pub(super) fn z_scalef(&mut self, d: u8, a: u8, b: u8) {
        self.ev(
            Code::EVEX_Vscalefps_zmm_k1z_zmm_zmmm512b32_er,
            &[Z(d), Z(a), Z(b)],
        );
    }

    /// `d = a * b + [m]`.
    pub(super) fn z_fma_m(&mut self, d: u8, a: u8, b: u8, m: Mem) {
        let other = self.factor_into(d, a, b);
        self.ev(
            Code::EVEX_Vfmadd213ps_zmm_k1z_zmm_zmmm512b32_er,
            &[Z(d), Z(other), M(m)],
        );
    }

    /// `d = a * [m] + d`.
    pub(super) fn z_fma_acc_m(&mut self, d: u8, a: u8, m: Mem) {
        self.ev(
            Code::EVEX_Vfmadd231ps_zmm_k1z_zmm_zmmm512b32_er,
            &[Z(d), Z(a), M(m)],
        );
    }

    /// `d = a op b` on 32-bit integer lanes, `b` a register or memory.
    pub(super) fn z_i(&mut self, op: I, d: u8, a: u8, b: Op) {
        let code = match op {
            I::Add => Code::EVEX_Vpaddd_zmm_k1z_zmm_zmmm512b32,
            I::Sub => Code::EVEX_Vpsubd_zmm_k1z_zmm_zmmm512b32,
        };
        self.ev(code, &[Z(d), Z(a), b]);
    }

    /// Shifts 32-bit lanes: `kind` 0 = left, 1 = logical right, 2 = arithmetic right.
    pub(super) fn z_shift(&mut self, kind: u8, d: u8, a: u8, imm: i8) {
        let code = match kind {
            0 => Code::EVEX_Vpslld_zmm_k1z_zmmm512b32_imm8,
            1 => Code::EVEX_Vpsrld_zmm_k1z_zmmm512b32_imm8,
            _ => Code::EVEX_Vpsrad_zmm_k1z_zmmm512b32_imm8,
        };
        self.ev(code, &[Z(d), Z(a), Op::I(imm)]);
    }

    pub(super) fn z_cvt(&mut self, c: Cvt, d: u8, a: u8) {
        match c {
            Cvt::F2i => self.ev(Code::EVEX_Vcvtps2dq_zmm_k1z_zmmm512b32_er, &[Z(d), Z(a)]),
            Cvt::F2iTrunc => self.ev(Code::EVEX_Vcvttps2dq_zmm_k1z_zmmm512b32_sae, &[Z(d), Z(a)]),
            Cvt::I2f => self.ev(Code::EVEX_Vcvtdq2ps_zmm_k1z_zmmm512b32_er, &[Z(d), Z(a)]),
            Cvt::Round(imm) => self.ev(
                Code::EVEX_Vrndscaleps_zmm_k1z_zmmm512b32_imm8_sae,
                &[Z(d), Z(a), Op::I(imm)],
            ),
            Cvt::Sqrt => self.ev(Code::EVEX_Vsqrtps_zmm_k1z_zmmm512b32_er, &[Z(d), Z(a)]),
        }
    }

    /// `d` = all-ones lanes where `a pred b` (the `vcmpps` predicate `imm`).
    pub(super) fn z_cmp(&mut self, imm: i8, d: u8, a: u8, b: Op) {
        self.ev(
            Code::EVEX_Vcmpps_kr_k1_zmm_zmmm512b32_imm8_sae,
            &[K(K1), Z(a), b, Op::I(imm)],
        );
        self.ev(Code::EVEX_Vpmovm2d_zmm_kr, &[Z(d), K(K1)]);
    }

    /// `d = sign(mask) ? t : f` per lane.
    pub(super) fn z_blend(&mut self, d: u8, f: u8, t: u8, mask: u8) {
        self.ev(Code::EVEX_Vpmovd2m_kr_zmm, &[K(K1), Z(mask)]);
        self.z_blend_k1(d, f, t);
    }

    /// `d = k1 ? t : f` per lane (`k1` set by the instruction before).
    pub(super) fn z_blend_k1(&mut self, d: u8, f: u8, t: u8) {
        self.ev_k(
            Code::EVEX_Vblendmps_zmm_k1z_zmm_zmmm512b32,
            &[Z(d), Z(f), Z(t)],
            K1,
        );
    }

    /// Flags for `jnz` when any int32 lane of `t` is greater (signed) than `[m]`'s.
    pub(super) fn z_any_gt(&mut self, t: u8, m: Mem) {
        self.ev(
            Code::EVEX_Vpcmpgtd_kr_k1_zmm_zmmm512b32,
            &[K(K1), Z(t), M(m)],
        );
        self.ev(Code::VEX_Kortestw_kr_kr, &[K(K1), K(K1)]);
    }

    /// `k = all ones` (no NaN seen yet, see `reduce.rs`).
    pub(super) fn z_kset(&mut self, k: u8) {
        self.ev(Code::VEX_Kxnorw_kr_kr_kr, &[K(k), K(k), K(k)]);
    }

    /// `k &= lanes where neither a nor b is NaN` (`vcmpps k{k}, a, b, ord`).
    pub(super) fn z_and_ordered(&mut self, k: u8, a: u8, b: u8) {
        self.ev_k(
            Code::EVEX_Vcmpps_kr_k1_zmm_zmmm512b32_imm8_sae,
            &[K(k), Z(a), Z(b), Op::I(7)],
            k,
        );
    }

    /// `d = all-ones lanes where k is clear`.
    pub(super) fn z_unset_lanes(&mut self, d: u8, k: u8) {
        self.ev(Code::VEX_Knotw_kr_kr, &[K(K1), K(k)]);
        self.ev(Code::EVEX_Vpmovm2d_zmm_kr, &[Z(d), K(K1)]);
    }

    /// Stores opmask `k` (16 bits) at `m`, around calls.
    pub(super) fn z_kstore(&mut self, m: Mem, k: u8) {
        self.ev(Code::VEX_Kmovw_m16_kr, &[M1(m), K(k)]);
    }

    /// Loads opmask `k` (16 bits) from `m`.
    pub(super) fn z_kload(&mut self, k: u8, m: Mem) {
        self.ev(Code::VEX_Kmovw_kr_km16, &[K(k), M1(m)]);
    }

    /// Flags for `jnz` when any lane of `a` has its sign bit set.
    pub(super) fn z_any_sign(&mut self, a: u8) {
        self.ev(Code::EVEX_Vpmovd2m_kr_zmm, &[K(K1), Z(a)]);
        self.ev(Code::VEX_Kortestw_kr_kr, &[K(K1), K(K1)]);
    }

    /// Loads a full vector, or broadcasts a constant's element (see [`Mem`]).
    pub(super) fn z_load(&mut self, d: u8, m: Mem) {
        if m.bcast {
            self.ev(Code::EVEX_Vbroadcastss_zmm_k1z_xmmm32, &[Z(d), M1(m)]);
        } else {
            self.ev(Code::EVEX_Vmovups_zmm_k1z_zmmm512, &[Z(d), M(m)]);
        }
    }

    pub(super) fn z_store(&mut self, m: Mem, s: u8) {
        self.ev(Code::EVEX_Vmovups_zmmm512_k1z_zmm, &[M(m), Z(s)]);
    }

    /// Stores a full vector to the 64-byte-aligned `[m]`, non-temporally.
    pub(super) fn z_store_nt(&mut self, m: Mem, s: u8) {
        self.ev(Code::EVEX_Vmovntps_m512_zmm, &[M(m), Z(s)]);
    }

    /// Broadcasts the f32 (or f64) at `[m]` to every lane.
    pub(super) fn z_bcast(&mut self, f64: bool, d: u8, m: Mem) {
        let code = if f64 {
            Code::EVEX_Vbroadcastsd_zmm_k1z_xmmm64
        } else {
            Code::EVEX_Vbroadcastss_zmm_k1z_xmmm32
        };
        self.ev(code, &[Z(d), M1(m)]);
    }
}
