//! Backward formulas of the complex ops, in PyTorch's convention: the gradient of a real loss `L`
//! with respect to a complex `z = x + iy` is `dL/dx + i dL/dy` (the conjugate Wirtinger
//! derivative, doubled), so a holomorphic `f` passes back `grad * conj(f'(z))` and a real
//! function of `z` a complex gradient whose components are the partial derivatives.

use super::pointwise::{grad_or_return, unary};
use super::{Grads, Saves, VjpCtx, VjpRule, args, put, vjp_rule};
use crate::autograd::emit::{Emit, t};
use crate::{Op, Result};

fn call1<E: Emit>(e: &mut E, op: Op, a: &E::T) -> Result<E::T> {
    e.op(op, vec![t(a)])
}

/// `complex(re, im)`.
fn join<E: Emit>(e: &mut E, re: &E::T, im: &E::T) -> Result<E::T> {
    e.op(Op::Complex, vec![t(re), t(im)])
}

/// The real part of `z` as a fresh tensor (`real` is a view; a gradient must not alias `g`).
fn re<E: Emit>(e: &mut E, z: &E::T) -> Result<E::T> {
    let r = call1(e, Op::Real, z)?;
    call1(e, Op::Clone, &r)
}

fn im<E: Emit>(e: &mut E, z: &E::T) -> Result<E::T> {
    let r = call1(e, Op::Imag, z)?;
    call1(e, Op::Clone, &r)
}

fn view_as_real<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, ViewAsReal => complex::view_as_real);
    unary(e, c, a.self_, |e, _, g| {
        // The incoming gradient may be any layout; the view needs a unit last stride.
        let g = call1(e, Op::Contiguous, &g)?;
        call1(e, Op::ViewAsComplex, &g)
    })
}

fn view_as_complex<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, ViewAsComplex => complex::view_as_complex);
    unary(e, c, a.self_, |e, _, g| {
        let r = call1(e, Op::ViewAsReal, &g)?;
        call1(e, Op::Clone, &r)
    })
}

fn real<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Real => complex::real);
    let complex = c.meta(a.self_)?.dtype.is_complex();
    unary(e, c, a.self_, |e, _, g| {
        if !complex {
            return Ok(g);
        }
        let z = e.zeros_like(&g)?;
        join(e, &g, &z)
    })
}

fn imag<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Imag => complex::imag);
    unary(e, c, a.self_, |e, _, g| {
        let z = e.zeros_like(&g)?;
        join(e, &z, &g)
    })
}

fn conj<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Conj => complex::conj);
    unary(e, c, a.self_, |e, _, g| call1(e, Op::Conj, &g))
}

fn complex<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Complex => complex::complex);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.wants(a.real) {
        let d = re(e, &g)?;
        put(&mut out, a.real, d)?;
    }
    if c.wants(a.imag) {
        let d = im(e, &g)?;
        put(&mut out, a.imag, d)?;
    }
    Ok(out)
}

/// `out = abs * e^(i angle)`: `d abs = Re(g * conj(e^(i angle)))`,
/// `d angle = Im(g * conj(out))`.
fn polar<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Polar => complex::polar);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.wants(a.abs) {
        let (r, th) = (c.saved(a.abs)?, c.saved(a.angle)?);
        let ones = call1(e, Op::OnesLike, &r)?;
        let unit = e.op(Op::Polar, vec![t(&ones), t(&th)])?;
        let cu = call1(e, Op::Conj, &unit)?;
        let p = e.mul(&g, &cu)?;
        let d = re(e, &p)?;
        put(&mut out, a.abs, d)?;
    }
    if c.wants(a.angle) {
        let o = c.output(0)?;
        let co = call1(e, Op::Conj, &o)?;
        let p = e.mul(&g, &co)?;
        let d = im(e, &p)?;
        put(&mut out, a.angle, d)?;
    }
    Ok(out)
}

/// `angle(z)` (PyTorch's `angle_backward`): for complex `z`, `g * z / |z|^2 * i`, zero where
/// `z` is 0 (the squared modulus is replaced by 1 there, so the quotient is `0 / 1`); written
/// as `complex(-Im(w), Re(w))` for `w = g * z / |z|^2`. A real input has a zero gradient.
fn angle<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Angle => complex::angle);
    unary(e, c, a.self_, |e, c, g| {
        let z = c.saved(a.self_)?;
        if !e.dtype(&z).is_complex() {
            return e.zeros_like(&z);
        }
        let m = call1(e, Op::Abs, &z)?;
        let m2 = e.mul(&m, &m)?;
        let zero = e.cmp_s(Op::Eq, &m2, 0.0)?;
        let safe = e.where_(
            &zero,
            crate::Value::Scalar(rynamo_tensor::Scalar::Int(1)),
            t(&m2),
        )?;
        let gz = e.mul(&g, &z)?;
        let w = e.div(&gz, &safe)?;
        let wi = im(e, &w)?;
        let nwi = e.neg(&wi)?;
        let wr = re(e, &w)?;
        join(e, &nwi, &wr)
    })
}

/// `|z|` of complex `z`: `g * z / |z|`, zero where `z` is 0 (PyTorch's `sgn`): dividing by 1
/// there keeps the quotient `0 / 1 = 0` without a complex `where`.
pub(super) fn abs_complex<E: Emit>(e: &mut E, z: &E::T, g: &E::T) -> Result<E::T> {
    let a = call1(e, Op::Abs, z)?;
    let zero = e.cmp_s(Op::Eq, &a, 0.0)?;
    let safe = e.where_(
        &zero,
        crate::Value::Scalar(rynamo_tensor::Scalar::Int(1)),
        t(&a),
    )?;
    let s = e.div(z, &safe)?;
    e.mul(g, &s)
}

pub(crate) static VIEW_AS_REAL: VjpRule =
    vjp_rule!("ViewAsRealBackward0", Saves::args(&[]), view_as_real);
pub(crate) static VIEW_AS_COMPLEX: VjpRule =
    vjp_rule!("ViewAsComplexBackward0", Saves::args(&[]), view_as_complex);
pub(crate) static REAL: VjpRule = vjp_rule!("RealBackward0", Saves::args(&[]), real);
pub(crate) static IMAG: VjpRule = vjp_rule!("ImagBackward0", Saves::args(&[]), imag);
pub(crate) static ANGLE: VjpRule = vjp_rule!("AngleBackward0", Saves::args(&["self"]), angle);
pub(crate) static CONJ: VjpRule = vjp_rule!("ConjBackward0", Saves::args(&[]), conj);
pub(crate) static COMPLEX: VjpRule = vjp_rule!("ComplexBackward0", Saves::args(&[]), complex);
pub(crate) static POLAR: VjpRule = vjp_rule!(
    "PolarBackward0",
    Saves::args_and_output(&["abs", "angle"]),
    polar
);
