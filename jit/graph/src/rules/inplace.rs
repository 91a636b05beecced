//! In-place ops: each returns its (mutated) first argument, so the meta is that argument's.

use rynamo_tensor::ops::{index, pointwise};
use rynamo_tensor::{Scalar, Shaped, Tensor, TensorMeta, TensorOrScalar, can_cast, layout};

use super::{meta_of, wrong_module};
use crate::{Args, Error, IValue, Op, Result, Value};

fn rt(msg: String) -> Error {
    Error::Tensor(rynamo_tensor::Error::Runtime(msg))
}

/// Checks that an out-of-place result could be written back into `this`.
fn check_into<T: Shaped>(this: &T, result: &TensorMeta) -> Result<()> {
    if result.shape != this.shape() {
        return Err(rt(format!(
            "output with shape {:?} doesn't match the broadcast shape {:?}",
            this.shape(),
            result.shape
        )));
    }
    if !can_cast(result.dtype, this.dtype()) {
        return Err(Error::Tensor(rynamo_tensor::Error::CannotCast {
            from: result.dtype,
            to: this.dtype(),
        }));
    }
    Ok(())
}

fn check_fill_value<T: Shaped>(v: &TensorOrScalar<&T>) -> Result<()> {
    if let TensorOrScalar::Tensor(t) = v
        && t.ndim() != 0
    {
        return Err(rt(format!(
            "fill_ only supports 0-dimension value tensor but got tensor with {} dimensions.",
            t.ndim()
        )));
    }
    Ok(())
}

pub(crate) fn meta<T: Shaped + Clone>(op: Op, args: &[Value<T>]) -> Result<Vec<TensorMeta>> {
    let a = Args(args);
    let this = a.tensor(0)?;
    match op {
        Op::Add_ | Op::Sub_ | Op::Mul_ | Op::Div_ => {
            let (b, _) = super::binary::expect_kind(op, &a)?;
            let r =
                pointwise::binary_meta(b, TensorOrScalar::Tensor(this), a.tensor_or_scalar(1)?)?;
            check_into(this, &r)?;
        }
        Op::Clamp_ => {
            let r = pointwise::clamp_meta(
                this,
                a.opt_tensor_or_scalar(1)?,
                a.opt_tensor_or_scalar(2)?,
            )?;
            check_into(this, &r)?;
        }
        Op::Copy_ => {
            let src = a.tensor(1)?;
            layout::broadcast_strides(src.shape(), src.strides(), this.shape())?;
        }
        Op::Zero_ => {}
        Op::Fill_ => check_fill_value(&a.tensor_or_scalar(1)?)?,
        Op::MaskedFill_ => {
            let r = pointwise::masked_fill_meta(this, a.tensor(1)?, a.tensor_or_scalar(2)?)?;
            check_into(this, &r)?;
        }
        Op::SetItem => {
            index::plan(this, a.index(1)?)?;
        }
        _ => return Err(wrong_module(op)),
    }
    Ok(vec![meta_of(this)])
}

pub(crate) fn eager(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    let a = Args(args);
    let this = a.tensor(0)?;
    match op {
        Op::Add_ | Op::Sub_ | Op::Mul_ | Op::Div_ => {
            let (b, alpha) = super::binary::expect_kind(op, &a)?;
            pointwise::binary_(b, this, a.tensor_or_scalar(1)?, alpha)?;
        }
        Op::Clamp_ => {
            pointwise::clamp_(this, a.opt_tensor_or_scalar(1)?, a.opt_tensor_or_scalar(2)?)?
        }
        Op::Copy_ => this.copy_(a.tensor(1)?)?,
        Op::Zero_ => this.fill_(Scalar::Int(0)),
        Op::Fill_ => {
            let v = a.tensor_or_scalar(1)?;
            check_fill_value(&v)?;
            match v {
                TensorOrScalar::Scalar(s) => this.fill_(s),
                TensorOrScalar::Tensor(t) => this.fill_(t.item()?),
            }
        }
        Op::MaskedFill_ => {
            let r = pointwise::masked_fill(this, a.tensor(1)?, a.tensor_or_scalar(2)?)?;
            check_into(this, &super::meta_of(&r))?;
            this.copy_(&r)?;
        }
        Op::SetItem => index::setitem(this, a.index(1)?, a.tensor_or_scalar(2)?)?,
        _ => return Err(wrong_module(op)),
    }
    Ok(vec![this.clone()])
}
