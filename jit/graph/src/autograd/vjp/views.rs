//! Backward formulas of the views, shape changes, copies and joins: each puts the gradient back
//! where the forward took it from.

use rynamo_tensor::layout::wrap_dim;

use super::pointwise::{grad_or_return, unary};
use super::{Grads, Saves, VjpCtx, VjpRule, args, put, vjp_rule};
use crate::autograd::emit::{Emit, t};
use crate::{Op, Result, Value};

fn reshape_back<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let self_ = args!(c, |a| a.self_,
        View => views::view, Unsqueeze => views::unsqueeze, Squeeze => views::squeeze,
        Unflatten => views::unflatten, Reshape => views::reshape, Flatten => views::flatten);
    let shape = c.meta(self_)?.shape.clone();
    unary(e, c, self_, |e, _, g| e.reshape(&g, &shape))
}

fn identity<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let self_ = args!(c, |a| a.self_,
        Contiguous => views::contiguous, Clone => views::clone, To => views::to,
        Type => views::r#type);
    unary(e, c, self_, |_, _, g| Ok(g))
}

fn permute<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Permute => views::permute);
    let n = c.meta(a.self_)?.shape.len();
    let dims = a.dims;
    let mut inv = vec![0i64; n];
    for (i, &d) in dims.iter().enumerate() {
        inv[wrap_dim(d, n)?] = i as i64;
    }
    unary(e, c, a.self_, |e, _, g| {
        e.op(Op::Permute, vec![t(&g), Value::IntList(inv)])
    })
}

fn transpose<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let (x, d0, d1) = if c.op == Op::T {
        let x = args!(c, |a| a.self_, T => views::t);
        (x, 0, if c.meta(x)?.shape.len() < 2 { 0 } else { 1 })
    } else {
        args!(c, |a| (a.self_, a.dim0, a.dim1), Transpose => views::transpose)
    };
    unary(e, c, x, |e, _, g| e.transpose(&g, d0, d1))
}

fn expand<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Expand => views::expand);
    let shape = c.meta(a.self_)?.shape.clone();
    unary(e, c, a.self_, |e, _, g| e.sum_to(&g, &shape))
}

/// Zeros of `shape` with `g` placed at `start, start + step, ...` along `dim`.
fn place<E: Emit>(
    e: &mut E,
    g: &E::T,
    shape: &[usize],
    dim: usize,
    start: usize,
    step: usize,
) -> Result<E::T> {
    let gs = e.shape(g);
    let k = gs[dim];
    if step == 1 {
        // constant padding before and after along `dim` (pad lists run from the last dim)
        let n = shape.len();
        let mut pad = vec![0i64; 2 * (n - dim)];
        let at = 2 * (n - 1 - dim);
        pad[at] = start as i64;
        pad[at + 1] = (shape[dim] - start - k) as i64;
        return e.op(Op::Pad, vec![t(g), Value::IntList(pad)]);
    }
    // scatter into zeros at the strided positions
    let idx = e.op_kw(
        Op::Arange,
        vec![
            Value::Scalar(rynamo_tensor::Scalar::Int(start as i64)),
            Value::Scalar(rynamo_tensor::Scalar::Int((start + k * step) as i64)),
            Value::Scalar(rynamo_tensor::Scalar::Int(step as i64)),
        ],
        vec![("dtype", Value::DType(rynamo_tensor::DType::Int64))],
    )?;
    let mut view = vec![1usize; gs.len()];
    view[dim] = k;
    let idx = e.reshape(&idx, &view)?;
    let idx = e.expand(&idx, &gs)?;
    let z = e.zeros(shape, e.dtype(g))?;
    e.op(
        Op::Scatter,
        vec![t(&z), Value::Int(dim as i64), t(&idx), t(g)],
    )
}

/// Python slice bounds normalised as the forward view did: the first index taken.
fn slice_start(start: Option<i64>, size: usize) -> usize {
    let n = size as i64;
    let s = start.unwrap_or(0);
    let s = if s < 0 { s + n } else { s };
    s.clamp(0, n) as usize
}

fn slice<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Slice => views::slice);
    let shape = c.meta(a.self_)?.shape.clone();
    let dim = wrap_dim(a.dim, shape.len())?;
    let start = slice_start(a.start, shape[dim]);
    let step = a.step as usize;
    unary(e, c, a.self_, |e, _, g| {
        place(e, &g, &shape, dim, start, step)
    })
}

fn narrow<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Narrow => views::narrow);
    let shape = c.meta(a.self_)?.shape.clone();
    let dim = wrap_dim(a.dim, shape.len())?;
    let s = a.start;
    let start = if s < 0 { s + shape[dim] as i64 } else { s } as usize;
    unary(e, c, a.self_, |e, _, g| place(e, &g, &shape, dim, start, 1))
}

fn select<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Select => views::select);
    let shape = c.meta(a.self_)?.shape.clone();
    let dim = wrap_dim(a.dim, shape.len())?;
    let i = a.index;
    let index = if i < 0 { i + shape[dim] as i64 } else { i } as usize;
    unary(e, c, a.self_, |e, _, g| {
        let g = e.unsqueeze(&g, dim as i64)?;
        place(e, &g, &shape, dim, index, 1)
    })
}

/// cat: each input gets its stretch of the gradient along `dim`.
fn cat<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Cat => shape::cat);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let slots = a.tensors;
    let gshape = e.shape(&g);
    let dim = wrap_dim(a.dim, gshape.len().max(1))?;
    let mut at = 0usize;
    for &s in &slots {
        let m = &c.input_metas[*s];
        // PyTorch skips legacy empty 1-D inputs ([0]) in cat
        if m.shape.len() != gshape.len() {
            continue;
        }
        let len = m.shape[dim];
        if c.needs[*s] {
            let d = e.op(
                Op::Narrow,
                vec![
                    t(&g),
                    Value::Int(dim as i64),
                    Value::Int(at as i64),
                    Value::Int(len as i64),
                ],
            )?;
            out[*s] = Some(d);
        }
        at += len;
    }
    Ok(out)
}

/// stack: each input gets its index of the gradient along `dim`.
fn stack<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Stack => shape::stack);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let slots = a.tensors;
    let dim = wrap_dim(a.dim, e.shape(&g).len())?;
    for (i, &s) in slots.iter().enumerate() {
        if c.needs[*s] {
            let d = e.op(
                Op::Select,
                vec![t(&g), Value::Int(dim as i64), Value::Int(i as i64)],
            )?;
            out[*s] = Some(d);
        }
    }
    Ok(out)
}

/// split / chunk / unbind: the pieces' gradients joined back (zeros for pieces no gradient
/// reached).
fn join<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let (self_, dim) = args!(c, |a| (a.self_, a.dim), Split => shape::split,
        SplitSizes => shape::split_sizes, Chunk => shape::chunk, Unbind => shape::unbind);
    let mut out = c.no_grads();
    if c.grads.iter().all(Option::is_none) || !c.wants(self_) {
        return Ok(out);
    }
    let shape = c.meta(self_)?.shape.clone();
    let dim = wrap_dim(dim, shape.len())?;
    let mut pieces = Vec::with_capacity(c.grads.len());
    for (i, g) in c.grads.iter().enumerate() {
        let m = &c.output_metas[i];
        let p = match g {
            Some(g) => g.clone(),
            None => e.zeros(&m.shape, m.dtype)?,
        };
        pieces.push(p);
    }
    let d = if c.op == Op::Unbind {
        e.op(
            Op::Stack,
            vec![Value::TensorList(pieces), Value::Int(dim as i64)],
        )?
    } else {
        e.op(
            Op::Cat,
            vec![Value::TensorList(pieces), Value::Int(dim as i64)],
        )?
    };
    put(&mut out, self_, d)?;
    Ok(out)
}

/// `x[index]`: the gradient scattered back to where each element was read. Without tensor
/// indices the read positions are distinct, so it is a `__setitem__` into zeros; with them an
/// element may be read twice, so the read positions are found by indexing `arange(numel)` the
/// same way and the gradient is summed into them.
fn getitem<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, GetItem => views::get_item);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if !c.wants(a.self_) {
        return Ok(out);
    }
    let m = c.meta(a.self_)?.clone();
    let items = a.indices;
    let has_tensor = items
        .iter()
        .any(|i| matches!(i, rynamo_tensor::IndexItem::Tensor(_)));
    let index = Value::Index(items.to_vec()).try_map(|s| c.saved(s))?;
    let d = if !has_tensor {
        let z = e.zeros(&m.shape, e.dtype(&g))?;
        let mut r = e.call(Op::SetItem, vec![t(&z), index, t(&g)])?;
        r.swap_remove(0)
    } else {
        let n: usize = m.shape.iter().product();
        let pos = e.op_kw(
            Op::Arange,
            vec![Value::Scalar(rynamo_tensor::Scalar::Int(n as i64))],
            vec![("dtype", Value::DType(rynamo_tensor::DType::Int64))],
        )?;
        let pos = e.reshape(&pos, &m.shape)?;
        let mut read = e.call(Op::GetItem, vec![t(&pos), index])?;
        let read = read.swap_remove(0);
        let k: usize = e.shape(&read).iter().product();
        let read = e.reshape(&read, &[k])?;
        let gf = e.reshape(&g, &[k])?;
        let dt = e.dtype(&g);
        // `scatter_add` has no complex kernel: a complex gradient is scattered per component
        // (the map is linear with real coefficients, so nothing is conjugated).
        let scatter = |e: &mut E, part: &E::T| -> Result<E::T> {
            let z = e.zeros(&[n], e.dtype(part))?;
            e.op(
                Op::ScatterAdd,
                vec![t(&z), Value::Int(0), t(&read), t(part)],
            )
        };
        let d = if dt.is_complex() {
            let re = e.op(Op::Real, vec![t(&gf)])?;
            let im = e.op(Op::Imag, vec![t(&gf)])?;
            let (re, im) = (scatter(e, &re)?, scatter(e, &im)?);
            e.op(Op::Complex, vec![t(&re), t(&im)])?
        } else {
            scatter(e, &gf)?
        };
        e.reshape(&d, &m.shape)?
    };
    put(&mut out, a.self_, d)?;
    Ok(out)
}

pub(crate) static VIEW: VjpRule = vjp_rule!("ViewBackward0", Saves::NONE, reshape_back);
pub(crate) static RESHAPE: VjpRule = vjp_rule!("ViewBackward0", Saves::NONE, reshape_back);
pub(crate) static UNSAFE_VIEW: VjpRule =
    vjp_rule!("UnsafeViewBackward0", Saves::NONE, reshape_back);
pub(crate) static SQUEEZE: VjpRule = vjp_rule!("SqueezeBackward0", Saves::NONE, reshape_back);
pub(crate) static UNSQUEEZE: VjpRule = vjp_rule!("UnsqueezeBackward0", Saves::NONE, reshape_back);
pub(crate) static PERMUTE: VjpRule = vjp_rule!("PermuteBackward0", Saves::NONE, permute);
pub(crate) static TRANSPOSE: VjpRule = vjp_rule!("TransposeBackward0", Saves::NONE, transpose);
pub(crate) static T_: VjpRule = vjp_rule!("TBackward0", Saves::NONE, transpose);
pub(crate) static EXPAND: VjpRule = vjp_rule!("ExpandBackward0", Saves::NONE, expand);
pub(crate) static SLICE: VjpRule = vjp_rule!("SliceBackward0", Saves::NONE, slice);
pub(crate) static NARROW: VjpRule = vjp_rule!("SliceBackward0", Saves::NONE, narrow);
pub(crate) static SELECT: VjpRule = vjp_rule!("SelectBackward0", Saves::NONE, select);
pub(crate) static CLONE: VjpRule = vjp_rule!("CloneBackward0", Saves::NONE, identity);
pub(crate) static TO: VjpRule = vjp_rule!("ToCopyBackward0", Saves::NONE, identity);
pub(crate) static CAT: VjpRule = vjp_rule!("CatBackward0", Saves::NONE, cat);
pub(crate) static STACK: VjpRule = vjp_rule!("StackBackward0", Saves::NONE, stack);
pub(crate) static SPLIT: VjpRule = vjp_rule!("SplitBackward0", Saves::NONE, join);
pub(crate) static SPLIT_SIZES: VjpRule = vjp_rule!("SplitWithSizesBackward0", Saves::NONE, join);
pub(crate) static UNBIND: VjpRule = vjp_rule!("UnbindBackward0", Saves::NONE, join);
pub(crate) static GETITEM: VjpRule =
    vjp_rule!("IndexBackward0", Saves::args(&["indices"]), getitem);
