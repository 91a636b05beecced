//! Ternary pointwise ops and their in-place forms: `lerp`, `addcmul`, `addcdiv`.

use rynamo_tensor::ops::ternary::{self, AddcOp};

use rynamo_tensor::{DType, Scalar, TensorOrScalar};

use super::{inplace, meta_of};
use crate::autograd::emit::{Emit, f, t as arg};
use crate::autograd::vjp::pointwise_binary as vjp;
use crate::def::{Sample, decomposition, op};
use crate::samples::{fx, pos_args, t, with_kw};
use crate::{Op, Result, Value};

/// `op(x, y, 0.3)` on a fresh `x`.
fn lerp_sample() -> Sample {
    pos_args(vec![t(fx::x().deep_clone()), t(fx::y()), Value::Float(0.3)])
}

/// `op(x, y, ramp, value=0.5)` on a fresh `x`.
fn addc_sample() -> Sample {
    with_kw(
        vec![t(fx::x().deep_clone()), t(fx::y()), t(fx::ramp())],
        "value",
        Value::Float(0.5),
    )
}

op! {
    lerp = "lerp(Tensor self, Tensor end, Tensor|Scalar weight) -> Tensor", Pointwise,
        [FUNCTION METHOD];
    meta(_, a) { Ok(vec![ternary::lerp_meta(a.self_, a.end, a.weight)?]) }
    eager(_, a) { Ok(vec![ternary::lerp(a.self_, a.end, a.weight)?]) }
    with .vjp(&vjp::LERP)
        .sample(lerp_sample)
        .decompose(decomposition!(super::lerp_decomposition))
}

op! {
    lerp_ = "lerp_(Tensor self, Tensor end, Tensor|Scalar weight) -> Tensor", Pointwise,
        [METHOD INPLACE];
    meta(op, a) {
        inplace::check_no_internal_overlap(op, a.self_)?;
        inplace::check_into(a.self_, &ternary::lerp_meta(a.self_, a.end, a.weight)?)?;
        Ok(vec![meta_of(a.self_)])
    }
    eager(op, a) {
        inplace::check_no_internal_overlap(op, a.self_)?;
        inplace::check_inputs_overlap(a.self_, &[Some(a.end), a.weight.tensor()])?;
        ternary::lerp_(a.self_, a.end, a.weight)?;
        Ok(vec![a.self_.clone()])
    }
    with .functional(Op::Lerp).sample(lerp_sample)
}

/// `addcmul` / `addcdiv` and their in-place forms.
macro_rules! addc {
    ($name:ident = $schema:literal, $name_:ident = $schema_:literal, $k:ident, $Op:ident,
        $vjp:ident) => {
        op! {
            $name = $schema, Pointwise, [FUNCTION METHOD];
            items {
                /// `self + value * tensor1 (* or /) tensor2` as pointwise nodes.
                fn decompose<E: Emit>(e: &mut E, args: &[Value<E::T>]) -> Result<Option<E::T>> {
                    let a = Args::read(args)?;
                    super::addc_decomposition(e, AddcOp::$k, a.self_, a.tensor1, a.tensor2, a.value)
                }
            }
            meta(_, a) { Ok(vec![ternary::addc_meta(AddcOp::$k, a.self_, a.tensor1, a.tensor2)?]) }
            eager(_, a) {
                Ok(vec![ternary::addc(AddcOp::$k, a.self_, a.tensor1, a.tensor2, a.value)?])
            }
            with .vjp(&vjp::$vjp).sample(addc_sample).decompose(decomposition!(decompose))
        }

        op! {
            $name_ = $schema_, Pointwise, [METHOD INPLACE];
            meta(op, a) {
                inplace::check_no_internal_overlap(op, a.self_)?;
                let r = ternary::addc_meta(AddcOp::$k, a.self_, a.tensor1, a.tensor2)?;
                inplace::check_into(a.self_, &r)?;
                Ok(vec![meta_of(a.self_)])
            }
            eager(op, a) {
                inplace::check_no_internal_overlap(op, a.self_)?;
                inplace::check_inputs_overlap(a.self_, &[Some(a.tensor1), Some(a.tensor2)])?;
                ternary::addc_(AddcOp::$k, a.self_, a.tensor1, a.tensor2, a.value)?;
                Ok(vec![a.self_.clone()])
            }
            with .functional(Op::$Op).sample(addc_sample)
        }
    };
}

addc!(
    addcmul = "addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
    addcmul_ = "addcmul_(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
    Mul,
    Addcmul,
    ADDCMUL
);
addc!(
    addcdiv = "addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
    addcdiv_ = "addcdiv_(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
    Div,
    Addcdiv,
    ADDCDIV
);

// === Decompositions: on f32 or f64 operands of one dtype, in eager's order (`ops/ternary.rs`).
// Mixed or other dtypes keep the eager node: eager converts the operands first and, for half
// types, computes in f32. ===

/// The dtype the decompositions handle for `x` (f32 or f64 with at least one dim).
fn decomposable<E: Emit>(e: &E, x: &E::T) -> Option<DType> {
    let m = e.meta(x);
    (matches!(m.dtype, DType::Float32 | DType::Float64) && !m.shape.is_empty()).then_some(m.dtype)
}

/// A scalar as eager's kernel sees it: converted to the compute dtype.
fn in_dtype(s: Scalar, dt: DType) -> Option<f64> {
    match (s, dt) {
        (Scalar::Int(_) | Scalar::Float(_), DType::Float32) => Some(s.to_f64() as f32 as f64),
        (Scalar::Int(_) | Scalar::Float(_), _) => Some(s.to_f64()),
        _ => None,
    }
}

/// `lerp`: `x + w * (end - x)` below `|w| = 0.5`, else `end - (end - x) * (1 - w)`.
fn lerp_decomposition<E: Emit>(e: &mut E, args: &[Value<E::T>]) -> Result<Option<E::T>> {
    let a = lerp::Args::read(args)?;
    let (x, y) = (a.self_, a.end);
    let Some(dt) = decomposable(e, x) else {
        return Ok(None);
    };
    if e.dtype(y) != dt {
        return Ok(None);
    }
    let d = e.sub(y, x)?;
    Ok(Some(match a.weight {
        TensorOrScalar::Scalar(s) => {
            let Some(w) = in_dtype(s, dt) else {
                return Ok(None);
            };
            if w.abs() < 0.5 {
                let m = e.mul_s(&d, w)?;
                e.add(x, &m)?
            } else {
                let one_minus = if dt == DType::Float32 {
                    (1.0 - w as f32) as f64
                } else {
                    1.0 - w
                };
                let m = e.mul_s(&d, one_minus)?;
                e.sub(y, &m)?
            }
        }
        TensorOrScalar::Tensor(w) => {
            if e.dtype(w) != dt {
                return Ok(None);
            }
            let aw = e.unary(Op::Abs, w)?;
            let low = e.cmp_s(Op::Lt, &aw, 0.5)?;
            let m = e.mul(w, &d)?;
            let near_x = e.add(x, &m)?;
            // `-w + 1` rounds as `1 - w` does (IEEE subtraction adds the negation).
            let nw = e.neg(w)?;
            let one_minus = e.add_s(&nw, 1.0)?;
            let m = e.mul(&d, &one_minus)?;
            let near_end = e.sub(y, &m)?;
            e.where_(&low, arg(&near_x), arg(&near_end))?
        }
    }))
}

/// `addcmul` / `addcdiv`: `x + v * t1 * t2` and `x + v * t1 / t2`.
fn addc_decomposition<E: Emit>(
    e: &mut E,
    k: AddcOp,
    x: &E::T,
    t1: &E::T,
    t2: &E::T,
    value: Scalar,
) -> Result<Option<E::T>> {
    let Some(dt) = decomposable(e, x) else {
        return Ok(None);
    };
    if e.dtype(t1) != dt || e.dtype(t2) != dt {
        return Ok(None);
    }
    let Some(v) = in_dtype(value, dt) else {
        return Ok(None);
    };
    let m = e.op(Op::Mul, vec![arg(t1), f(v)])?;
    let q = match k {
        AddcOp::Mul => e.mul(&m, t2)?,
        AddcOp::Div => e.div(&m, t2)?,
    };
    Ok(Some(e.add(x, &q)?))
}
