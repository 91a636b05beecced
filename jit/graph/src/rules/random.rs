//! The in-place random fills (`normal_`, `uniform_`, `exponential_`, `bernoulli_`) and
//! `torch.bernoulli`, drawn through PyTorch's stream (`rynamo_tensor::random`, `random_fills`).
//! The random creation ops are in `creation.rs`.

use rynamo_tensor::{Tensor, TensorMeta, random, random_fills as fills};

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

/// An in-place fill: no internal overlap, the op's argument check (`check(self, a)`), then the
/// fill from the default generator (a user generator is swapped in around the call); returns
/// `self`. Its gradient is zero (`vjp`), and its sample passes `samples` after `self`.
macro_rules! fill_op {
    ($name:ident = $schema:literal, |$a:ident| $check:expr, |$ea:ident| $fill:expr,
        $vjp:expr, [$($sample:expr),*]) => {
        op! {
            $name = $schema, Extern, [METHOD INPLACE RANDOM];
            meta(op, $a) {
                check_no_internal_overlap(op, $a.self_)?;
                $check;
                Ok(vec![meta_of($a.self_)])
            }
            eager(op, $ea) {
                check_no_internal_overlap(op, $ea.self_)?;
                $fill;
                Ok(vec![$ea.self_.clone()])
            }
            with .vjp($vjp).sample(|| pos_args(vec![mine(), $($sample),*]))
        }
    };
}

fill_op!(
    normal_ = "normal_(Tensor self, float mean=0, float std=1) -> Tensor",
    |a| random::normal_check(a.self_, a.std)?,
    |a| random::normal_(a.self_, a.mean, a.std, None)?,
    &vjp::NORMAL,
    [Value::Float(1.0), Value::Float(2.0)]
);
fill_op!(
    uniform_ = "uniform_(Tensor self, float from=0, float to=1) -> Tensor",
    |a| random::uniform_check(a.self_, a.from, a.to)?,
    |a| random::uniform_(a.self_, a.from, a.to, None)?,
    &vjp::UNIFORM,
    [Value::Float(-1.0), Value::Float(2.0)]
);
fill_op!(
    exponential_ = "exponential_(Tensor self, float lambd=1) -> Tensor",
    |a| fills::exponential_check(a.self_, a.lambd)?,
    |a| fills::exponential_(a.self_, a.lambd, None)?,
    &vjp::EXPONENTIAL,
    [Value::Float(2.0)]
);
fill_op!(
    bernoulli_float = "bernoulli_.float(Tensor self, float p=0.5) -> Tensor",
    |a| fills::bernoulli_check(a.p)?,
    |a| fills::bernoulli_(a.self_, a.p, None)?,
    &vjp::BERNOULLI_,
    [Value::Float(0.25)]
);

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
