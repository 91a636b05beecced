//! The memory-operand forms of [`Asm`]'s operations (see `asm.rs`).
//!
//! On AVX-512 a [`Mem`] marked `bcast` (a table or constant-pool entry) is read with an
//! embedded broadcast; every other operand is a full 64-byte vector (see [`Mem`]). A constant
//! pinned in a register for the current loop (`pins.rs`) is read from the register instead.

use dynasmrt::DynasmApi;

use super::asm::{Asm, F, FIX, I, Mem, W, x64};
use super::evex::Op::M;

macro_rules! vex3m {
    ($s:ident, $w:expr, $d:expr, $a:expr, $m:expr, $ps:ident, $ss:ident, $sd:ident, $pd:ident) => {
        match $w {
            W::Ps => x64!($s.ops; $ps Ry($d), Ry($a), [Rq($m.base) + $m.disp]),
            W::Ss => x64!($s.ops; $ss Rx($d), Rx($a), DWORD [Rq($m.base) + $m.disp]),
            W::Sd => x64!($s.ops; $sd Rx($d), Rx($a), QWORD [Rq($m.base) + $m.disp]),
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
    /// `d = a op [m]` (the table and constant pool are aligned for SSE2's packed forms).
    pub fn fm(&mut self, op: F, w: W, d: u8, a: u8, m: Mem) {
        if let Some(r) = self.pinned(w, m) {
            return self.f(op, w, d, a, r);
        }
        if self.zmm() && w == W::Ps {
            return self.z_f(op, d, a, M(m));
        }
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
        if let Some(r) = self.pinned(w, m) {
            return self.fma(w, d, a, b, r);
        }
        if self.zmm() && w == W::Ps {
            return self.z_fma_m(d, a, b, m);
        }
        if self.avx() {
            let other = self.factor_into(d, a, b);
            match w {
                W::Ps => x64!(self.ops; vfmadd213ps Ry(d), Ry(other), [Rq(m.base) + m.disp]),
                W::Ss => x64!(self.ops; vfmadd213ss Rx(d), Rx(other), DWORD [Rq(m.base) + m.disp]),
                W::Sd => x64!(self.ops; vfmadd213sd Rx(d), Rx(other), QWORD [Rq(m.base) + m.disp]),
            }
            return;
        }
        self.f(F::Mul, w, d, a, b);
        self.fm(F::Add, w, d, d, m);
    }

    /// `d = a * [m] + d` (fused with FMA on AVX2; multiply into `FIX` then add on SSE2).
    pub fn fma_acc_m(&mut self, w: W, d: u8, a: u8, m: Mem) {
        if let Some(r) = self.pinned(w, m) {
            return self.fma(w, d, a, r, d);
        }
        if self.zmm() && w == W::Ps {
            return self.z_fma_acc_m(d, a, m);
        }
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

    /// `d = a op [m]` on 32-bit integer lanes.
    pub fn im(&mut self, op: I, w: W, d: u8, a: u8, m: Mem) {
        if let Some(r) = self.pinned(w, m) {
            return self.i(op, w, d, a, r);
        }
        if self.zmm() && w == W::Ps {
            return self.z_i(op, d, a, M(m));
        }
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

    /// Flags for `jnz` when any int32 lane of `t` is greater (signed) than `[m]`'s (packed,
    /// AVX2 or AVX-512; `t` is clobbered on AVX2).
    pub fn any_gt_m(&mut self, t: u8, m: Mem) {
        if self.zmm() {
            return self.z_any_gt(t, m);
        }
        if let Some(r) = self.pinned(W::Ps, m) {
            x64!(self.ops; vpcmpgtd Ry(t), Ry(t), Ry(r) ; vtestps Ry(t), Ry(t));
            return;
        }
        x64!(self.ops; vpcmpgtd Ry(t), Ry(t), [Rq(m.base) + m.disp] ; vtestps Ry(t), Ry(t));
    }

    /// Compare against memory.
    pub fn cmp_m(&mut self, w: W, imm: i8, d: u8, a: u8, m: Mem) {
        if let Some(r) = self.pinned(w, m) {
            return self.cmp(w, imm, d, a, r);
        }
        if self.zmm() && w == W::Ps {
            // EVEX compares take their sources in order (the note in `cmp` is about dynasm's
            // VEX encoding), so the memory form is used directly.
            return self.z_cmp(imm, d, a, M(m));
        }
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

    /// Loads a full vector (or the low element for scalar widths) from `[m]`; on AVX-512 a
    /// broadcast constant's element to every lane.
    pub fn load(&mut self, w: W, d: u8, m: Mem) {
        if let Some(r) = self.pinned(w, m) {
            return self.mov(d, r);
        }
        if self.zmm() && w == W::Ps {
            return self.z_load(d, m);
        }
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
        debug_assert!(!m.bcast, "invariant: constants are never stored to");
        if self.zmm() && w == W::Ps {
            return self.z_store(m, s);
        }
        match (self.avx(), w) {
            (true, W::Ps) => x64!(self.ops; vmovups [Rq(m.base) + m.disp], Ry(s)),
            (true, W::Ss) => x64!(self.ops; vmovss DWORD [Rq(m.base) + m.disp], Rx(s)),
            (true, W::Sd) => x64!(self.ops; vmovsd QWORD [Rq(m.base) + m.disp], Rx(s)),
            (false, W::Ps) => x64!(self.ops; movups [Rq(m.base) + m.disp], Rx(s)),
            (false, W::Ss) => x64!(self.ops; movss DWORD [Rq(m.base) + m.disp], Rx(s)),
            (false, W::Sd) => x64!(self.ops; movsd QWORD [Rq(m.base) + m.disp], Rx(s)),
        }
    }

    /// Stores a full f32 vector to `[m]` non-temporally (`[m]` aligned to the vector size; see
    /// [`crate::stream`]).
    pub fn store_nt(&mut self, m: Mem, s: u8) {
        debug_assert!(!m.bcast, "invariant: constants are never stored to");
        if self.zmm() {
            return self.z_store_nt(m, s);
        }
        if self.avx() {
            x64!(self.ops; vmovntps [Rq(m.base) + m.disp], Ry(s));
        } else {
            x64!(self.ops; movntps [Rq(m.base) + m.disp], Rx(s));
        }
    }

    /// Broadcasts the f32 (`Ps`/`Ss`) or f64 (`Pd`/`Sd`) at `[m]` to every lane.
    pub fn bcast(&mut self, w: W, d: u8, m: Mem) {
        if self.zmm() {
            return self.z_bcast(w == W::Sd, d, m);
        }
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
}
