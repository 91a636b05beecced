//! Kernel emission for AArch64: the row loop, each phase's column loops, addressing and stores.
//! Instruction selection is in `isel.rs`, reductions in `reduce.rs`. See [`crate::loop_ir`] for
//! the loop structure.
//!
//! Registers (AAPCS64):
//! ```text
//!   x19  argument block     x20  rows left        x21  column limit     x22  constant pool
//!   x23  math table         x24  column index     x9-x11, x16  scratch
//!   x25-x28, x12-x15  base pointers of the phase's first eight accesses (others are re-read)
//!   v0-v19  allocatable     v20-v22  reloads of spilled operands   v23-v29  math temporaries
//!   v30, v31  reserved by the assembler layer (blends, memory operands)
//! ```
//! The kernel saves x19-x28 and d8-d15 (callee-saved) and keeps its loop state in callee-saved
//! registers, so scalar library calls only need the vector registers and x12-x15 saved.
//! Argument block (u64 words): `[nrows, ncols, consts, table, (ptr, rs, cs) per access]`, strides
//! in bytes, the same as on x86-64; the kernel advances each `ptr` by its `rs` after every row.

use std::collections::HashMap;

use dynasmrt::{DynasmApi, DynasmLabelApi};

use super::asm::{Asm, Mem, SP, W, X9, X10, a64};
use super::plan::{PhasePlan, plan_phase};
use crate::loop_ir::{ColStride, Kernel, MAX_REDUCES, Phase, Ty, V};
use crate::poly::{K, off};
use crate::regalloc::Loc;

pub(super) const ARGS: u8 = 19;
pub(super) const COL: u8 = 24;
const CONSTS: u8 = 22;
const TABLE: u8 = 23;
pub(super) const ACCESS_REGS: [u8; 8] = [25, 26, 27, 28, 12, 13, 14, 15];
pub(super) const SAVED_GP: [u8; 4] = [12, 13, 14, 15];
pub(super) const POOL: [u8; 20] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
];
/// Reload registers for spilled operands (first, second, third operand; also the destination
/// of a spilled result).
pub(super) const R0: u8 = 20;
pub(super) const R1: u8 = 21;
pub(super) const R2: u8 = 22;
/// Bytes the prologue pushes below the frame pointer (x19-x28, d8-d15).
const PUSHED: u32 = 16 * 9;

fn ptr_off(a: usize) -> u32 {
    (32 + 24 * a) as u32
}
fn rs_off(a: usize) -> u32 {
    (40 + 24 * a) as u32
}
pub(super) fn cs_off(a: usize) -> u32 {
    (48 + 24 * a) as u32
}

/// Stack frame offsets (from the 16-byte aligned `sp`).
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub(super) rows: u32,
    spill: u32,
    /// Math scratch (4 vectors).
    pub math: u32,
    pub(super) save: u32,
    pub(super) gp_save: u32,
    /// Argument/result scratch for calls (1 vector).
    pub call: u32,
    size: u32,
}

impl Frame {
    fn new(row_slots: usize, spills: u32) -> Frame {
        let rows = 0;
        let spill = rows + 16 * row_slots as u32;
        let math = spill + 16 * spills;
        let save = math + 16 * 4;
        let gp_save = save + 16 * 32;
        let call = gp_save + 8 * SAVED_GP.len() as u32;
        Frame {
            rows,
            spill,
            math,
            save,
            gp_save,
            call,
            size: call + 16,
        }
    }
}

/// Emits one kernel.
pub struct Emitter<'k> {
    /// The assembler.
    pub a: Asm,
    pub(super) k: &'k Kernel,
    /// Frame layout.
    pub frame: Frame,
    pub(super) locs: Vec<Option<Loc>>,
    bases: HashMap<u32, u8>,
    /// Whether bools are lane masks in the current phase.
    pub(super) masks: bool,
    /// Per node of the current phase: never positive (see `vmath/nonpos.rs`).
    pub(super) nonpos: Vec<bool>,
}

/// Emits `k`; returns the assembler positioned after the code, and the entry offset.
pub fn emit(mut a: Asm, k: &Kernel) -> Result<(Asm, dynasmrt::AssemblyOffset), String> {
    if k.phases.iter().any(|p| p.reduces.len() > MAX_REDUCES) {
        return Err("too many reductions in one phase".into());
    }
    let plans: Vec<PhasePlan> = k.phases.iter().map(|p| plan_phase(k, p)).collect();
    let spills = plans.iter().map(|p| p.alloc.slots).max().unwrap_or(0);
    let frame = Frame::new(k.slots.len(), spills);
    let entry = a.ops.offset();
    a64!(a.ops
        ; stp x29, x30, [sp, -16]! ; add x29, sp, 0
        ; stp x19, x20, [sp, -16]! ; stp x21, x22, [sp, -16]! ; stp x23, x24, [sp, -16]!
        ; stp x25, x26, [sp, -16]! ; stp x27, x28, [sp, -16]!
        ; stp d8, d9, [sp, -16]! ; stp d10, d11, [sp, -16]! ; stp d12, d13, [sp, -16]!
        ; stp d14, d15, [sp, -16]!
    );
    a.imm(X9, u64::from(frame.size.next_multiple_of(16)));
    a64!(a.ops
        ; sub sp, sp, x9
        ; mov x19, x0 ; ldr x22, [x19, 16] ; ldr x23, [x19, 24] ; ldr x20, [x19]
    );
    let (row, done) = (a.label(), a.label());
    a64!(a.ops ; cbz x20, =>done);
    a.bind(row);
    let mut e = Emitter {
        a,
        k,
        frame,
        locs: Vec::new(),
        bases: HashMap::new(),
        masks: false,
        nonpos: Vec::new(),
    };
    for (p, plan) in k.phases.iter().zip(&plans) {
        e.phase(p, plan)?;
    }
    for i in 0..k.accesses.len() {
        let (po, ro) = (ptr_off(i), rs_off(i));
        e.a.ldr_x(
            X9,
            Mem {
                base: ARGS,
                disp: ro,
            },
        );
        e.a.ldr_x(
            X10,
            Mem {
                base: ARGS,
                disp: po,
            },
        );
        a64!(e.a.ops ; add x10, x10, x9);
        e.a.str_x(
            X10,
            Mem {
                base: ARGS,
                disp: po,
            },
        );
    }
    a64!(e.a.ops ; subs x20, x20, 1 ; b.ne =>row);
    e.a.bind(done);
    a64!(e.a.ops
        ; sub sp, x29, PUSHED
        ; ldp d14, d15, [sp], 16 ; ldp d12, d13, [sp], 16 ; ldp d10, d11, [sp], 16
        ; ldp d8, d9, [sp], 16
        ; ldp x27, x28, [sp], 16 ; ldp x25, x26, [sp], 16 ; ldp x23, x24, [sp], 16
        ; ldp x21, x22, [sp], 16 ; ldp x19, x20, [sp], 16 ; ldp x29, x30, [sp], 16
        ; ret
    );
    Ok((e.a, entry))
}

impl Emitter<'_> {
    /// Table entry `k`.
    pub fn tab(&self, k: K) -> Mem {
        Mem {
            base: TABLE,
            disp: off(k) as u32,
        }
    }

    /// Constant-pool entry `c`.
    pub(super) fn konst(&self, c: u32) -> Mem {
        Mem {
            base: CONSTS,
            disp: 32 * c,
        }
    }

    /// Row slot `s`.
    pub(super) fn row_slot(&self, s: u32) -> Mem {
        Mem {
            base: SP,
            disp: self.frame.rows + 16 * s,
        }
    }

    fn phase(&mut self, p: &Phase, plan: &PhasePlan) -> Result<(), String> {
        self.locs = plan.alloc.locs.clone();
        self.bases = plan.bases.clone();
        self.masks = plan.vector;
        self.nonpos = crate::vmath::nonpos::analyse(self.k, p);
        for (&acc, &r) in &plan.bases {
            let o = ptr_off(acc as usize);
            self.a.ldr_x(
                r,
                Mem {
                    base: ARGS,
                    disp: o,
                },
            );
        }
        for &v in &plan.order[..plan.hoisted] {
            self.inst(p, v, plan.vector)?;
        }
        for (r, &(a0, a1)) in p.reduces.iter().zip(&plan.accs) {
            self.acc_init(r.op, p.body[r.value as usize].ty, a0, a1);
        }
        a64!(self.a.ops ; movz X(COL), 0);
        if plan.vector {
            let (top, out) = (self.a.label(), self.a.label());
            a64!(self.a.ops ; ldr x21, [x19, 8] ; and x21, x21, 0xffff_ffff_ffff_fffc_u64);
            self.a.bind(top);
            a64!(self.a.ops ; cmp X(COL), x21 ; b.hs =>out);
            self.body(p, plan, true)?;
            a64!(self.a.ops ; add XSP(COL), XSP(COL), 4 ; b =>top);
            self.a.bind(out);
        }
        for (r, &(a0, a1)) in p.reduces.iter().zip(&plan.accs) {
            self.acc_collapse(r.op, p.body[r.value as usize].ty, a0, a1);
        }
        let (top, out) = (self.a.label(), self.a.label());
        a64!(self.a.ops ; ldr x21, [x19, 8]);
        self.a.bind(top);
        a64!(self.a.ops ; cmp X(COL), x21 ; b.hs =>out);
        self.body(p, plan, false)?;
        a64!(self.a.ops ; add XSP(COL), XSP(COL), 1 ; b =>top);
        self.a.bind(out);
        for (r, &(a0, _)) in p.reduces.iter().zip(&plan.accs) {
            self.acc_finish(r.op, p.body[r.value as usize].ty, a0, r.slot);
        }
        for &(acc, slot) in &p.row_stores {
            let m = self.row_slot(slot);
            self.a.ldr_x(
                X9,
                Mem {
                    base: ARGS,
                    disp: ptr_off(acc as usize),
                },
            );
            if self.k.slots[slot as usize] == Ty::F32 {
                self.a.load(W::Ss, R0, m);
                a64!(self.a.ops ; str S(R0), [x9]);
            } else {
                self.a.load(W::Sd, R0, m);
                a64!(self.a.ops ; str D(R0), [x9]);
            }
        }
        Ok(())
    }

    fn body(&mut self, p: &Phase, plan: &PhasePlan, vec: bool) -> Result<(), String> {
        for &v in &plan.order[plan.hoisted..] {
            self.inst(p, v, vec)?;
        }
        for &(acc, v) in &p.stores {
            let r = self.src(v, R0, vec);
            let m = self.addr(acc);
            match self.k.accesses[acc as usize].ty {
                Ty::F32 => self.a.store(if vec { W::Ps } else { W::Ss }, m, r),
                Ty::F64 | Ty::I64 => self.a.store(W::Sd, m, r),
                Ty::Bool => self.store_bool(m, r, vec),
            }
        }
        for (r, &(a0, a1)) in p.reduces.iter().zip(&plan.accs) {
            let x = self.src(r.value, R0, vec);
            self.acc_step(r.op, p.body[r.value as usize].ty, a0, a1, x, vec);
        }
        Ok(())
    }

    /// The address of access `a` at the current column: `[x9]`, or the base for broadcasts.
    pub(super) fn addr(&mut self, a: u32) -> Mem {
        let acc = self.k.accesses[a as usize];
        let base = match self.bases.get(&a) {
            Some(&r) => r,
            None => {
                self.a.ldr_x(
                    X9,
                    Mem {
                        base: ARGS,
                        disp: ptr_off(a as usize),
                    },
                );
                X9
            }
        };
        match acc.col {
            ColStride::Broadcast => Mem { base, disp: 0 },
            ColStride::Contig => {
                match acc.ty.size() {
                    1 => a64!(self.a.ops ; add x9, X(base), X(COL)),
                    4 => a64!(self.a.ops ; add x9, X(base), X(COL), LSL 2),
                    _ => a64!(self.a.ops ; add x9, X(base), X(COL), LSL 3),
                }
                Mem { base: X9, disp: 0 }
            }
            ColStride::Strided => {
                self.a.ldr_x(
                    X10,
                    Mem {
                        base: ARGS,
                        disp: cs_off(a as usize),
                    },
                );
                a64!(self.a.ops ; madd x9, x10, X(COL), X(base));
                Mem { base: X9, disp: 0 }
            }
        }
    }

    /// The register holding `v`, reloading a spilled value into `reload`.
    pub(super) fn src(&mut self, v: V, reload: u8, vec: bool) -> u8 {
        match self.locs[v as usize] {
            Some(Loc::Slot(s)) => {
                let m = Mem {
                    base: SP,
                    disp: self.frame.spill + 16 * s,
                };
                self.a.load(if vec { W::Ps } else { W::Sd }, reload, m);
                reload
            }
            Some(Loc::Reg(r)) => r,
            None => reload,
        }
    }

    pub(super) fn dst(&self, v: V) -> u8 {
        match self.locs[v as usize] {
            Some(Loc::Reg(r)) => r,
            _ => R0,
        }
    }

    pub(super) fn commit(&mut self, v: V, r: u8) {
        if let Some(Loc::Slot(s)) = self.locs[v as usize] {
            let m = Mem {
                base: SP,
                disp: self.frame.spill + 16 * s,
            };
            self.a.store(W::Ps, m, r);
        }
    }
}
