//! A thin layer over dynasm's AArch64 assembler: each method emits one logical operation on
//! 4-lane f32 vectors (`Ps`) or on lane 0 as an f32 (`Ss`) or f64 (`Sd`) scalar. Integer-lane and
//! bitwise operations always use the full 128-bit forms (scalars only care about lane 0), and
//! memory operands are loaded into the reserved register `K0` first (NEON has no load-op forms).

use dynasmrt::aarch64::Assembler;
use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi};

/// Pins `.arch aarch64` for every emission in this module tree.
macro_rules! a64 {
    ($ops:expr; $($t:tt)*) => {
        ::dynasmrt::dynasm!($ops ; .arch aarch64 ; $($t)*)
    };
}
pub(crate) use a64;

/// Reserved vector register for memory operands; never allocated.
pub const K0: u8 = 31;
/// Reserved vector register for blends and fused multiply-adds; never allocated.
pub const K1: u8 = 30;
/// Scratch GP registers (address arithmetic, moves); never allocated.
pub const X9: u8 = 9;
/// Second scratch GP register.
pub const X10: u8 = 10;
/// Third scratch GP register (out-of-range offsets).
pub const X11: u8 = 11;
/// The stack pointer as a base register.
pub const SP: u8 = 31;

/// Operand width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum W {
    /// Packed f32, 4 lanes.
    Ps,
    /// Scalar f32 (lane 0).
    Ss,
    /// Scalar f64 (lane 0).
    Sd,
}

/// Float/bitwise binary operations (the ISA-neutral set of `vmath`).
pub use crate::vmath::Op as F;

/// Integer operations on 32-bit lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs, reason = "the instruction of the same name")]
pub enum I {
    Add,
    Sub,
    CmpEq,
}

/// Float comparisons producing all-ones lanes where true (`Lt`/`Le` swap operands into
/// `fcmgt`/`fcmge`; `Unord` and `Ne` are `fcmeq` inverted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs, reason = "the predicate of the same name")]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    /// Not less-or-equal: greater than, or unordered.
    Nle,
    Unord,
}

/// A memory operand `[base + disp]` (`base` 31 is `sp`).
#[derive(Clone, Copy, Debug)]
pub struct Mem {
    /// Base GP register.
    pub base: u8,
    /// Displacement in bytes (non-negative).
    pub disp: u32,
}

/// The assembler.
pub struct Asm {
    /// dynasm's assembler.
    pub ops: Assembler,
}

macro_rules! fp3 {
    ($s:ident, $w:expr, $op:ident, $d:expr, $a:expr, $b:expr) => {
        match $w {
            W::Ps => a64!($s.ops; $op V($d).S4, V($a).S4, V($b).S4),
            W::Ss => a64!($s.ops; $op S($d), S($a), S($b)),
            W::Sd => a64!($s.ops; $op D($d), D($a), D($b)),
        }
    };
}
macro_rules! fp2 {
    ($s:ident, $w:expr, $op:ident, $d:expr, $a:expr) => {
        match $w {
            W::Ps => a64!($s.ops; $op V($d).S4, V($a).S4),
            W::Ss => a64!($s.ops; $op S($d), S($a)),
            W::Sd => a64!($s.ops; $op D($d), D($a)),
        }
    };
}

impl Asm {
    /// A new label.
    pub fn label(&mut self) -> DynamicLabel {
        self.ops.new_dynamic_label()
    }

    /// Binds a label here.
    pub fn bind(&mut self, l: DynamicLabel) {
        a64!(self.ops; =>l);
    }

    /// `x[d] = imm` (movz plus movk for each non-zero upper half-word).
    pub fn imm(&mut self, d: u8, v: u64) {
        let h = |i: u32| ((v >> (16 * i)) & 0xffff) as u32;
        a64!(self.ops; movz X(d), h(0));
        for i in 1..4 {
            if h(i) != 0 {
                let (x, s) = (h(i), 16 * i);
                a64!(self.ops; movk X(d), x, LSL s);
            }
        }
    }

    /// A base register and an offset that fits the scaled 12-bit immediate of an access of
    /// `size` bytes (larger offsets go through `x11`).
    fn addr(&mut self, m: Mem, size: u32) -> (u8, u32) {
        if m.disp.is_multiple_of(size) && m.disp / size < 4096 {
            return (m.base, m.disp);
        }
        self.imm(X11, u64::from(m.disp));
        a64!(self.ops; add XSP(X11), XSP(m.base), X(X11));
        (X11, 0)
    }

    /// 64-bit GP load.
    pub fn ldr_x(&mut self, d: u8, m: Mem) {
        let (b, o) = self.addr(m, 8);
        a64!(self.ops; ldr X(d), [XSP(b), o]);
    }

    /// 64-bit GP store.
    pub fn str_x(&mut self, s: u8, m: Mem) {
        let (b, o) = self.addr(m, 8);
        a64!(self.ops; str X(s), [XSP(b), o]);
    }

    /// Loads a full vector (`Ps`) or lane 0 (`Ss` 32 bits, `Sd` 64 bits; the rest zeroed).
    pub fn load(&mut self, w: W, d: u8, m: Mem) {
        match w {
            W::Ps => {
                let (b, o) = self.addr(m, 16);
                a64!(self.ops; ldr Q(d), [XSP(b), o]);
            }
            W::Ss => {
                let (b, o) = self.addr(m, 4);
                a64!(self.ops; ldr S(d), [XSP(b), o]);
            }
            W::Sd => {
                let (b, o) = self.addr(m, 8);
                a64!(self.ops; ldr D(d), [XSP(b), o]);
            }
        }
    }

    /// Stores a full vector or lane 0.
    pub fn store(&mut self, w: W, m: Mem, s: u8) {
        match w {
            W::Ps => {
                let (b, o) = self.addr(m, 16);
                a64!(self.ops; str Q(s), [XSP(b), o]);
            }
            W::Ss => {
                let (b, o) = self.addr(m, 4);
                a64!(self.ops; str S(s), [XSP(b), o]);
            }
            W::Sd => {
                let (b, o) = self.addr(m, 8);
                a64!(self.ops; str D(s), [XSP(b), o]);
            }
        }
    }

    /// Broadcasts the f32 at `[m]` to every lane.
    pub fn bcast(&mut self, d: u8, m: Mem) {
        self.load(W::Ss, d, m);
        a64!(self.ops; dup V(d).S4, V(d).S[0]);
    }

    /// `d = a` (full register).
    pub fn mov(&mut self, d: u8, a: u8) {
        if d != a {
            a64!(self.ops; orr V(d).B16, V(a).B16, V(a).B16);
        }
    }

    /// Zeroes a register.
    pub fn zero(&mut self, d: u8) {
        a64!(self.ops; eor V(d).B16, V(d).B16, V(d).B16);
    }

    /// `d = a op b`. `fmax`/`fmin` propagate NaN, as the eager kernels do.
    pub fn f(&mut self, op: F, w: W, d: u8, a: u8, b: u8) {
        match op {
            F::Add => fp3!(self, w, fadd, d, a, b),
            F::Sub => fp3!(self, w, fsub, d, a, b),
            F::Mul => fp3!(self, w, fmul, d, a, b),
            F::Div => fp3!(self, w, fdiv, d, a, b),
            F::Max => fp3!(self, w, fmax, d, a, b),
            F::Min => fp3!(self, w, fmin, d, a, b),
            F::And => a64!(self.ops; and V(d).B16, V(a).B16, V(b).B16),
            F::Or => a64!(self.ops; orr V(d).B16, V(a).B16, V(b).B16),
            F::Xor => a64!(self.ops; eor V(d).B16, V(a).B16, V(b).B16),
        }
    }

    /// `d = a op [m]`.
    pub fn fm(&mut self, op: F, w: W, d: u8, a: u8, m: Mem) {
        self.load(if w == W::Sd { W::Sd } else { W::Ps }, K0, m);
        self.f(op, w, d, a, K0);
    }

    /// `d = a * b + c`, fused.
    pub fn fma(&mut self, w: W, d: u8, a: u8, b: u8, c: u8) {
        match w {
            W::Ss => a64!(self.ops; fmadd S(d), S(a), S(b), S(c)),
            W::Sd => a64!(self.ops; fmadd D(d), D(a), D(b), D(c)),
            W::Ps if d != a && d != b => {
                self.mov(d, c);
                a64!(self.ops; fmla V(d).S4, V(a).S4, V(b).S4);
            }
            W::Ps => {
                self.mov(K1, c);
                a64!(self.ops; fmla V(K1).S4, V(a).S4, V(b).S4);
                self.mov(d, K1);
            }
        }
    }

    /// `d = a * b + [m]`, fused.
    pub fn fma_m(&mut self, w: W, d: u8, a: u8, b: u8, m: Mem) {
        match w {
            W::Ps if d != a && d != b => {
                self.load(W::Ps, d, m);
                a64!(self.ops; fmla V(d).S4, V(a).S4, V(b).S4);
            }
            W::Ps => {
                self.load(W::Ps, K1, m);
                a64!(self.ops; fmla V(K1).S4, V(a).S4, V(b).S4);
                self.mov(d, K1);
            }
            _ => {
                self.load(w, K0, m);
                self.fma(w, d, a, b, K0);
            }
        }
    }

    /// `d = a op b` on 32-bit integer lanes.
    pub fn i(&mut self, op: I, d: u8, a: u8, b: u8) {
        match op {
            I::Add => a64!(self.ops; add V(d).S4, V(a).S4, V(b).S4),
            I::Sub => a64!(self.ops; sub V(d).S4, V(a).S4, V(b).S4),
            I::CmpEq => a64!(self.ops; cmeq V(d).S4, V(a).S4, V(b).S4),
        }
    }

    /// `d = a op [m]` on 32-bit integer lanes.
    pub fn im(&mut self, op: I, d: u8, a: u8, m: Mem) {
        self.load(W::Ps, K0, m);
        self.i(op, d, a, K0);
    }

    /// Shifts 32-bit lanes: `kind` 0 = left, 1 = logical right, 2 = arithmetic right.
    pub fn shift(&mut self, kind: u8, d: u8, a: u8, imm: u32) {
        match kind {
            0 => a64!(self.ops; shl V(d).S4, V(a).S4, imm),
            1 => a64!(self.ops; ushr V(d).S4, V(a).S4, imm),
            _ => a64!(self.ops; sshr V(d).S4, V(a).S4, imm),
        }
    }

    /// Float lanes to int32 lanes, rounding to nearest even (`trunc`: toward zero).
    pub fn cvt_f2i(&mut self, d: u8, a: u8, trunc: bool) {
        if trunc {
            a64!(self.ops; fcvtzs V(d).S4, V(a).S4);
        } else {
            a64!(self.ops; fcvtns V(d).S4, V(a).S4);
        }
    }

    /// Int32 lanes to float lanes.
    pub fn cvt_i2f(&mut self, d: u8, a: u8) {
        a64!(self.ops; scvtf V(d).S4, V(a).S4);
    }

    /// All-ones lanes where `a pred b` holds.
    pub fn cmp(&mut self, w: W, pred: Cmp, d: u8, a: u8, b: u8) {
        match pred {
            Cmp::Eq => fp3!(self, w, fcmeq, d, a, b),
            Cmp::Lt => fp3!(self, w, fcmgt, d, b, a),
            Cmp::Le => fp3!(self, w, fcmge, d, b, a),
            Cmp::Nle => {
                fp3!(self, w, fcmge, d, b, a);
                a64!(self.ops; mvn V(d).B16, V(d).B16);
            }
            Cmp::Ne => {
                fp3!(self, w, fcmeq, d, a, b);
                a64!(self.ops; mvn V(d).B16, V(d).B16);
            }
            Cmp::Unord => {
                fp3!(self, w, fcmeq, d, a, a);
                a64!(self.ops; mvn V(d).B16, V(d).B16);
                if a != b {
                    fp3!(self, w, fcmeq, K1, b, b);
                    a64!(self.ops; orn V(d).B16, V(d).B16, V(K1).B16);
                }
            }
        }
    }

    /// Compare against memory.
    pub fn cmp_m(&mut self, w: W, pred: Cmp, d: u8, a: u8, m: Mem) {
        self.load(if w == W::Sd { W::Sd } else { W::Ps }, K0, m);
        self.cmp(w, pred, d, a, K0);
    }

    /// `d = mask ? t : f` (bitwise).
    pub fn blend(&mut self, d: u8, f: u8, t: u8, mask: u8) {
        if d != f && d != t {
            self.mov(d, mask);
            a64!(self.ops; bsl V(d).B16, V(t).B16, V(f).B16);
        } else {
            self.mov(K1, mask);
            a64!(self.ops; bsl V(K1).B16, V(t).B16, V(f).B16);
            self.mov(d, K1);
        }
    }

    /// Rounds float lanes: `mode` 0 nearest even, 1 down, 2 up, 3 toward zero.
    pub fn round(&mut self, w: W, d: u8, a: u8, mode: u8) {
        match mode {
            0 => fp2!(self, w, frintn, d, a),
            1 => fp2!(self, w, frintm, d, a),
            2 => fp2!(self, w, frintp, d, a),
            _ => fp2!(self, w, frintz, d, a),
        }
    }

    /// `d = sqrt(a)`.
    pub fn sqrt(&mut self, w: W, d: u8, a: u8) {
        fp2!(self, w, fsqrt, d, a);
    }

    /// Jumps to `l` when any lane of mask `a` is set (`Ps`), or lane 0 is (scalar widths).
    pub fn jump_if_any(&mut self, w: W, a: u8, l: DynamicLabel) {
        if w == W::Ps {
            a64!(self.ops; umaxv S(K0), V(a).S4 ; fmov W(X9), S(K0));
        } else {
            a64!(self.ops; fmov W(X9), S(a));
        }
        a64!(self.ops; cbnz W(X9), =>l);
    }

    /// `x[gp] = low 64 bits of v[a]`.
    pub fn fmov_to_gp(&mut self, gp: u8, a: u8) {
        a64!(self.ops; fmov X(gp), D(a));
    }

    /// `v[d] = x[gp]` (low 64 bits, the rest zeroed).
    pub fn fmov_from_gp(&mut self, d: u8, gp: u8) {
        a64!(self.ops; fmov D(d), X(gp));
    }

    /// Calls the function at address `f` (through `x16`).
    pub fn call(&mut self, f: usize) {
        self.imm(16, f as u64);
        a64!(self.ops; blr x16);
    }
}
