//! Unary pointwise ops.

use rynamo_tensor::ops::pointwise;
use rynamo_tensor::{Shaped, Tensor, TensorMeta, UnaryOp};

use super::wrong_module;
use crate::{Args, Error, IValue, Op, Result, Value};

/// The kernel-level unary op (with parameters read from the arguments), `None` for other ops.
pub(crate) fn kind<T>(op: Op, a: &Args<'_, T>) -> Result<Option<UnaryOp>> {
    use UnaryOp as U;
    Ok(Some(match op {
        Op::Neg => U::Neg,
        Op::Abs => U::Abs,
        Op::Exp => U::Exp,
        Op::Exp2 => U::Exp2,
        Op::Expm1 => U::Expm1,
        Op::Log => U::Log,
        Op::Log2 => U::Log2,
        Op::Log10 => U::Log10,
        Op::Log1p => U::Log1p,
        Op::Sqrt => U::Sqrt,
        Op::Rsqrt => U::Rsqrt,
        Op::Sin => U::Sin,
        Op::Cos => U::Cos,
        Op::Tan => U::Tan,
        Op::Asin => U::Asin,
        Op::Acos => U::Acos,
        Op::Atan => U::Atan,
        Op::Sinh => U::Sinh,
        Op::Cosh => U::Cosh,
        Op::Tanh => U::Tanh,
        Op::Sigmoid => U::Sigmoid,
        Op::Relu => U::Relu,
        Op::Relu6 => U::Relu6,
        Op::LeakyRelu => U::LeakyRelu {
            slope: a.scalar(1)?.to_f64(),
        },
        Op::Elu => U::Elu {
            alpha: a.scalar(1)?.to_f64(),
        },
        Op::Gelu => match a.str(1)? {
            "none" => U::Gelu { tanh: false },
            "tanh" => U::Gelu { tanh: true },
            _ => {
                return Err(Error::Tensor(rynamo_tensor::Error::Runtime(
                    "approximate argument must be either none or tanh.".into(),
                )));
            }
        },
        Op::Silu => U::Silu,
        Op::Mish => U::Mish,
        Op::Softplus => U::Softplus {
            beta: a.scalar(1)?.to_f64(),
            threshold: a.scalar(2)?.to_f64(),
        },
        Op::Erf => U::Erf,
        Op::Floor => U::Floor,
        Op::Ceil => U::Ceil,
        Op::Round => U::Round {
            decimals: a.int(1)?,
        },
        Op::Trunc => U::Trunc,
        Op::Frac => U::Frac,
        Op::Sign => U::Sign,
        Op::Reciprocal => U::Reciprocal,
        Op::Square => U::Square,
        Op::LogicalNot => U::LogicalNot,
        Op::BitwiseNot => U::BitwiseNot,
        Op::IsNan => U::IsNan,
        Op::IsInf => U::IsInf,
        Op::IsFinite => U::IsFinite,
        Op::NanToNum => U::NanToNum {
            nan: a.opt_float(1)?.unwrap_or(0.0),
            posinf: a.opt_float(2)?,
            neginf: a.opt_float(3)?,
        },
        _ => return Ok(None),
    }))
}

pub(crate) fn meta<T: Shaped + Clone>(op: Op, args: &[Value<T>]) -> Result<Vec<TensorMeta>> {
    let a = Args(args);
    Ok(vec![pointwise::unary_meta(
        kind(op, &a)?.ok_or_else(|| wrong_module(op))?,
        a.tensor(0)?,
    )?])
}

pub(crate) fn eager(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    let a = Args(args);
    Ok(vec![pointwise::unary(
        kind(op, &a)?.ok_or_else(|| wrong_module(op))?,
        a.tensor(0)?,
    )?])
}
