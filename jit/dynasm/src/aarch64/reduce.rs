//! Reductions on AArch64: accumulator set-up, the per-element step (vector and scalar), the
//! collapse of vector lanes into lane 0 between the vector loop and the tail, and the final
//! scaling into the row slot.
//!
//! f32 sums accumulate in two 2-lane f64 vectors (as the eager kernels accumulate in f64).
//! `fmax`/`fmin`/`fmaxv`/`fminv` propagate NaN, so max/min need no separate NaN flag (x86-64's
//! `maxps` does). Scalar FP instructions zero the upper lanes of their destination, which is why
//! the lanes are collapsed before the tail runs.

use dynasmrt::DynasmApi;

use super::asm::{F, K1, W, X9, X10, a64};
use super::emit::{ARGS, Emitter};
use crate::loop_ir::{RedOp, Ty};
use crate::poly::K;

impl Emitter<'_> {
    pub(super) fn acc_init(&mut self, op: RedOp, ty: Ty, a0: u8, a1: u8) {
        self.a.zero(a0);
        self.a.zero(a1);
        let max = op == RedOp::Max;
        match (op, ty) {
            (RedOp::Max | RedOp::Min, Ty::F32) => {
                let m = self.tab(if max { K::NegInf } else { K::Inf });
                self.a.load(W::Ps, a0, m);
            }
            (RedOp::Max | RedOp::Min, Ty::F64) => {
                let bits = if max {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
                .to_bits();
                self.a.imm(X9, bits);
                self.a.fmov_from_gp(a0, X9);
            }
            (RedOp::Max | RedOp::Min, _) => {
                let bits = if max { i64::MIN } else { i64::MAX } as u64;
                self.a.imm(X9, bits);
                self.a.fmov_from_gp(a0, X9);
            }
            _ => {}
        }
    }

    pub(super) fn acc_step(&mut self, op: RedOp, ty: Ty, a0: u8, a1: u8, x: u8, vec: bool) {
        match (op, ty) {
            (RedOp::Sum | RedOp::Mean, Ty::F32) if vec => a64!(self.a.ops
                ; fcvtl V(K1).D2, V(x).S2 ; fadd V(a0).D2, V(a0).D2, V(K1).D2
                ; fcvtl2 V(K1).D2, V(x).S4 ; fadd V(a1).D2, V(a1).D2, V(K1).D2),
            (RedOp::Sum | RedOp::Mean, Ty::F32) => {
                a64!(self.a.ops ; fcvt D(K1), S(x) ; fadd D(a0), D(a0), D(K1));
            }
            (RedOp::Sum | RedOp::Mean, Ty::F64) => self.a.f(F::Add, W::Sd, a0, a0, x),
            (RedOp::Sum | RedOp::Mean, _) => a64!(self.a.ops ; add D(a0), D(a0), D(x)),
            (RedOp::Max | RedOp::Min, Ty::F32 | Ty::F64) => {
                let w = match (ty, vec) {
                    (Ty::F32, true) => W::Ps,
                    (Ty::F32, false) => W::Ss,
                    _ => W::Sd,
                };
                let f = if op == RedOp::Max { F::Max } else { F::Min };
                self.a.f(f, w, a0, a0, x);
            }
            (RedOp::Max | RedOp::Min, _) => {
                self.a.fmov_to_gp(X9, a0);
                self.a.fmov_to_gp(X10, x);
                if op == RedOp::Max {
                    a64!(self.a.ops ; cmp x9, x10 ; csel x9, x9, x10, gt);
                } else {
                    a64!(self.a.ops ; cmp x9, x10 ; csel x9, x9, x10, lt);
                }
                self.a.fmov_from_gp(a0, X9);
            }
        }
    }

    /// Folds the vector accumulators into lane 0.
    pub(super) fn acc_collapse(&mut self, op: RedOp, ty: Ty, a0: u8, a1: u8) {
        match (op, ty) {
            (RedOp::Sum | RedOp::Mean, Ty::F32 | Ty::F64) => a64!(self.a.ops
                ; fadd V(a0).D2, V(a0).D2, V(a1).D2 ; faddp D(a0), V(a0).D2),
            (RedOp::Max, Ty::F32) => a64!(self.a.ops ; fmaxv S(a0), V(a0).S4),
            (RedOp::Min, Ty::F32) => a64!(self.a.ops ; fminv S(a0), V(a0).S4),
            _ => {}
        }
    }

    pub(super) fn acc_finish(&mut self, op: RedOp, ty: Ty, a0: u8, slot: u32) {
        let m = self.row_slot(slot);
        match (op, ty) {
            (RedOp::Sum | RedOp::Mean, Ty::F32 | Ty::F64) => {
                if op == RedOp::Mean {
                    a64!(self.a.ops
                        ; ldr X(X9), [X(ARGS), 8] ; scvtf D(K1), X(X9)
                        ; fdiv D(a0), D(a0), D(K1));
                }
                if ty == Ty::F32 {
                    a64!(self.a.ops ; fcvt S(a0), D(a0));
                    self.a.store(W::Ss, m, a0);
                } else {
                    self.a.store(W::Sd, m, a0);
                }
            }
            (_, Ty::F32) => self.a.store(W::Ss, m, a0),
            _ => self.a.store(W::Sd, m, a0),
        }
    }
}
