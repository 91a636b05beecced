//! Random fills and samples drawn through PyTorch's stream (`rynamo_tensor::random_fills`):
//! `exponential_`, `bernoulli_` and `torch.bernoulli`. `uniform_`/`normal_` are in `inplace.rs`,
//! the random creation ops in `creation.rs`.

use rynamo_tensor::{Tensor, TensorMeta, random_fills as fills};

use super::inplace::check_no_internal_overlap;
use super::meta_of;
use crate::autograd::vjp::inplace as vjp;
use crate::def::op;
use crate::samples::{fx, pos_args, t};
use crate::{IValue, Value};

/// Probabilities for `bernoulli`'s sample, both bounds included.
fn probabilities() -> Tensor {
    Tensor::from_vec(vec![0.1f32, 0.5, 0.9, 0.0, 1.0, 0.3], &[2, 3]).expect("6 values")
}

/// A fresh copy of the default sample's tensor: in-place samples write into it.
fn mine() -> IValue {
    t(fx::x().deep_clone())
}

op! {
    exponential_ = "exponential_(Tensor self, float lambd=1) -> Tensor", Extern,
        [METHOD INPLACE RANDOM];
    meta(op, a) {
        check_no_internal_overlap(op, a.self_)?;
        fills::exponential_check(a.self_, a.lambd)?;
        Ok(vec![meta_of(a.self_)])
    }
    eager(op, a) {
        check_no_internal_overlap(op, a.self_)?;
        fills::exponential_(a.self_, a.lambd, None)?;
        Ok(vec![a.self_.clone()])
    }
    with .vjp(&vjp::EXPONENTIAL)
        .sample(|| pos_args(vec![mine(), Value::Float(2.0)]))
}

op! {
    bernoulli_float = "bernoulli_.float(Tensor self, float p=0.5) -> Tensor", Extern,
        [METHOD INPLACE RANDOM];
    meta(op, a) {
        check_no_internal_overlap(op, a.self_)?;
        fills::bernoulli_check(a.p)?;
        Ok(vec![meta_of(a.self_)])
    }
    eager(op, a) {
        check_no_internal_overlap(op, a.self_)?;
        fills::bernoulli_(a.self_, a.p, None)?;
        Ok(vec![a.self_.clone()])
    }
    with .vjp(&vjp::BERNOULLI_)
        .sample(|| pos_args(vec![mine(), Value::Float(0.25)]))
}

op! {
    bernoulli = "bernoulli(Tensor self) -> Tensor", Extern, [FUNCTION METHOD RANDOM];
    meta(_, a) {
        fills::bernoulli_meta_check(a.self_)?;
        Ok(vec![TensorMeta::contiguous(a.self_.dtype(), a.self_.shape())])
    }
    eager(_, a) { Ok(vec![fills::bernoulli(a.self_, None)?]) }
    with .vjp(&vjp::BERNOULLI)
        .sample(|| pos_args(vec![t(probabilities())]))
}
