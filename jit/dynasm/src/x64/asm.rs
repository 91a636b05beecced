//! A thin, ISA-aware layer over dynasm: each method emits one logical operation in AVX-512
//! (EVEX, 16 lanes, packed widths only: see `zmm.rs`), AVX2 (VEX, three operands, 8 lanes) or
//! SSE2 (two operands, 4 lanes), in packed or scalar form. Scalar widths use the VEX forms on
//! AVX-512 too (xmm0-15 are the low parts of zmm0-15). The SSE2 forms fix up operand aliasing
//! through the reserved register `FIX`. Memory operands are in `asm_mem.rs`.

use dynasmrt::x64::Assembler;
use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi};

use super::Isa;
use super::evex::Evex;
use super::evex::Op::Z;
use super::pins::Pins;
use super::zmm::Cvt;

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

/// Float/bitwise binary operations (the ISA-neutral set of `vmath`).
pub use crate::vmath::Op as F;

/// Packed 32-bit integer operations (on the same registers; `vmath`'s set).
pub use crate::vmath::IOp as I;

/// A memory operand `[base + disp]`.
///
/// `bcast` marks a constant: one f32/i32 (or f64 for the `*D` table entries) repeated over the
/// 32 bytes at the address (`poly`'s table, the kernel's constant pool). AVX2 and SSE2 read it
/// as a full vector; AVX-512 reads its first element with an embedded broadcast (`{1to16}`,
/// `{1to8}` for f64) or `vbroadcastss`, as the entry is shorter than a zmm. Everything else
/// (data, spill and scratch slots) is a full vector and is never broadcast.
#[derive(Clone, Copy, Debug)]
pub struct Mem {
    /// Base GP register.
    pub base: u8,
    /// Displacement.
    pub disp: i32,
    /// Whether this is a broadcast constant (see above).
    pub bcast: bool,
}

impl Mem {
    /// A full vector (or the element a scalar width reads) at `[base + disp]`.
    pub fn vec(base: u8, disp: i32) -> Mem {
        Mem {
            base,
            disp,
            bcast: false,
        }
    }

    /// A broadcast constant at `[base + disp]` (see [`Mem`]).
    pub fn bcast(base: u8, disp: i32) -> Mem {
        Mem {
            base,
            disp,
            bcast: true,
        }
    }
}

/// The assembler with its ISA.
pub struct Asm {
    /// dynasm's assembler.
    pub ops: Assembler,
    /// Target ISA.
    pub isa: Isa,
    /// The EVEX encoder (AVX-512 only).
    pub(super) ev: Evex,
    /// Constants held in registers for the current vector loop (`pins.rs`).
    pub(super) pins: Pins,
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
macro_rules! sse2 {
    ($s:ident, $w:expr, $d:expr, $b:expr, $ps:ident, $ss:ident, $sd:ident, $pd:ident) => {
        match $w {
            W::Ps => x64!($s.ops; $ps Rx($d), Rx($b)),
            W::Ss => x64!($s.ops; $ss Rx($d), Rx($b)),
            W::Sd => x64!($s.ops; $sd Rx($d), Rx($b)),
        }
    };
}
impl Asm {
    /// An assembler for `isa`.
    pub fn new(ops: Assembler, isa: Isa) -> Asm {
        Asm {
            ops,
            isa,
            ev: Evex::default(),
            pins: Pins::default(),
        }
    }

    /// Whether the VEX three-operand and FMA forms are used (AVX2 and AVX-512; packed widths
    /// on AVX-512 are EVEX, see [`Asm::zmm`]).
    pub fn avx(&self) -> bool {
        matches!(self.isa, Isa::Avx2 | Isa::Avx512)
    }

    /// Whether packed widths are 16-lane zmm (EVEX) forms.
    pub fn zmm(&self) -> bool {
        self.isa == Isa::Avx512
    }

    /// Lanes of packed f32.
    pub fn lanes(&self) -> usize {
        match self.isa {
            Isa::Avx512 => 16,
            Isa::Avx2 => 8,
            Isa::Sse2 => 4,
        }
    }

    /// Bytes of a frame slot that holds one vector register (at least 32: the SSE2 and AVX2
    /// frames keep their layout).
    pub fn slot(&self) -> i32 {
        (4 * self.lanes()).max(32) as i32
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
        if self.zmm() {
            return self.z_mov(d, a);
        }
        if self.avx() {
            x64!(self.ops; vmovaps Ry(d), Ry(a));
        } else {
            x64!(self.ops; movaps Rx(d), Rx(a));
        }
    }

    /// `d = a op b`.
    pub fn f(&mut self, op: F, w: W, d: u8, a: u8, b: u8) {
        if self.zmm() && w == W::Ps {
            return self.z_f(op, d, a, Z(b));
        }
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

    /// `d = a * b + c`.
    pub fn fma(&mut self, w: W, d: u8, a: u8, b: u8, c: u8) {
        if self.zmm() && w == W::Ps {
            return self.z_fma(d, a, b, c);
        }
        if self.avx() && matches!(w, W::Ps | W::Ss) {
            let ps = w == W::Ps;
            if d == c {
                if ps {
                    x64!(self.ops; vfmadd231ps Ry(d), Ry(a), Ry(b));
                } else {
                    x64!(self.ops; vfmadd231ss Rx(d), Rx(a), Rx(b));
                }
            } else {
                let other = self.factor_into(d, a, b);
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

    /// Makes `d` hold one factor of `a * b` (moving `a` in unless `d` already holds one) and
    /// returns the register of the other: the 213 FMA forms multiply `d` by it.
    pub(super) fn factor_into(&mut self, d: u8, a: u8, b: u8) -> u8 {
        if d == a {
            b
        } else if d == b {
            a
        } else {
            self.mov(d, a);
            b
        }
    }

    /// `d = a op b` on 32-bit integer lanes.
    pub fn i(&mut self, op: I, w: W, d: u8, a: u8, b: u8) {
        if self.zmm() && w == W::Ps {
            return self.z_i(op, d, a, Z(b));
        }
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

    /// Shifts 32-bit lanes: `kind` 0 = left, 1 = logical right, 2 = arithmetic right.
    pub fn shift(&mut self, w: W, kind: u8, d: u8, a: u8, imm: i8) {
        if self.zmm() && w == W::Ps {
            return self.z_shift(kind, d, a, imm);
        }
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
        if self.zmm() && w == W::Ps {
            return self.z_cvt(if trunc { Cvt::F2iTrunc } else { Cvt::F2i }, d, a);
        }
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
        if self.zmm() && w == W::Ps {
            return self.z_cvt(Cvt::I2f, d, a);
        }
        let ymm = w == W::Ps && self.avx();
        match (self.avx(), ymm) {
            (true, true) => x64!(self.ops; vcvtdq2ps Ry(d), Ry(a)),
            (true, false) => x64!(self.ops; vcvtdq2ps Rx(d), Rx(a)),
            (false, _) => x64!(self.ops; cvtdq2ps Rx(d), Rx(a)),
        }
    }

    /// Compare predicate `imm` (0 eq, 1 lt, 2 le, 3 unord, 4 neq); all-ones lanes where true.
    pub fn cmp(&mut self, w: W, imm: i8, d: u8, a: u8, b: u8) {
        if self.zmm() && w == W::Ps {
            return self.z_cmp(imm, d, a, Z(b));
        }
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

    /// `d = mask ? t : f`.
    pub fn blend(&mut self, w: W, d: u8, f: u8, t: u8, mask: u8) {
        if self.zmm() && w == W::Ps {
            return self.z_blend(d, f, t, mask);
        }
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
        if self.zmm() && w == W::Ps {
            return self.z_cvt(Cvt::Round(imm), d, a);
        }
        match w {
            W::Ps => x64!(self.ops; vroundps Ry(d), Ry(a), imm),
            W::Ss => x64!(self.ops; vroundss Rx(d), Rx(a), Rx(a), imm),
            W::Sd => x64!(self.ops; vroundsd Rx(d), Rx(a), Rx(a), imm),
        }
    }

    /// `d = sqrt(a)`.
    pub fn sqrt(&mut self, w: W, d: u8, a: u8) {
        if self.zmm() && w == W::Ps {
            return self.z_cvt(Cvt::Sqrt, d, a);
        }
        match (self.avx(), w) {
            (true, W::Ps) => x64!(self.ops; vsqrtps Ry(d), Ry(a)),
            (true, W::Ss) => x64!(self.ops; vsqrtss Rx(d), Rx(a), Rx(a)),
            (true, W::Sd) => x64!(self.ops; vsqrtsd Rx(d), Rx(a), Rx(a)),
            (false, W::Ps) => x64!(self.ops; sqrtps Rx(d), Rx(a)),
            (false, W::Ss) => x64!(self.ops; sqrtss Rx(d), Rx(a)),
            (false, W::Sd) => x64!(self.ops; sqrtsd Rx(d), Rx(a)),
        }
    }

    /// Zeroes a register (all lanes; the VEX form clears a zmm's upper half too).
    pub fn zero(&mut self, d: u8) {
        if self.avx() {
            x64!(self.ops; vxorps Ry(d), Ry(d), Ry(d));
        } else {
            x64!(self.ops; xorps Rx(d), Rx(d));
        }
    }

    /// Sets flags so that `jnz` jumps when any lane of mask `a` is set (`Ps`; only sign bits
    /// are read, as `vtestps` does), or lane 0 is (scalar widths).
    pub fn any_lane(&mut self, w: W, a: u8) {
        if self.zmm() && w == W::Ps {
            return self.z_any_sign(a);
        }
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
