//! Ternary pointwise ops and their in-place forms: `lerp`, `addcmul`, `addcdiv`.

use rynamo_tensor::ops::ternary::{self, AddcOp};

use super::{inplace, meta_of};
use crate::autograd::vjp::pointwise_binary as vjp;
use crate::def::{Sample, op};
use crate::samples::{fx, pos_args, t, with_kw};
use crate::{Op, Value};

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
    with .vjp(&vjp::LERP).sample(lerp_sample)
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
            meta(_, a) { Ok(vec![ternary::addc_meta(AddcOp::$k, a.self_, a.tensor1, a.tensor2)?]) }
            eager(_, a) {
                Ok(vec![ternary::addc(AddcOp::$k, a.self_, a.tensor1, a.tensor2, a.value)?])
            }
            with .vjp(&vjp::$vjp).sample(addc_sample)
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
