//! Ternary pointwise ops: `lerp`, `addcmul`, `addcdiv`.

use rynamo_tensor::ops::ternary::{self, AddcOp};
use rynamo_tensor::{Shaped, Tensor, TensorMeta};

use super::wrong_module;
use crate::{Args, IValue, Op, Result, Value};

/// The `addc*` variant of an op (in-place forms included).
pub(crate) fn addc_op(op: Op) -> Option<AddcOp> {
    match op {
        Op::Addcmul | Op::Addcmul_ => Some(AddcOp::Mul),
        Op::Addcdiv | Op::Addcdiv_ => Some(AddcOp::Div),
        _ => None,
    }
}

pub(crate) fn meta<T: Shaped + Clone>(op: Op, args: &[Value<T>]) -> Result<Vec<TensorMeta>> {
    let a = Args(args);
    let m = match op {
        Op::Lerp => ternary::lerp_meta(a.tensor(0)?, a.tensor(1)?, a.tensor_or_scalar(2)?)?,
        _ => {
            let k = addc_op(op).ok_or_else(|| wrong_module(op))?;
            ternary::addc_meta(k, a.tensor(0)?, a.tensor(1)?, a.tensor(2)?)?
        }
    };
    Ok(vec![m])
}

pub(crate) fn eager(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    let a = Args(args);
    let t = match op {
        Op::Lerp => ternary::lerp(a.tensor(0)?, a.tensor(1)?, a.tensor_or_scalar(2)?)?,
        _ => {
            let k = addc_op(op).ok_or_else(|| wrong_module(op))?;
            ternary::addc(k, a.tensor(0)?, a.tensor(1)?, a.tensor(2)?, a.scalar(3)?)?
        }
    };
    Ok(vec![t])
}
