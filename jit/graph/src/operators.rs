//! Python's operators on tensors: the one map that eager's number protocol (`rynamo-shims`) and
//! Dynamo's tracer both read. Each op definition lists the operators that run it
//! (`OpDef::operators`, in Python's `operator` module spelling: `add`, `iadd`, `neg`, `lt`); this
//! module fixes the operators' order (CPython's `BINARY_OP` and `COMPARE_OP` numbering) and finds
//! each one's ops.
//!
//! An in-place spelling (`iadd`) runs the in-place op that lists it (`add_`); when only an
//! out-of-place op lists it (`iand`: there is no `bitwise_and_`), the result is written back into
//! the left operand (`copy_`), as PyTorch's Python-level fallback does.

use std::sync::OnceLock;

use crate::{Op, OpFlags};

macro_rules! operators {
    ($($v:ident = $name:literal),* $(,)?) => {
        /// A Python operator on tensors. The first 26 are CPython 3.14's `BINARY_OP` arguments in
        /// order, then the six comparisons in `COMPARE_OP` order, then the unary operators.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[allow(missing_docs, reason = "each variant is the `operator` function of its name")]
        pub enum PyOperator { $($v),* }

        impl PyOperator {
            /// Every operator, in order.
            pub const ALL: &'static [PyOperator] = &[$(PyOperator::$v),*];

            /// The `operator` module's name (`add`, `and_`, `iadd`, `lt`, `neg`, `invert`).
            pub const fn name(self) -> &'static str {
                match self { $(PyOperator::$v => $name),* }
            }
        }
    };
}

operators! {
    Add = "add", And = "and_", FloorDiv = "floordiv", LShift = "lshift", MatMul = "matmul",
    Mul = "mul", Mod = "mod", Or = "or_", Pow = "pow", RShift = "rshift", Sub = "sub",
    TrueDiv = "truediv", Xor = "xor",
    IAdd = "iadd", IAnd = "iand", IFloorDiv = "ifloordiv", ILShift = "ilshift",
    IMatMul = "imatmul", IMul = "imul", IMod = "imod", IOr = "ior", IPow = "ipow",
    IRShift = "irshift", ISub = "isub", ITrueDiv = "itruediv", IXor = "ixor",
    Lt = "lt", Le = "le", Eq = "eq", Ne = "ne", Gt = "gt", Ge = "ge",
    Neg = "neg", Abs = "abs", Invert = "invert",
}

/// How an operator runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperatorOps {
    /// The out-of-place op (for an in-place operator: what it computes before a write-back).
    pub op: Op,
    /// The in-place op of an in-place operator, when the registry has one; `None` means an
    /// in-place operator writes `op`'s result back into its left operand.
    pub inplace: Option<Op>,
}

const BINARY: usize = 26;
const COMPARISONS: usize = 6;

impl PyOperator {
    /// The operator of `BINARY_OP` argument `arg` (subscription, 26, is not one).
    pub fn from_binary_op(arg: usize) -> Option<PyOperator> {
        Self::ALL[..BINARY].get(arg).copied()
    }

    /// The comparison of `COMPARE_OP` index `i` (`<` is 0 ... `>=` is 5).
    pub fn from_compare_op(i: usize) -> Option<PyOperator> {
        Self::ALL[BINARY..BINARY + COMPARISONS].get(i).copied()
    }

    /// The operator with this `operator` module name.
    pub fn from_name(name: &str) -> Option<PyOperator> {
        Self::ALL.iter().copied().find(|o| o.name() == name)
    }

    /// A binary operator (in-place forms included).
    pub fn is_binary(self) -> bool {
        (self as usize) < BINARY
    }

    /// An augmented assignment (`+=`, ...).
    pub fn is_inplace(self) -> bool {
        (BINARY / 2..BINARY).contains(&(self as usize))
    }

    /// The comparison with its operands swapped (`c < x` is `x > c`); other operators unchanged.
    pub fn swapped(self) -> PyOperator {
        use PyOperator::*;
        match self {
            Lt => Gt,
            Le => Ge,
            Gt => Lt,
            Ge => Le,
            o => o,
        }
    }

    /// The ops that run it (`None` for an operator no op lists, which tensors do not support).
    pub fn ops(self) -> Option<OperatorOps> {
        table()[self as usize]
    }
}

fn table() -> &'static [Option<OperatorOps>] {
    static T: OnceLock<Vec<Option<OperatorOps>>> = OnceLock::new();
    T.get_or_init(|| {
        PyOperator::ALL
            .iter()
            .map(|o| {
                let listing = Op::ALL
                    .iter()
                    .copied()
                    .find(|op| op.def().operators.contains(&o.name()))?;
                Some(if listing.flags().contains(OpFlags::INPLACE) {
                    OperatorOps {
                        op: listing.functional_twin()?,
                        inplace: Some(listing),
                    }
                } else {
                    OperatorOps {
                        op: listing,
                        inplace: None,
                    }
                })
            })
            .collect()
    })
}
