//! Scans and orderings along a dim: `cumsum`, `cumprod`, `logcumsumexp`, `cummax`, `cummin`,
//! `sort`, `argsort`, `topk`.

use rynamo_tensor::ops::scan::{self, ExtremumOp, ScanOp};
use rynamo_tensor::ops::sort;
use rynamo_tensor::{Shaped, Tensor, TensorMeta};

use super::wrong_module;
use crate::{Args, IValue, Op, Result, Value};

pub(crate) fn meta<T: Shaped + Clone>(op: Op, args: &[Value<T>]) -> Result<Vec<TensorMeta>> {
    let a = Args(args);
    let x = a.tensor(0)?;
    Ok(match op {
        Op::Cumsum | Op::Cumprod => vec![scan::scan_meta(x, a.int(1)?, a.opt_dtype(2)?)?],
        Op::Logcumsumexp => vec![scan::logcumsumexp_meta(x, a.int(1)?)?],
        Op::Cummax | Op::Cummin => {
            let (v, i) = scan::cum_extremum_meta(x, a.int(1)?)?;
            vec![v, i]
        }
        Op::Sort => {
            let (v, i) = sort::sort_meta(x, a.int(1)?)?;
            vec![v, i]
        }
        Op::Argsort => vec![sort::sort_meta(x, a.int(1)?)?.1],
        Op::Topk => {
            let (v, i) = sort::topk_meta(x, a.int(1)?, a.int(2)?)?;
            vec![v, i]
        }
        _ => return Err(wrong_module(op)),
    })
}

pub(crate) fn eager(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    let a = Args(args);
    let x = a.tensor(0)?;
    Ok(match op {
        Op::Cumsum => vec![scan::scan(ScanOp::Sum, x, a.int(1)?, a.opt_dtype(2)?)?],
        Op::Cumprod => vec![scan::scan(ScanOp::Prod, x, a.int(1)?, a.opt_dtype(2)?)?],
        Op::Logcumsumexp => vec![scan::logcumsumexp(x, a.int(1)?)?],
        Op::Cummax | Op::Cummin => {
            let ext = if op == Op::Cummax {
                ExtremumOp::Max
            } else {
                ExtremumOp::Min
            };
            let (v, i) = scan::cum_extremum(ext, x, a.int(1)?)?;
            vec![v, i]
        }
        Op::Sort => {
            let (v, i) = sort::sort(x, a.int(1)?, a.bool(2)?)?;
            vec![v, i]
        }
        Op::Argsort => vec![sort::argsort(x, a.int(1)?, a.bool(2)?)?],
        Op::Topk => {
            let (v, i) = sort::topk(x, a.int(1)?, a.int(2)?, a.bool(3)?)?;
            vec![v, i]
        }
        _ => return Err(wrong_module(op)),
    })
}
