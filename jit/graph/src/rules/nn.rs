//! `layer_norm`, `batch_norm`, `group_norm`, `embedding`, `dropout`, `pad`.

use rynamo_tensor::ops::pad::{self, PadMode};
use rynamo_tensor::ops::{index, nn, norm};
use rynamo_tensor::{Shaped, Tensor, TensorMeta, random};

use super::wrong_module;
use crate::{Args, IValue, Op, Result, Value};

pub(crate) fn meta<T: Shaped + Clone>(op: Op, args: &[Value<T>]) -> Result<Vec<TensorMeta>> {
    let a = Args(args);
    let m = match op {
        Op::LayerNorm => {
            nn::layer_norm_meta(a.tensor(0)?, a.ints(1)?, a.opt_tensor(2)?, a.opt_tensor(3)?)?
        }
        Op::BatchNorm => norm::batch_norm_meta(
            a.tensor(0)?,
            a.opt_tensor(1)?,
            a.opt_tensor(2)?,
            a.opt_tensor(3)?,
            a.opt_tensor(4)?,
            a.bool(5)?,
        )?,
        Op::GroupNorm => {
            norm::group_norm_meta(a.tensor(0)?, a.int(1)?, a.opt_tensor(2)?, a.opt_tensor(3)?)?
        }
        Op::Embedding => index::embedding_meta(a.tensor(0)?, a.tensor(1)?)?,
        Op::Dropout => random::dropout_meta(a.tensor(0)?, a.float(1)?)?,
        Op::Pad => pad::pad_meta(a.tensor(0)?, a.ints(1)?, PadMode::parse(a.str(2)?)?)?,
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
        Op::BatchNorm => norm::batch_norm(
            a.tensor(0)?,
            a.opt_tensor(1)?,
            a.opt_tensor(2)?,
            a.opt_tensor(3)?,
            a.opt_tensor(4)?,
            a.bool(5)?,
            a.float(6)?,
            a.float(7)?,
        )?,
        Op::GroupNorm => norm::group_norm(
            a.tensor(0)?,
            a.int(1)?,
            a.opt_tensor(2)?,
            a.opt_tensor(3)?,
            a.float(4)?,
        )?,
        Op::Embedding => index::embedding(a.tensor(0)?, a.tensor(1)?)?,
        Op::Dropout => random::dropout(a.tensor(0)?, a.float(1)?, a.bool(2)?, None)?,
        Op::Pad => pad::pad(
            a.tensor(0)?,
            a.ints(1)?,
            PadMode::parse(a.str(2)?)?,
            a.opt_float(3)?,
        )?,
        _ => return Err(wrong_module(op)),
    };
    Ok(vec![t])
}
