//! In-place forms PyTorch has for existing pointwise ops (issue 29's list): each reads its
//! functional twin's arguments and kernel, writes into `self`, and links the twin
//! (`.functional`), so autograd and the functionalising passes treat it as the twin plus a
//! write-back.

use rynamo_tensor::ops::{float_expr, pointwise};
use rynamo_tensor::{TensorOrScalar, UnaryOp};

use super::binary::{hypot, xlogy};
use super::inplace;
use super::unary::{exp2, expm1, frac, log1p, sign, square, unary_};
use crate::def::op;
use crate::samples::{fx, pos_args, t};
use crate::{Op, Value};

fn mine() -> crate::def::Sample {
    pos_args(vec![t(fx::x().deep_clone())])
}

unary_!(square_ = "square_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], square = Square,
    with.sample(mine));
unary_!(sign_ = "sign_(Tensor self) -> Tensor", [METHOD INPLACE], sign = Sign, with.sample(mine));
unary_!(exp2_ = "exp2_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], exp2 = Exp2,
    with.sample(mine));
unary_!(expm1_ = "expm1_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], expm1 = Expm1,
    with.sample(mine));
unary_!(log1p_ = "log1p_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], log1p = Log1p,
    with.sample(|| pos_args(vec![t(fx::pos())])));
unary_!(frac_ = "frac_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], frac = Frac,
    with.sample(mine));

op! {
    hypot_ = "hypot_(Tensor self, Tensor other) -> Tensor", Pointwise, [METHOD INPLACE];
    meta(op, a, args) {
        let (b, _) = hypot::kind(&hypot::Args::read(args)?)?;
        inplace::binary_meta(op, a.self_, b, TensorOrScalar::Tensor(a.other))
    }
    eager(op, a, args) {
        let (b, alpha) = hypot::kind(&hypot::Args::read(args)?)?;
        inplace::binary_eager(op, a.self_, b, TensorOrScalar::Tensor(a.other), alpha)
    }
    with .functional(Op::Hypot).sample(|| pos_args(vec![t(fx::x().deep_clone()), t(fx::y())]))
}

op! {
    xlogy_ = "xlogy_(Tensor self, Tensor|Scalar other) -> Tensor", Pointwise, [FUNCTION METHOD INPLACE];
    meta(op, a) {
        inplace::check_no_internal_overlap(op, a.self_)?;
        let r = float_expr::binary_meta("xlogy", TensorOrScalar::Tensor(a.self_), a.other)?;
        inplace::check_into(a.self_, &r)?;
        Ok(vec![crate::rules::meta_of(a.self_)])
    }
    eager(op, a) {
        inplace::check_no_internal_overlap(op, a.self_)?;
        inplace::check_inputs_overlap(a.self_, &[a.other.tensor()])?;
        let fns = (xlogy::expr::<f32>, xlogy::expr::<f64>);
        float_expr::binary_("xlogy", a.self_, a.other, fns)?;
        Ok(vec![a.self_.clone()])
    }
    with .functional(Op::Xlogy).sample(|| pos_args(vec![t(fx::pos()), t(fx::ramp())]))
}

/// `clamp_min_`'s cast check. With a number bound PyTorch checks through the kernel's C++ element
/// type and names it so (`long int`); with a tensor bound, through TensorIterator (`Long`).
fn check_clamp_min_into<T: rynamo_tensor::Shaped>(
    this: &T,
    min: TensorOrScalar<&T>,
    result: &rynamo_tensor::TensorMeta,
) -> crate::Result<()> {
    if matches!(min, TensorOrScalar::Scalar(_))
        && !rynamo_tensor::can_cast(result.dtype, this.dtype())
    {
        use rynamo_tensor::DType as D;
        let cpp = match this.dtype() {
            D::Int64 => "long int",
            D::Int32 => "int",
            D::Int16 => "short int",
            D::Int8 => "signed char",
            D::UInt8 => "unsigned char",
            D::Bool => "bool",
            other => other.aten_name(),
        };
        return Err(crate::Error::Tensor(rynamo_tensor::Error::Runtime(
            format!(
                "result type {} can't be cast to the desired output type {cpp}",
                result.dtype.aten_name()
            ),
        )));
    }
    inplace::check_into(this, result)
}

op! {
    clamp_min_ = "clamp_min_(Tensor self, Tensor|Scalar min) -> Tensor", Pointwise,
        [FUNCTION METHOD INPLACE];
    meta(op, a) {
        inplace::check_no_internal_overlap(op, a.self_)?;
        let r = pointwise::clamp_meta(a.self_, Some(a.min), None)?;
        check_clamp_min_into(a.self_, a.min, &r)?;
        Ok(vec![crate::rules::meta_of(a.self_)])
    }
    eager(op, a) {
        inplace::check_no_internal_overlap(op, a.self_)?;
        inplace::check_inputs_overlap(a.self_, &[a.min.tensor()])?;
        let r = pointwise::clamp_meta(a.self_, Some(a.min), None)?;
        check_clamp_min_into(a.self_, a.min, &r)?;
        pointwise::clamp_(a.self_, Some(a.min), None)?;
        Ok(vec![a.self_.clone()])
    }
    with .functional(Op::ClampMin)
        .sample(|| pos_args(vec![t(fx::x().deep_clone()), Value::Float(0.1)]))
}

op! {
    logical_not_ = "logical_not_(Tensor self) -> Tensor", Pointwise, [METHOD INPLACE];
    meta(op, a) { inplace::unary_meta(op, a.self_, UnaryOp::LogicalNot) }
    eager(op, a) {
        // The kernel's result is bool whatever `self` is: computed out of place, cast back in.
        inplace::check_no_internal_overlap(op, a.self_)?;
        let r = pointwise::unary(UnaryOp::LogicalNot, a.self_)?;
        a.self_.copy_(&r)?;
        Ok(vec![a.self_.clone()])
    }
    with .functional(Op::LogicalNot).sample(mine)
}
