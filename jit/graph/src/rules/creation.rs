//! Creation and random ops.

use rynamo_tensor::creation as cr;
use rynamo_tensor::{DEFAULT_FLOAT, DType, Shaped, Tensor, TensorMeta, random};

use super::{preserving, wrong_module};
use crate::{Args, IValue, Op, Result, Value};

/// Output meta of a creation op (shared by meta and eager: eager allocates from it).
fn out_meta<T: Shaped>(op: Op, a: &Args<'_, T>) -> Result<TensorMeta> {
    // `*_like` keep the input's memory order (`preserve_format`).
    let like = |dt: Option<DType>| -> Result<TensorMeta> {
        let x = a.tensor(0)?;
        Ok(preserving(x, dt.unwrap_or(x.dtype())))
    };
    Ok(match op {
        Op::Zeros | Op::Ones | Op::Empty => TensorMeta::contiguous(
            a.opt_dtype(1)?.unwrap_or(DEFAULT_FLOAT),
            &cr::sizes(a.ints(0)?)?,
        ),
        Op::Full => cr::full_meta(a.ints(0)?, a.scalar(1)?, a.opt_dtype(2)?)?,
        Op::ZerosLike | Op::OnesLike | Op::EmptyLike => like(a.opt_dtype(1)?)?,
        Op::NewZeros | Op::NewOnes | Op::NewEmpty => TensorMeta::contiguous(
            a.opt_dtype(2)?.unwrap_or(a.tensor(0)?.dtype()),
            &cr::sizes(a.ints(1)?)?,
        ),
        Op::NewFull => TensorMeta::contiguous(
            a.opt_dtype(3)?.unwrap_or(a.tensor(0)?.dtype()),
            &cr::sizes(a.ints(1)?)?,
        ),
        Op::FullLike => like(a.opt_dtype(2)?)?,
        Op::Arange => cr::arange_meta(
            a.scalar(0)?,
            a.opt_scalar(1)?,
            a.scalar(2)?,
            a.opt_dtype(3)?,
        )?,
        Op::Linspace => cr::linspace_meta(a.int(2)?, a.opt_dtype(3)?)?,
        Op::Eye => cr::eye_meta(a.int(0)?, a.opt_int(1)?, a.opt_dtype(2)?)?,
        Op::ScalarTensor => TensorMeta::contiguous(a.opt_dtype(1)?.unwrap_or(DEFAULT_FLOAT), &[]),
        Op::Rand | Op::Randn => {
            random::rand_meta(&cr::sizes(a.ints(0)?)?, a.opt_dtype(1)?, op.py_name())?
        }
        Op::RandLike | Op::RandnLike => {
            let m = like(a.opt_dtype(1)?)?;
            random::rand_meta(&m.shape, Some(m.dtype), op.py_name())?;
            m
        }
        Op::Randint => {
            random::randint_meta(0, a.int(0)?, &cr::sizes(a.ints(1)?)?, a.opt_dtype(2)?)?
        }
        Op::RandintLow => random::randint_meta(
            a.int(0)?,
            a.int(1)?,
            &cr::sizes(a.ints(2)?)?,
            a.opt_dtype(3)?,
        )?,
        Op::Randperm => TensorMeta::contiguous(
            a.opt_dtype(1)?.unwrap_or(DType::Int64),
            &[a.int(0)?.max(0) as usize],
        ),
        _ => return Err(wrong_module(op)),
    })
}

pub(crate) fn meta<T: Shaped + Clone>(op: Op, args: &[Value<T>]) -> Result<Vec<TensorMeta>> {
    Ok(vec![out_meta(op, &Args(args))?])
}

pub(crate) fn eager(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    let a = Args(args);
    let m = out_meta(op, &a)?;
    let t = match op {
        Op::Zeros | Op::ZerosLike | Op::NewZeros => Tensor::zeros(&m.shape, m.dtype),
        Op::Empty | Op::EmptyLike | Op::NewEmpty => Tensor::empty(&m.shape, m.dtype),
        Op::Ones | Op::OnesLike | Op::NewOnes => Tensor::ones(&m.shape, m.dtype),
        Op::NewFull => Tensor::full(&m.shape, a.scalar(2)?, m.dtype),
        Op::Full => Tensor::full(&m.shape, a.scalar(1)?, m.dtype),
        Op::FullLike => Tensor::full(&m.shape, a.scalar(1)?, m.dtype),
        Op::Arange => cr::arange(a.scalar(0)?, a.opt_scalar(1)?, a.scalar(2)?, Some(m.dtype))?,
        Op::Linspace => cr::linspace(a.scalar(0)?, a.scalar(1)?, a.int(2)?, Some(m.dtype))?,
        Op::Eye => cr::eye(a.int(0)?, a.opt_int(1)?, Some(m.dtype))?,
        Op::ScalarTensor => Tensor::from_scalar(a.scalar(0)?, m.dtype),
        Op::Rand | Op::RandLike => random::rand(&m.shape, Some(m.dtype), None)?,
        Op::Randn | Op::RandnLike => random::randn(&m.shape, Some(m.dtype), None)?,
        Op::Randint => random::randint(0, a.int(0)?, &m.shape, Some(m.dtype), None)?,
        Op::RandintLow => random::randint(a.int(0)?, a.int(1)?, &m.shape, Some(m.dtype), None)?,
        Op::Randperm => random::randperm(a.int(0)?, Some(m.dtype), None)?,
        _ => return Err(wrong_module(op)),
    };
    // The contiguous result's values, in memory order, under the meta's dense strides (a `*_like`
    // of a permuted tensor); a no-op for every other creation op.
    Ok(vec![t.with_dense_strides(&m.strides)])
}
