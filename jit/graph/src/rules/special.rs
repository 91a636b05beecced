//! The `torch.special` functions that need kernels of their own (issue 29): the inverse
//! hyperbolics, `erfc`, the gamma family (`lgamma`, `digamma`, `polygamma`) and the modified
//! Bessel functions (`i0`; `i0e`, `i1`, `i1e` as the private `_special_*` ops `torch.special`
//! calls), with their in-place forms. Each is a float expression op (`float_unary!`: one scalar
//! function both eager and the JIT call) except `polygamma`, whose order is an argument the
//! one-argument scalar functions cannot take: it runs its eager kernel (an `Extern` node).
//! Scalar functions: `rynamo_tensor::kernels::special_fns`; formulas: `autograd/vjp/special.rs`.

use rynamo_tensor::Tensor;
use rynamo_tensor::expr::{Real, record};
use rynamo_tensor::kernels::special_fns as sf;
use rynamo_tensor::ops::float_expr;

use super::inplace;
use super::unary::erfinv;
use super::unary::{float_unary, float_unary_};
use crate::autograd::vjp::special as vjp;
use crate::def::{Sample, op};
use crate::samples::{fx, pos_args, t};
use crate::{Op, Value};

fn from(v: Vec<f32>) -> Tensor {
    Tensor::from_vec(v, &[2, 3]).expect("invariant: sample tensors have valid shapes")
}

/// Values inside `acosh`'s domain (`x >= 1`).
fn above_one() -> Sample {
    pos_args(vec![t(from(vec![1.25, 1.5, 2.0, 3.0, 4.5, 10.0]))])
}

/// Values away from the gamma functions' poles, negative ones included.
fn gamma_values() -> Tensor {
    from(vec![0.3, 1.7, 4.5, -0.4, -2.6, 12.0])
}

fn gamma_args() -> Sample {
    pos_args(vec![t(gamma_values())])
}

/// `x` in `(-1, 1)` (`atanh`'s domain), as a fresh tensor (in-place samples write it).
fn unit() -> Sample {
    pos_args(vec![t(fx::unit().deep_clone())])
}

fn normal() -> Sample {
    pos_args(vec![t(fx::x().deep_clone())])
}

float_unary!(asinh = "asinh(Tensor self) -> Tensor", [FUNCTION METHOD], |a, x| sf::asinh(x),
    with.vjp(&vjp::ASINH).sample(normal));
float_unary!(acosh = "acosh(Tensor self) -> Tensor", [FUNCTION METHOD], |a, x| sf::acosh(x),
    with.vjp(&vjp::ACOSH).sample(above_one));
float_unary!(atanh = "atanh(Tensor self) -> Tensor", [FUNCTION METHOD], |a, x| sf::atanh(x),
    with.vjp(&vjp::ATANH).sample(unit));
float_unary!(erfc = "erfc(Tensor self) -> Tensor", [FUNCTION METHOD], |a, x| sf::erfc(x),
    with.vjp(&vjp::ERFC).sample(normal));
float_unary!(lgamma = "lgamma(Tensor self) -> Tensor", [FUNCTION METHOD], |a, x| sf::lgamma(x),
    with.vjp(&vjp::LGAMMA).sample(gamma_args));
float_unary!(digamma = "digamma(Tensor self) -> Tensor", [FUNCTION METHOD], |a, x| sf::digamma(x),
    with.vjp(&vjp::DIGAMMA).sample(gamma_args));
float_unary!(i0 = "i0(Tensor self) -> Tensor", [FUNCTION METHOD], |a, x| sf::i0(x),
    with.vjp(&vjp::I0).sample(normal));
float_unary!(
    special_i0e = "_special_i0e(Tensor self) -> Tensor",
    [FUNCTION],
    |a, x| sf::i0e(x),
    with.vjp(&vjp::I0E).sample(normal)
);
float_unary!(
    special_i1 = "_special_i1(Tensor self) -> Tensor",
    [FUNCTION],
    |a, x| sf::i1(x),
    with.vjp(&vjp::I1).sample(normal)
);
float_unary!(
    special_i1e = "_special_i1e(Tensor self) -> Tensor",
    [FUNCTION],
    |a, x| sf::i1e(x),
    with.vjp(&vjp::I1E).sample(normal)
);

/// `polygamma`'s order: PyTorch refuses a negative one with this text.
fn check_order(n: i64) -> crate::Result<()> {
    if n < 0 {
        return Err(crate::Error::Tensor(rynamo_tensor::Error::Runtime(
            "polygamma(n, x) does not support negative n.".into(),
        )));
    }
    Ok(())
}

op! {
    polygamma = "polygamma(int n, Tensor self) -> Tensor", Extern, [FUNCTION];
    meta(_, a) {
        check_order(a.n)?;
        Ok(vec![float_expr::unary_meta(a.self_)])
    }
    eager(_, a) {
        check_order(a.n)?;
        let n = a.n;
        let fns = (
            move |v: f32| sf::polygamma_f32(n, v),
            move |v: f64| sf::polygamma_f64(n, v),
        );
        Ok(vec![float_expr::unary(a.self_, fns)?])
    }
    with .vjp(&vjp::POLYGAMMA).sample(|| pos_args(vec![Value::Int(2), t(gamma_values())]))
}

op! {
    polygamma_ = "polygamma_(Tensor self, int n) -> Tensor", Extern, [METHOD INPLACE];
    meta(op, a) {
        check_order(a.n)?;
        inplace::check_no_internal_overlap(op, a.self_)?;
        inplace::check_into(a.self_, &float_expr::unary_meta(a.self_))?;
        Ok(vec![crate::rules::meta_of(a.self_)])
    }
    eager(op, a) {
        check_order(a.n)?;
        inplace::check_no_internal_overlap(op, a.self_)?;
        let n = a.n;
        float_expr::unary_(a.self_, (
            move |v: f32| sf::polygamma_f32(n, v),
            move |v: f64| sf::polygamma_f64(n, v),
        ))?;
        Ok(vec![a.self_.clone()])
    }
    with .sample(|| pos_args(vec![t(gamma_values()), Value::Int(1)]))
}

float_unary_!(asinh_ = "asinh_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], asinh = Asinh,
    with.sample(normal));
float_unary_!(acosh_ = "acosh_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], acosh = Acosh,
    with.sample(|| pos_args(vec![t(from(vec![1.25, 1.5, 2.0, 3.0, 4.5, 10.0]))])));
float_unary_!(atanh_ = "atanh_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], atanh = Atanh,
    with.sample(unit));
float_unary_!(erfc_ = "erfc_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], erfc = Erfc,
    with.sample(normal));
float_unary_!(lgamma_ = "lgamma_(Tensor self) -> Tensor", [METHOD INPLACE], lgamma = Lgamma,
    with.sample(gamma_args));
float_unary_!(digamma_ = "digamma_(Tensor self) -> Tensor", [METHOD INPLACE], digamma = Digamma,
    with.sample(gamma_args));
float_unary_!(i0_ = "i0_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], i0 = I0,
    with.sample(normal));
float_unary_!(erfinv_ = "erfinv_(Tensor self) -> Tensor", [METHOD INPLACE], erfinv = Erfinv,
    with.sample(unit));
