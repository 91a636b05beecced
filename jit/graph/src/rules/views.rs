//! View ops, `contiguous`/`clone`, dtype conversion and `__getitem__`.

use rynamo_tensor::ops::index;
use rynamo_tensor::{Layout, Shaped, Tensor, TensorMeta, views};

use super::{meta_of, preserving, wrong_module};
use crate::{Args, IValue, Op, Result, Value};

/// The layout of a pure view op (`None` for ops that are not always views).
fn view_layout<T: Shaped>(op: Op, a: &Args<'_, T>) -> Result<Option<Layout>> {
    let x = a.tensor(0)?;
    Ok(Some(match op {
        Op::View => views::view(x, a.ints(1)?)?,
        Op::Permute => views::permute(x, a.ints(1)?)?,
        Op::Transpose => views::transpose(x, a.int(1)?, a.int(2)?)?,
        Op::T => views::t(x)?,
        Op::Expand => views::expand(x, a.ints(1)?)?,
        Op::Slice => views::slice(x, a.int(1)?, a.opt_int(2)?, a.opt_int(3)?, a.int(4)?)?,
        Op::Select => views::select(x, a.int(1)?, a.int(2)?)?,
        Op::Narrow => views::narrow(x, a.int(1)?, a.int(2)?, a.int(3)?)?,
        Op::Unsqueeze => views::unsqueeze(x, a.int(1)?)?,
        Op::Squeeze => views::squeeze(x, a.opt_ints(1)?)?,
        Op::Unflatten => views::unflatten(x, a.int(1)?, a.ints(2)?)?,
        Op::Diagonal => views::diagonal(x, a.int(1)?, a.int(2)?, a.int(3)?)?,
        _ => return Ok(None),
    }))
}

pub(crate) fn meta<T: Shaped + Clone>(op: Op, args: &[Value<T>]) -> Result<Vec<TensorMeta>> {
    let a = Args(args);
    let x = a.tensor(0)?;
    if let Some(l) = view_layout(op, &a)? {
        return Ok(vec![TensorMeta::from_layout(x.dtype(), &l)]);
    }
    if op == Op::ViewDtype {
        let dt = a.dtype(1)?;
        return Ok(vec![TensorMeta::from_layout(
            dt,
            &rynamo_tensor::view_dtype::view_dtype_layout(x, dt)?,
        )]);
    }
    let contiguous = |dt| TensorMeta::contiguous(dt, x.shape());
    let m = match op {
        Op::Reshape => reshape_meta(x, a.ints(1)?)?,
        Op::Flatten => {
            let shape = views::flatten_shape(x, a.int(1)?, a.int(2)?)?;
            if shape.len() == x.ndim() && x.ndim() > 0 {
                meta_of(x)
            } else {
                reshape_meta(x, &shape)?
            }
        }
        Op::AsStrided => TensorMeta::from_layout(
            x.dtype(),
            &views::as_strided(x, a.ints(1)?, a.ints(2)?, a.opt_int(3)?, None)?,
        ),
        Op::Contiguous if rynamo_tensor::layout::is_contiguous(x.shape(), x.strides()) => {
            meta_of(x)
        }
        Op::Contiguous => contiguous(x.dtype()),
        Op::Clone => preserving(x, x.dtype()),
        Op::GetItem => index::getitem_meta(&meta_of(x), &shaped_items(a.index(1)?))?,
        Op::To => match a.opt_dtype(1)? {
            Some(d) if d != x.dtype() => contiguous(d),
            _ if a.bool(2)? => contiguous(x.dtype()),
            _ => meta_of(x),
        },
        Op::Type => match a.opt_dtype(1)? {
            Some(d) if d != x.dtype() => contiguous(d),
            _ => meta_of(x),
        },
        _ => return Err(wrong_module(op)),
    };
    Ok(vec![m])
}

/// Index items over metas of the tensors.
fn shaped_items<T: Shaped>(
    items: &[rynamo_tensor::IndexItem<T>],
) -> Vec<rynamo_tensor::IndexItem<TensorMeta>> {
    items.iter().map(|it| it.map(super::meta_of)).collect()
}

fn reshape_meta<T: Shaped>(x: &T, shape: &[i64]) -> Result<TensorMeta> {
    Ok(match views::reshape(x, shape)? {
        Some(l) => TensorMeta::from_layout(x.dtype(), &l),
        None => TensorMeta::contiguous(x.dtype(), &views::reshape_shape(x, shape)?),
    })
}

pub(crate) fn eager(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    let a = Args(args);
    let x = a.tensor(0)?;
    let t = match op {
        Op::View => x.view(a.ints(1)?)?,
        Op::Permute => x.permute(a.ints(1)?)?,
        Op::Transpose => x.transpose(a.int(1)?, a.int(2)?)?,
        Op::T => x.t()?,
        Op::Expand => x.expand(a.ints(1)?)?,
        Op::Slice => x.slice(a.int(1)?, a.opt_int(2)?, a.opt_int(3)?, a.int(4)?)?,
        Op::Select => x.select(a.int(1)?, a.int(2)?)?,
        Op::Narrow => x.narrow(a.int(1)?, a.int(2)?, a.int(3)?)?,
        Op::Unsqueeze => x.unsqueeze(a.int(1)?)?,
        Op::Squeeze => x.squeeze(a.opt_ints(1)?)?,
        Op::Unflatten => x.unflatten(a.int(1)?, a.ints(2)?)?,
        Op::Diagonal => x.diagonal(a.int(1)?, a.int(2)?, a.int(3)?)?,
        Op::Reshape => x.reshape(a.ints(1)?)?,
        Op::Flatten => x.flatten(a.int(1)?, a.int(2)?)?,
        Op::AsStrided => x.as_strided(a.ints(1)?, a.ints(2)?, a.opt_int(3)?)?,
        Op::Contiguous => x.contiguous(),
        Op::Clone => x.clone_preserving(),
        Op::GetItem => index::getitem(x, a.index(1)?)?,
        Op::To => match a.opt_dtype(1)? {
            Some(d) if d != x.dtype() => x.to_dtype(d),
            _ if a.bool(2)? => x.deep_clone(),
            _ => x.clone(),
        },
        Op::Type => x.to_dtype(a.opt_dtype(1)?.unwrap_or(x.dtype())),
        Op::ViewDtype => x.view_dtype(a.dtype(1)?)?,
        _ => return Err(wrong_module(op)),
    };
    Ok(vec![t])
}
