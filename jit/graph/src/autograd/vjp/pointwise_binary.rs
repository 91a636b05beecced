//! Backward formulas of the binary and ternary pointwise ops, `where`, `masked_fill` and the
//! clamps. Operands may be numbers (`Tensor|Scalar`); only tensor slots get gradients.

use rynamo_tensor::TensorOrScalar;

use super::pointwise::grad_or_return;
use super::{Grads, Saves, VjpCtx, VjpRule, args, put, vjp_rule};
use crate::autograd::emit::{Emit, f, t};
use crate::{Op, Result, Value};

/// `g * v` for an operand `v` (tensor or number).
fn times<E: Emit>(e: &mut E, g: &E::T, v: Value<E::T>) -> Result<E::T> {
    e.op(Op::Mul, vec![t(g), v])
}

fn add_sub<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let (self_, other, a) = args!(c, |a| (a.self_, a.other, a.alpha.to_f64()),
        Add => binary::add, Sub => binary::sub);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.wants(self_) {
        put(&mut out, self_, g.clone())?;
    }
    if c.wants(other) {
        let k = if c.op == Op::Sub { -a } else { a };
        let d = if k == 1.0 { g } else { e.mul_s(&g, k)? };
        put(&mut out, other, d)?;
    }
    Ok(out)
}

/// A complex operand's conjugate (PyTorch's convention: `d(a*b)/da` passes `grad * conj(b)`).
fn conj_of<E: Emit>(e: &mut E, v: Value<E::T>) -> Result<Value<E::T>> {
    match &v {
        Value::Tensor(x) if e.dtype(x).is_complex() => Ok(t(&e.unary(Op::Conj, x)?)),
        _ => Ok(v),
    }
}

fn mul<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Mul => binary::mul);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.wants(a.self_) {
        let b = conj_of(e, c.operand(a.other)?)?;
        let d = times(e, &g, b)?;
        put(&mut out, a.self_, d)?;
    }
    if c.wants(a.other) {
        let x = conj_of(e, c.operand(a.self_)?)?;
        let d = times(e, &g, x)?;
        put(&mut out, a.other, d)?;
    }
    Ok(out)
}

fn div<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Div => binary::div);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if a.rounding_mode.is_some() {
        // Rounded division: zero gradient almost everywhere (PyTorch returns zeros).
        for x in [a.self_, a.other] {
            if c.wants(x) {
                let z = e.zeros_like(&g)?;
                put(&mut out, x, z)?;
            }
        }
        return Ok(out);
    }
    let other = c.operand(a.other)?;
    if c.wants(a.self_) {
        let d = e.op(Op::Div, vec![t(&g), other.clone()])?;
        put(&mut out, a.self_, d)?;
    }
    if c.wants(a.other) {
        // -grad * self / other^2
        let other = c.saved(a.other)?;
        let num = times(e, &g, c.operand(a.self_)?)?;
        let o2 = e.mul(&other, &other)?;
        let q = e.div(&num, &o2)?;
        let d = e.neg(&q)?;
        put(&mut out, a.other, d)?;
    }
    Ok(out)
}

fn pow<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Pow => binary::pow);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let base = c.operand(a.self_)?;
    let expo = c.operand(a.exponent)?;
    if c.wants(a.self_) {
        let x = c.saved(a.self_)?;
        let d = match &expo {
            // exponent * self^(exponent - 1); a zero exponent gives zeros, as PyTorch
            Value::Scalar(s) if s.to_f64() == 0.0 => e.zeros_like(&g)?,
            Value::Scalar(s) => {
                let p = e.pow_s(&x, s.to_f64() - 1.0)?;
                let p = e.mul_s(&p, s.to_f64())?;
                e.mul(&g, &p)?
            }
            Value::Tensor(ex) => {
                let em1 = e.add_s(ex, -1.0)?;
                let p = e.op(Op::Pow, vec![t(&x), t(&em1)])?;
                let p = e.mul(&p, ex)?;
                // (exponent == 0) -> 0, so 0^-1 * 0 does not make NaN
                let zero_e = e.cmp_s(Op::Eq, ex, 0.0)?;
                let p = e.where_(&zero_e, f(0.0), t(&p))?;
                e.mul(&g, &p)?
            }
            _ => unreachable!("invariant: operand() returns tensors or numbers"),
        };
        put(&mut out, a.self_, d)?;
    }
    if c.wants(a.exponent) {
        // grad * result * log(self), masked to 0 where self == 0 and exponent >= 0
        let r = c.output(0)?;
        let d = match &base {
            Value::Scalar(s) => {
                let lnb = s.to_f64().ln();
                let d = e.mul_s(&r, lnb)?;
                e.mul(&g, &d)?
            }
            Value::Tensor(b) => {
                let lb = e.unary(Op::Log, b)?;
                let d = e.mul(&r, &lb)?;
                let b0 = e.cmp_s(Op::Eq, b, 0.0)?;
                let ex = c.saved(a.exponent)?;
                let e_nonneg = e.cmp_s(Op::Ge, &ex, 0.0)?;
                let mask = e.op(Op::LogicalAnd, vec![t(&b0), t(&e_nonneg)])?;
                let d = e.where_(&mask, f(0.0), t(&d))?;
                e.mul(&g, &d)?
            }
            _ => unreachable!("invariant: operand() returns tensors or numbers"),
        };
        put(&mut out, a.exponent, d)?;
    }
    Ok(out)
}

/// maximum / minimum / max.other / min.other: the gradient goes to the chosen operand, split
/// in half on ties (PyTorch's rule).
fn max_min<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let (self_, other) = args!(c, |a| (a.self_, a.other),
        Maximum => binary::maximum, Minimum => binary::minimum, MaxOther => binary::max_other,
        MinOther => binary::min_other);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let a = c.saved(self_)?;
    let b = c.saved(other)?;
    let is_max = matches!(c.op, Op::Maximum | Op::MaxOther);
    let half = e.mul_s(&g, 0.5)?;
    let tie = e.cmp(Op::Eq, &a, &b)?;
    for (slot, (x, y)) in [(self_, (&a, &b)), (other, (&b, &a))] {
        if !c.wants(slot) {
            continue;
        }
        let wins = e.cmp(if is_max { Op::Gt } else { Op::Lt }, x, y)?;
        let d = e.where_(&wins, t(&g), f(0.0))?;
        let d = e.where_(&tie, t(&half), t(&d))?;
        put(&mut out, slot, d)?;
    }
    Ok(out)
}

fn atan2<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Atan2 => binary::atan2);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let y = c.saved(a.self_)?;
    let x = c.saved(a.other)?;
    let y2 = e.mul(&y, &y)?;
    let x2 = e.mul(&x, &x)?;
    let den = e.add(&y2, &x2)?;
    let gr = e.div(&g, &den)?;
    if c.wants(a.self_) {
        let d = e.mul(&gr, &x)?;
        put(&mut out, a.self_, d)?;
    }
    if c.wants(a.other) {
        let d = e.mul(&gr, &y)?;
        let d = e.neg(&d)?;
        put(&mut out, a.other, d)?;
    }
    Ok(out)
}

fn where_<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Where => binary::r#where);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let cond = c.saved(a.condition)?;
    if c.wants(a.self_) {
        let d = e.where_(&cond, t(&g), f(0.0))?;
        put(&mut out, a.self_, d)?;
    }
    if c.wants(a.other) {
        let d = e.where_(&cond, f(0.0), t(&g))?;
        put(&mut out, a.other, d)?;
    }
    Ok(out)
}

fn masked_fill<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, MaskedFill => binary::masked_fill);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let mask = c.saved(a.mask)?;
    if c.wants(a.self_) {
        let d = e.where_(&mask, f(0.0), t(&g))?;
        put(&mut out, a.self_, d)?;
    }
    if c.wants(a.value) {
        let d = e.where_(&mask, t(&g), f(0.0))?;
        let d = e.sum_all(&d)?;
        put(&mut out, a.value, d)?;
    }
    Ok(out)
}

/// clamp / clip / clamp_min / clamp_max: `self` gets the gradient where it was kept; a tensor
/// bound gets it where it was chosen.
fn clamp<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let (self_, lo, hi) = match c.op {
        Op::ClampMin => args!(c, |a| (a.self_, Some(a.min), None), ClampMin => binary::clamp_min),
        Op::ClampMax => args!(c, |a| (a.self_, None, Some(a.max)), ClampMax => binary::clamp_max),
        _ => args!(c, |a| (a.self_, a.min, a.max), Clamp => binary::clamp, Clip => binary::clip),
    };
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let x = c.saved(self_)?;
    // x >= lo and x <= hi (NaN x keeps its gradient, as PyTorch's formula)
    let mut keep: Option<E::T> = None;
    for (bound, op) in [(lo, Op::Lt), (hi, Op::Gt)] {
        let Some(bound) = bound else { continue };
        let out_of = e.op(op, vec![t(&x), c.operand(bound)?])?;
        let inside = e.unary(Op::LogicalNot, &out_of)?;
        keep = Some(match keep {
            None => inside,
            Some(k) => e.op(Op::LogicalAnd, vec![t(&k), t(&inside)])?,
        });
        if c.wants(bound) {
            let d = e.where_(&out_of, t(&g), f(0.0))?;
            put(&mut out, bound, d)?;
        }
    }
    if c.wants(self_) {
        let d = match keep {
            Some(k) => e.where_(&k, t(&g), f(0.0))?,
            None => g.clone(),
        };
        put(&mut out, self_, d)?;
    }
    Ok(out)
}

/// fmod / remainder: `self` gets the gradient; `other` gets `-grad * q`, q the rounded quotient.
fn fmod_remainder<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let (self_, other) = match c.op {
        Op::Fmod => args!(c, |a| (TensorOrScalar::Tensor(a.self_), a.other), Fmod => binary::fmod),
        _ => args!(c, |a| (a.self_, a.other), Remainder => binary::remainder),
    };
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.wants(self_) {
        put(&mut out, self_, g.clone())?;
    }
    if c.wants(other) {
        let mode = if c.op == Op::Fmod { "trunc" } else { "floor" };
        let q = e.op_kw(
            Op::Div,
            vec![c.operand(self_)?, c.operand(other)?],
            vec![("rounding_mode", Value::Str(mode.into()))],
        )?;
        let d = e.mul(&g, &q)?;
        let d = e.neg(&d)?;
        put(&mut out, other, d)?;
    }
    Ok(out)
}

fn hypot<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Hypot => binary::hypot);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let r = c.output(0)?;
    let gr = e.div(&g, &r)?;
    for x in [a.self_, a.other] {
        if c.wants(x) {
            let d = e.mul(&gr, &c.saved(x)?)?;
            put(&mut out, x, d)?;
        }
    }
    Ok(out)
}

fn lerp<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Lerp => ternary::lerp);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let w = c.operand(a.weight)?;
    if c.wants(a.self_) {
        // grad * (1 - weight)
        let d = match &w {
            Value::Scalar(s) => e.mul_s(&g, 1.0 - s.to_f64())?,
            Value::Tensor(wt) => {
                let om = e.rsub_s(1.0, wt)?;
                e.mul(&g, &om)?
            }
            _ => unreachable!("invariant: operand() returns tensors or numbers"),
        };
        put(&mut out, a.self_, d)?;
    }
    if c.wants(a.end) {
        let d = times(e, &g, w.clone())?;
        put(&mut out, a.end, d)?;
    }
    if c.wants(a.weight) {
        let diff = e.sub(&c.saved(a.end)?, &c.saved(a.self_)?)?;
        let d = e.mul(&g, &diff)?;
        put(&mut out, a.weight, d)?;
    }
    Ok(out)
}

fn addcmul_addcdiv<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let (self_, tensor1, tensor2, v) = args!(c,
        |a| (a.self_, a.tensor1, a.tensor2, a.value.to_f64()),
        Addcmul => ternary::addcmul, Addcdiv => ternary::addcdiv);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.wants(self_) {
        put(&mut out, self_, g.clone())?;
    }
    let t1 = c.saved(tensor1)?;
    let t2 = c.saved(tensor2)?;
    let gv = e.mul_s(&g, v)?;
    if c.op == Op::Addcmul {
        if c.wants(tensor1) {
            let d = e.mul(&gv, &t2)?;
            put(&mut out, tensor1, d)?;
        }
        if c.wants(tensor2) {
            let d = e.mul(&gv, &t1)?;
            put(&mut out, tensor2, d)?;
        }
    } else {
        if c.wants(tensor1) {
            let d = e.div(&gv, &t2)?;
            put(&mut out, tensor1, d)?;
        }
        if c.wants(tensor2) {
            // -grad * value * t1 / t2^2
            let t22 = e.mul(&t2, &t2)?;
            let q = e.div(&t1, &t22)?;
            let d = e.mul(&gv, &q)?;
            let d = e.neg(&d)?;
            put(&mut out, tensor2, d)?;
        }
    }
    Ok(out)
}

fn xlogy<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Xlogy => binary::xlogy);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let other = c.operand(a.other)?;
    if c.wants(a.self_) {
        // xlogy(grad, other), 0 where self == 0 and other <= 0
        let x = c.saved(a.self_)?;
        let d = e.op(Op::Xlogy, vec![t(&g), other.clone()])?;
        let zero = e.cmp_s(Op::Eq, &x, 0.0)?;
        let at_pole = match &other {
            Value::Tensor(y) => {
                let nonpos = e.cmp_s(Op::Le, y, 0.0)?;
                Some(e.op(Op::LogicalAnd, vec![t(&zero), t(&nonpos)])?)
            }
            Value::Scalar(s) if s.to_f64() <= 0.0 => Some(zero),
            _ => None,
        };
        let d = match at_pole {
            Some(m) => e.where_(&m, f(0.0), t(&d))?,
            None => d,
        };
        put(&mut out, a.self_, d)?;
    }
    if c.wants(a.other) {
        // grad * self / other
        let y = c.saved(a.other)?;
        let gx = match c.operand(a.self_)? {
            Value::Tensor(x) => e.mul(&g, &x)?,
            Value::Scalar(s) => e.mul_s(&g, s.to_f64())?,
            _ => unreachable!("invariant: operand() returns tensors or numbers"),
        };
        let d = e.div(&gx, &y)?;
        put(&mut out, a.other, d)?;
    }
    Ok(out)
}

pub(crate) static ADD: VjpRule = vjp_rule!("AddBackward0", Saves::NONE, add_sub);
pub(crate) static SUB: VjpRule = vjp_rule!("SubBackward0", Saves::NONE, add_sub);
pub(crate) static MUL: VjpRule = vjp_rule!("MulBackward0", Saves::cross(&["self", "other"]), mul);
pub(crate) static DIV: VjpRule =
    vjp_rule!("DivBackward0", Saves::cross(&["self"]).and(&["other"]), div);
pub(crate) static POW: VjpRule = vjp_rule!(
    "PowBackward1",
    Saves::args_and_output(&["self", "exponent"]),
    pow
);
pub(crate) static MAXIMUM: VjpRule =
    vjp_rule!("MaximumBackward0", Saves::args(&["self", "other"]), max_min);
pub(crate) static MINIMUM: VjpRule =
    vjp_rule!("MinimumBackward0", Saves::args(&["self", "other"]), max_min);
pub(crate) static ATAN2: VjpRule =
    vjp_rule!("Atan2Backward0", Saves::args(&["self", "other"]), atan2);
pub(crate) static WHERE: VjpRule = vjp_rule!("WhereBackward0", Saves::args(&["condition"]), where_);
pub(crate) static MASKED_FILL: VjpRule =
    vjp_rule!("MaskedFillBackward0", Saves::args(&["mask"]), masked_fill);
pub(crate) static CLAMP: VjpRule = vjp_rule!(
    "ClampBackward1",
    Saves::args(&["self", "min", "max"]),
    clamp
);
pub(crate) static CLAMP_MIN: VjpRule =
    vjp_rule!("ClampMinBackward0", Saves::args(&["self", "min"]), clamp);
pub(crate) static CLAMP_MAX: VjpRule =
    vjp_rule!("ClampMaxBackward0", Saves::args(&["self", "max"]), clamp);
pub(crate) static FMOD: VjpRule = vjp_rule!(
    "FmodBackward0",
    Saves::args(&["self", "other"]),
    fmod_remainder
);
pub(crate) static REMAINDER: VjpRule = vjp_rule!(
    "RemainderBackward0",
    Saves::args(&["self", "other"]),
    fmod_remainder
);
pub(crate) static HYPOT: VjpRule = vjp_rule!(
    "HypotBackward0",
    Saves::args_and_output(&["self", "other"]),
    hypot
);
pub(crate) static LERP: VjpRule = vjp_rule!(
    "LerpBackward0",
    Saves::args(&["self", "end", "weight"]),
    lerp
);
pub(crate) static ADDCMUL: VjpRule = vjp_rule!(
    "AddcmulBackward0",
    Saves::args(&["tensor1", "tensor2"]),
    addcmul_addcdiv
);
pub(crate) static ADDCDIV: VjpRule = vjp_rule!(
    "AddcdivBackward0",
    Saves::args(&["tensor1", "tensor2"]),
    addcmul_addcdiv
);
pub(crate) static XLOGY: VjpRule =
    vjp_rule!("XlogyBackward0", Saves::args(&["self", "other"]), xlogy);
