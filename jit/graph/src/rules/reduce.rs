//! Reductions, `max`/`min` overloads, softmax and log_softmax.

use rynamo_tensor::ops::{nn, reduce};
use rynamo_tensor::{ReduceOp, Scalar, Shaped, Tensor, TensorMeta};

use super::wrong_module;
use crate::{Args, Error, IValue, Op, Result, Value};

/// How a reduction op reads its arguments.
struct Plan {
    op: ReduceOp,
    dims: Option<Vec<i64>>,
    keepdim: bool,
    dtype: Option<rynamo_tensor::DType>,
}

fn correction<T>(a: &Args<'_, T>) -> Result<f64> {
    let unbiased = a.opt_bool(2)?;
    let corr = a.opt_scalar(4)?;
    if unbiased.is_some() && corr.is_some() {
        return Err(Error::Tensor(rynamo_tensor::Error::Runtime(
            "Cannot pass both unbiased and correction arguments".into(),
        )));
    }
    Ok(corr
        .map(Scalar::to_f64)
        .or(unbiased.map(|u| if u { 1.0 } else { 0.0 }))
        .unwrap_or(1.0))
}

fn plan<T>(op: Op, a: &Args<'_, T>) -> Result<Plan> {
    let opt_dim = |i: usize| -> Result<Option<Vec<i64>>> { Ok(a.opt_int(i)?.map(|d| vec![d])) };
    let p = |op, dims, keepdim, dtype| Plan {
        op,
        dims,
        keepdim,
        dtype,
    };
    Ok(match op {
        Op::Sum => p(
            ReduceOp::Sum,
            a.opt_ints(1)?.map(<[i64]>::to_vec),
            a.bool(2)?,
            a.opt_dtype(3)?,
        ),
        Op::Mean => p(
            ReduceOp::Mean,
            a.opt_ints(1)?.map(<[i64]>::to_vec),
            a.bool(2)?,
            a.opt_dtype(3)?,
        ),
        Op::Prod => p(ReduceOp::Prod, opt_dim(1)?, a.bool(2)?, a.opt_dtype(3)?),
        Op::Amax => p(ReduceOp::Amax, Some(a.ints(1)?.to_vec()), a.bool(2)?, None),
        Op::Amin => p(ReduceOp::Amin, Some(a.ints(1)?.to_vec()), a.bool(2)?, None),
        Op::Argmax => p(ReduceOp::Argmax, opt_dim(1)?, a.bool(2)?, None),
        Op::Argmin => p(ReduceOp::Argmin, opt_dim(1)?, a.bool(2)?, None),
        Op::All => p(ReduceOp::All, opt_dim(1)?, a.bool(2)?, None),
        Op::Any => p(ReduceOp::Any, opt_dim(1)?, a.bool(2)?, None),
        Op::LogSumExp => p(
            ReduceOp::LogSumExp,
            Some(a.ints(1)?.to_vec()),
            a.bool(2)?,
            None,
        ),
        Op::Var => p(
            ReduceOp::Var {
                correction: correction(a)?,
            },
            a.opt_ints(1)?.map(<[i64]>::to_vec),
            a.bool(3)?,
            None,
        ),
        Op::Std => p(
            ReduceOp::Std {
                correction: correction(a)?,
            },
            a.opt_ints(1)?.map(<[i64]>::to_vec),
            a.bool(3)?,
            None,
        ),
        Op::Norm => p(
            ReduceOp::Norm {
                p: a.opt_scalar(1)?.map_or(2.0, Scalar::to_f64),
            },
            a.opt_ints(2)?.map(<[i64]>::to_vec),
            a.bool(3)?,
            a.opt_dtype(4)?,
        ),
        Op::NormStr => p(
            ReduceOp::Norm {
                p: match a.str(1)? {
                    "fro" => 2.0,
                    "nuc" => {
                        return Err(Error::Tensor(rynamo_tensor::Error::NotImplemented(
                            "norm(): the nuclear norm ('nuc') is not supported".into(),
                        )));
                    }
                    s => {
                        return Err(Error::Tensor(rynamo_tensor::Error::Runtime(format!(
                            "linalg.matrix_norm: Order {s} not supported."
                        ))));
                    }
                },
            },
            a.opt_ints(2)?.map(<[i64]>::to_vec),
            a.bool(3)?,
            a.opt_dtype(4)?,
        ),
        Op::CountNonzero => p(
            ReduceOp::CountNonzero,
            a.opt_ints(1)?.map(<[i64]>::to_vec),
            false,
            None,
        ),
        _ => return Err(wrong_module(op)),
    })
}

pub(crate) fn meta<T: Shaped + Clone>(op: Op, args: &[Value<T>]) -> Result<Vec<TensorMeta>> {
    let a = Args(args);
    let x = a.tensor(0)?;
    Ok(match op {
        Op::Max | Op::Min => vec![reduce::minmax_all_meta(x, op.py_name())?],
        Op::MaxDim | Op::MinDim => {
            let (v, i) = reduce::minmax_dim_meta(x, a.int(1)?, a.bool(2)?)?;
            vec![v, i]
        }
        Op::Softmax | Op::LogSoftmax => {
            vec![nn::softmax_meta(
                x,
                a.int(1)?,
                a.opt_dtype(2)?,
                op.py_name(),
            )?]
        }
        _ => {
            let p = plan(op, &a)?;
            vec![reduce::reduce_meta(
                p.op,
                x,
                p.dims.as_deref(),
                p.keepdim,
                p.dtype,
            )?]
        }
    })
}

pub(crate) fn eager(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    let a = Args(args);
    let x = a.tensor(0)?;
    Ok(match op {
        Op::Max | Op::Min => {
            reduce::minmax_all_meta(x, op.py_name())?;
            let r = if op == Op::Max {
                ReduceOp::Amax
            } else {
                ReduceOp::Amin
            };
            vec![reduce::reduce(r, x, None, false, None)?]
        }
        Op::MaxDim | Op::MinDim => {
            let (v, i) = reduce::minmax_dim(x, a.int(1)?, a.bool(2)?, op == Op::MaxDim)?;
            vec![v, i]
        }
        Op::Softmax | Op::LogSoftmax => {
            vec![nn::softmax(
                x,
                a.int(1)?,
                a.opt_dtype(2)?,
                op == Op::LogSoftmax,
            )?]
        }
        _ => {
            let p = plan(op, &a)?;
            vec![reduce::reduce(
                p.op,
                x,
                p.dims.as_deref(),
                p.keepdim,
                p.dtype,
            )?]
        }
    })
}
