//! In-place ops: each returns its (mutated) first argument, so the meta is that argument's.

use rynamo_tensor::ops::gather::{self, ScatterReduce};
use rynamo_tensor::ops::{index, pointwise, ternary};
use rynamo_tensor::{
    Scalar, Shaped, Tensor, TensorMeta, TensorOrScalar, can_cast, layout, memory_overlap, random,
};

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

/// PyTorch refuses in-place writes to a tensor whose elements share memory (a stride-0 dim of
/// size > 1, as `expand` makes): the result would depend on the write order. Only the
/// TensorIterator ops and `scatter_` check; `fill_`, `zero_`, `masked_fill_`, `index_put_` and a
/// scalar `__setitem__` write expanded tensors.
fn check_no_internal_overlap<T: Shaped>(op: Op, this: &T) -> Result<()> {
    if matches!(
        op,
        Op::Fill_ | Op::Zero_ | Op::MaskedFill_ | Op::IndexPut_ | Op::SetItem
    ) {
        return Ok(());
    }
    Ok(memory_overlap::assert_no_internal_overlap(this)?)
}

/// ATen's TensorIterator refuses inputs partially overlapping the destination (`a[1:].add_(a[:-1])`
/// reads elements it has already written); an input that is the destination itself is fine.
fn check_inputs_overlap(this: &Tensor, inputs: &[Option<&Tensor>]) -> Result<()> {
    for t in inputs.iter().flatten() {
        memory_overlap::assert_no_partial_overlap(this, t)?;
    }
    Ok(())
}

/// The out-of-place op whose unary kernel an in-place unary op applies.
fn unary_base(op: Op) -> Option<Op> {
    Some(match op {
        Op::Neg_ => Op::Neg,
        Op::Abs_ => Op::Abs,
        Op::Exp_ => Op::Exp,
        Op::Log_ => Op::Log,
        Op::Sqrt_ => Op::Sqrt,
        Op::Rsqrt_ => Op::Rsqrt,
        Op::Sin_ => Op::Sin,
        Op::Cos_ => Op::Cos,
        Op::Tanh_ => Op::Tanh,
        Op::Sigmoid_ => Op::Sigmoid,
        Op::Relu_ => Op::Relu,
        Op::Floor_ => Op::Floor,
        Op::Ceil_ => Op::Ceil,
        Op::Round_ => Op::Round,
        Op::Trunc_ => Op::Trunc,
        Op::Reciprocal_ => Op::Reciprocal,
        _ => return None,
    })
}

fn scatter_reduce<T>(op: Op, a: &Args<'_, T>) -> Result<ScatterReduce> {
    Ok(match op {
        Op::ScatterAdd_ => ScatterReduce::Add,
        _ => ScatterReduce::parse(a.opt_str(4)?)?,
    })
}

pub(crate) fn meta<T: Shaped + Clone>(op: Op, args: &[Value<T>]) -> Result<Vec<TensorMeta>> {
    let a = Args(args);
    let this = a.tensor(0)?;
    check_no_internal_overlap(op, this)?;
    if let Some(base) = unary_base(op) {
        let k = super::unary::kind(base, &a)?.ok_or_else(|| wrong_module(op))?;
        let r = pointwise::unary_meta(k, this)?;
        check_into(this, &r)?;
        return Ok(vec![meta_of(this)]);
    }
    match op {
        Op::Add_
        | Op::Sub_
        | Op::Mul_
        | Op::Div_
        | Op::Pow_
        | Op::Remainder_
        | Op::Fmod_
        | Op::FloorDivide_ => {
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
        Op::Lerp_ => check_into(
            this,
            &ternary::lerp_meta(this, a.tensor(1)?, a.tensor_or_scalar(2)?)?,
        )?,
        Op::Addcmul_ | Op::Addcdiv_ => {
            let k = super::ternary::addc_op(op).ok_or_else(|| wrong_module(op))?;
            check_into(
                this,
                &ternary::addc_meta(k, this, a.tensor(1)?, a.tensor(2)?)?,
            )?;
        }
        Op::IndexPut_ => {
            gather::index_put_meta(this, &a.tensors(1)?, a.tensor(2)?)?;
        }
        Op::Scatter_ | Op::ScatterAdd_ => {
            scatter_reduce(op, &a)?;
            gather::scatter_meta(
                op.name().trim_end_matches('_'),
                this,
                a.int(1)?,
                a.tensor(2)?,
                Some(a.tensor(3)?),
            )?;
        }
        Op::ScatterValue_ => {
            scatter_reduce(op, &a)?;
            gather::scatter_meta("scatter", this, a.int(1)?, a.tensor(2)?, None)?;
        }
        Op::Normal_ => random::normal_check(this, a.float(2)?)?,
        Op::Uniform_ => random::uniform_check(this, a.float(1)?, a.float(2)?)?,
        _ => return Err(wrong_module(op)),
    }
    Ok(vec![meta_of(this)])
}

pub(crate) fn eager(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    let a = Args(args);
    let this = a.tensor(0)?;
    if op == Op::Copy_ {
        // `copy_` onto the same view is a no-op before any check, as in ATen.
        memory_overlap::check_copy(this, a.tensor(1)?)?;
    } else {
        check_no_internal_overlap(op, this)?;
    }
    if let Some(base) = unary_base(op) {
        let k = super::unary::kind(base, &a)?.ok_or_else(|| wrong_module(op))?;
        pointwise::unary_(k, this)?;
        return Ok(vec![this.clone()]);
    }
    match op {
        Op::Add_
        | Op::Sub_
        | Op::Mul_
        | Op::Div_
        | Op::Pow_
        | Op::Remainder_
        | Op::Fmod_
        | Op::FloorDivide_ => {
            let (b, alpha) = super::binary::expect_kind(op, &a)?;
            let other = a.tensor_or_scalar(1)?;
            check_inputs_overlap(this, &[other.tensor()])?;
            pointwise::binary_(b, this, other, alpha)?;
        }
        Op::Clamp_ => {
            let (min, max) = (a.opt_tensor_or_scalar(1)?, a.opt_tensor_or_scalar(2)?);
            check_inputs_overlap(
                this,
                &[
                    min.and_then(TensorOrScalar::tensor),
                    max.and_then(TensorOrScalar::tensor),
                ],
            )?;
            pointwise::clamp_(this, min, max)?
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
            let mask = a.tensor(1)?;
            check_inputs_overlap(this, &[Some(mask)])?;
            let r = pointwise::masked_fill(this, mask, a.tensor_or_scalar(2)?)?;
            check_into(this, &super::meta_of(&r))?;
            this.copy_(&r)?;
        }
        Op::SetItem => index::setitem(this, a.index(1)?, a.tensor_or_scalar(2)?)?,
        Op::Lerp_ => {
            let (end, weight) = (a.tensor(1)?, a.tensor_or_scalar(2)?);
            check_inputs_overlap(this, &[Some(end), weight.tensor()])?;
            ternary::lerp_(this, end, weight)?
        }
        Op::Addcmul_ | Op::Addcdiv_ => {
            let k = super::ternary::addc_op(op).ok_or_else(|| wrong_module(op))?;
            let (t1, t2) = (a.tensor(1)?, a.tensor(2)?);
            check_inputs_overlap(this, &[Some(t1), Some(t2)])?;
            ternary::addc_(k, this, t1, t2, a.scalar(3)?)?;
        }
        Op::IndexPut_ => {
            let (indices, values, accumulate) = (a.tensors(1)?, a.tensor(2)?, a.bool(3)?);
            // Without `accumulate`, the put itself checks (it knows when ATen dispatches to
            // `masked_fill_`, which does not).
            if accumulate {
                memory_overlap::assert_no_overlap(this, values)?;
                for i in &indices {
                    memory_overlap::assert_no_overlap(this, i)?;
                }
            }
            gather::index_put_(this, &indices, values, accumulate)?;
        }
        Op::Scatter_ | Op::ScatterAdd_ => {
            let (index, src) = (a.tensor(2)?, a.tensor(3)?);
            memory_overlap::assert_no_overlap(this, index)?;
            memory_overlap::assert_no_overlap(this, src)?;
            gather::scatter_(
                this,
                a.int(1)?,
                index,
                TensorOrScalar::Tensor(src),
                scatter_reduce(op, &a)?,
            )?
        }
        Op::ScatterValue_ => {
            let index = a.tensor(2)?;
            memory_overlap::assert_no_overlap(this, index)?;
            gather::scatter_(
                this,
                a.int(1)?,
                index,
                TensorOrScalar::Scalar(a.scalar(3)?),
                scatter_reduce(op, &a)?,
            )?
        }
        Op::Normal_ => random::normal_(this, a.float(1)?, a.float(2)?, None)?,
        Op::Uniform_ => random::uniform_(this, a.float(1)?, a.float(2)?, None)?,
        _ => return Err(wrong_module(op)),
    }
    Ok(vec![this.clone()])
}
