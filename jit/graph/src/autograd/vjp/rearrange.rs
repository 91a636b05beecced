//! Backward formulas of the rearranging ops (`repeat`, `tile`, `flip`, `roll`, `tril`, `triu`)
//! and of the strided views `diagonal` and `as_strided`.

use rynamo_tensor::layout::wrap_dim;
use rynamo_tensor::{DType, Scalar};

use super::nn::Facts;
use super::pointwise::unary;
use super::{Grads, Saves, VjpCtx, VjpRule, args, vjp_rule};
use crate::autograd::emit::{Emit, t};
use crate::{Op, Result, Value};

/// repeat / tile: the gradient of every copy summed back. The gradient's dims are split into
/// `(repeat, size)` pairs and the repeat halves summed away.
fn repeat<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let (x, dims) = match c.op {
        Op::Tile => args!(c, |a| (a.self_, a.dims), Tile => rearrange::tile),
        _ => args!(c, |a| (a.self_, a.repeats), Repeat => rearrange::repeat),
    };
    let shape = c.meta(x)?.shape.clone();
    let reps: Vec<i64> = if c.op == Op::Tile {
        let mut r = vec![1i64; shape.len().saturating_sub(dims.len())];
        r.extend_from_slice(dims);
        r
    } else {
        dims.to_vec()
    };
    unary(e, c, x, |e, _, g| {
        let lead = reps.len() - shape.len();
        let mut split = Vec::with_capacity(2 * reps.len());
        let mut summed = Vec::with_capacity(reps.len());
        for (i, &r) in reps.iter().enumerate() {
            let size = if i < lead { 1 } else { shape[i - lead] };
            summed.push(split.len() as i64);
            split.push(r as usize);
            split.push(size);
        }
        let g = e.reshape(&g, &split)?;
        let g = e.sum_dims(&g, &summed, false)?;
        e.reshape(&g, &shape)
    })
}

fn flip<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Flip => rearrange::flip);
    let dims = a.dims.to_vec();
    unary(e, c, a.self_, |e, _, g| {
        e.op(Op::Flip, vec![t(&g), Value::IntList(dims)])
    })
}

fn roll<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Roll => rearrange::roll);
    let back: Vec<i64> = a.shifts.iter().map(|s| -s).collect();
    let dims = a.dims.to_vec();
    unary(e, c, a.self_, |e, _, g| {
        e.op(
            Op::Roll,
            vec![t(&g), Value::IntList(back), Value::IntList(dims)],
        )
    })
}

fn tri<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let (self_, diagonal) =
        args!(c, |a| (a.self_, a.diagonal), Tril => rearrange::tril, Triu => rearrange::triu);
    let (op, k) = (c.op, diagonal);
    unary(e, c, self_, |e, _, g| e.op(op, vec![t(&g), Value::Int(k)]))
}

/// diagonal: the gradient added into zeros of the input's shape at the diagonal's positions
/// (`diagonal_backward`). A scatter rather than a `copy_` into a view of fresh zeros: that
/// write is not tracked back to a tensor without autograd metadata, so it lost the history
/// `create_graph` needs; the scatter differentiates again and traces as plain nodes.
fn diagonal<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Diagonal => views::diagonal);
    let shape = c.meta(a.self_)?.shape.clone();
    let nd = shape.len();
    let (d1, d2) = (wrap_dim(a.dim1, nd)?, wrap_dim(a.dim2, nd)?);
    let off = a.offset;
    // the strides of a contiguous tensor of the input's shape
    let mut cs = vec![1i64; nd];
    for i in (0..nd.saturating_sub(1)).rev() {
        cs[i] = cs[i + 1] * shape[i + 1] as i64;
    }
    unary(e, c, a.self_, |e, _, g| {
        let gshape = e.shape(&g);
        let dt = e.dtype(&g);
        let (n_in, n_out): (usize, usize) = (shape.iter().product(), gshape.iter().product());
        if n_out == 0 {
            return e.zeros(&shape, dt);
        }
        // the output's dims: the others in order, then the diagonal
        let mut strides: Vec<i64> = (0..nd)
            .filter(|&i| i != d1 && i != d2)
            .map(|i| cs[i])
            .collect();
        strides.push(cs[d1] + cs[d2]);
        let start = if off >= 0 {
            off * cs[d2]
        } else {
            -off * cs[d1]
        };
        let at = positions(e, &gshape, &strides, start)?;
        let at = e.reshape(&at, &[n_out])?;
        let gf = e.reshape(&g, &[n_out])?;
        let buf = e.zeros(&[n_in], dt)?;
        let buf = e.op(Op::ScatterAdd, vec![t(&buf), Value::Int(0), t(&at), t(&gf)])?;
        e.reshape(&buf, &shape)
    })
}

/// An int64 tensor of `shape` holding each element's storage position `offset + sum(i * s)`.
fn positions<E: Emit>(e: &mut E, shape: &[usize], strides: &[i64], offset: i64) -> Result<E::T> {
    let int = |v: i64| Value::Scalar(Scalar::Int(v));
    let long = || vec![("dtype", Value::DType(DType::Int64))];
    let base = e.op_kw(Op::Arange, vec![int(offset), int(offset + 1)], long())?;
    let mut pos = e.reshape(&base, &vec![1; shape.len()])?;
    for (d, (&n, &s)) in shape.iter().zip(strides).enumerate() {
        let r = e.op_kw(Op::Arange, vec![int(n as i64)], long())?;
        let r = e.op(Op::Mul, vec![t(&r), int(s)])?;
        let mut view = vec![1usize; shape.len()];
        view[d] = n;
        let r = e.reshape(&r, &view)?;
        pos = e.add(&pos, &r)?;
    }
    e.expand(&pos, shape)
}

/// The lowest and highest storage position a geometry reads (`None` when it has no elements).
fn extent(shape: &[usize], strides: &[i64], offset: i64) -> Option<(i64, i64)> {
    if shape.contains(&0) {
        return None;
    }
    let (mut lo, mut hi) = (offset, offset);
    for (&n, &s) in shape.iter().zip(strides) {
        let span = (n as i64 - 1) * s;
        if span < 0 {
            lo += span;
        } else {
            hi += span;
        }
    }
    Some((lo, hi))
}

/// as_strided: the gradient summed into the storage positions the view read, read back at the
/// positions of the input's elements (divided by how many input elements share a position, as
/// PyTorch's `as_strided_backward` does for overlapping inputs).
fn as_strided<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E>
where
    E::T: Facts,
{
    let a = args!(c, AsStrided => views::as_strided);
    let m = c.meta(a.self_)?.clone();
    let size: Vec<usize> = a.size.iter().map(|&v| v as usize).collect();
    let stride = a.stride.to_vec();
    let rel = match a.storage_offset {
        None => 0,
        Some(off) => {
            let base = c.saved(a.self_)?.storage_offset().ok_or_else(|| {
                crate::Error::Tensor(rynamo_tensor::Error::NotImplemented(
                    "the derivative of as_strided with an explicit storage_offset needs the input's storage offset, which a traced backward does not know".into(),
                ))
            })?;
            off - base as i64
        }
    };
    let xs: Vec<i64> = m.strides.iter().map(|&s| s as i64).collect();
    unary(e, c, a.self_, |e, _, g| {
        let dt = e.dtype(&g);
        let (Some((ilo, ihi)), Some((olo, ohi))) =
            (extent(&m.shape, &xs, 0), extent(&size, &stride, rel))
        else {
            return e.zeros(&m.shape, dt);
        };
        let lo = ilo.min(olo);
        let span = (ihi.max(ohi) - lo + 1) as usize;
        let n_in: usize = m.shape.iter().product();
        let n_out: usize = size.iter().product();
        let at_in = positions(e, &m.shape, &xs, -lo)?;
        let at_in = e.reshape(&at_in, &[n_in])?;
        let at_out = positions(e, &size, &stride, rel - lo)?;
        let at_out = e.reshape(&at_out, &[n_out])?;
        let gf = e.reshape(&g, &[n_out])?;
        let buf = e.zeros(&[span], dt)?;
        let buf = e.op(
            Op::ScatterAdd,
            vec![t(&buf), Value::Int(0), t(&at_out), t(&gf)],
        )?;
        let d = e.op(Op::Gather, vec![t(&buf), Value::Int(0), t(&at_in)])?;
        let d = if overlaps(&m.shape, &xs) {
            let ones = e.zeros(&[n_in], dt)?;
            let ones = e.add_s(&ones, 1.0)?;
            let cnt = e.zeros(&[span], dt)?;
            let cnt = e.op(
                Op::ScatterAdd,
                vec![t(&cnt), Value::Int(0), t(&at_in), t(&ones)],
            )?;
            let cnt = e.op(Op::Gather, vec![t(&cnt), Value::Int(0), t(&at_in)])?;
            e.div(&d, &cnt)?
        } else {
            d
        };
        e.reshape(&d, &m.shape)
    })
}

/// Whether two elements of a geometry can share a storage position (a sufficient test: a zero
/// stride on a dim of size > 1, or strides that do not nest when sorted).
fn overlaps(shape: &[usize], strides: &[i64]) -> bool {
    let mut dims: Vec<(i64, usize)> = shape
        .iter()
        .zip(strides)
        .filter(|(n, _)| **n > 1)
        .map(|(&n, &s)| (s.abs(), n))
        .collect();
    dims.sort_unstable();
    let mut reach = 0i64; // highest position reachable by the smaller-stride dims
    for (s, n) in dims {
        if s == 0 || s <= reach {
            return true;
        }
        reach += s * (n as i64 - 1);
    }
    false
}

pub(crate) static REPEAT: VjpRule = vjp_rule!("RepeatBackward0", Saves::NONE, repeat);
pub(crate) static FLIP: VjpRule = vjp_rule!("FlipBackward0", Saves::NONE, flip);
pub(crate) static ROLL: VjpRule = vjp_rule!("RollBackward0", Saves::NONE, roll);
pub(crate) static TRIL: VjpRule = vjp_rule!("TrilBackward0", Saves::NONE, tri);
pub(crate) static TRIU: VjpRule = vjp_rule!("TriuBackward0", Saves::NONE, tri);
pub(crate) static DIAGONAL: VjpRule = vjp_rule!("DiagonalBackward0", Saves::NONE, diagonal);
pub(crate) static AS_STRIDED: VjpRule =
    vjp_rule!("AsStridedBackward0", Saves::args(&["self"]), as_strided);
