//! Pointwise ops as one scalar expression: written once, generically over [`Real`], the eager
//! kernel runs it on `f32`/`f64` elements (monomorphised into the kernel loop, so it vectorises as
//! hand-written closures do) and the JIT records it ([`record`]) into an [`Expr`] that it lowers
//! node by node. The primitives are the operations both sides implement the same way: IEEE
//! arithmetic and comparisons, NaN-propagating `min`/`max`, rounding, `relu`, the vectorisable
//! `exp`/`ln`/`tanh`/`sin`/`cos`/`erf`/`sigmoid` (eager's `exp_v`/`ln_v`/`tanh_v`/..., the JIT's
//! vector forms of the same algorithms), and scalar functions ([`ScalarFn1`]) that both call (the
//! JIT through its scalar-call mechanism), so a new function needs no JIT change.
//!
//! ```
//! use rynamo_tensor::expr::{ENode, Real, record};
//! fn softsign<T: Real>(x: T) -> T {
//!     x / (T::konst(1.0) + x.abs())
//! }
//! assert_eq!(softsign(3.0f32), 0.75);
//! let e = record(1, |a| softsign(a[0]));
//! assert_eq!(e.nodes.len(), 5);
//! assert!(matches!(e.nodes[0], ENode::Arg(0)));
//! ```

use std::cell::RefCell;
use std::ops::{Add, Div, Mul, Neg, Sub};

use crate::kernels::math::Flt;

/// A scalar function of one argument, in both precisions, with the C ABI the JIT calls.
pub struct ScalarFn1 {
    /// Its name (kernel listings, equality).
    pub name: &'static str,
    /// The `f32` version.
    pub f32: extern "C" fn(f32) -> f32,
    /// The `f64` version.
    pub f64: extern "C" fn(f64) -> f64,
}

impl std::fmt::Debug for ScalarFn1 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl PartialEq for ScalarFn1 {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
impl Eq for ScalarFn1 {}
impl std::hash::Hash for ScalarFn1 {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.name.hash(h);
    }
}

/// Unary primitives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs, reason = "each variant is the function of the same name")]
pub enum Un {
    Neg,
    Abs,
    Sqrt,
    Exp,
    Ln,
    Tanh,
    Sin,
    Cos,
    Erf,
    Sigmoid,
    Floor,
    Ceil,
    Trunc,
    /// Round half to even (`torch.round`).
    RoundEven,
    /// `x < 0 ? 0 : x` (NaN and `-0.0` kept, as PyTorch's `clamp_min(x, 0)`).
    Relu,
}

/// Binary primitives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(
    missing_docs,
    reason = "each variant is the IEEE operation of the same name"
)]
pub enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    /// The smaller operand; NaN if either is NaN (PyTorch's `minimum`).
    Min,
    /// The larger operand; NaN if either is NaN.
    Max,
}

/// Comparisons (false when either side is NaN, except `Ne`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(
    missing_docs,
    reason = "each variant is the comparison of the same name"
)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// One node of a recorded expression; operands are earlier nodes' indices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ENode {
    /// Argument `i` of the op (its schema position), converted to the compute dtype.
    Arg(u8),
    /// A constant, converted to the compute dtype.
    Const(f64),
    /// A unary primitive.
    Un(Un, u32),
    /// A binary primitive.
    Bin(Bin, u32, u32),
    /// A comparison: a mask.
    Cmp(Cmp, u32, u32),
    /// Whether the operand is NaN: a mask.
    IsNan(u32),
    /// Either mask.
    Or(u32, u32),
    /// `mask ? a : b`.
    Select(u32, u32, u32),
    /// A scalar function call.
    Call(&'static ScalarFn1, u32),
}

/// A recorded expression; the last node is the result.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// Nodes in evaluation order.
    pub nodes: Vec<ENode>,
}

/// What pointwise expressions are written against: `f32`/`f64` for eager kernels, [`Sym`] for
/// recording.
pub trait Real:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// A comparison result.
    type Mask: Copy;
    /// `v` in this type (rounded to `f32` for `f32`).
    fn konst(v: f64) -> Self;
    /// `|x|`.
    fn abs(self) -> Self;
    /// `sqrt(x)`.
    fn sqrt(self) -> Self;
    /// `e^x`.
    fn exp(self) -> Self;
    /// `ln(x)`.
    fn ln(self) -> Self;
    /// `tanh(x)`.
    fn tanh(self) -> Self;
    /// `sin(x)`.
    fn sin(self) -> Self;
    /// `cos(x)`.
    fn cos(self) -> Self;
    /// The error function.
    fn erf(self) -> Self;
    /// `1 / (1 + e^-x)`.
    fn sigmoid(self) -> Self;
    /// Rounds down.
    fn floor(self) -> Self;
    /// Rounds up.
    fn ceil(self) -> Self;
    /// Rounds toward zero.
    fn trunc(self) -> Self;
    /// Rounds half to even.
    fn round_even(self) -> Self;
    /// `x < 0 ? 0 : x`.
    fn relu(self) -> Self;
    /// The smaller of two; NaN if either is NaN.
    fn min(self, other: Self) -> Self;
    /// The larger of two; NaN if either is NaN.
    fn max(self, other: Self) -> Self;
    /// A scalar function.
    fn call(self, f: &'static ScalarFn1) -> Self;
    /// A comparison.
    fn cmp(self, op: Cmp, other: Self) -> Self::Mask;
    /// Whether `x` is NaN.
    fn is_nan(self) -> Self::Mask;
    /// Either mask.
    fn or(a: Self::Mask, b: Self::Mask) -> Self::Mask;
    /// `mask ? a : b`.
    fn select(mask: Self::Mask, a: Self, b: Self) -> Self;
}

impl<F: Flt> Real for F {
    type Mask = bool;
    #[inline(always)]
    fn konst(v: f64) -> Self {
        F::c(v)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        num_traits::Float::abs(self)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        num_traits::Float::sqrt(self)
    }
    #[inline(always)]
    fn exp(self) -> Self {
        self.exp_v()
    }
    #[inline(always)]
    fn ln(self) -> Self {
        self.ln_v()
    }
    #[inline(always)]
    fn tanh(self) -> Self {
        self.tanh_v()
    }
    /// The vectorisable form, with the inputs it gets wrong (huge, infinite) computed exactly,
    /// as eager's `sin` kernel patches them.
    #[inline(always)]
    fn sin(self) -> Self {
        if self.trig_rare() {
            num_traits::Float::sin(self)
        } else {
            self.sin_v()
        }
    }
    #[inline(always)]
    fn cos(self) -> Self {
        if self.trig_rare() {
            num_traits::Float::cos(self)
        } else {
            self.cos_v()
        }
    }
    #[inline(always)]
    fn erf(self) -> Self {
        Flt::erf(self)
    }
    #[inline(always)]
    fn sigmoid(self) -> Self {
        crate::kernels::math::sigmoid(self)
    }
    #[inline(always)]
    fn floor(self) -> Self {
        num_traits::Float::floor(self)
    }
    #[inline(always)]
    fn ceil(self) -> Self {
        num_traits::Float::ceil(self)
    }
    #[inline(always)]
    fn trunc(self) -> Self {
        num_traits::Float::trunc(self)
    }
    #[inline(always)]
    fn round_even(self) -> Self {
        Flt::round_even(self)
    }
    #[inline(always)]
    fn relu(self) -> Self {
        if self < F::zero() { F::zero() } else { self }
    }
    #[inline(always)]
    fn min(self, other: Self) -> Self {
        if num_traits::Float::is_nan(self) {
            self
        } else if num_traits::Float::is_nan(other) {
            other
        } else {
            num_traits::Float::min(self, other)
        }
    }
    #[inline(always)]
    fn max(self, other: Self) -> Self {
        if num_traits::Float::is_nan(self) {
            self
        } else if num_traits::Float::is_nan(other) {
            other
        } else {
            num_traits::Float::max(self, other)
        }
    }
    #[inline(always)]
    fn call(self, f: &'static ScalarFn1) -> Self {
        F::call1(f, self)
    }
    #[inline(always)]
    fn cmp(self, op: Cmp, other: Self) -> bool {
        match op {
            Cmp::Eq => self == other,
            Cmp::Ne => self != other,
            Cmp::Lt => self < other,
            Cmp::Le => self <= other,
            Cmp::Gt => self > other,
            Cmp::Ge => self >= other,
        }
    }
    #[inline(always)]
    fn is_nan(self) -> bool {
        num_traits::Float::is_nan(self)
    }
    #[inline(always)]
    fn or(a: bool, b: bool) -> bool {
        a | b
    }
    #[inline(always)]
    fn select(mask: bool, a: Self, b: Self) -> Self {
        if mask { a } else { b }
    }
}

thread_local! {
    static TAPE: RefCell<Vec<ENode>> = const { RefCell::new(Vec::new()) };
}

/// A recorded value: an index into the expression being recorded on this thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sym(u32);

fn push(n: ENode) -> Sym {
    TAPE.with(|t| {
        let mut t = t.borrow_mut();
        t.push(n);
        Sym(t.len() as u32 - 1)
    })
}

/// Records `f` applied to the op's first `n_args` arguments.
pub fn record(n_args: u8, f: impl FnOnce(&[Sym]) -> Sym) -> Expr {
    try_record(n_args, |a| Some(f(a))).expect("invariant: f always gives a value")
}

/// [`record`] for a function that has no expression for some parameters (`None`: an integer-only
/// op of a family whose float ops have one).
pub fn try_record(n_args: u8, f: impl FnOnce(&[Sym]) -> Option<Sym>) -> Option<Expr> {
    let outer = TAPE.with(|t| std::mem::take(&mut *t.borrow_mut()));
    let args: Vec<Sym> = (0..n_args).map(|i| push(ENode::Arg(i))).collect();
    let root = f(&args);
    let mut nodes = TAPE.with(|t| std::mem::replace(&mut *t.borrow_mut(), outer));
    let root = root?;
    nodes.truncate(root.0 as usize + 1);
    Some(Expr { nodes })
}

macro_rules! sym_bin {
    ($tr:ident, $m:ident, $b:ident) => {
        impl $tr for Sym {
            type Output = Sym;
            fn $m(self, o: Sym) -> Sym {
                push(ENode::Bin(Bin::$b, self.0, o.0))
            }
        }
    };
}
sym_bin!(Add, add, Add);
sym_bin!(Sub, sub, Sub);
sym_bin!(Mul, mul, Mul);
sym_bin!(Div, div, Div);

impl Neg for Sym {
    type Output = Sym;
    fn neg(self) -> Sym {
        push(ENode::Un(Un::Neg, self.0))
    }
}

impl Real for Sym {
    type Mask = Sym;
    fn konst(v: f64) -> Self {
        push(ENode::Const(v))
    }
    fn abs(self) -> Self {
        push(ENode::Un(Un::Abs, self.0))
    }
    fn sqrt(self) -> Self {
        push(ENode::Un(Un::Sqrt, self.0))
    }
    fn exp(self) -> Self {
        push(ENode::Un(Un::Exp, self.0))
    }
    fn ln(self) -> Self {
        push(ENode::Un(Un::Ln, self.0))
    }
    fn tanh(self) -> Self {
        push(ENode::Un(Un::Tanh, self.0))
    }
    fn sin(self) -> Self {
        push(ENode::Un(Un::Sin, self.0))
    }
    fn cos(self) -> Self {
        push(ENode::Un(Un::Cos, self.0))
    }
    fn erf(self) -> Self {
        push(ENode::Un(Un::Erf, self.0))
    }
    fn sigmoid(self) -> Self {
        push(ENode::Un(Un::Sigmoid, self.0))
    }
    fn floor(self) -> Self {
        push(ENode::Un(Un::Floor, self.0))
    }
    fn ceil(self) -> Self {
        push(ENode::Un(Un::Ceil, self.0))
    }
    fn trunc(self) -> Self {
        push(ENode::Un(Un::Trunc, self.0))
    }
    fn round_even(self) -> Self {
        push(ENode::Un(Un::RoundEven, self.0))
    }
    fn relu(self) -> Self {
        push(ENode::Un(Un::Relu, self.0))
    }
    fn min(self, other: Self) -> Self {
        push(ENode::Bin(Bin::Min, self.0, other.0))
    }
    fn max(self, other: Self) -> Self {
        push(ENode::Bin(Bin::Max, self.0, other.0))
    }
    fn call(self, f: &'static ScalarFn1) -> Self {
        push(ENode::Call(f, self.0))
    }
    fn cmp(self, op: Cmp, other: Self) -> Sym {
        push(ENode::Cmp(op, self.0, other.0))
    }
    fn is_nan(self) -> Sym {
        push(ENode::IsNan(self.0))
    }
    fn or(a: Sym, b: Sym) -> Sym {
        push(ENode::Or(a.0, b.0))
    }
    fn select(mask: Sym, a: Sym, b: Sym) -> Sym {
        push(ENode::Select(mask.0, a.0, b.0))
    }
}
