//! Backward formulas of the `torch.special` kernel ops (`rules/special.rs`), as PyTorch's
//! `derivatives.yaml` gives them: each derivative is another op of the family (`lgamma` ->
//! `digamma` -> `polygamma(1)` -> `polygamma(2)`, `i0` -> `i1`), so higher orders work too.

use std::f64::consts::PI;

use super::pointwise::{grad_or_return, one_minus_sq, unary};
use super::{Grads, Saves, VjpCtx, VjpRule, args, put, vjp_rule};
use crate::autograd::emit::{Emit, f, t};
use crate::{Op, Result, Value};

/// The argument and the output.
const ARG_AND_OUTPUT: Saves = Saves::args_and_output(&["self"]);

fn asinh<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Asinh => special::asinh);
    // grad * rsqrt(x^2 + 1)
    unary(e, c, a.self_, |e, c, g| {
        let x = c.saved(a.self_)?;
        let x2 = e.mul(&x, &x)?;
        let d = e.add_s(&x2, 1.0)?;
        let d = e.unary(Op::Rsqrt, &d)?;
        e.mul(&g, &d)
    })
}

fn acosh<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Acosh => special::acosh);
    // grad * rsqrt(x^2 - 1)
    unary(e, c, a.self_, |e, c, g| {
        let x = c.saved(a.self_)?;
        let x2 = e.mul(&x, &x)?;
        let d = e.add_s(&x2, -1.0)?;
        let d = e.unary(Op::Rsqrt, &d)?;
        e.mul(&g, &d)
    })
}

fn atanh<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Atanh => special::atanh);
    // grad / (1 - x^2)
    unary(e, c, a.self_, |e, c, g| {
        let d = one_minus_sq(e, &c.saved(a.self_)?)?;
        e.div(&g, &d)
    })
}

fn erfc<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Erfc => special::erfc);
    // -2/sqrt(pi) * exp(-x^2) * grad
    unary(e, c, a.self_, |e, c, g| {
        let x = c.saved(a.self_)?;
        let x2 = e.mul(&x, &x)?;
        let m = e.neg(&x2)?;
        let ex = e.unary(Op::Exp, &m)?;
        let d = e.mul_s(&ex, -2.0 / PI.sqrt())?;
        e.mul(&g, &d)
    })
}

fn lgamma<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Lgamma => special::lgamma);
    unary(e, c, a.self_, |e, c, g| {
        let d = e.unary(Op::Digamma, &c.saved(a.self_)?)?;
        e.mul(&g, &d)
    })
}

/// `grad * polygamma(n, x)`.
fn times_polygamma<E: Emit>(e: &mut E, n: i64, x: &E::T, g: &E::T) -> Result<E::T> {
    let d = e.op(Op::Polygamma, vec![Value::Int(n), t(x)])?;
    e.mul(g, &d)
}

fn digamma<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Digamma => special::digamma);
    unary(e, c, a.self_, |e, c, g| {
        times_polygamma(e, 1, &c.saved(a.self_)?, &g)
    })
}

fn polygamma<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Polygamma => special::polygamma);
    // d/dx polygamma(n, x) = polygamma(n + 1, x)
    let n = a.n;
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.wants(a.self_) {
        let d = times_polygamma(e, n + 1, &c.saved(a.self_)?, &g)?;
        put(&mut out, a.self_, d)?;
    }
    Ok(out)
}

fn i0<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, I0 => special::i0);
    unary(e, c, a.self_, |e, c, g| {
        let d = e.unary(Op::SpecialI1, &c.saved(a.self_)?)?;
        e.mul(&g, &d)
    })
}

fn i0e<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, SpecialI0e => special::special_i0e);
    // grad * (i1e(x) - sgn(x) * i0e(x))
    unary(e, c, a.self_, |e, c, g| {
        let x = c.saved(a.self_)?;
        let i1e = e.unary(Op::SpecialI1e, &x)?;
        let s = e.unary(Op::Sign, &x)?;
        let si = e.mul(&s, &c.output(0)?)?;
        let d = e.sub(&i1e, &si)?;
        e.mul(&g, &d)
    })
}

/// `grad * where(|x| > eps, dx, 0.5)` for the order-1 Bessel functions, whose `dx` divides by
/// `x`: at (and within machine epsilon of) 0 the derivative is its limit 1/2, as PyTorch's
/// `i1_backward` / `i1e_backward` give it.
fn i1_like<E: Emit>(
    e: &mut E,
    c: &VjpCtx<'_, E::T>,
    x: &usize,
    dx: impl FnOnce(&mut E, &E::T, &E::T, &E::T) -> Result<E::T>,
) -> Grads<E> {
    unary(e, c, x, |e, c, g| {
        let x = c.saved(x)?;
        let eps = if e.dtype(&x) == rynamo_tensor::DType::Float64 {
            f64::EPSILON
        } else {
            f64::from(f32::EPSILON)
        };
        let ax = e.unary(Op::Abs, &x)?;
        let not_tiny = e.cmp_s(Op::Gt, &ax, eps)?;
        let safe = e.where_(&not_tiny, t(&x), f(eps))?;
        let d = dx(e, &safe, &c.output(0)?, &x)?;
        let d = e.where_(&not_tiny, t(&d), f(0.5))?;
        e.mul(&g, &d)
    })
}

fn i1<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, SpecialI1 => special::special_i1);
    // i0(x) - i1(x) / x
    i1_like(e, c, a.self_, |e, safe, out, _| {
        let i0 = e.unary(Op::I0, safe)?;
        let q = e.div(out, safe)?;
        e.sub(&i0, &q)
    })
}

fn i1e<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, SpecialI1e => special::special_i1e);
    // i0e(x) - i1e(x) * (sgn(x) + 1 / x)
    i1_like(e, c, a.self_, |e, safe, out, x| {
        let i0e = e.unary(Op::SpecialI0e, safe)?;
        let s = e.unary(Op::Sign, x)?;
        let r = e.unary(Op::Reciprocal, safe)?;
        let k = e.add(&s, &r)?;
        let q = e.mul(out, &k)?;
        e.sub(&i0e, &q)
    })
}

pub(crate) static ASINH: VjpRule = vjp_rule!("AsinhBackward0", Saves::args(&["self"]), asinh);
pub(crate) static ACOSH: VjpRule = vjp_rule!("AcoshBackward0", Saves::args(&["self"]), acosh);
pub(crate) static ATANH: VjpRule = vjp_rule!("AtanhBackward0", Saves::args(&["self"]), atanh);
pub(crate) static ERFC: VjpRule = vjp_rule!("ErfcBackward0", Saves::args(&["self"]), erfc);
pub(crate) static LGAMMA: VjpRule = vjp_rule!("LgammaBackward0", Saves::args(&["self"]), lgamma);
pub(crate) static DIGAMMA: VjpRule = vjp_rule!("DigammaBackward0", Saves::args(&["self"]), digamma);
pub(crate) static POLYGAMMA: VjpRule =
    vjp_rule!("PolygammaBackward0", Saves::args(&["self"]), polygamma);
pub(crate) static I0: VjpRule = vjp_rule!("I0Backward0", Saves::args(&["self"]), i0);
pub(crate) static I0E: VjpRule = vjp_rule!("SpecialI0EBackward0", ARG_AND_OUTPUT, i0e);
pub(crate) static I1: VjpRule = vjp_rule!("SpecialI1Backward0", ARG_AND_OUTPUT, i1);
pub(crate) static I1E: VjpRule = vjp_rule!("SpecialI1EBackward0", ARG_AND_OUTPUT, i1e);
