//! Convolutions and 2-D pooling.

use rynamo_tensor::ops::conv::{self, ConvArgs, ConvPadding};
use rynamo_tensor::ops::pool;
use rynamo_tensor::{Shaped, Tensor, TensorMeta};

use super::wrong_module;
use crate::{Args, IValue, Op, Result, Value};

/// Spatial rank and arguments of a convolution op.
fn conv_args<'a, T>(op: Op, a: &Args<'a, T>) -> Result<Option<(usize, ConvArgs<'a>)>> {
    let nd = match op {
        Op::Conv1d | Op::Conv1dPadding => 1,
        Op::Conv2d | Op::Conv2dPadding => 2,
        _ => return Ok(None),
    };
    let padding = match op {
        Op::Conv1dPadding | Op::Conv2dPadding => ConvPadding::parse(a.str(4)?)?,
        _ => ConvPadding::Explicit(a.ints(4)?),
    };
    Ok(Some((
        nd,
        ConvArgs {
            stride: a.ints(3)?,
            padding,
            dilation: a.ints(5)?,
            groups: a.int(6)?,
        },
    )))
}

pub(crate) fn meta<T: Shaped + Clone>(op: Op, args: &[Value<T>]) -> Result<Vec<TensorMeta>> {
    let a = Args(args);
    let x = a.tensor(0)?;
    if let Some((nd, c)) = conv_args(op, &a)? {
        return Ok(vec![conv::conv_meta(
            nd,
            x,
            a.tensor(1)?,
            a.opt_tensor(2)?,
            &c,
        )?]);
    }
    Ok(match op {
        Op::MaxPool2d | Op::MaxPool2dWithIndices => {
            let (v, i) = pool::max_pool2d_meta(
                x,
                a.ints(1)?,
                a.ints(2)?,
                a.ints(3)?,
                a.ints(4)?,
                a.bool(5)?,
            )?;
            if op == Op::MaxPool2d {
                vec![v]
            } else {
                vec![v, i]
            }
        }
        Op::AvgPool2d => vec![pool::avg_pool2d_meta(
            x,
            a.ints(1)?,
            a.ints(2)?,
            a.ints(3)?,
            a.bool(4)?,
            a.opt_int(6)?,
        )?],
        Op::AdaptiveAvgPool2d => vec![pool::adaptive_avg_pool2d_meta(x, a.ints(1)?)?],
        _ => return Err(wrong_module(op)),
    })
}

pub(crate) fn eager(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    let a = Args(args);
    let x = a.tensor(0)?;
    if let Some((nd, c)) = conv_args(op, &a)? {
        return Ok(vec![conv::conv(nd, x, a.tensor(1)?, a.opt_tensor(2)?, &c)?]);
    }
    Ok(match op {
        Op::MaxPool2d | Op::MaxPool2dWithIndices => {
            let (v, i) = pool::max_pool2d(
                x,
                a.ints(1)?,
                a.ints(2)?,
                a.ints(3)?,
                a.ints(4)?,
                a.bool(5)?,
            )?;
            if op == Op::MaxPool2d {
                vec![v]
            } else {
                vec![v, i]
            }
        }
        Op::AvgPool2d => vec![pool::avg_pool2d(
            x,
            a.ints(1)?,
            a.ints(2)?,
            a.ints(3)?,
            a.bool(4)?,
            a.bool(5)?,
            a.opt_int(6)?,
        )?],
        Op::AdaptiveAvgPool2d => vec![pool::adaptive_avg_pool2d(x, a.ints(1)?)?],
        _ => return Err(wrong_module(op)),
    })
}
