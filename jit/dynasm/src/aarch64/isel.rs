//! Instruction selection for AArch64: one loop-IR instruction at a time, in vector (4 lanes) or
//! scalar form.
//!
//! In vector phases bools are lane masks (in the vector loop and its scalar tail alike); in scalar
//! phases bools and i64 values are 64-bit integers in lane 0, operated on in GP registers, and
//! float comparisons go through `fcmp`/`cset`, whose conditions are false on unordered operands
//! except `ne`, as IEEE comparisons are.

use dynasmrt::DynasmApi;

use super::asm::{Cmp, F, K1, Mem, SP, W, X9, X10, a64};
use super::emit::{Emitter, R0, R1, R2, SAVED_GP};
use super::math;
use crate::helpers;
use crate::loop_ir::{BOp, Inst, Node, Phase, Ty, UOp, V};
use crate::poly::K;

impl Emitter<'_> {
    pub(super) fn w(&self, ty: Ty, vec: bool) -> W {
        match ty {
            Ty::F32 if vec => W::Ps,
            Ty::F32 => W::Ss,
            Ty::Bool if self.masks && vec => W::Ps,
            Ty::Bool if self.masks => W::Ss,
            _ => W::Sd,
        }
    }

    /// `v[d] = 1` if the flags satisfy `cond` (a `cset` condition), else 0.
    fn cset(&mut self, d: u8, cond: BOp, float: bool) {
        match (cond, float) {
            (BOp::Eq, _) => a64!(self.a.ops ; cset x9, eq),
            (BOp::Ne, _) => a64!(self.a.ops ; cset x9, ne),
            (BOp::Lt, true) => a64!(self.a.ops ; cset x9, mi),
            (BOp::Le, true) => a64!(self.a.ops ; cset x9, ls),
            (BOp::Lt, false) => a64!(self.a.ops ; cset x9, lt),
            (BOp::Le, false) => a64!(self.a.ops ; cset x9, le),
            (BOp::Gt, _) => a64!(self.a.ops ; cset x9, gt),
            (BOp::Ge, _) => a64!(self.a.ops ; cset x9, ge),
            _ => unreachable!("invariant: only comparisons reach cset"),
        }
        self.a.fmov_from_gp(d, X9);
    }

    fn fcmp(&mut self, w: W, a: u8, b: u8) {
        if w == W::Sd {
            a64!(self.a.ops ; fcmp D(a), D(b));
        } else {
            a64!(self.a.ops ; fcmp S(a), S(b));
        }
    }

    pub(super) fn inst(&mut self, p: &Phase, v: V, vec: bool) -> Result<(), String> {
        let Node { inst, ty } = p.body[v as usize];
        let d = self.dst(v);
        let ty_of = |x: V| p.body[x as usize].ty;
        match inst {
            Inst::Load(a) => {
                let acc = self.k.accesses[a as usize];
                let m = self.addr(a);
                match acc.ty {
                    Ty::F32 if vec && acc.col == crate::loop_ir::ColStride::Broadcast => {
                        self.a.bcast(d, m);
                    }
                    Ty::F32 => self.a.load(if vec { W::Ps } else { W::Ss }, d, m),
                    Ty::F64 | Ty::I64 => self.a.load(W::Sd, d, m),
                    Ty::Bool => {
                        let bcast = acc.col == crate::loop_ir::ColStride::Broadcast;
                        self.load_bool(d, m, vec, bcast);
                    }
                }
            }
            Inst::Const(c) => {
                let m = self.konst(c);
                match ty {
                    Ty::F32 => self.a.load(if vec { W::Ps } else { W::Ss }, d, m),
                    _ => self.a.load(W::Sd, d, m),
                }
            }
            Inst::RowVal(s) => {
                let m = self.row_slot(s);
                match ty {
                    Ty::F32 if vec => self.a.bcast(d, m),
                    Ty::F32 => self.a.load(W::Ss, d, m),
                    _ => self.a.load(W::Sd, d, m),
                }
            }
            Inst::Unary(UOp::Exp, x) if ty_of(x) == Ty::F32 && self.nonpos[x as usize] => {
                let w = self.w(Ty::F32, vec);
                let r = self.src(x, R2, vec);
                math::exp_nonpos(self, w, d, r);
            }
            Inst::Unary(op, x) => {
                let xt = ty_of(x);
                let xw = self.w(xt, vec);
                let r = self.src(x, R2, vec);
                self.unary(op, xt, xw, d, r)?;
            }
            Inst::Binary(op, x, y) => {
                let xt = ty_of(x);
                let xw = self.w(xt, vec);
                let (rx, ry) = (self.src(x, R1, vec), self.src(y, R2, vec));
                self.binary(op, xt, xw, d, rx, ry)?;
            }
            Inst::Select(c, x, y) => {
                let (rc, rx, ry) = (
                    self.src(c, R0, vec),
                    self.src(x, R1, vec),
                    self.src(y, R2, vec),
                );
                if self.masks {
                    self.a.blend(d, ry, rx, rc);
                } else {
                    // 0/1 to a mask in a math temporary (free outside math sequences).
                    self.a.fmov_to_gp(X9, rc);
                    a64!(self.a.ops ; neg x9, x9);
                    self.a.fmov_from_gp(math::T6, X9);
                    self.a.blend(d, ry, rx, math::T6);
                }
            }
            Inst::Cast(x) => {
                let xt = ty_of(x);
                let r = self.src(x, R2, vec);
                self.cast(xt, ty, vec, d, r)?;
            }
            Inst::Call1(f, x) => {
                let r = self.src(x, R0, vec);
                let double = ty == Ty::F64;
                self.call(helpers::func1(f, double), &[r], double, d);
            }
            Inst::Call2(f, x, y) => {
                let (rx, ry) = (self.src(x, R1, vec), self.src(y, R2, vec));
                let double = ty == Ty::F64;
                self.call(helpers::func2(f, double), &[rx, ry], double, d);
            }
        }
        self.commit(v, d);
        Ok(())
    }

    fn unary(&mut self, op: UOp, xt: Ty, w: W, d: u8, r: u8) -> Result<(), String> {
        match op {
            UOp::Neg => match w {
                W::Ps => a64!(self.a.ops ; fneg V(d).S4, V(r).S4),
                W::Ss => a64!(self.a.ops ; fneg S(d), S(r)),
                W::Sd => a64!(self.a.ops ; fneg D(d), D(r)),
            },
            UOp::Abs => match w {
                W::Ps => a64!(self.a.ops ; fabs V(d).S4, V(r).S4),
                W::Ss => a64!(self.a.ops ; fabs S(d), S(r)),
                W::Sd => a64!(self.a.ops ; fabs D(d), D(r)),
            },
            UOp::Sqrt => self.a.sqrt(w, d, r),
            UOp::Relu => {
                // fmax propagates NaN.
                self.a.zero(K1);
                self.a.f(F::Max, w, d, r, K1);
            }
            UOp::IsNan if self.masks => self.a.cmp(w, Cmp::Unord, d, r, r),
            UOp::IsNan => {
                self.fcmp(w, r, r);
                a64!(self.a.ops ; cset x9, vs);
                self.a.fmov_from_gp(d, X9);
            }
            UOp::Floor => self.a.round(w, d, r, 1),
            UOp::Ceil => self.a.round(w, d, r, 2),
            UOp::Trunc => self.a.round(w, d, r, 3),
            UOp::Round => self.a.round(w, d, r, 0),
            UOp::Not if self.masks => a64!(self.a.ops ; mvn V(d).B16, V(r).B16),
            UOp::Not => {
                self.a.fmov_to_gp(X9, r);
                if xt == Ty::Bool {
                    a64!(self.a.ops ; eor x9, x9, 1);
                } else {
                    a64!(self.a.ops ; mvn x9, x9);
                }
                self.a.fmov_from_gp(d, X9);
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

    fn binary(&mut self, op: BOp, xt: Ty, w: W, d: u8, a: u8, b: u8) -> Result<(), String> {
        let float = matches!(xt, Ty::F32 | Ty::F64) || (self.masks && xt == Ty::Bool);
        if float {
            match op {
                BOp::Add => self.a.f(F::Add, w, d, a, b),
                BOp::Sub => self.a.f(F::Sub, w, d, a, b),
                BOp::Mul => self.a.f(F::Mul, w, d, a, b),
                BOp::Div => self.a.f(F::Div, w, d, a, b),
                BOp::Max => self.a.f(F::Max, w, d, a, b),
                BOp::Min => self.a.f(F::Min, w, d, a, b),
                BOp::And => self.a.f(F::And, w, d, a, b),
                BOp::Or => self.a.f(F::Or, w, d, a, b),
                BOp::Xor => self.a.f(F::Xor, w, d, a, b),
                _ if self.masks => {
                    let (pred, x, y) = match op {
                        BOp::Eq => (Cmp::Eq, a, b),
                        BOp::Ne => (Cmp::Ne, a, b),
                        BOp::Lt => (Cmp::Lt, a, b),
                        BOp::Le => (Cmp::Le, a, b),
                        BOp::Gt => (Cmp::Lt, b, a),
                        _ => (Cmp::Le, b, a),
                    };
                    self.a.cmp(w, pred, d, x, y);
                }
                _ => {
                    self.fcmp(w, a, b);
                    self.cset(d, op, true);
                }
            }
            return Ok(());
        }
        self.a.fmov_to_gp(X9, a);
        self.a.fmov_to_gp(X10, b);
        match op {
            BOp::Add => a64!(self.a.ops ; add x9, x9, x10),
            BOp::Sub => a64!(self.a.ops ; sub x9, x9, x10),
            BOp::Mul => a64!(self.a.ops ; mul x9, x9, x10),
            BOp::And => a64!(self.a.ops ; and x9, x9, x10),
            BOp::Or => a64!(self.a.ops ; orr x9, x9, x10),
            BOp::Xor => a64!(self.a.ops ; eor x9, x9, x10),
            BOp::Max => a64!(self.a.ops ; cmp x9, x10 ; csel x9, x9, x10, gt),
            BOp::Min => a64!(self.a.ops ; cmp x9, x10 ; csel x9, x9, x10, lt),
            BOp::Div => return Err("integer division".into()),
            _ => {
                a64!(self.a.ops ; cmp x9, x10);
                self.cset(d, op, false);
                return Ok(());
            }
        }
        self.a.fmov_from_gp(d, X9);
        Ok(())
    }

    fn cast(&mut self, from: Ty, to: Ty, vec: bool, d: u8, r: u8) -> Result<(), String> {
        match (from, to) {
            (Ty::F32 | Ty::F64, Ty::Bool) => {
                let w = self.w(from, vec);
                self.a.zero(K1);
                if self.masks {
                    self.a.cmp(w, Cmp::Ne, d, r, K1);
                } else {
                    self.fcmp(w, r, K1);
                    self.cset(d, BOp::Ne, true);
                }
            }
            (Ty::Bool, Ty::F32) if self.masks => {
                let m = self.tab(K::One);
                let w = self.w(Ty::F32, vec);
                self.a.fm(F::And, w, d, r, m);
            }
            (Ty::F32, Ty::F64) => a64!(self.a.ops ; fcvt D(d), S(r)),
            (Ty::F64, Ty::F32) => a64!(self.a.ops ; fcvt S(d), D(r)),
            (Ty::I64 | Ty::Bool, Ty::F32) => {
                self.a.fmov_to_gp(X9, r);
                a64!(self.a.ops ; scvtf S(d), x9);
            }
            (Ty::I64 | Ty::Bool, Ty::F64) => {
                self.a.fmov_to_gp(X9, r);
                a64!(self.a.ops ; scvtf D(d), x9);
            }
            (Ty::I64, Ty::Bool) => {
                self.a.fmov_to_gp(X9, r);
                a64!(self.a.ops ; cmp x9, 0);
                self.cset(d, BOp::Ne, false);
            }
            (f, t) if f == t || (f, t) == (Ty::Bool, Ty::I64) => self.a.mov(d, r),
            (f, t) => return Err(format!("cast {f:?} -> {t:?}")),
        }
        Ok(())
    }

    /// Calls a scalar helper with every register saved; the result lands in `d`.
    pub fn call(&mut self, f: usize, args: &[u8], double: bool, d: u8) {
        self.save_all();
        let w = if double { W::Sd } else { W::Ss };
        for (i, &r) in args.iter().enumerate() {
            let m = self.saved(r);
            self.a.load(w, i as u8, m);
        }
        self.a.call(f);
        let res = Mem {
            base: SP,
            disp: self.frame.call,
        };
        self.a.store(W::Sd, res, 0);
        self.restore_all();
        self.a.load(w, d, res);
    }

    fn saved(&self, r: u8) -> Mem {
        Mem {
            base: SP,
            disp: self.frame.save + 16 * u32::from(r),
        }
    }

    /// Saves every vector register and the caller-saved base registers.
    pub fn save_all(&mut self) {
        for r in 0..32u8 {
            let m = self.saved(r);
            self.a.store(W::Ps, m, r);
        }
        for (i, &g) in SAVED_GP.iter().enumerate() {
            let m = Mem {
                base: SP,
                disp: self.frame.gp_save + 8 * i as u32,
            };
            self.a.str_x(g, m);
        }
    }

    /// Restores what [`Emitter::save_all`] saved.
    pub fn restore_all(&mut self) {
        for r in 0..32u8 {
            let m = self.saved(r);
            self.a.load(W::Ps, r, m);
        }
        for (i, &g) in SAVED_GP.iter().enumerate() {
            let m = Mem {
                base: SP,
                disp: self.frame.gp_save + 8 * i as u32,
            };
            self.a.ldr_x(g, m);
        }
    }
}
