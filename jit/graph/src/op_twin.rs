//! The link between an in-place op and its functional twin (`add_` and `add` take the same
//! arguments). Functionalization rewrites in-place nodes with it, and autograd gives an in-place
//! op its twin's backward formula.

use crate::Op;

impl Op {
    /// The out-of-place op taking the same arguments, for in-place ops that have one.
    pub fn functional_twin(self) -> Option<Op> {
        use Op::*;
        Some(match self {
            Add_ => Add,
            Sub_ => Sub,
            Mul_ => Mul,
            Div_ => Div,
            Clamp_ => Clamp,
            MaskedFill_ => MaskedFill,
            Neg_ => Neg,
            Abs_ => Abs,
            Exp_ => Exp,
            Log_ => Log,
            Sqrt_ => Sqrt,
            Rsqrt_ => Rsqrt,
            Sin_ => Sin,
            Cos_ => Cos,
            Tanh_ => Tanh,
            Sigmoid_ => Sigmoid,
            Relu_ => Relu,
            Floor_ => Floor,
            Ceil_ => Ceil,
            Round_ => Round,
            Trunc_ => Trunc,
            Reciprocal_ => Reciprocal,
            Pow_ => Pow,
            Remainder_ => Remainder,
            Fmod_ => Fmod,
            FloorDivide_ => FloorDivide,
            Lerp_ => Lerp,
            Addcmul_ => Addcmul,
            Addcdiv_ => Addcdiv,
            Scatter_ => Scatter,
            ScatterValue_ => ScatterValue,
            ScatterAdd_ => ScatterAdd,
            _ => return None,
        })
    }
}
