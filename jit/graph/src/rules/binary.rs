//! Binary pointwise ops, `where`, `masked_fill`, `clamp` (and `clamp_min`/`clamp_max`).

use rynamo_tensor::ops::pointwise;
use rynamo_tensor::{BinaryOp, Scalar, Shaped, Tensor, TensorMeta};

use super::wrong_module;
use crate::{Args, Error, IValue, Op, Result, Value};

/// The kernel op and its alpha (in-place forms included), `None` for other ops.
pub(crate) fn kind<T>(op: Op, a: &Args<'_, T>) -> Result<Option<(BinaryOp, Scalar)>> {
    use BinaryOp as B;
    let one = Scalar::Int(1);
    Ok(Some(match op {
        Op::Add | Op::Add_ => (B::Add, a.scalar(2)?),
        Op::Sub | Op::Sub_ => (B::Sub, a.scalar(2)?),
        Op::Mul | Op::Mul_ => (B::Mul, one),
        Op::Div | Op::Div_ => match a.opt_str(2)? {
            None => (B::Div, one),
            Some("trunc") => (B::DivTrunc, one),
            Some("floor") => (B::DivFloor, one),
            Some(m) => {
                return Err(Error::Tensor(rynamo_tensor::Error::Value(format!(
                    "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{m}'"
                ))));
            }
        },
        Op::FloorDivide | Op::FloorDivide_ => (B::DivFloor, one),
        Op::Remainder | Op::Remainder_ => (B::Remainder, one),
        Op::Pow | Op::Pow_ => (B::Pow, one),
        Op::Fmod | Op::Fmod_ => (B::Fmod, one),
        Op::Hypot => (B::Hypot, one),
        Op::BitwiseLeftShift => (B::LeftShift, one),
        Op::BitwiseRightShift => (B::RightShift, one),
        Op::Maximum | Op::MaxOther => (B::Maximum, one),
        Op::Minimum | Op::MinOther => (B::Minimum, one),
        Op::Eq => (B::Eq, one),
        Op::Ne => (B::Ne, one),
        Op::Lt => (B::Lt, one),
        Op::Le => (B::Le, one),
        Op::Gt => (B::Gt, one),
        Op::Ge => (B::Ge, one),
        Op::LogicalAnd => (B::LogicalAnd, one),
        Op::LogicalOr => (B::LogicalOr, one),
        Op::LogicalXor => (B::LogicalXor, one),
        Op::BitwiseAnd => (B::BitwiseAnd, one),
        Op::BitwiseOr => (B::BitwiseOr, one),
        Op::BitwiseXor => (B::BitwiseXor, one),
        Op::Atan2 => (B::Atan2, one),
        _ => return Ok(None),
    }))
}

/// `kind`, or the internal error for a non-binary op.
pub(crate) fn expect_kind<T>(op: Op, a: &Args<'_, T>) -> Result<(BinaryOp, Scalar)> {
    kind(op, a)?.ok_or_else(|| wrong_module(op))
}

pub(crate) fn meta<T: Shaped + Clone>(op: Op, args: &[Value<T>]) -> Result<Vec<TensorMeta>> {
    let a = Args(args);
    let m = match op {
        Op::Clamp | Op::Clip => pointwise::clamp_meta(
            a.tensor(0)?,
            a.opt_tensor_or_scalar(1)?,
            a.opt_tensor_or_scalar(2)?,
        )?,
        Op::ClampMin => pointwise::clamp_meta(a.tensor(0)?, Some(a.tensor_or_scalar(1)?), None)?,
        Op::ClampMax => pointwise::clamp_meta(a.tensor(0)?, None, Some(a.tensor_or_scalar(1)?))?,
        Op::Where => {
            pointwise::where_meta(a.tensor(0)?, a.tensor_or_scalar(1)?, a.tensor_or_scalar(2)?)?
        }
        Op::MaskedFill => {
            pointwise::masked_fill_meta(a.tensor(0)?, a.tensor(1)?, a.tensor_or_scalar(2)?)?
        }
        _ => {
            let (b, _) = expect_kind(op, &a)?;
            pointwise::binary_meta(b, a.tensor_or_scalar(0)?, a.tensor_or_scalar(1)?)?
        }
    };
    Ok(vec![m])
}

pub(crate) fn eager(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    let a = Args(args);
    let t = match op {
        Op::Clamp | Op::Clip => pointwise::clamp(
            a.tensor(0)?,
            a.opt_tensor_or_scalar(1)?,
            a.opt_tensor_or_scalar(2)?,
        )?,
        Op::ClampMin => pointwise::clamp(a.tensor(0)?, Some(a.tensor_or_scalar(1)?), None)?,
        Op::ClampMax => pointwise::clamp(a.tensor(0)?, None, Some(a.tensor_or_scalar(1)?))?,
        Op::Where => {
            pointwise::where_(a.tensor(0)?, a.tensor_or_scalar(1)?, a.tensor_or_scalar(2)?)?
        }
        Op::MaskedFill => {
            pointwise::masked_fill(a.tensor(0)?, a.tensor(1)?, a.tensor_or_scalar(2)?)?
        }
        _ => {
            let (b, alpha) = expect_kind(op, &a)?;
            pointwise::binary(b, a.tensor_or_scalar(0)?, a.tensor_or_scalar(1)?, alpha)?
        }
    };
    Ok(vec![t])
}
