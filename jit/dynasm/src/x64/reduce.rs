//! Reductions on x86-64: accumulator set-up, the per-element step (vector and scalar), the
//! collapse of vector lanes into lane 0 between the vector loop and the tail, and the final
//! scaling/NaN fix-up into the row slot.
//!
//! f32 sums accumulate in two f64 vectors (as the eager kernels accumulate in f64); max/min keep
//! a separate NaN flag because `maxps` drops NaNs in its first operand. On AVX-512 the
//! accumulators are zmm (the f32 lanes' low half in `a0`, high half in `a1`), and the collapse
//! first folds zmm into ymm, then takes the AVX2 steps: lanes still fold by halves.

use dynasmrt::{DynasmApi, DynasmLabelApi};
use iced_x86::Code;

use super::asm::{F, W, x64};
use super::emit::{Emitter, RAX, RDX, RSP};
use super::evex::Op::{I, M, Y, Z};
use crate::loop_ir::{Phase, RedOp, Ty, V};
use crate::poly::K;
use crate::regalloc::PhasePlan;

impl Emitter<'_> {
    /// Sets up the accumulators of every reduction of `p`. On AVX-512, the vector loops of an
    /// f32 max/min flag NaNs in opmask `k2 + i` for reduction `i` (`vcmpps k{k}, a, b, ord`
    /// clears lanes that saw one): one micro-op per pair of vectors, where a vector flag takes
    /// three (compare into k1, expand, or). W2 (softmax rows) ran 4-5% faster single-threaded
    /// (1.81 against 1.89 ms). Two masks alternating by pair, to halve the chain through one,
    /// measured no faster.
    pub(super) fn acc_init_all(&mut self, p: &Phase, plan: &PhasePlan) {
        self.nan_k.clear();
        for (i, (r, &(a0, a1))) in p.reduces.iter().zip(&plan.accs).enumerate() {
            let ty = p.body[r.value as usize].ty;
            self.acc_init(r.op, ty, a0, a1);
            if self.a.zmm()
                && plan.vector
                && ty == Ty::F32
                && matches!(r.op, RedOp::Max | RedOp::Min)
            {
                let k = 2 + i as u8;
                self.a.z_kset(k);
                self.nan_k.insert(a1, k);
            }
        }
    }

    pub(super) fn acc_init(&mut self, op: RedOp, ty: Ty, a0: u8, a1: u8) {
        self.a.zero(a0);
        self.a.zero(a1);
        match (op, ty) {
            (RedOp::Max | RedOp::Min, Ty::F32) => {
                let m = self.tab(if op == RedOp::Max { K::NegInf } else { K::Inf });
                self.a.bcast(W::Ps, a0, m);
            }
            (RedOp::Max | RedOp::Min, Ty::F64) => {
                let bits = if op == RedOp::Max {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
                .to_bits() as i64;
                x64!(self.a.ops ; mov rax, QWORD bits);
                self.a.movq_from_gp(a0, RAX);
            }
            (RedOp::Max | RedOp::Min, _) => {
                let bits = if op == RedOp::Max { i64::MIN } else { i64::MAX };
                x64!(self.a.ops ; mov rax, QWORD bits);
                self.a.movq_from_gp(a0, RAX);
            }
            _ => {}
        }
    }

    /// One step of a reduction over `values` (the copies of an unrolled body, in copy order; one
    /// value when not unrolled). Sums add them one by one, keeping each lane's order that of the
    /// single-vector loop. Max/min fold the copies first, earlier operand first: `maxps`
    /// returns its second operand on ties (+0/-0), so like the sequential chain the fold keeps
    /// the last of equal maxima, while the accumulator's latency chain gets one link per
    /// iteration instead of one per copy. NaNs are flagged pairwise (`unord(a, b)` is set when
    /// either is NaN), as the chain's result is replaced by NaN in `acc_finish` anyway.
    pub(super) fn acc_steps(&mut self, op: RedOp, ty: Ty, a0: u8, a1: u8, values: &[V], vec: bool) {
        let fold =
            vec && ty == Ty::F32 && matches!(op, RedOp::Max | RedOp::Min) && values.len() > 1;
        if !fold {
            let f32_sum = vec && ty == Ty::F32 && matches!(op, RedOp::Sum | RedOp::Mean);
            for &v in values {
                if let Some(&(acc, disp)) = self.stored_now.get(&v).filter(|_| f32_sum) {
                    self.sum_stored(a0, a1, acc, disp);
                    continue;
                }
                let x = self.src(v, 13, vec);
                self.acc_step(op, ty, a0, a1, x, vec);
            }
            return;
        }
        let f = if op == RedOp::Max { F::Max } else { F::Min };
        // Running fold in xmm12; pairs go through xmm13/xmm14 (reloads) and xmm15.
        let mut first = true;
        for pair in values.chunks(2) {
            let x = self.src(pair[0], 13, vec);
            let y = pair.get(1).map_or(x, |&v| self.src(v, 14, vec));
            if let Some(&k) = self.nan_k.get(&a1) {
                self.a.z_and_ordered(k, x, y);
            } else {
                self.a.cmp(W::Ps, 3, 11, x, y);
                self.a.f(F::Or, W::Ps, a1, a1, 11);
            }
            let dst = if first { 12 } else { 15 };
            if pair.len() == 2 {
                self.a.f(f, W::Ps, dst, x, y);
            } else if first {
                self.a.mov(12, x);
            }
            if !first {
                let u = if pair.len() == 2 { 15 } else { x };
                self.a.f(f, W::Ps, 12, 12, u);
            }
            first = false;
        }
        self.a.f(f, W::Ps, a0, a0, 12);
    }

    /// An f32 sum's vector step for a value this iteration has just stored at access `acc`
    /// (plus `disp`): both halves convert to f64 straight from memory (the store forwards to
    /// the loads), one shuffle fewer than extracting the high half (measured 8-20% faster in
    /// isolation on AVX-512). The same additions, so the same sums bit for bit.
    fn sum_stored(&mut self, a0: u8, a1: u8, acc: u32, disp: i32) {
        let mut m = self.addr(acc, true);
        m.disp += disp;
        let mut hi = m;
        hi.disp += 4 * self.a.lanes() as i32 / 2;
        if self.a.zmm() {
            let a = &mut self.a;
            for (m, acc) in [(m, a0), (hi, a1)] {
                a.ev(Code::EVEX_Vcvtps2pd_zmm_k1z_ymmm256b32_sae, &[Z(11), M(m)]);
                a.ev(
                    Code::EVEX_Vaddpd_zmm_k1z_zmm_zmmm512b64_er,
                    &[Z(acc), Z(acc), Z(11)],
                );
            }
        } else if self.a.avx() {
            x64!(self.a.ops
                ; vcvtps2pd Ry(11), [Rq(m.base) + m.disp] ; vaddpd Ry(a0), Ry(a0), Ry(11)
                ; vcvtps2pd Ry(11), [Rq(hi.base) + hi.disp] ; vaddpd Ry(a1), Ry(a1), Ry(11));
        } else {
            x64!(self.a.ops
                ; cvtps2pd Rx(11), [Rq(m.base) + m.disp] ; addpd Rx(a0), Rx(11)
                ; cvtps2pd Rx(11), [Rq(hi.base) + hi.disp] ; addpd Rx(a1), Rx(11));
        }
    }

    pub(super) fn acc_step(&mut self, op: RedOp, ty: Ty, a0: u8, a1: u8, x: u8, vec: bool) {
        let avx = self.a.avx();
        match (op, ty) {
            (RedOp::Sum | RedOp::Mean, Ty::F32) => {
                if vec && self.a.zmm() {
                    let a = &mut self.a;
                    a.ev(Code::EVEX_Vcvtps2pd_zmm_k1z_ymmm256b32_sae, &[Z(11), Y(x)]);
                    a.ev(
                        Code::EVEX_Vaddpd_zmm_k1z_zmm_zmmm512b64_er,
                        &[Z(a0), Z(a0), Z(11)],
                    );
                    a.ev(
                        Code::EVEX_Vextractf32x8_ymmm256_k1z_zmm_imm8,
                        &[Y(11), Z(x), I(1)],
                    );
                    a.ev(Code::EVEX_Vcvtps2pd_zmm_k1z_ymmm256b32_sae, &[Z(11), Y(11)]);
                    a.ev(
                        Code::EVEX_Vaddpd_zmm_k1z_zmm_zmmm512b64_er,
                        &[Z(a1), Z(a1), Z(11)],
                    );
                } else if vec && avx {
                    x64!(self.a.ops
                        ; vcvtps2pd Ry(11), Rx(x) ; vaddpd Ry(a0), Ry(a0), Ry(11)
                        ; vextractf128 Rx(11), Ry(x), 1 ; vcvtps2pd Ry(11), Rx(11) ; vaddpd Ry(a1), Ry(a1), Ry(11));
                } else if vec {
                    x64!(self.a.ops
                        ; cvtps2pd Rx(11), Rx(x) ; addpd Rx(a0), Rx(11)
                        ; movhlps Rx(11), Rx(x) ; cvtps2pd Rx(11), Rx(11) ; addpd Rx(a1), Rx(11));
                } else if avx {
                    x64!(self.a.ops ; vcvtss2sd Rx(11), Rx(11), Rx(x) ; vaddsd Rx(a0), Rx(a0), Rx(11));
                } else {
                    x64!(self.a.ops ; cvtss2sd Rx(11), Rx(x) ; addsd Rx(a0), Rx(11));
                }
            }
            (RedOp::Sum | RedOp::Mean, Ty::F64) => self.a.f(F::Add, W::Sd, a0, a0, x),
            (RedOp::Sum | RedOp::Mean, _) => {
                if avx {
                    x64!(self.a.ops ; vpaddq Rx(a0), Rx(a0), Rx(x));
                } else {
                    x64!(self.a.ops ; paddq Rx(a0), Rx(x));
                }
            }
            (RedOp::Max | RedOp::Min, Ty::F32 | Ty::F64) => {
                let w = match (ty, vec) {
                    (Ty::F32, true) => W::Ps,
                    (Ty::F32, false) => W::Ss,
                    _ => W::Sd,
                };
                let f = if op == RedOp::Max { F::Max } else { F::Min };
                self.a.f(f, w, a0, a0, x);
                match self.nan_k.get(&a1) {
                    Some(&k) if vec => self.a.z_and_ordered(k, x, x),
                    _ => {
                        self.a.cmp(w, 3, 11, x, x);
                        self.a.f(F::Or, w, a1, a1, 11);
                    }
                }
            }
            (RedOp::Max | RedOp::Min, _) => {
                self.a.movq_to_gp(RAX, a0);
                self.a.movq_to_gp(RDX, x);
                if op == RedOp::Max {
                    x64!(self.a.ops ; cmp rax, rdx ; cmovl rax, rdx);
                } else {
                    x64!(self.a.ops ; cmp rax, rdx ; cmovg rax, rdx);
                }
                self.a.movq_from_gp(a0, RAX);
            }
        }
    }

    /// Folds the vector accumulators into lane 0 (VEX scalar ops in the tail would zero the
    /// upper lanes, so this runs between the vector loop and the tail).
    pub(super) fn acc_collapse(&mut self, op: RedOp, ty: Ty, a0: u8, a1: u8) {
        let avx = self.a.avx();
        match (op, ty) {
            (RedOp::Sum | RedOp::Mean, Ty::F32 | Ty::F64) => {
                // zmm: a0 += a1, then a0's high half takes a1's place in the ymm steps.
                let a1 = if self.a.zmm() {
                    let a = &mut self.a;
                    a.ev(
                        Code::EVEX_Vaddpd_zmm_k1z_zmm_zmmm512b64_er,
                        &[Z(a0), Z(a0), Z(a1)],
                    );
                    a.ev(
                        Code::EVEX_Vextractf64x4_ymmm256_k1z_zmm_imm8,
                        &[Y(11), Z(a0), I(1)],
                    );
                    11
                } else {
                    a1
                };
                if avx {
                    x64!(self.a.ops
                        ; vaddpd Ry(a0), Ry(a0), Ry(a1) ; vextractf128 Rx(11), Ry(a0), 1
                        ; vaddpd Rx(a0), Rx(a0), Rx(11) ; vunpckhpd Rx(11), Rx(a0), Rx(a0)
                        ; vaddsd Rx(a0), Rx(a0), Rx(11));
                } else {
                    x64!(self.a.ops
                        ; addpd Rx(a0), Rx(a1) ; movapd Rx(11), Rx(a0) ; unpckhpd Rx(11), Rx(11)
                        ; addsd Rx(a0), Rx(11));
                }
            }
            (RedOp::Max | RedOp::Min, Ty::F32) => {
                let max = op == RedOp::Max;
                if self.a.zmm() {
                    let f = if max {
                        Code::VEX_Vmaxps_ymm_ymm_ymmm256
                    } else {
                        Code::VEX_Vminps_ymm_ymm_ymmm256
                    };
                    let a = &mut self.a;
                    a.ev(
                        Code::EVEX_Vextractf32x8_ymmm256_k1z_zmm_imm8,
                        &[Y(11), Z(a0), I(1)],
                    );
                    a.ev(f, &[Y(a0), Y(a0), Y(11)]);
                }
                if avx {
                    x64!(self.a.ops ; vextractf128 Rx(11), Ry(a0), 1);
                    if max {
                        x64!(self.a.ops ; vmaxps Rx(a0), Rx(a0), Rx(11) ; vmovhlps Rx(11), Rx(a0), Rx(a0) ; vmaxps Rx(a0), Rx(a0), Rx(11)
                            ; vshufps Rx(11), Rx(a0), Rx(a0), 1 ; vmaxss Rx(a0), Rx(a0), Rx(11));
                    } else {
                        x64!(self.a.ops ; vminps Rx(a0), Rx(a0), Rx(11) ; vmovhlps Rx(11), Rx(a0), Rx(a0) ; vminps Rx(a0), Rx(a0), Rx(11)
                            ; vshufps Rx(11), Rx(a0), Rx(a0), 1 ; vminss Rx(a0), Rx(a0), Rx(11));
                    }
                } else if max {
                    x64!(self.a.ops ; movhlps Rx(11), Rx(a0) ; maxps Rx(a0), Rx(11) ; movaps Rx(11), Rx(a0)
                        ; shufps Rx(11), Rx(11), 1 ; maxss Rx(a0), Rx(11));
                } else {
                    x64!(self.a.ops ; movhlps Rx(11), Rx(a0) ; minps Rx(a0), Rx(11) ; movaps Rx(11), Rx(a0)
                        ; shufps Rx(11), Rx(11), 1 ; minss Rx(a0), Rx(11));
                }
                if let Some(&k) = self.nan_k.get(&a1) {
                    self.a.z_unset_lanes(a1, k);
                }
                self.a.any_lane(W::Ps, a1);
                x64!(self.a.ops ; setnz al ; movzx eax, al ; neg rax);
                self.a.movq_from_gp(a1, RAX);
            }
            _ => {}
        }
    }

    pub(super) fn acc_finish(&mut self, op: RedOp, ty: Ty, a0: u8, a1: u8, slot: u32) {
        let avx = self.a.avx();
        let so = self.row_base + self.frame.vs * slot as i32;
        let m = self.mem(RSP, so);
        match (op, ty) {
            (RedOp::Sum | RedOp::Mean, Ty::F32 | Ty::F64) => {
                if op == RedOp::Mean {
                    if avx {
                        x64!(self.a.ops ; vcvtsi2sd Rx(11), Rx(11), QWORD [rbx + 8] ; vdivsd Rx(a0), Rx(a0), Rx(11));
                    } else {
                        x64!(self.a.ops ; cvtsi2sd Rx(11), QWORD [rbx + 8] ; divsd Rx(a0), Rx(11));
                    }
                }
                if ty == Ty::F32 {
                    if avx {
                        x64!(self.a.ops ; vcvtsd2ss Rx(a0), Rx(a0), Rx(a0));
                    } else {
                        x64!(self.a.ops ; cvtsd2ss Rx(a0), Rx(a0));
                    }
                    self.a.store(W::Ss, m, a0);
                } else {
                    self.a.store(W::Sd, m, a0);
                }
            }
            (RedOp::Max | RedOp::Min, Ty::F32 | Ty::F64) => {
                // Only lane 0 of the NaN flag is meaningful after the collapse.
                let ok = self.a.label();
                self.a.mask01(a1);
                x64!(self.a.ops ; test eax, eax ; jz =>ok);
                let nan = if ty == Ty::F32 {
                    i64::from(f32::NAN.to_bits())
                } else {
                    f64::NAN.to_bits() as i64
                };
                x64!(self.a.ops ; mov rax, QWORD nan);
                self.a.movq_from_gp(a0, RAX);
                self.a.bind(ok);
                self.a
                    .store(if ty == Ty::F32 { W::Ss } else { W::Sd }, m, a0);
            }
            _ => self.a.store(W::Sd, m, a0),
        }
    }
}
