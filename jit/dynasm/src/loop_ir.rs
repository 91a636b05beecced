//! The loop IR: one fused kernel as a row loop over phases, each a column loop over an SSA body.
//!
//! ```text
//!   for row in 0..nrows:                      (split across threads by the runtime)
//!     for phase in phases:                     (all phases see the same row, so it stays in L1)
//!       hoisted: constants, row values, broadcast loads
//!       for col in 0..ncols: body            (vector width W, then a scalar tail)
//!         reduces -> accumulators -> row slots  (read by later phases as `RowVal`)
//!         stores  -> output buffers
//!     row stores: row slots -> output buffers
//! ```
//!
//! **Invariant:** the IR names no sizes, strides or constant values, only their kinds: those come
//! in at run time through [`crate::runtime`]'s argument block. Two kernels with equal IR are
//! interchangeable, which is what [`crate::kernel_cache`] relies on. It is arch-independent; each
//! target's emitter lowers it.

use std::fmt;

use rynamo_tensor::expr::ScalarFn1;

/// Reductions one column loop may hold (each keeps two accumulator registers live).
pub const MAX_REDUCES: usize = 3;

/// Value types inside kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// 32-bit float (vectorised).
    F32,
    /// 64-bit float (scalar).
    F64,
    /// 64-bit integer (scalar).
    I64,
    /// Boolean: a lane mask in vector code, 0/1 in scalar code, one byte in memory.
    Bool,
}

impl Ty {
    /// Bytes per element in memory.
    pub fn size(self) -> usize {
        match self {
            Ty::F32 => 4,
            Ty::F64 | Ty::I64 => 8,
            Ty::Bool => 1,
        }
    }
    fn name(self) -> &'static str {
        match self {
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::I64 => "i64",
            Ty::Bool => "bool",
        }
    }
}

/// Index of a value within a phase body.
pub type V = u32;

/// Unary operations. Transcendentals on `F32` are vectorised polynomials; anything in
/// [`Func1`] is a scalar call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(
    missing_docs,
    reason = "each variant is the math function of the same name"
)]
pub enum UOp {
    Neg,
    Abs,
    Sqrt,
    Exp,
    Log,
    Sin,
    Cos,
    Tanh,
    Sigmoid,
    Erf,
    Floor,
    Ceil,
    Trunc,
    /// Round half to even.
    Round,
    /// `max(0, x)`, NaN kept.
    Relu,
    IsNan,
    /// Bool/int logical or bitwise not.
    Not,
}

/// Binary operations. Comparisons produce `Bool`; `Max`/`Min` propagate NaN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(
    missing_docs,
    reason = "each variant is the operation of the same name"
)]
pub enum BOp {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    And,
    Or,
    Xor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BOp {
    /// Whether the result is `Bool` whatever the operands.
    pub fn is_compare(self) -> bool {
        matches!(
            self,
            BOp::Eq | BOp::Ne | BOp::Lt | BOp::Le | BOp::Gt | BOp::Ge
        )
    }
}

/// Scalar library functions of one argument (called per element, never vectorised).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(
    missing_docs,
    reason = "each variant is the libm function of the same name"
)]
pub enum Func1 {
    Exp,
    Log,
    Sin,
    Cos,
    Tanh,
    Erf,
    Floor,
    Ceil,
    Trunc,
    Round,
    Sigmoid,
    /// A scalar function an op's expression names (`rynamo_tensor::expr::ScalarFn1`): its own
    /// `f32`/`f64` entry points, which the eager kernel calls too.
    Extern(&'static ScalarFn1),
}

/// Scalar library functions of two arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs, reason = "each variant is the function of the same name")]
pub enum Func2 {
    Pow,
    Atan2,
    DivFloor,
    Remainder,
    Fmod,
    Hypot,
}

/// One SSA instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Inst {
    /// Element `(row, col)` of an access.
    Load(u32),
    /// A run-time constant from the kernel's constant pool.
    Const(u32),
    /// A per-row value computed by a reduction of an earlier phase.
    RowVal(u32),
    /// Unary operation.
    Unary(UOp, V),
    /// Binary operation (operands of one type).
    Binary(BOp, V, V),
    /// `c ? a : b`.
    Select(V, V, V),
    /// Conversion to the node's type.
    Cast(V),
    /// Scalar call of a one-argument function.
    Call1(Func1, V),
    /// Scalar call of a two-argument function.
    Call2(Func2, V, V),
}

impl Inst {
    /// Operands in order.
    pub fn operands(&self) -> Vec<V> {
        match *self {
            Inst::Load(_) | Inst::Const(_) | Inst::RowVal(_) => vec![],
            Inst::Unary(_, a) | Inst::Cast(a) | Inst::Call1(_, a) => vec![a],
            Inst::Binary(_, a, b) | Inst::Call2(_, a, b) => vec![a, b],
            Inst::Select(c, a, b) => vec![c, a, b],
        }
    }
}

/// An instruction and the type it produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Node {
    /// What it computes.
    pub inst: Inst,
    /// Result type.
    pub ty: Ty,
}

/// Reduction kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(
    missing_docs,
    reason = "each variant is the reduction of the same name"
)]
pub enum RedOp {
    Sum,
    /// Sum divided by the number of columns.
    Mean,
    Max,
    Min,
}

/// A reduction of a body value over the columns of a row into a row slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reduce {
    /// Kind.
    pub op: RedOp,
    /// The reduced value (its type is the accumulation input type).
    pub value: V,
    /// Destination row slot.
    pub slot: u32,
}

/// How an access moves along the columns of a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ColStride {
    /// Unit stride: vector loads and stores.
    Contig,
    /// Stride 0: one element per row (hoisted).
    Broadcast,
    /// Any other stride (scalar code).
    Strided,
}

/// What an access does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    /// Read per element.
    Load,
    /// Written per element.
    Store,
    /// Written per element, full vectors with non-temporal stores where the target has them
    /// (x86-64; see [`crate::stream`]), so a large output does not first read its lines into the
    /// caches. Only in a kernel's streaming variant.
    StreamStore,
    /// Written once per row from a row slot.
    RowStore,
}

/// One strided view of a buffer: `base + row * rs + col * cs`, all given at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    /// Element type in memory.
    pub ty: Ty,
    /// Read or write.
    pub kind: AccessKind,
    /// Column stride class (the one stride fact baked into code).
    pub col: ColStride,
}

/// One column loop.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Phase {
    /// SSA body, in order.
    pub body: Vec<Node>,
    /// Reductions of body values into row slots.
    pub reduces: Vec<Reduce>,
    /// `(access, value)` element stores.
    pub stores: Vec<(u32, V)>,
    /// `(access, slot)` stores of row slots, after the loop.
    pub row_stores: Vec<(u32, u32)>,
}

/// A fused kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Kernel {
    /// Buffers it reads and writes.
    pub accesses: Vec<Access>,
    /// Types of the run-time constants.
    pub consts: Vec<Ty>,
    /// Types of the row slots.
    pub slots: Vec<Ty>,
    /// Column loops, in order.
    pub phases: Vec<Phase>,
}

/// [`Kernel::cost_per_element`]'s weight of a vectorised transcendental.
pub const TRANSCENDENTAL_COST: usize = 20;

impl Kernel {
    /// Whether the kernel reduces (then rows cannot be re-tiled).
    pub fn has_reductions(&self) -> bool {
        self.phases.iter().any(|p| !p.reduces.is_empty())
    }

    /// Elementary operations per element, summed over phases (a cost estimate for the parallel
    /// split: a transcendental counts as 20).
    pub fn cost_per_element(&self) -> usize {
        let mut c = 0;
        for p in &self.phases {
            for n in &p.body {
                c += match n.inst {
                    Inst::Unary(
                        UOp::Exp
                        | UOp::Log
                        | UOp::Sin
                        | UOp::Cos
                        | UOp::Tanh
                        | UOp::Sigmoid
                        | UOp::Erf,
                        _,
                    ) => TRANSCENDENTAL_COST,
                    Inst::Call1(..) | Inst::Call2(..) => 60,
                    Inst::Const(_) | Inst::RowVal(_) => 0,
                    _ => 1,
                };
            }
            c += p.reduces.len() + p.stores.len();
        }
        c.max(1)
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "kernel(")?;
        for (i, a) in self.accesses.iter().enumerate() {
            let k = match a.kind {
                AccessKind::Load => "in",
                AccessKind::Store => "out",
                AccessKind::StreamStore => "out stream",
                AccessKind::RowStore => "rowout",
            };
            let c = match a.col {
                ColStride::Contig => "contig",
                ColStride::Broadcast => "bcast",
                ColStride::Strided => "strided",
            };
            write!(
                f,
                "{}a{i}: {k} {} {c}",
                if i > 0 { ", " } else { "" },
                a.ty.name()
            )?;
        }
        writeln!(f, "):")?;
        for (p, ph) in self.phases.iter().enumerate() {
            writeln!(f, "  phase {p}:")?;
            for (i, n) in ph.body.iter().enumerate() {
                write!(f, "    v{i}: {} = ", n.ty.name())?;
                match n.inst {
                    Inst::Load(a) => writeln!(f, "load a{a}")?,
                    Inst::Const(c) => writeln!(f, "const c{c}")?,
                    Inst::RowVal(s) => writeln!(f, "rowval s{s}")?,
                    Inst::Unary(op, a) => writeln!(f, "{op:?}(v{a})")?,
                    Inst::Binary(op, a, b) => writeln!(f, "{op:?}(v{a}, v{b})")?,
                    Inst::Select(c, a, b) => writeln!(f, "select(v{c}, v{a}, v{b})")?,
                    Inst::Cast(a) => writeln!(f, "cast(v{a})")?,
                    Inst::Call1(func, a) => writeln!(f, "call {func:?}(v{a})")?,
                    Inst::Call2(func, a, b) => writeln!(f, "call {func:?}(v{a}, v{b})")?,
                }
            }
            for r in &ph.reduces {
                writeln!(f, "    s{} <- {:?}(v{})", r.slot, r.op, r.value)?;
            }
            for (a, v) in &ph.stores {
                writeln!(f, "    store a{a} <- v{v}")?;
            }
            for (a, s) in &ph.row_stores {
                writeln!(f, "    rowstore a{a} <- s{s}")?;
            }
        }
        Ok(())
    }
}
