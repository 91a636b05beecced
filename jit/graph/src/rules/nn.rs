//! `layer_norm`, `embedding`, `dropout`.

use rynamo_tensor::ops::{index, nn};
use rynamo_tensor::{Shaped, Tensor, TensorMeta, random};

use super::wrong_module;
use crate::{Args, IValue, Op, Result, Value};

pub(crate) fn meta<T: Shaped + Clone>(op: Op, args: &[Value<T>]) -> Result<Vec<TensorMeta>> {
    let a = Args(args);
    let m = match op {
        Op::LayerNorm => {
            nn::layer_norm_meta(a.tensor(0)?, a.ints(1)?, a.opt_tensor(2)?, a.opt_tensor(3)?)?
        }
        Op::Embedding => index::embedding_meta(a.tensor(0)?, a.tensor(1)?)?,
        Op::Dropout => random::dropout_meta(a.tensor(0)?, a.float(1)?)?,
        _ => return Err(wrong_module(op)),
    };
    Ok(vec![m])
}

pub(crate) fn eager(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    let a = Args(args);
    let t = match op {
        Op::LayerNorm => nn::layer_norm(
            a.tensor(0)?,
            a.ints(1)?,
            a.opt_tensor(2)?,
            a.opt_tensor(3)?,
            a.float(4)?,
        )?,
        Op::Embedding => index::embedding(a.tensor(0)?, a.tensor(1)?)?,
        Op::Dropout => random::dropout(a.tensor(0)?, a.float(1)?, a.bool(2)?, None)?,
        _ => return Err(wrong_module(op)),
    };
    Ok(vec![t])
}
