//! Rules of the ops added for issue 29 (the models helper's block at the end of the op table):
//! `multinomial` and the `torch.linalg` factorizations (`_linalg_*`, wrapped with PyTorch's
//! argument handling by `torch/linalg/__init__.py`).

use rynamo_tensor::ops::decomp::{self, QrMode};
use rynamo_tensor::{Shaped, Tensor, TensorMeta, sampling};

use super::wrong_module;
use crate::{Args, IValue, Op, Result, Value};

fn uplo_upper(s: &str) -> Result<bool> {
    match s {
        "L" | "l" => Ok(false),
        "U" | "u" => Ok(true),
        _ => Err(crate::Error::Tensor(rynamo_tensor::Error::Runtime(
            format!("Expected UPLO argument to be 'L' or 'U', but got {s}"),
        ))),
    }
}

pub(crate) fn meta<T: Shaped + Clone>(op: Op, args: &[Value<T>]) -> Result<Vec<TensorMeta>> {
    let a = Args(args);
    let x = a.tensor(0)?;
    Ok(match op {
        Op::Multinomial => vec![sampling::multinomial_meta(x, a.int(1)?, a.bool(2)?)?],
        Op::LinalgInv => vec![decomp::same_meta("linalg.inv", x)?],
        Op::LinalgSolve => {
            decomp::check_matrix("torch.linalg.solve", x, true)?;
            let b = a.tensor(1)?;
            decomp::check_matrix("torch.linalg.solve", b, false)?;
            vec![TensorMeta::contiguous(b.dtype(), b.shape())]
        }
        Op::LinalgDet => vec![decomp::det_meta("linalg.det", x)?],
        Op::LinalgSlogdet => {
            let m = decomp::det_meta("linalg.slogdet", x)?;
            vec![m.clone(), m]
        }
        Op::LinalgCholesky => vec![decomp::same_meta("linalg.cholesky", x)?],
        Op::LinalgQr => {
            let (q, r) = decomp::qr_meta(x, QrMode::parse(a.str(1)?)?)?;
            vec![q, r]
        }
        Op::LinalgSvd => decomp::svd_meta(x, a.bool(1)?)?.to_vec(),
        Op::LinalgEigh => {
            uplo_upper(a.str(1)?)?;
            let (l, q) = decomp::eigh_meta(x)?;
            vec![l, q]
        }
        _ => return Err(wrong_module(op)),
    })
}

pub(crate) fn eager(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    let a = Args(args);
    let x = a.tensor(0)?;
    Ok(match op {
        Op::Multinomial => vec![sampling::multinomial(x, a.int(1)?, a.bool(2)?, None)?],
        Op::LinalgInv => vec![decomp::inv(x)?],
        Op::LinalgSolve => vec![decomp::solve(x, a.tensor(1)?)?],
        Op::LinalgDet => vec![decomp::det(x)?],
        Op::LinalgSlogdet => {
            let (s, l) = decomp::slogdet(x)?;
            vec![s, l]
        }
        Op::LinalgCholesky => vec![decomp::cholesky(x, a.bool(1)?)?],
        Op::LinalgQr => {
            let (q, r) = decomp::qr(x, QrMode::parse(a.str(1)?)?)?;
            vec![q, r]
        }
        Op::LinalgSvd => {
            let (u, s, vh) = decomp::svd(x, a.bool(1)?)?;
            vec![u, s, vh]
        }
        Op::LinalgEigh => {
            let (l, q) = decomp::eigh(x, uplo_upper(a.str(1)?)?)?;
            vec![l, q]
        }
        _ => return Err(wrong_module(op)),
    })
}
