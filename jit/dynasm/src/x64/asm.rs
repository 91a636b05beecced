//! A thin, ISA-aware layer over dynasm: each method emits one logical operation in either AVX2
//! (VEX, three operands, 8 lanes) or SSE2 (two operands, 4 lanes), in packed or scalar form.
//! The SSE2 forms fix up operand aliasing through the reserved register `FIX`.

use dynasmrt::x64::Assembler;
use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi};

use super::Isa;

/// Pins `.arch x64` for every emission in this module tree.
macro_rules! x64 {
    ($ops:expr; $($t:tt)*) => {
        ::dynasmrt::dynasm!($ops ; .arch x64 ; $($t)*)
    };
}
pub(crate) use x64;

/// Register reserved for SSE2 aliasing fix-ups and blends; never allocated.
pub const FIX: u8 = 10;

/// Operand width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum W {
    /// Packed f32 (8 lanes AVX2, 4 lanes SSE2).
    Ps,
    /// Scalar f32.
    Ss,
    /// Scalar f64.
    Sd,
}

/// Float/bitwise binary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs, reason = "the instruction of the same name")]
pub enum F {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    And,
    Or,
    Xor,
}

/// Packed 32-bit integer operations (on the same registers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs, reason = "the instruction of the same name")]
pub enum I {
    Add,
    Sub,
}

/// A memory operand `[base + disp]`.
#[derive(Clone, Copy, Debug)]
pub struct Mem {
    /// Base GP register.
    pub base: u8,
    /// Displacement.
    pub disp: i32,
}

/// The assembler with its ISA.
pub struct Asm {
    /// dynasm's assembler.
    pub ops: Assembler,
    /// Target ISA.
    pub isa: Isa,
}

macro_rules! vex3 {
    ($s:ident, $w:expr, $d:expr, $a:expr, $b:expr, $ps:ident, $ss:ident, $sd:ident, $pd:ident) => {
        match $w {
            W::Ps => x64!($s.ops; $ps Ry($d), Ry($a), Ry($b)),
            W::Ss => x64!($s.ops; $ss Rx($d), Rx($a), Rx($b)),
            W::Sd => x64!($s.ops; $sd Rx($d), Rx($a), Rx($b)),
        }
    };
}
macro_rules! vex3m {
    ($s:ident, $w:expr, $d:expr, $a:expr, $m:expr, $ps:ident, $ss:ident, $sd:ident, $pd:ident) => {
        match $w {
            W::Ps => x64!($s.ops; $ps Ry($d), Ry($a), [Rq($m.base) + $m.disp]),
            W::Ss => x64!($s.ops; $ss Rx($d), Rx($a), DWORD [Rq($m.base) + $m.disp]),
            W::Sd => x64!($s.ops; $sd Rx($d), Rx($a), QWORD [Rq($m.base) + $m.disp]),
        }
    };
}
macro_rules! sse2 {
    ($s:ident, $w:expr, $d:expr, $b:expr, $ps:ident, $ss:ident, $sd:ident, $pd:ident) => {
        match $w {
            W::Ps => x64!($s.ops; $ps Rx($d), Rx($b)),
            W::Ss => x64!($s.ops; $ss Rx($d), Rx($b)),
            W::Sd => x64!($s.ops; $sd Rx($d), Rx($b)),
        }
    };
}
macro_rules! sse2m {
    ($s:ident, $w:expr, $d:expr, $m:expr, $ps:ident, $ss:ident, $sd:ident, $pd:ident) => {
        match $w {
            W::Ps => x64!($s.ops; $ps Rx($d), [Rq($m.base) + $m.disp]),
            W::Ss => x64!($s.ops; $ss Rx($d), DWORD [Rq($m.base) + $m.disp]),
            W::Sd => x64!($s.ops; $sd Rx($d), QWORD [Rq($m.base) + $m.disp]),
        }
    };
}

impl Asm {
    /// Whether the AVX2 forms are used.
    pub fn avx(&self) -> bool {
        self.isa == Isa::Avx2
    }

    /// Lanes of packed f32.
    pub fn lanes(&self) -> usize {
        if self.avx() { 8 } else { 4 }
    }

    /// A new label.
    pub fn label(&mut self) -> DynamicLabel {
        self.ops.new_dynamic_label()
    }

    /// Binds a label here.
    pub fn bind(&mut self, l: DynamicLabel) {
        x64!(self.ops; =>l);
    }

    /// `d = a` (full register).
    pub fn mov(&mut self, d: u8, a: u8) {
        if d == a {
            return;
        }
        if self.avx() {
            x64!(self.ops; vmovaps Ry(d), Ry(a));
        } else {
            x64!(self.ops; movaps Rx(d), Rx(a));
        }
    }

    /// `d = a op b`.
    pub fn f(&mut self, op: F, w: W, d: u8, a: u8, b: u8) {
        if self.avx() {
            let (xw, bw) = (w, w);
            match op {
                F::Add => vex3!(self, xw, d, a, b, vaddps, vaddss, vaddsd, vaddpd),
                F::Sub => vex3!(self, xw, d, a, b, vsubps, vsubss, vsubsd, vsubpd),
                F::Mul => vex3!(self, xw, d, a, b, vmulps, vmulss, vmulsd, vmulpd),
                F::Div => vex3!(self, xw, d, a, b, vdivps, vdivss, vdivsd, vdivpd),
                F::Max => vex3!(self, xw, d, a, b, vmaxps, vmaxss, vmaxsd, vmaxpd),
                F::Min => vex3!(self, xw, d, a, b, vminps, vminss, vminsd, vminpd),
                // Bitwise ops on scalars use the 128-bit packed forms.
                F::And => self.vbit(bw, d, a, b, 0),
                F::Or => self.vbit(bw, d, a, b, 2),
                F::Xor => self.vbit(bw, d, a, b, 3),
            }
            return;
        }
        let commutative = matches!(op, F::Add | F::Mul | F::And | F::Or | F::Xor);
        let (a, b) = if d == b && d != a && commutative {
            (b, a)
        } else {
            (a, b)
        };
        let b = if d == b && d != a {
            self.mov(FIX, b);
            FIX
        } else {
            b
        };
        self.mov(d, a);
        match op {
            F::Add => sse2!(self, w, d, b, addps, addss, addsd, addpd),
            F::Sub => sse2!(self, w, d, b, subps, subss, subsd, subpd),
            F::Mul => sse2!(self, w, d, b, mulps, mulss, mulsd, mulpd),
            F::Div => sse2!(self, w, d, b, divps, divss, divsd, divpd),
            F::Max => sse2!(self, w, d, b, maxps, maxss, maxsd, maxpd),
            F::Min => sse2!(self, w, d, b, minps, minss, minsd, minpd),
            F::And => x64!(self.ops; andps Rx(d), Rx(b)),
            F::Or => x64!(self.ops; orps Rx(d), Rx(b)),
            F::Xor => x64!(self.ops; xorps Rx(d), Rx(b)),
        }
    }

    fn vbit(&mut self, w: W, d: u8, a: u8, b: u8, which: u8) {
        let ymm = matches!(w, W::Ps);
        match (which, ymm) {
            (0, true) => x64!(self.ops; vandps Ry(d), Ry(a), Ry(b)),
            (0, false) => x64!(self.ops; vandps Rx(d), Rx(a), Rx(b)),
            (2, true) => x64!(self.ops; vorps Ry(d), Ry(a), Ry(b)),
            (2, false) => x64!(self.ops; vorps Rx(d), Rx(a), Rx(b)),
            (_, true) => x64!(self.ops; vxorps Ry(d), Ry(a), Ry(b)),
            (_, false) => x64!(self.ops; vxorps Rx(d), Rx(a), Rx(b)),
        }
    }

    /// `d = a op [m]` (the table and constant pool are aligned for SSE2's packed forms).
    pub fn fm(&mut self, op: F, w: W, d: u8, a: u8, m: Mem) {
        if self.avx() {
            match op {
                F::Add => vex3m!(self, w, d, a, m, vaddps, vaddss, vaddsd, vaddpd),
                F::Sub => vex3m!(self, w, d, a, m, vsubps, vsubss, vsubsd, vsubpd),
                F::Mul => vex3m!(self, w, d, a, m, vmulps, vmulss, vmulsd, vmulpd),
                F::Div => vex3m!(self, w, d, a, m, vdivps, vdivss, vdivsd, vdivpd),
                F::Max => vex3m!(self, w, d, a, m, vmaxps, vmaxss, vmaxsd, vmaxpd),
                F::Min => vex3m!(self, w, d, a, m, vminps, vminss, vminsd, vminpd),
                F::And if w == W::Ps => x64!(self.ops; vandps Ry(d), Ry(a), [Rq(m.base) + m.disp]),
                F::And => x64!(self.ops; vandps Rx(d), Rx(a), [Rq(m.base) + m.disp]),
                F::Or if w == W::Ps => x64!(self.ops; vorps Ry(d), Ry(a), [Rq(m.base) + m.disp]),
                F::Or => x64!(self.ops; vorps Rx(d), Rx(a), [Rq(m.base) + m.disp]),
                F::Xor if w == W::Ps => x64!(self.ops; vxorps Ry(d), Ry(a), [Rq(m.base) + m.disp]),
                F::Xor => x64!(self.ops; vxorps Rx(d), Rx(a), [Rq(m.base) + m.disp]),
            }
            return;
        }
        self.mov(d, a);
        match op {
            F::Add => sse2m!(self, w, d, m, addps, addss, addsd, addpd),
            F::Sub => sse2m!(self, w, d, m, subps, subss, subsd, subpd),
            F::Mul => sse2m!(self, w, d, m, mulps, mulss, mulsd, mulpd),
            F::Div => sse2m!(self, w, d, m, divps, divss, divsd, divpd),
            F::Max => sse2m!(self, w, d, m, maxps, maxss, maxsd, maxpd),
            F::Min => sse2m!(self, w, d, m, minps, minss, minsd, minpd),
            F::And => x64!(self.ops; andps Rx(d), [Rq(m.base) + m.disp]),
            F::Or => x64!(self.ops; orps Rx(d), [Rq(m.base) + m.disp]),
            F::Xor => x64!(self.ops; xorps Rx(d), [Rq(m.base) + m.disp]),
        }
    }

    /// `d = a * b + [m]` (fused with FMA on AVX2; multiply then add on SSE2).
    pub fn fma_m(&mut self, w: W, d: u8, a: u8, b: u8, m: Mem) {
        if self.avx() {
            let (d2, other) = if d == a {
                (d, b)
            } else if d == b {
                (d, a)
            } else {
                self.mov(d, a);
                (d, b)
            };
            match w {
                W::Ps => x64!(self.ops; vfmadd213ps Ry(d2), Ry(other), [Rq(m.base) + m.disp]),
                W::Ss => x64!(self.ops; vfmadd213ss Rx(d2), Rx(other), DWORD [Rq(m.base) + m.disp]),
                W::Sd => x64!(self.ops; vfmadd213sd Rx(d2), Rx(other), QWORD [Rq(m.base) + m.disp]),
            }
            return;
        }
        self.f(F::Mul, w, d, a, b);
        self.fm(F::Add, w, d, d, m);
    }

    /// `d = a * [m] + d` (fused with FMA on AVX2; multiply into `FIX` then add on SSE2).
    pub fn fma_acc_m(&mut self, w: W, d: u8, a: u8, m: Mem) {
        if self.avx() {
            match w {
                W::Ps => x64!(self.ops; vfmadd231ps Ry(d), Ry(a), [Rq(m.base) + m.disp]),
                W::Ss => x64!(self.ops; vfmadd231ss Rx(d), Rx(a), DWORD [Rq(m.base) + m.disp]),
                W::Sd => x64!(self.ops; vfmadd231sd Rx(d), Rx(a), QWORD [Rq(m.base) + m.disp]),
            }
            return;
        }
        self.fm(F::Mul, w, FIX, a, m);
        self.f(F::Add, w, d, d, FIX);
    }

    /// `d = a * b + c`.
    pub fn fma(&mut self, w: W, d: u8, a: u8, b: u8, c: u8) {
        if self.avx() && matches!(w, W::Ps | W::Ss) {
            let ps = w == W::Ps;
            if d == c {
                if ps {
                    x64!(self.ops; vfmadd231ps Ry(d), Ry(a), Ry(b));
                } else {
                    x64!(self.ops; vfmadd231ss Rx(d), Rx(a), Rx(b));
                }
            } else {
                let other = if d == a {
                    b
                } else if d == b {
                    a
                } else {
                    self.mov(d, a);
                    b
                };
                if ps {
                    x64!(self.ops; vfmadd213ps Ry(d), Ry(other), Ry(c));
                } else {
                    x64!(self.ops; vfmadd213ss Rx(d), Rx(other), Rx(c));
                }
            }
            return;
        }
        if d == c && d != a && d != b {
            self.f(F::Mul, w, FIX, a, b);
            self.f(F::Add, w, d, FIX, c);
        } else {
            self.f(F::Mul, w, d, a, b);
            self.f(F::Add, w, d, d, c);
        }
    }

    /// `d = a op b` on 32-bit integer lanes.
    pub fn i(&mut self, op: I, w: W, d: u8, a: u8, b: u8) {
        let ymm = w == W::Ps && self.avx();
        if self.avx() {
            match (op, ymm) {
                (I::Add, true) => x64!(self.ops; vpaddd Ry(d), Ry(a), Ry(b)),
                (I::Add, false) => x64!(self.ops; vpaddd Rx(d), Rx(a), Rx(b)),
                (I::Sub, true) => x64!(self.ops; vpsubd Ry(d), Ry(a), Ry(b)),
                (I::Sub, false) => x64!(self.ops; vpsubd Rx(d), Rx(a), Rx(b)),
            }
            return;
        }
        let b = if d == b && d != a {
            if matches!(op, I::Sub) {
                self.mov(FIX, b);
                FIX
            } else {
                return self.i(op, w, d, b, a);
            }
        } else {
            b
        };
        self.mov(d, a);
        match op {
            I::Add => x64!(self.ops; paddd Rx(d), Rx(b)),
            I::Sub => x64!(self.ops; psubd Rx(d), Rx(b)),
        }
    }

    /// `d = a op [m]` on 32-bit integer lanes.
    pub fn im(&mut self, op: I, w: W, d: u8, a: u8, m: Mem) {
        let ymm = w == W::Ps && self.avx();
        if self.avx() {
            match (op, ymm) {
                (I::Add, true) => x64!(self.ops; vpaddd Ry(d), Ry(a), [Rq(m.base) + m.disp]),
                (I::Add, false) => x64!(self.ops; vpaddd Rx(d), Rx(a), [Rq(m.base) + m.disp]),
                (I::Sub, true) => x64!(self.ops; vpsubd Ry(d), Ry(a), [Rq(m.base) + m.disp]),
                (I::Sub, false) => x64!(self.ops; vpsubd Rx(d), Rx(a), [Rq(m.base) + m.disp]),
            }
            return;
        }
        self.mov(d, a);
        match op {
            I::Add => x64!(self.ops; paddd Rx(d), [Rq(m.base) + m.disp]),
            I::Sub => x64!(self.ops; psubd Rx(d), [Rq(m.base) + m.disp]),
        }
    }

    /// Shifts 32-bit lanes: `kind` 0 = left, 1 = logical right, 2 = arithmetic right.
    pub fn shift(&mut self, w: W, kind: u8, d: u8, a: u8, imm: i8) {
        let ymm = w == W::Ps && self.avx();
        if self.avx() {
            match (kind, ymm) {
                (0, true) => x64!(self.ops; vpslld Ry(d), Ry(a), imm),
                (0, false) => x64!(self.ops; vpslld Rx(d), Rx(a), imm),
                (1, true) => x64!(self.ops; vpsrld Ry(d), Ry(a), imm),
                (1, false) => x64!(self.ops; vpsrld Rx(d), Rx(a), imm),
                (_, true) => x64!(self.ops; vpsrad Ry(d), Ry(a), imm),
                (_, false) => x64!(self.ops; vpsrad Rx(d), Rx(a), imm),
            }
            return;
        }
        self.mov(d, a);
        match kind {
            0 => x64!(self.ops; pslld Rx(d), imm),
            1 => x64!(self.ops; psrld Rx(d), imm),
            _ => x64!(self.ops; psrad Rx(d), imm),
        }
    }

    /// Float lanes to int32 lanes, rounding to nearest even (`trunc` = toward zero).
    pub fn cvt_f2i(&mut self, w: W, d: u8, a: u8, trunc: bool) {
        let ymm = w == W::Ps && self.avx();
        match (self.avx(), ymm, trunc) {
            (true, true, false) => x64!(self.ops; vcvtps2dq Ry(d), Ry(a)),
            (true, true, true) => x64!(self.ops; vcvttps2dq Ry(d), Ry(a)),
            (true, false, false) => x64!(self.ops; vcvtps2dq Rx(d), Rx(a)),
            (true, false, true) => x64!(self.ops; vcvttps2dq Rx(d), Rx(a)),
            (false, _, false) => x64!(self.ops; cvtps2dq Rx(d), Rx(a)),
            (false, _, true) => x64!(self.ops; cvttps2dq Rx(d), Rx(a)),
        }
    }

    /// Int32 lanes to float lanes.
    pub fn cvt_i2f(&mut self, w: W, d: u8, a: u8) {
        let ymm = w == W::Ps && self.avx();
        match (self.avx(), ymm) {
            (true, true) => x64!(self.ops; vcvtdq2ps Ry(d), Ry(a)),
            (true, false) => x64!(self.ops; vcvtdq2ps Rx(d), Rx(a)),
            (false, _) => x64!(self.ops; cvtdq2ps Rx(d), Rx(a)),
        }
    }

    /// Compare predicate `imm` (0 eq, 1 lt, 2 le, 3 unord, 4 neq); all-ones lanes where true.
    pub fn cmp(&mut self, w: W, imm: i8, d: u8, a: u8, b: u8) {
        if self.avx() {
            match w {
                // NOTE: dynasm 5.1 encodes the packed VEX compares with the two sources swapped
                // (and the memory form wrongly); pass them reversed to get `a pred b`.
                W::Ps => x64!(self.ops; vcmpps Ry(d), Ry(b), Ry(a), imm),
                W::Ss => x64!(self.ops; vcmpss Rx(d), Rx(a), Rx(b), imm),
                W::Sd => x64!(self.ops; vcmpsd Rx(d), Rx(a), Rx(b), imm),
            }
            return;
        }
        let b = if d == b && d != a {
            self.mov(FIX, b);
            FIX
        } else {
            b
        };
        self.mov(d, a);
        match w {
            W::Ps => x64!(self.ops; cmpps Rx(d), Rx(b), imm),
            W::Ss => x64!(self.ops; cmpss Rx(d), Rx(b), imm),
            W::Sd => x64!(self.ops; cmpsd Rx(d), Rx(b), imm),
        }
    }

    /// Compare against memory.
    pub fn cmp_m(&mut self, w: W, imm: i8, d: u8, a: u8, m: Mem) {
        if self.avx() {
            match w {
                W::Ps => {
                    // Through a register: see the note in `cmp`.
                    x64!(self.ops; vmovups Ry(FIX), [Rq(m.base) + m.disp]);
                    self.cmp(w, imm, d, a, FIX);
                }
                W::Ss => x64!(self.ops; vcmpss Rx(d), Rx(a), QWORD [Rq(m.base) + m.disp], imm),
                W::Sd => x64!(self.ops; vcmpsd Rx(d), Rx(a), QWORD [Rq(m.base) + m.disp], imm),
            }
            return;
        }
        self.mov(d, a);
        match w {
            W::Ps => x64!(self.ops; cmpps Rx(d), [Rq(m.base) + m.disp], imm),
            W::Ss => x64!(self.ops; cmpss Rx(d), [Rq(m.base) + m.disp], imm),
            W::Sd => x64!(self.ops; cmpsd Rx(d), [Rq(m.base) + m.disp], imm),
        }
    }

    /// `d = mask ? t : f`.
    pub fn blend(&mut self, w: W, d: u8, f: u8, t: u8, mask: u8) {
        if self.avx() {
            match w {
                W::Ps => x64!(self.ops; vblendvps Ry(d), Ry(f), Ry(t), Ry(mask)),
                W::Ss | W::Sd => x64!(self.ops; vblendvps Rx(d), Rx(f), Rx(t), Rx(mask)),
            }
            return;
        }
        // FIX = ~mask & f, then d = (mask & t) | FIX.
        self.mov(FIX, mask);
        x64!(self.ops; andnps Rx(FIX), Rx(f));
        if d == mask {
            x64!(self.ops; andps Rx(d), Rx(t));
        } else if d == t {
            x64!(self.ops; andps Rx(d), Rx(mask));
        } else {
            self.mov(d, mask);
            x64!(self.ops; andps Rx(d), Rx(t));
        }
        x64!(self.ops; orps Rx(d), Rx(FIX));
    }

    /// Rounds float lanes with SSE4.1/AVX rounding `mode` (0 nearest, 1 down, 2 up, 3 toward
    /// zero); AVX2 only (the SSE2 path calls the library instead).
    pub fn round(&mut self, w: W, d: u8, a: u8, mode: i8) {
        let imm = mode | 8;
        match w {
            W::Ps => x64!(self.ops; vroundps Ry(d), Ry(a), imm),
            W::Ss => x64!(self.ops; vroundss Rx(d), Rx(a), Rx(a), imm),
            W::Sd => x64!(self.ops; vroundsd Rx(d), Rx(a), Rx(a), imm),
        }
    }

    /// `d = sqrt(a)`.
    pub fn sqrt(&mut self, w: W, d: u8, a: u8) {
        match (self.avx(), w) {
            (true, W::Ps) => x64!(self.ops; vsqrtps Ry(d), Ry(a)),
            (true, W::Ss) => x64!(self.ops; vsqrtss Rx(d), Rx(a), Rx(a)),
            (true, W::Sd) => x64!(self.ops; vsqrtsd Rx(d), Rx(a), Rx(a)),
            (false, W::Ps) => x64!(self.ops; sqrtps Rx(d), Rx(a)),
            (false, W::Ss) => x64!(self.ops; sqrtss Rx(d), Rx(a)),
            (false, W::Sd) => x64!(self.ops; sqrtsd Rx(d), Rx(a)),
        }
    }

    /// Loads a full vector (or the low element for scalar widths) from `[m]`.
    pub fn load(&mut self, w: W, d: u8, m: Mem) {
        match (self.avx(), w) {
            (true, W::Ps) => x64!(self.ops; vmovups Ry(d), [Rq(m.base) + m.disp]),
            (true, W::Ss) => x64!(self.ops; vmovss Rx(d), DWORD [Rq(m.base) + m.disp]),
            (true, W::Sd) => x64!(self.ops; vmovsd Rx(d), QWORD [Rq(m.base) + m.disp]),
            (false, W::Ps) => x64!(self.ops; movups Rx(d), [Rq(m.base) + m.disp]),
            (false, W::Ss) => x64!(self.ops; movss Rx(d), DWORD [Rq(m.base) + m.disp]),
            (false, W::Sd) => x64!(self.ops; movsd Rx(d), QWORD [Rq(m.base) + m.disp]),
        }
    }

    /// Stores a full vector (or the low element) to `[m]`.
    pub fn store(&mut self, w: W, m: Mem, s: u8) {
        match (self.avx(), w) {
            (true, W::Ps) => x64!(self.ops; vmovups [Rq(m.base) + m.disp], Ry(s)),
            (true, W::Ss) => x64!(self.ops; vmovss DWORD [Rq(m.base) + m.disp], Rx(s)),
            (true, W::Sd) => x64!(self.ops; vmovsd QWORD [Rq(m.base) + m.disp], Rx(s)),
            (false, W::Ps) => x64!(self.ops; movups [Rq(m.base) + m.disp], Rx(s)),
            (false, W::Ss) => x64!(self.ops; movss DWORD [Rq(m.base) + m.disp], Rx(s)),
            (false, W::Sd) => x64!(self.ops; movsd QWORD [Rq(m.base) + m.disp], Rx(s)),
        }
    }

    /// Broadcasts the f32 (`Ps`/`Ss`) or f64 (`Pd`/`Sd`) at `[m]` to every lane.
    pub fn bcast(&mut self, w: W, d: u8, m: Mem) {
        match (self.avx(), w) {
            // NOTE: dynasm 5.1 encodes the memory form of vbroadcastss without VEX.L (128-bit
            // only), so load the scalar and broadcast from the register (AVX2).
            (true, W::Ps | W::Ss) => {
                x64!(self.ops; vmovss Rx(d), DWORD [Rq(m.base) + m.disp] ; vbroadcastss Ry(d), Rx(d))
            }
            (true, W::Sd) => {
                x64!(self.ops; vbroadcastsd Ry(d), QWORD [Rq(m.base) + m.disp])
            }
            (false, W::Ps | W::Ss) => {
                x64!(self.ops; movss Rx(d), DWORD [Rq(m.base) + m.disp] ; shufps Rx(d), Rx(d), 0)
            }
            (false, W::Sd) => {
                x64!(self.ops; movsd Rx(d), QWORD [Rq(m.base) + m.disp] ; unpcklpd Rx(d), Rx(d))
            }
        }
    }

    /// Zeroes a register (all lanes).
    pub fn zero(&mut self, d: u8) {
        if self.avx() {
            x64!(self.ops; vxorps Ry(d), Ry(d), Ry(d));
        } else {
            x64!(self.ops; xorps Rx(d), Rx(d));
        }
    }

    /// Sets flags so that `jnz` jumps when any lane of mask `a` is set (`Ps`), or lane 0 is
    /// (scalar widths).
    pub fn any_lane(&mut self, w: W, a: u8) {
        match (self.avx(), w) {
            (true, W::Ps) => x64!(self.ops; vtestps Ry(a), Ry(a)),
            (true, _) => x64!(self.ops; vmovd eax, Rx(a) ; test eax, eax),
            (false, W::Ps) => x64!(self.ops; movmskps eax, Rx(a) ; test eax, eax),
            (false, _) => x64!(self.ops; movd eax, Rx(a) ; test eax, eax),
        }
    }

    /// `eax = 1` if lane 0 of mask `a` is set, else 0.
    pub fn mask01(&mut self, a: u8) {
        if self.avx() {
            x64!(self.ops; vmovd eax, Rx(a) ; and eax, 1);
        } else {
            x64!(self.ops; movd eax, Rx(a) ; and eax, 1);
        }
    }

    /// `rax = low 64 bits of xmm a`.
    pub fn movq_to_gp(&mut self, gp: u8, a: u8) {
        if self.avx() {
            x64!(self.ops; vmovq Rq(gp), Rx(a));
        } else {
            x64!(self.ops; movq Rq(gp), Rx(a));
        }
    }

    /// `xmm d = gp` (low 64 bits, upper zeroed).
    pub fn movq_from_gp(&mut self, d: u8, gp: u8) {
        if self.avx() {
            x64!(self.ops; vmovq Rx(d), Rq(gp));
        } else {
            x64!(self.ops; movq Rx(d), Rq(gp));
        }
    }
}
