//! Backward formulas of the in-place ops without a functional twin (the others use their
//! twin's formula): `copy_`, `fill_`/`zero_`, `__setitem__`, `index_put_` and the random fills.
//! "self" here is the value the tensor held before the write.

use super::pointwise::grad_or_return;
use super::{Grads, Saves, VjpCtx, VjpRule, args, put, vjp_rule};
use crate::autograd::emit::{Emit, t};
use crate::{Op, Value};

/// copy_(self, src): the old value is overwritten (zero gradient), `src` gets the gradient.
fn copy<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Copy_ => inplace::copy_);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.wants(a.self_) {
        let z = e.zeros_like(&g)?;
        put(&mut out, a.self_, z)?;
    }
    if c.wants(a.src) {
        put(&mut out, a.src, g)?;
    }
    Ok(out)
}

/// fill_(self, value) / zero_ / normal_ / uniform_: the old value is overwritten; a tensor
/// `value` gets the summed gradient.
fn fill<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let (x, value) = match c.op {
        Op::Fill_ => args!(c, |a| (a.self_, a.value.tensor()), Fill_ => inplace::fill_),
        _ => {
            let x = args!(c, |a| a.self_, Zero_ => inplace::zero_, Normal_ => random::normal_,
                Uniform_ => random::uniform_, Exponential_ => random::exponential_,
                BernoulliFloat_ => random::bernoulli_float, Bernoulli => random::bernoulli);
            (x, None)
        }
    };
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.wants(x) {
        let z = e.zeros_like(&g)?;
        put(&mut out, x, z)?;
    }
    if c.wants(value) {
        let s = e.sum_all(&g)?;
        put(&mut out, value, s)?;
    }
    Ok(out)
}

/// `self[index] = value`: the written positions of the old value get no gradient; `value` gets
/// the gradient read at the index (summed to its shape by the engine).
fn setitem<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, SetItem => inplace::set_item);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let index = Value::Index(a.indices.to_vec()).try_map(|s| c.saved(s))?;
    if c.wants(a.self_) {
        let gc = e.op(Op::Clone, vec![t(&g)])?;
        let mut r = e.call(
            Op::SetItem,
            vec![
                t(&gc),
                index.clone(),
                Value::Scalar(rynamo_tensor::Scalar::Int(0)),
            ],
        )?;
        put(&mut out, a.self_, r.swap_remove(0))?;
    }
    if c.wants(a.value) {
        let mut r = e.call(Op::GetItem, vec![t(&g), index])?;
        put(&mut out, a.value, r.swap_remove(0))?;
    }
    Ok(out)
}

/// index_put_(self, indices, values, accumulate): like `__setitem__` with tensor indices; with
/// `accumulate` the old value keeps its whole gradient.
fn index_put<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, IndexPut_ => inplace::index_put_);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let idx: Vec<E::T> = a
        .indices
        .iter()
        .map(|s| c.saved(*s))
        .collect::<crate::Result<_>>()?;
    let index = Value::Index(
        idx.iter()
            .map(|i| rynamo_tensor::IndexItem::Tensor(i.clone()))
            .collect(),
    );
    if c.wants(a.self_) {
        let d = if a.accumulate {
            g.clone()
        } else {
            let gc = e.op(Op::Clone, vec![t(&g)])?;
            let mut r = e.call(
                Op::SetItem,
                vec![
                    t(&gc),
                    index.clone(),
                    Value::Scalar(rynamo_tensor::Scalar::Int(0)),
                ],
            )?;
            r.swap_remove(0)
        };
        put(&mut out, a.self_, d)?;
    }
    if c.wants(a.values) {
        let mut r = e.call(Op::GetItem, vec![t(&g), index])?;
        put(&mut out, a.values, r.swap_remove(0))?;
    }
    Ok(out)
}

pub(crate) static COPY: VjpRule = vjp_rule!("CopyBackwards", Saves::NONE, copy);
pub(crate) static FILL: VjpRule = vjp_rule!("FillBackward0", Saves::NONE, fill);
pub(crate) static ZERO: VjpRule = vjp_rule!("ZeroBackward0", Saves::NONE, fill);
pub(crate) static NORMAL: VjpRule = vjp_rule!("NormalBackward0", Saves::NONE, fill);
pub(crate) static UNIFORM: VjpRule = vjp_rule!("UniformBackward0", Saves::NONE, fill);
pub(crate) static EXPONENTIAL: VjpRule = vjp_rule!("ExponentialBackward0", Saves::NONE, fill);
pub(crate) static BERNOULLI_: VjpRule = vjp_rule!("BernoulliBackward2", Saves::NONE, fill);
pub(crate) static BERNOULLI: VjpRule = vjp_rule!("BernoulliBackward0", Saves::NONE, fill);
pub(crate) static SETITEM: VjpRule =
    vjp_rule!("IndexPutBackward0", Saves::args(&["indices"]), setitem);
pub(crate) static INDEX_PUT: VjpRule =
    vjp_rule!("IndexPutBackward0", Saves::args(&["indices"]), index_put);
