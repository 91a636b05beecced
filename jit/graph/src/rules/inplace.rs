//! In-place ops without a pointwise functional twin (`copy_`, `fill_`, `__setitem__`, the
//! scatters; the random fills are in `random.rs`), and the checks every in-place op shares: each
//! returns its (mutated) first argument, so the meta is that argument's.

use rynamo_tensor::ops::gather::{self, ScatterReduce};
use rynamo_tensor::ops::{index, pointwise, scatter_reduce};
use rynamo_tensor::{
    BinaryOp, DType, IndexItem, Scalar, Shaped, Tensor, TensorMeta, TensorOrScalar, UnaryOp,
    can_cast, layout, memory_overlap,
};

use super::meta_of;
use crate::autograd::vjp::inplace as vjp;
use crate::def::op;
use crate::samples::{fx, pos_args, t, with_kw};
use crate::{Error, IValue, Op, Result, Value};

fn rt(msg: String) -> Error {
    Error::Tensor(rynamo_tensor::Error::Runtime(msg))
}

/// Checks that an out-of-place result could be written back into `this`.
pub(crate) fn check_into<T: Shaped>(this: &T, result: &TensorMeta) -> Result<()> {
    if result.shape != this.shape() {
        return Err(rt(format!(
            "output with shape {:?} doesn't match the broadcast shape {:?}",
            this.shape(),
            result.shape
        )));
    }
    if !can_cast(result.dtype, this.dtype()) {
        return Err(Error::Tensor(rynamo_tensor::Error::CannotCast {
            from: result.dtype,
            to: this.dtype(),
        }));
    }
    Ok(())
}

pub(crate) fn check_fill_value<T: Shaped>(v: &TensorOrScalar<&T>) -> Result<()> {
    if let TensorOrScalar::Tensor(t) = v
        && t.ndim() != 0
    {
        return Err(rt(format!(
            "fill_ only supports 0-dimension value tensor but got tensor with {} dimensions.",
            t.ndim()
        )));
    }
    Ok(())
}

/// PyTorch refuses in-place writes to a tensor whose elements share memory (a stride-0 dim of
/// size > 1, as `expand` makes): the result would depend on the write order. Only the
/// TensorIterator ops and `scatter_` check; `fill_`, `zero_`, `masked_fill_`, `index_put_` and a
/// scalar `__setitem__` write expanded tensors.
pub(crate) fn check_no_internal_overlap<T: Shaped>(op: Op, this: &T) -> Result<()> {
    if matches!(
        op,
        Op::Fill_ | Op::Zero_ | Op::MaskedFill_ | Op::IndexPut_ | Op::SetItem
    ) {
        return Ok(());
    }
    Ok(memory_overlap::assert_no_internal_overlap(this)?)
}

/// ATen's TensorIterator refuses inputs partially overlapping the destination (`a[1:].add_(a[:-1])`
/// reads elements it has already written); an input that is the destination itself is fine.
pub(crate) fn check_inputs_overlap(this: &Tensor, inputs: &[Option<&Tensor>]) -> Result<()> {
    for t in inputs.iter().flatten() {
        memory_overlap::assert_no_partial_overlap(this, t)?;
    }
    Ok(())
}

/// The meta of in-place unary op `op` applying kernel op `k` to `this`.
pub(crate) fn unary_meta<T: Shaped>(op: Op, this: &T, k: UnaryOp) -> Result<Vec<TensorMeta>> {
    check_no_internal_overlap(op, this)?;
    let r = pointwise::unary_meta(k, this)?;
    check_into(this, &r)?;
    Ok(vec![meta_of(this)])
}

/// The meta of in-place binary op `op` applying kernel op `b` to `this` and `other`.
pub(crate) fn binary_meta<T: Shaped>(
    op: Op,
    this: &T,
    b: BinaryOp,
    other: TensorOrScalar<&T>,
) -> Result<Vec<TensorMeta>> {
    check_no_internal_overlap(op, this)?;
    let r = pointwise::binary_meta(b, TensorOrScalar::Tensor(this), other)?;
    check_into(this, &r)?;
    Ok(vec![meta_of(this)])
}

/// Runs in-place binary op `op` applying kernel op `b` (with `alpha`) to `this` and `other`.
pub(crate) fn binary_eager(
    op: Op,
    this: &Tensor,
    b: BinaryOp,
    other: TensorOrScalar<&Tensor>,
    alpha: Scalar,
) -> Result<Vec<Tensor>> {
    check_no_internal_overlap(op, this)?;
    check_inputs_overlap(this, &[other.tensor()])?;
    pointwise::binary_(b, this, other, alpha)?;
    Ok(vec![this.clone()])
}

/// Runs in-place unary op `op` applying kernel op `k` to `this`.
pub(crate) fn unary_eager(op: Op, this: &Tensor, k: UnaryOp) -> Result<Vec<Tensor>> {
    check_no_internal_overlap(op, this)?;
    pointwise::unary_(k, this)?;
    Ok(vec![this.clone()])
}

/// `scatter_`'s reduction (`reduce=None`: a plain write).
fn scatter_reduce(reduce: Option<&str>) -> Result<ScatterReduce> {
    Ok(ScatterReduce::parse(reduce)?)
}

/// A fresh copy of the default sample's tensor: in-place samples write into it.
fn mine() -> IValue {
    t(fx::x().deep_clone())
}

op! {
    copy_ = "copy_(Tensor self, Tensor src) -> Tensor", Pointwise, [METHOD INPLACE];
    meta(op, a) {
        check_no_internal_overlap(op, a.self_)?;
        layout::broadcast_strides(a.src.shape(), a.src.strides(), a.self_.shape())?;
        Ok(vec![meta_of(a.self_)])
    }
    eager(_, a) {
        // `copy_` onto the same view is a no-op before any check, as in ATen.
        memory_overlap::check_copy(a.self_, a.src)?;
        a.self_.copy_(a.src)?;
        Ok(vec![a.self_.clone()])
    }
    with .complex().vjp(&vjp::COPY)
        .sample(|| pos_args(vec![t(Tensor::zeros(&[2, 3], DType::Int32)), t(fx::y())]))
}

op! {
    zero_ = "zero_(Tensor self) -> Tensor", Pointwise, [METHOD INPLACE];
    meta(op, a) {
        check_no_internal_overlap(op, a.self_)?;
        Ok(vec![meta_of(a.self_)])
    }
    eager(op, a) {
        check_no_internal_overlap(op, a.self_)?;
        a.self_.fill_(Scalar::Int(0));
        Ok(vec![a.self_.clone()])
    }
    with .complex().vjp(&vjp::ZERO).sample(|| pos_args(vec![mine()]))
}

op! {
    fill_ = "fill_(Tensor self, Tensor|Scalar value) -> Tensor", Pointwise, [METHOD INPLACE];
    meta(op, a) {
        check_no_internal_overlap(op, a.self_)?;
        check_fill_value(&a.value)?;
        Ok(vec![meta_of(a.self_)])
    }
    eager(op, a) {
        check_no_internal_overlap(op, a.self_)?;
        check_fill_value(&a.value)?;
        match a.value {
            TensorOrScalar::Scalar(s) => a.self_.fill_(s),
            // A complex value (`z.fill_(1 + 2j)`): `Scalar` holds no complex number; a real
            // tensor takes it only with a zero imaginary part (PyTorch's error otherwise).
            TensorOrScalar::Tensor(t) if t.dtype().is_complex() => {
                let (re, im) = rynamo_tensor::ops::complex::item(t)?;
                rynamo_tensor::ops::complex::fill_any(a.self_, re, im)?
            }
            TensorOrScalar::Tensor(t) => a.self_.fill_(t.item()?),
        }
        Ok(vec![a.self_.clone()])
    }
    with .complex().vjp(&vjp::FILL).sample(|| pos_args(vec![mine(), Value::Int(4)]))
}

op! {
    set_item = "__setitem__(Tensor self, Index[] indices, Tensor|Scalar value) -> Tensor", Extern,
        [METHOD INPLACE];
    meta(op, a) {
        check_no_internal_overlap(op, a.self_)?;
        index::plan(a.self_, a.indices)?;
        Ok(vec![meta_of(a.self_)])
    }
    eager(op, a) {
        check_no_internal_overlap(op, a.self_)?;
        index::setitem(a.self_, a.indices, a.value)?;
        Ok(vec![a.self_.clone()])
    }
    with .complex() .vjp(&vjp::SETITEM).sample(|| {
        let mask = IndexItem::Tensor(fx::mask());
        pos_args(vec![mine(), Value::Index(vec![mask]), Value::Float(9.0)])
    })
}

op! {
    index_put_ =
        "index_put_(Tensor self, Tensor[] indices, Tensor values, bool accumulate=False) -> Tensor",
        Extern, [FUNCTION METHOD INPLACE];
    meta(op, a) {
        check_no_internal_overlap(op, a.self_)?;
        gather::index_put_meta(a.self_, &a.indices, a.values)?;
        Ok(vec![meta_of(a.self_)])
    }
    eager(op, a) {
        check_no_internal_overlap(op, a.self_)?;
        // Without `accumulate`, the put itself checks (it knows when ATen dispatches to
        // `masked_fill_`, which does not).
        if a.accumulate {
            memory_overlap::assert_no_overlap(a.self_, a.values)?;
            for i in &a.indices {
                memory_overlap::assert_no_overlap(a.self_, i)?;
            }
        }
        gather::index_put_(a.self_, &a.indices, a.values, a.accumulate)?;
        Ok(vec![a.self_.clone()])
    }
    with .vjp(&vjp::INDEX_PUT).sample(|| {
        let indices = Value::TensorList(vec![fx::longs(&[1, 0])]);
        with_kw(vec![mine(), indices, t(fx::y())], "accumulate", Value::Bool(true))
    })
}

/// `scatter_(dim, index, src)` on a fresh `x`.
fn scatter_sample() -> crate::def::Sample {
    pos_args(vec![mine(), Value::Int(1), t(fx::idx()), t(fx::x())])
}

op! {
    scatter_ =
        "scatter_(Tensor self, int dim, Tensor index, Tensor src, *, str? reduce=None) -> Tensor",
        Extern, [METHOD INPLACE];
    meta(op, a) {
        check_no_internal_overlap(op, a.self_)?;
        scatter_reduce(a.reduce)?;
        gather::scatter_meta("scatter", a.self_, a.dim, a.index, Some(a.src))?;
        Ok(vec![meta_of(a.self_)])
    }
    eager(op, a) {
        check_no_internal_overlap(op, a.self_)?;
        memory_overlap::assert_no_overlap(a.self_, a.index)?;
        memory_overlap::assert_no_overlap(a.self_, a.src)?;
        let src = TensorOrScalar::Tensor(a.src);
        gather::scatter_(a.self_, a.dim, a.index, src, scatter_reduce(a.reduce)?)?;
        Ok(vec![a.self_.clone()])
    }
    with .functional(Op::Scatter).sample(scatter_sample)
}

op! {
    scatter_value_ =
        "scatter_.value(Tensor self, int dim, Tensor index, Scalar value, *, str? reduce=None) -> Tensor",
        Extern, [METHOD INPLACE];
    meta(op, a) {
        check_no_internal_overlap(op, a.self_)?;
        scatter_reduce(a.reduce)?;
        gather::scatter_meta("scatter", a.self_, a.dim, a.index, None)?;
        Ok(vec![meta_of(a.self_)])
    }
    eager(op, a) {
        check_no_internal_overlap(op, a.self_)?;
        memory_overlap::assert_no_overlap(a.self_, a.index)?;
        let value = TensorOrScalar::Scalar(a.value);
        gather::scatter_(a.self_, a.dim, a.index, value, scatter_reduce(a.reduce)?)?;
        Ok(vec![a.self_.clone()])
    }
    with .functional(Op::ScatterValue).sample(|| {
        let args = vec![mine(), Value::Int(1), t(fx::idx()), Value::Float(2.0)];
        with_kw(args, "reduce", Value::Str("multiply".into()))
    })
}

op! {
    scatter_reduce_ =
        "scatter_reduce_.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) -> Tensor",
        Extern, [METHOD INPLACE];
    meta(op, a) {
        check_no_internal_overlap(op, a.self_)?;
        scatter_reduce::scatter_reduce_meta(a.self_, a.dim, a.index, a.src, a.reduce)?;
        Ok(vec![meta_of(a.self_)])
    }
    eager(op, a) {
        check_no_internal_overlap(op, a.self_)?;
        memory_overlap::assert_no_overlap(a.self_, a.index)?;
        let r = scatter_reduce::scatter_reduce(a.self_, a.dim, a.index, a.src, a.reduce, a.include_self)?;
        a.self_.copy_(&r)?;
        Ok(vec![a.self_.clone()])
    }
    with .functional(Op::ScatterReduce).sample(|| {
        let args = vec![mine(), Value::Int(1), t(fx::idx()), t(fx::x()), Value::Str("mean".into())];
        pos_args(args)
    })
}

op! {
    scatter_add_ = "scatter_add_(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", Extern,
        [METHOD INPLACE];
    meta(op, a) {
        check_no_internal_overlap(op, a.self_)?;
        gather::scatter_meta("scatter_add", a.self_, a.dim, a.index, Some(a.src))?;
        Ok(vec![meta_of(a.self_)])
    }
    eager(op, a) {
        check_no_internal_overlap(op, a.self_)?;
        memory_overlap::assert_no_overlap(a.self_, a.index)?;
        memory_overlap::assert_no_overlap(a.self_, a.src)?;
        let src = TensorOrScalar::Tensor(a.src);
        gather::scatter_(a.self_, a.dim, a.index, src, ScatterReduce::Add)?;
        Ok(vec![a.self_.clone()])
    }
    with .functional(Op::ScatterAdd).sample(scatter_sample)
}
