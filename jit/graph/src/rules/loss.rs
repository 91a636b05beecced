//! Losses and `scaled_dot_product_attention`.

use rynamo_tensor::ops::attention::{self, SdpaArgs};
use rynamo_tensor::ops::loss::{self, Reduction, Regression};
use rynamo_tensor::{Shaped, Tensor, TensorMeta};

use super::wrong_module;
use crate::{Args, IValue, Op, Result, Value};

/// The reduction of a loss op: `reduction=` or the legacy `size_average`/`reduce` pair.
fn reduction<T>(op: Op, a: &Args<'_, T>) -> Result<Reduction> {
    let (sa, rd, r) = match op {
        Op::CrossEntropy | Op::NllLoss => (3, 5, 6),
        _ => (2, 3, 4),
    };
    Ok(Reduction::parse(
        a.str(r)?,
        a.opt_bool(sa)?,
        a.opt_bool(rd)?,
    )?)
}

fn regression(op: Op) -> Option<Regression> {
    match op {
        Op::MseLoss => Some(Regression::Mse),
        Op::L1Loss => Some(Regression::L1),
        _ => None,
    }
}

fn sdpa_args<T>(a: &Args<'_, T>) -> Result<SdpaArgs> {
    Ok(SdpaArgs {
        dropout_p: a.float(4)?,
        is_causal: a.bool(5)?,
        scale: a.opt_float(6)?,
        enable_gqa: a.bool(7)?,
    })
}

pub(crate) fn meta<T: Shaped + Clone>(op: Op, args: &[Value<T>]) -> Result<Vec<TensorMeta>> {
    let a = Args(args);
    let x = a.tensor(0)?;
    let m = match op {
        Op::CrossEntropy => loss::cross_entropy_meta(
            x,
            a.tensor(1)?,
            a.opt_tensor(2)?,
            reduction(op, &a)?,
            a.float(7)?,
        )?,
        Op::NllLoss => loss::nll_loss_meta(x, a.tensor(1)?, a.opt_tensor(2)?, reduction(op, &a)?)?,
        Op::ScaledDotProductAttention => attention::sdpa_meta(
            x,
            a.tensor(1)?,
            a.tensor(2)?,
            a.opt_tensor(3)?,
            &sdpa_args(&a)?,
        )?,
        _ => {
            let k = regression(op).ok_or_else(|| wrong_module(op))?;
            loss::regression_meta(k, x, a.tensor(1)?, reduction(op, &a)?)?
        }
    };
    Ok(vec![m])
}

pub(crate) fn eager(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    let a = Args(args);
    let x = a.tensor(0)?;
    let t = match op {
        Op::CrossEntropy => loss::cross_entropy(
            x,
            a.tensor(1)?,
            a.opt_tensor(2)?,
            a.int(4)?,
            reduction(op, &a)?,
            a.float(7)?,
        )?,
        Op::NllLoss => loss::nll_loss(
            x,
            a.tensor(1)?,
            a.opt_tensor(2)?,
            a.int(4)?,
            reduction(op, &a)?,
        )?,
        Op::ScaledDotProductAttention => attention::sdpa(
            x,
            a.tensor(1)?,
            a.tensor(2)?,
            a.opt_tensor(3)?,
            &sdpa_args(&a)?,
        )?,
        _ => {
            let k = regression(op).ok_or_else(|| wrong_module(op))?;
            loss::regression(k, x, a.tensor(1)?, reduction(op, &a)?)?
        }
    };
    Ok(vec![t])
}
