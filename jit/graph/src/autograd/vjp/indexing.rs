//! Backward formulas of the index-driven copies: `gather`, `scatter` (tensor and value forms),
//! `scatter_add` and `index_select`. The in-place scatters use these through their functional
//! twins. As in PyTorch, a `src` larger than `index` gets an index-shaped gradient, which the
//! engine refuses with PyTorch's "invalid gradient" error.

use super::pointwise::grad_or_return;
use super::{Grads, Saves, VjpCtx, VjpRule, args, put, vjp_rule};
use crate::autograd::emit::{Emit, f, t};
use crate::{Error, Op, Result, Value};

/// `zeros(shape).scatter_add(dim, index, g)`.
fn scatter_add_into<E: Emit>(
    e: &mut E,
    shape: &[usize],
    dim: i64,
    index: &E::T,
    g: &E::T,
) -> Result<E::T> {
    let z = e.zeros(shape, e.dtype(g))?;
    e.op(Op::ScatterAdd, vec![t(&z), Value::Int(dim), t(index), t(g)])
}

fn gather_along<E: Emit>(e: &mut E, g: &E::T, dim: i64, index: &E::T) -> Result<E::T> {
    e.op(Op::Gather, vec![t(g), Value::Int(dim), t(index)])
}

/// gather(self, dim, index): the gradient summed back where each element was read.
fn gather<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Gather => indexing::gather);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.wants(a.self_) {
        let shape = c.meta(a.self_)?.shape.clone();
        let d = scatter_add_into(e, &shape, a.dim, &c.saved(a.index)?, &g)?;
        put(&mut out, a.self_, d)?;
    }
    Ok(out)
}

/// scatter / scatter.value / scatter_add: `self` keeps the gradient where it was not
/// overwritten (all of it for scatter_add); `src` gets the gradient read at the index.
fn scatter<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    // (self, dim, index, src: `None` for scatter.value, reduce)
    let (x, dim, index, src, reduce) = match c.op {
        Op::ScatterAdd => args!(c, |a| (a.self_, a.dim, a.index, Some(a.src), None),
            ScatterAdd => indexing::scatter_add),
        Op::ScatterValue => args!(c, |a| (a.self_, a.dim, a.index, None, a.reduce),
            ScatterValue => indexing::scatter_value),
        _ => args!(c, |a| (a.self_, a.dim, a.index, Some(a.src), a.reduce),
            Scatter => indexing::scatter),
    };
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if reduce.is_some() {
        return Err(Error::Tensor(rynamo_tensor::Error::Runtime(
            "derivative for aten::scatter is not implemented".into(),
        )));
    }
    let index = c.saved(index)?;
    if c.wants(x) {
        let d = if c.op == Op::ScatterAdd {
            g.clone()
        } else {
            e.op(
                Op::ScatterValue,
                vec![t(&g), Value::Int(dim), t(&index), f(0.0)],
            )?
        };
        put(&mut out, x, d)?;
    }
    if c.wants(src) {
        let d = gather_along(e, &g, dim, &index)?;
        put(&mut out, src, d)?;
    }
    Ok(out)
}

/// index_select(self, dim, index): the gradient's slices summed into the rows they came from
/// (`index_add` into zeros, as a scatter_add with the index broadcast along the other dims).
fn index_select<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, IndexSelect => indexing::index_select);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if !c.wants(a.self_) {
        return Ok(out);
    }
    let shape = c.meta(a.self_)?.shape.clone();
    let d = if shape.is_empty() {
        e.reshape(&g, &[])?
    } else {
        let dim = rynamo_tensor::layout::wrap_dim(a.dim, shape.len())?;
        let gs = e.shape(&g);
        let mut view = vec![1usize; gs.len()];
        view[dim] = gs[dim];
        // int32 indices are allowed; scatter_add takes int64
        let idx = e.to_dtype(&c.saved(a.index)?, rynamo_tensor::DType::Int64)?;
        let idx = e.reshape(&idx, &view)?;
        let idx = e.expand(&idx, &gs)?;
        scatter_add_into(e, &shape, dim as i64, &idx, &g)?
    };
    put(&mut out, a.self_, d)?;
    Ok(out)
}

/// scatter_reduce(self, dim, index, src, reduce, include_self) (PyTorch's
/// `scatter_reduce_backward`): `sum` passes the gradient through; `mean` divides it by each
/// position's count; `amax`/`amin` share it evenly among the values equal to the result.
/// Without `include_self`, `self` gets nothing where some index wrote.
fn scatter_reduce<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, ScatterReduce => indexing::scatter_reduce);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let dim = a.dim;
    let reduce = a.reduce;
    let include_self = a.include_self;
    let index = c.saved(a.index)?;
    let (grad_self, grad_src) = match reduce {
        "sum" => (g.clone(), gather_along(e, &g, dim, &index)?),
        "mean" => {
            let ones = e.op(Op::OnesLike, vec![t(&c.saved(a.src)?)])?;
            let base = if include_self {
                e.op(Op::OnesLike, vec![t(&g)])?
            } else {
                e.zeros_like(&g)?
            };
            let n = e.op(
                Op::ScatterAdd,
                vec![t(&base), Value::Int(dim), t(&index), t(&ones)],
            )?;
            let empty = e.cmp_s(Op::Eq, &n, 0.0)?;
            let n = e.where_(&empty, f(1.0), t(&n))?;
            let gs = e.div(&g, &n)?;
            let gsrc = gather_along(e, &gs, dim, &index)?;
            (gs, gsrc)
        }
        "amax" | "amin" => {
            let (x, src, result) = (c.saved(a.self_)?, c.saved(a.src)?, c.output(0)?);
            let dtype = e.dtype(&x);
            let value = gather_along(e, &result, dim, &index)?;
            let self_is = e.cmp(Op::Eq, &x, &result)?;
            let src_is = e.cmp(Op::Eq, &src, &value)?;
            let self_is_f = e.to_dtype(&self_is, dtype)?;
            let src_is_f = e.to_dtype(&src_is, dtype)?;
            let n = e.op(
                Op::ScatterAdd,
                vec![t(&self_is_f), Value::Int(dim), t(&index), t(&src_is_f)],
            )?;
            let shared = e.div(&g, &n)?;
            let gself = e.mul(&self_is_f, &shared)?;
            let gathered = gather_along(e, &shared, dim, &index)?;
            let gsrc = e.mul(&src_is_f, &gathered)?;
            (gself, gsrc)
        }
        _ => {
            return Err(Error::Tensor(rynamo_tensor::Error::Runtime(format!(
                "the derivative of scatter_reduce with reduce='{reduce}' is not implemented in Rynamo"
            ))));
        }
    };
    if c.wants(a.self_) {
        let d = if include_self {
            grad_self
        } else {
            e.op(
                Op::ScatterValue,
                vec![t(&grad_self), Value::Int(dim), t(&index), f(0.0)],
            )?
        };
        put(&mut out, a.self_, d)?;
    }
    if c.wants(a.src) {
        put(&mut out, a.src, grad_src)?;
    }
    Ok(out)
}

pub(crate) static SCATTER_REDUCE: VjpRule = vjp_rule!(
    "ScatterReduceBackward0",
    Saves::args_and_output(&["self", "index", "src"]),
    scatter_reduce
);
pub(crate) static GATHER: VjpRule = vjp_rule!("GatherBackward0", Saves::args(&["index"]), gather);
pub(crate) static SCATTER: VjpRule =
    vjp_rule!("ScatterBackward0", Saves::args(&["index"]), scatter);
pub(crate) static SCATTER_VALUE: VjpRule =
    vjp_rule!("ScatterBackward1", Saves::args(&["index"]), scatter);
pub(crate) static SCATTER_ADD: VjpRule =
    vjp_rule!("ScatterAddBackward0", Saves::args(&["index"]), scatter);
pub(crate) static INDEX_SELECT: VjpRule = vjp_rule!(
    "IndexSelectBackward0",
    Saves::args(&["index"]),
    index_select
);
