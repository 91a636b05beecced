//! Matrix products, vector products and `einsum`.

use rynamo_tensor::ops::{einsum, linalg, matmul as mm};
use rynamo_tensor::{Shaped, Tensor, TensorMeta};

use super::wrong_module;
use crate::{Args, IValue, Op, Result, Value};

pub(crate) fn meta<T: Shaped + Clone>(op: Op, args: &[Value<T>]) -> Result<Vec<TensorMeta>> {
    let a = Args(args);
    let m = match op {
        Op::Matmul => mm::matmul_meta(a.tensor(0)?, a.tensor(1)?)?,
        Op::Mm => mm::mm_meta(a.tensor(0)?, a.tensor(1)?)?,
        Op::Bmm => mm::bmm_meta(a.tensor(0)?, a.tensor(1)?)?,
        Op::Addmm => mm::addmm_meta(a.tensor(0)?, a.tensor(1)?, a.tensor(2)?)?,
        Op::Linear => mm::linear_meta(a.tensor(0)?, a.tensor(1)?, a.opt_tensor(2)?)?,
        Op::Baddbmm => linalg::baddbmm_meta(a.tensor(0)?, a.tensor(1)?, a.tensor(2)?)?,
        Op::Dot => linalg::dot_meta(a.tensor(0)?, a.tensor(1)?)?,
        Op::Mv => linalg::mv_meta(a.tensor(0)?, a.tensor(1)?)?,
        Op::Outer => linalg::outer_meta(a.tensor(0)?, a.tensor(1)?)?,
        Op::Einsum => einsum::einsum_meta(a.str(0)?, &a.tensors(1)?)?,
        _ => return Err(wrong_module(op)),
    };
    Ok(vec![m])
}

pub(crate) fn eager(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    let a = Args(args);
    let t = match op {
        Op::Matmul => mm::matmul(a.tensor(0)?, a.tensor(1)?)?,
        Op::Mm => mm::mm(a.tensor(0)?, a.tensor(1)?)?,
        Op::Bmm => mm::bmm(a.tensor(0)?, a.tensor(1)?)?,
        Op::Addmm => mm::addmm(
            a.tensor(0)?,
            a.tensor(1)?,
            a.tensor(2)?,
            a.scalar(3)?,
            a.scalar(4)?,
        )?,
        Op::Linear => mm::linear(a.tensor(0)?, a.tensor(1)?, a.opt_tensor(2)?)?,
        Op::Baddbmm => linalg::baddbmm(
            a.tensor(0)?,
            a.tensor(1)?,
            a.tensor(2)?,
            a.scalar(3)?,
            a.scalar(4)?,
        )?,
        Op::Dot => linalg::dot(a.tensor(0)?, a.tensor(1)?)?,
        Op::Mv => linalg::mv(a.tensor(0)?, a.tensor(1)?)?,
        Op::Outer => linalg::outer(a.tensor(0)?, a.tensor(1)?)?,
        Op::Einsum => einsum::einsum(a.str(0)?, &a.tensors(1)?)?,
        _ => return Err(wrong_module(op)),
    };
    Ok(vec![t])
}
