//! Index-driven ops: `gather`, `scatter`, `scatter_add`, `index_select`, `nonzero` (and its
//! one-index-per-dim forms `torch.where(c)`, `nonzero(as_tuple=True)`).

use rynamo_tensor::ops::gather::{self as g, ScatterReduce};
use rynamo_tensor::{Shaped, Tensor, TensorMeta, TensorOrScalar};

use super::wrong_module;
use crate::{Args, IValue, Op, Result, Value};

fn reduce<T>(op: Op, a: &Args<'_, T>) -> Result<ScatterReduce> {
    Ok(match op {
        Op::ScatterAdd => ScatterReduce::Add,
        _ => ScatterReduce::parse(a.opt_str(4)?)?,
    })
}

pub(crate) fn meta<T: Shaped + Clone>(op: Op, args: &[Value<T>]) -> Result<Vec<TensorMeta>> {
    let a = Args(args);
    let x = a.tensor(0)?;
    let m = match op {
        Op::Gather => g::gather_meta(x, a.int(1)?, a.tensor(2)?)?,
        Op::Scatter | Op::ScatterAdd => {
            reduce(op, &a)?;
            g::scatter_meta(op.name(), x, a.int(1)?, a.tensor(2)?, Some(a.tensor(3)?))?
        }
        Op::ScatterValue => {
            reduce(op, &a)?;
            g::scatter_meta("scatter", x, a.int(1)?, a.tensor(2)?, None)?
        }
        Op::IndexSelect => g::index_select_meta(x, a.int(1)?, a.tensor(2)?)?,
        Op::Nonzero | Op::WhereCond | Op::NonzeroNumpy => g::nonzero_meta(x)?,
        _ => return Err(wrong_module(op)),
    };
    Ok(vec![m])
}

pub(crate) fn eager(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    let a = Args(args);
    let x = a.tensor(0)?;
    if matches!(op, Op::WhereCond | Op::NonzeroNumpy) {
        return Ok(g::nonzero_numpy(x));
    }
    let t = match op {
        Op::Gather => g::gather(x, a.int(1)?, a.tensor(2)?)?,
        Op::Scatter | Op::ScatterAdd => g::scatter(
            x,
            a.int(1)?,
            a.tensor(2)?,
            TensorOrScalar::Tensor(a.tensor(3)?),
            reduce(op, &a)?,
        )?,
        Op::ScatterValue => g::scatter(
            x,
            a.int(1)?,
            a.tensor(2)?,
            TensorOrScalar::Scalar(a.scalar(3)?),
            reduce(op, &a)?,
        )?,
        Op::IndexSelect => g::index_select(x, a.int(1)?, a.tensor(2)?)?,
        Op::Nonzero => g::nonzero(x)?,
        _ => return Err(wrong_module(op)),
    };
    Ok(vec![t])
}
