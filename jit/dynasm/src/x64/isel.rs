//! Instruction selection for x86-64: one loop-IR node to AVX2/SSE2 instructions (unary and binary
//! operations, casts, loads and stores of the current column), for [`super::emit`]'s loops.

use dynasmrt::DynasmApi;

use super::asm::{F, Mem, W, x64};
use super::emit::{Emitter, R14, RAX, RDX, RSP};
use super::{math, trig};
use crate::helpers;
use crate::loop_ir::{BOp, ColStride, Inst, Node, Phase, Ty, UOp, V};
use crate::poly::K;
use crate::regalloc::Loc;

impl Emitter<'_> {
    pub(super) fn inst(&mut self, p: &Phase, v: V, vec: bool) -> Result<(), String> {
        if self.remat[v as usize].is_some() && matches!(self.locs[v as usize], Some(Loc::Slot(_))) {
            // Loaded where it is used.
            return Ok(());
        }
        let Node { inst, ty } = p.body[v as usize];
        let w = self.w(ty, vec);
        let d = self.dst(v);
        let ty_of = |x: V| p.body[x as usize].ty;
        match inst {
            Inst::Load(a) => {
                let acc = self.k.accesses[a as usize];
                let mut m = self.addr(a, vec);
                if let Some(&c) = self.copy_of_node.get(v as usize) {
                    m.disp += (acc.ty.size() * self.a.lanes() * usize::from(c)) as i32;
                }
                let bcast = acc.col == ColStride::Broadcast;
                match acc.ty {
                    Ty::F32 if vec && bcast => self.a.bcast(W::Ps, d, m),
                    Ty::F32 => self.a.load(if vec { W::Ps } else { W::Ss }, d, m),
                    Ty::F64 | Ty::I64 => self.a.load(W::Sd, d, m),
                    Ty::Bool => self.load_bool(d, m, vec, bcast),
                }
            }
            Inst::Const(c) => {
                // The pool holds each constant broadcast over 32 bytes (`runtime::pool`).
                let m = Mem::bcast(R14, 32 * c as i32);
                match ty {
                    Ty::F32 => self.a.load(if vec { W::Ps } else { W::Ss }, d, m),
                    _ => self.a.load(W::Sd, d, m),
                }
            }
            Inst::RowVal(s) => {
                let m = self.mem(RSP, self.frame.rows + self.frame.vs * s as i32);
                match ty {
                    Ty::F32 if vec => self.a.bcast(W::Ps, d, m),
                    Ty::F32 => self.a.load(W::Ss, d, m),
                    _ => self.a.load(W::Sd, d, m),
                }
            }
            Inst::Unary(op @ (UOp::Sin | UOp::Cos), x) if self.trig_share.contains_key(&v) => {
                let (slot, first) = self.trig_share[&v];
                if first {
                    let r = self.src(x, 15, vec);
                    trig::trig(self, w, d, r, op == UOp::Cos, Some(slot));
                } else {
                    self.a.load(w, d, slot);
                }
            }
            Inst::Unary(UOp::Exp, x) if ty_of(x) == Ty::F32 && self.nonpos[x as usize] => {
                let r = self.src(x, 15, vec);
                math::exp_nonpos(self, w, d, r);
            }
            Inst::Unary(op, x) => {
                let xt = ty_of(x);
                let xw = self.w(xt, vec);
                let r = self.src(x, 15, vec);
                self.unary(op, xt, xw, d, r)?;
                if op == UOp::IsNan {
                    self.mask_to_01(d);
                }
            }
            Inst::Binary(BOp::Div, x, y)
                if vec && self.recips.contains_key(&y) && !self.divides_on_divider(v) =>
            {
                let (rx, ry) = (self.src(x, 14, vec), self.src(y, 15, vec));
                let slot = self.recips[&y];
                self.div_by_recip(d, rx, ry, slot);
            }
            Inst::Binary(op, x, y) => {
                let xt = ty_of(x);
                let xw = self.w(xt, vec);
                let (rx, ry) = (self.src(x, 14, vec), self.src(y, 15, vec));
                self.binary(op, xt, xw, d, rx, ry);
            }
            Inst::Select(c, x, y) => {
                let (rc, rx, ry) = (
                    self.src(c, 13, vec),
                    self.src(x, 14, vec),
                    self.src(y, 15, vec),
                );
                if self.masks {
                    self.a.blend(w, d, ry, rx, rc);
                } else {
                    self.a.movq_to_gp(RAX, rc);
                    x64!(self.a.ops ; neg rax);
                    self.a.movq_from_gp(12, RAX);
                    self.a.blend(W::Sd, d, ry, rx, 12);
                }
            }
            Inst::Cast(x) => {
                let xt = ty_of(x);
                let r = self.src(x, 15, vec);
                self.cast(xt, ty, vec, d, r)?;
            }
            Inst::Call1(f, x) => {
                let r = self.src(x, 13, vec);
                let double = ty == Ty::F64;
                self.call(helpers::func1(f, double), &[r], double, d);
            }
            Inst::Call2(f, x, y) => {
                let (rx, ry) = (self.src(x, 14, vec), self.src(y, 15, vec));
                let double = ty == Ty::F64;
                self.call(helpers::func2(f, double), &[rx, ry], double, d);
            }
        }
        self.commit(v, d);
        Ok(())
    }

    fn unary(&mut self, op: UOp, xt: Ty, w: W, d: u8, r: u8) -> Result<(), String> {
        let double = xt == Ty::F64;
        match op {
            UOp::Neg => {
                let m = self.tab(if double { K::NegZeroD } else { K::NegZero });
                self.a.fm(F::Xor, w, d, r, m);
            }
            UOp::Abs => {
                let m = self.tab(if double { K::AbsMaskD } else { K::AbsMask });
                self.a.fm(F::And, w, d, r, m);
            }
            UOp::Sqrt => self.a.sqrt(w, d, r),
            UOp::Relu => {
                self.a.zero(11);
                self.a.f(F::Max, w, d, 11, r);
            }
            UOp::IsNan => self.a.cmp(w, 3, d, r, r),
            UOp::Floor | UOp::Ceil | UOp::Trunc | UOp::Round => {
                let (mode, f) = match op {
                    UOp::Floor => (1, crate::loop_ir::Func1::Floor),
                    UOp::Ceil => (2, crate::loop_ir::Func1::Ceil),
                    UOp::Trunc => (3, crate::loop_ir::Func1::Trunc),
                    _ => (0, crate::loop_ir::Func1::Round),
                };
                if self.a.avx() {
                    self.a.round(w, d, r, mode);
                } else {
                    self.call(helpers::func1(f, double), &[r], double, d);
                }
            }
            UOp::Not => {
                if self.masks {
                    let m = self.tab(K::AllOnes);
                    self.a.fm(F::Xor, w, d, r, m);
                } else {
                    self.a.movq_to_gp(RAX, r);
                    if xt == Ty::Bool {
                        x64!(self.a.ops ; xor rax, 1);
                    } else {
                        x64!(self.a.ops ; not rax);
                    }
                    self.a.movq_from_gp(d, RAX);
                }
            }
            UOp::Exp | UOp::Log | UOp::Sin | UOp::Cos | UOp::Tanh | UOp::Sigmoid | UOp::Erf => {
                if xt != Ty::F32 {
                    return Err(format!("{op:?} on {xt:?}"));
                }
                math::emit(self, op, w, d, r);
            }
        }
        Ok(())
    }

    fn binary(&mut self, op: BOp, xt: Ty, w: W, d: u8, a: u8, b: u8) {
        let float = matches!(xt, Ty::F32 | Ty::F64) || (self.masks && xt == Ty::Bool);
        if float {
            match op {
                BOp::Add => self.a.f(F::Add, w, d, a, b),
                BOp::Sub => self.a.f(F::Sub, w, d, a, b),
                BOp::Mul => self.a.f(F::Mul, w, d, a, b),
                BOp::Div => self.a.f(F::Div, w, d, a, b),
                BOp::And => self.a.f(F::And, w, d, a, b),
                BOp::Or => self.a.f(F::Or, w, d, a, b),
                BOp::Xor => self.a.f(F::Xor, w, d, a, b),
                BOp::Max | BOp::Min => {
                    // maxps returns its second operand when either is NaN: put `a` second, then
                    // patch lanes where `b` is NaN.
                    let f = if op == BOp::Max { F::Max } else { F::Min };
                    self.a.f(f, w, 11, b, a);
                    self.a.cmp_blend(w, 3, (d, 11, b), b, b, 12);
                }
                BOp::Eq | BOp::Ne | BOp::Lt | BOp::Le | BOp::Gt | BOp::Ge => {
                    let (imm, x, y) = match op {
                        BOp::Eq => (0, a, b),
                        BOp::Ne => (4, a, b),
                        BOp::Lt => (1, a, b),
                        BOp::Le => (2, a, b),
                        BOp::Gt => (1, b, a),
                        _ => (2, b, a),
                    };
                    self.a.cmp(w, imm, d, x, y);
                    self.mask_to_01(d);
                }
            }
            return;
        }
        self.a.movq_to_gp(RAX, a);
        self.a.movq_to_gp(RDX, b);
        match op {
            BOp::Add => x64!(self.a.ops ; add rax, rdx),
            BOp::Sub => x64!(self.a.ops ; sub rax, rdx),
            BOp::Mul => x64!(self.a.ops ; imul rax, rdx),
            BOp::And => x64!(self.a.ops ; and rax, rdx),
            BOp::Or => x64!(self.a.ops ; or rax, rdx),
            BOp::Xor => x64!(self.a.ops ; xor rax, rdx),
            BOp::Max => x64!(self.a.ops ; cmp rax, rdx ; cmovl rax, rdx),
            BOp::Min => x64!(self.a.ops ; cmp rax, rdx ; cmovg rax, rdx),
            BOp::Div => x64!(self.a.ops ; ud2),
            BOp::Eq => x64!(self.a.ops ; cmp rax, rdx ; sete al ; movzx eax, al),
            BOp::Ne => x64!(self.a.ops ; cmp rax, rdx ; setne al ; movzx eax, al),
            BOp::Lt => x64!(self.a.ops ; cmp rax, rdx ; setl al ; movzx eax, al),
            BOp::Le => x64!(self.a.ops ; cmp rax, rdx ; setle al ; movzx eax, al),
            BOp::Gt => x64!(self.a.ops ; cmp rax, rdx ; setg al ; movzx eax, al),
            BOp::Ge => x64!(self.a.ops ; cmp rax, rdx ; setge al ; movzx eax, al),
        }
        self.a.movq_from_gp(d, RAX);
    }

    fn cast(&mut self, from: Ty, to: Ty, vec: bool, d: u8, r: u8) -> Result<(), String> {
        let avx = self.a.avx();
        match (from, to) {
            (Ty::F32, Ty::Bool) | (Ty::F64, Ty::Bool) => {
                let w = self.w(from, vec);
                self.a.zero(11);
                self.a.cmp(w, 4, d, r, 11);
                self.mask_to_01(d);
            }
            (Ty::Bool, Ty::F32) if self.masks => {
                let m = self.tab(K::One);
                self.a.fm(F::And, self.w(Ty::F32, vec), d, r, m);
            }
            (Ty::F32, Ty::F64) if avx => x64!(self.a.ops ; vcvtss2sd Rx(d), Rx(r), Rx(r)),
            (Ty::F32, Ty::F64) => x64!(self.a.ops ; cvtss2sd Rx(d), Rx(r)),
            (Ty::F64, Ty::F32) if avx => x64!(self.a.ops ; vcvtsd2ss Rx(d), Rx(r), Rx(r)),
            (Ty::F64, Ty::F32) => x64!(self.a.ops ; cvtsd2ss Rx(d), Rx(r)),
            (Ty::I64 | Ty::Bool, Ty::F32) => {
                self.a.movq_to_gp(RAX, r);
                if avx {
                    x64!(self.a.ops ; vcvtsi2ss Rx(d), Rx(d), rax);
                } else {
                    x64!(self.a.ops ; cvtsi2ss Rx(d), rax);
                }
            }
            (Ty::I64 | Ty::Bool, Ty::F64) => {
                self.a.movq_to_gp(RAX, r);
                if avx {
                    x64!(self.a.ops ; vcvtsi2sd Rx(d), Rx(d), rax);
                } else {
                    x64!(self.a.ops ; cvtsi2sd Rx(d), rax);
                }
            }
            (Ty::Bool, Ty::I64) => self.a.mov(d, r),
            (Ty::I64, Ty::Bool) => {
                self.a.movq_to_gp(RAX, r);
                x64!(self.a.ops ; test rax, rax ; setne al ; movzx eax, al);
                self.a.movq_from_gp(d, RAX);
            }
            (f, t) if f == t => self.a.mov(d, r),
            (f, t) => return Err(format!("cast {f:?} -> {t:?}")),
        }
        Ok(())
    }
}
