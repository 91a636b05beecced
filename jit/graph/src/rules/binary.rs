//! Binary pointwise ops and their in-place forms, `where`, `masked_fill`, `clamp` (and `clip`,
//! `clamp_min`, `clamp_max`). A binary op's `kind` maps its typed arguments to the kernel-level
//! [`BinaryOp`] and `alpha`; the meta rule and the kernel are `rynamo_tensor`'s `binary_meta` /
//! `binary` of that kind.

use rynamo_tensor::BinaryOp as B;
use rynamo_tensor::expr::{Cmp, Real, record};
use rynamo_tensor::ops::{float_expr, pointwise};
use rynamo_tensor::{Scalar, TensorOrScalar};

use super::{IntoOperand, inplace, meta_of};
use crate::autograd::vjp::pointwise_binary as vjp;
use crate::def::{Sample, op};
use crate::samples::{fx, pos_args, t, with_kw};
use crate::{Error, Op, Result, Value};

/// One binary op: `|a| (kind, alpha)` from its typed arguments `a`; `$rhs` names its second
/// operand (`other`, or `pow`'s `exponent`).
macro_rules! binary {
    ($name:ident = $schema:literal, [$($flag:ident)*], $rhs:ident, |$a:ident| $kind:expr
        $(, with $($with:tt)*)?) => {
        op! {
            $name = $schema, Pointwise, [$($flag)*];
            items {
                /// The kernel op and `alpha` for these arguments.
                #[allow(unused_variables, reason = "most kinds take no parameters")]
                pub(crate) fn kind<T>($a: &Args<'_, T>) -> Result<(B, Scalar)> {
                    Ok($kind)
                }
            }
            meta(_, a) {
                let (b, _) = kind(&a)?;
                Ok(vec![pointwise::binary_meta(b, a.self_.into_operand(), a.$rhs.into_operand())?])
            }
            eager(_, a) {
                let (b, alpha) = kind(&a)?;
                Ok(vec![pointwise::binary(b, a.self_.into_operand(), a.$rhs.into_operand(), alpha)?])
            }
            with .binary(|args| kind(&Args::read(args)?)).complex() $($($with)*)?
        }
    };
}

/// The in-place form of binary op `$twin` (`add_` of `add`): the same arguments, read with the
/// twin's accessors, written into `self`.
macro_rules! binary_ {
    ($name:ident = $schema:literal, [$($flag:ident)*], $twin:ident = $Twin:ident, $rhs:ident
        $(, with $($with:tt)*)?) => {
        op! {
            $name = $schema, Pointwise, [$($flag)*];
            meta(op, a, args) {
                let (b, _) = super::$twin::kind(&super::$twin::Args::read(args)?)?;
                inplace::binary_meta(op, a.self_, b, a.$rhs)
            }
            eager(op, a, args) {
                let (b, alpha) = super::$twin::kind(&super::$twin::Args::read(args)?)?;
                inplace::binary_eager(op, a.self_, b, a.$rhs, alpha)
            }
            with .functional(Op::$Twin).complex() $($($with)*)?
        }
    };
}

const ONE: Scalar = Scalar::Int(1);

/// The sample `op(x, y)` (broadcasting a row against a matrix).
fn x_y() -> Sample {
    pos_args(vec![t(fx::x()), t(fx::y())])
}

fn ints_with(v: Value<rynamo_tensor::Tensor>) -> Sample {
    pos_args(vec![t(fx::ints()), v])
}

fn compared_to_zero() -> Sample {
    pos_args(vec![t(fx::x()), Value::Float(0.0)])
}

binary!(add = "add(Tensor|Scalar self, Tensor|Scalar other, *, Scalar alpha=1) -> Tensor",
    [FUNCTION METHOD COMMUTATIVE], other, |a| (B::Add, a.alpha),
    with .complex_grad().vjp(&vjp::ADD).operators(&["add"])
        .sample(|| with_kw(vec![t(fx::x()), t(fx::y())], "alpha", Value::Int(2))));
binary!(sub = "sub(Tensor|Scalar self, Tensor|Scalar other, *, Scalar alpha=1) -> Tensor",
    [FUNCTION METHOD], other, |a| (B::Sub, a.alpha),
    with .complex_grad().vjp(&vjp::SUB).operators(&["sub"])
        .sample(|| with_kw(vec![t(fx::x()), t(fx::y())], "alpha", Value::Int(2))));
binary!(mul = "mul(Tensor|Scalar self, Tensor|Scalar other) -> Tensor",
    [FUNCTION METHOD COMMUTATIVE], other, |a| (B::Mul, ONE),
    with .complex_grad().vjp(&vjp::MUL).operators(&["mul"])
        .sample(|| pos_args(vec![Value::Int(2), t(fx::x())])));
binary!(div = "div(Tensor|Scalar self, Tensor|Scalar other, *, str? rounding_mode=None) -> Tensor",
    [FUNCTION METHOD], other,
    |a| match a.rounding_mode {
        None => (B::Div, ONE),
        Some("trunc") => (B::DivTrunc, ONE),
        Some("floor") => (B::DivFloor, ONE),
        Some(m) => {
            return Err(Error::Tensor(rynamo_tensor::Error::Value(format!(
                "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{m}'"
            ))));
        }
    },
    with .vjp(&vjp::DIV).operators(&["truediv"])
        .sample(|| with_kw(vec![t(fx::ints()), Value::Int(2)], "rounding_mode",
            Value::Str("floor".into()))));
binary!(floor_divide = "floor_divide(Tensor|Scalar self, Tensor|Scalar other) -> Tensor",
    [FUNCTION METHOD], other, |a| (B::DivFloor, ONE),
    with .operators(&["floordiv"]).sample(|| ints_with(Value::Int(-3))));
binary!(remainder = "remainder(Tensor|Scalar self, Tensor|Scalar other) -> Tensor",
    [FUNCTION METHOD], other, |a| (B::Remainder, ONE),
    with .vjp(&vjp::REMAINDER).operators(&["mod"]).sample(|| ints_with(Value::Int(-3))));
binary!(pow = "pow(Tensor|Scalar self, Tensor|Scalar exponent) -> Tensor",
    [FUNCTION METHOD], exponent, |a| (B::Pow, ONE),
    with .vjp(&vjp::POW).operators(&["pow"])
        .sample(|| pos_args(vec![t(fx::pos()), Value::Float(1.5)])));
binary!(maximum = "maximum(Tensor self, Tensor other) -> Tensor",
    [FUNCTION METHOD COMMUTATIVE], other, |a| (B::Maximum, ONE),
    with .vjp(&vjp::MAXIMUM).sample(x_y));
binary!(minimum = "minimum(Tensor self, Tensor other) -> Tensor",
    [FUNCTION METHOD COMMUTATIVE], other, |a| (B::Minimum, ONE),
    with .vjp(&vjp::MINIMUM).sample(x_y));
binary!(eq = "eq(Tensor|Scalar self, Tensor|Scalar other) -> Tensor",
    [FUNCTION METHOD COMMUTATIVE], other, |a| (B::Eq, ONE),
    with .operators(&["eq"]).sample(compared_to_zero));
binary!(ne = "ne(Tensor|Scalar self, Tensor|Scalar other) -> Tensor",
    [FUNCTION METHOD COMMUTATIVE], other, |a| (B::Ne, ONE),
    with .operators(&["ne"]).sample(compared_to_zero));
binary!(lt = "lt(Tensor|Scalar self, Tensor|Scalar other) -> Tensor",
    [FUNCTION METHOD], other, |a| (B::Lt, ONE),
    with .operators(&["lt"]).sample(compared_to_zero));
binary!(le = "le(Tensor|Scalar self, Tensor|Scalar other) -> Tensor",
    [FUNCTION METHOD], other, |a| (B::Le, ONE),
    with .operators(&["le"]).sample(compared_to_zero));
binary!(gt = "gt(Tensor|Scalar self, Tensor|Scalar other) -> Tensor",
    [FUNCTION METHOD], other, |a| (B::Gt, ONE),
    with .operators(&["gt"]).sample(compared_to_zero));
binary!(ge = "ge(Tensor|Scalar self, Tensor|Scalar other) -> Tensor",
    [FUNCTION METHOD], other, |a| (B::Ge, ONE),
    with .operators(&["ge"]).sample(compared_to_zero));
binary!(logical_and = "logical_and(Tensor self, Tensor|Scalar other) -> Tensor",
    [FUNCTION METHOD COMMUTATIVE], other, |a| (B::LogicalAnd, ONE),
    with .sample(|| pos_args(vec![t(fx::mask()), Value::Bool(true)])));
binary!(logical_or = "logical_or(Tensor self, Tensor|Scalar other) -> Tensor",
    [FUNCTION METHOD COMMUTATIVE], other, |a| (B::LogicalOr, ONE),
    with .sample(|| pos_args(vec![t(fx::mask()), Value::Bool(true)])));
binary!(logical_xor = "logical_xor(Tensor self, Tensor|Scalar other) -> Tensor",
    [FUNCTION METHOD COMMUTATIVE], other, |a| (B::LogicalXor, ONE),
    with .sample(|| pos_args(vec![t(fx::mask()), Value::Bool(true)])));
// No in-place ops for the bitwise operators yet: `&=` and friends write the result back.
binary!(bitwise_and = "bitwise_and(Tensor|Scalar self, Tensor|Scalar other) -> Tensor",
    [FUNCTION METHOD COMMUTATIVE], other, |a| (B::BitwiseAnd, ONE),
    with .operators(&["and_", "iand"]).sample(|| ints_with(Value::Int(6))));
binary!(bitwise_or = "bitwise_or(Tensor|Scalar self, Tensor|Scalar other) -> Tensor",
    [FUNCTION METHOD COMMUTATIVE], other, |a| (B::BitwiseOr, ONE),
    with .operators(&["or_", "ior"]).sample(|| ints_with(Value::Int(6))));
binary!(bitwise_xor = "bitwise_xor(Tensor|Scalar self, Tensor|Scalar other) -> Tensor",
    [FUNCTION METHOD COMMUTATIVE], other, |a| (B::BitwiseXor, ONE),
    with .operators(&["xor", "ixor"]).sample(|| ints_with(Value::Int(6))));
binary!(atan2 = "atan2(Tensor self, Tensor other) -> Tensor", [FUNCTION METHOD], other,
    |a| (B::Atan2, ONE), with .vjp(&vjp::ATAN2).sample(x_y));
binary!(max_other = "max.other(Tensor self, Tensor other) -> Tensor",
    [FUNCTION METHOD COMMUTATIVE], other, |a| (B::Maximum, ONE),
    with .vjp(&vjp::MAXIMUM).sample(x_y));
binary!(min_other = "min.other(Tensor self, Tensor other) -> Tensor",
    [FUNCTION METHOD COMMUTATIVE], other, |a| (B::Minimum, ONE),
    with .vjp(&vjp::MINIMUM).sample(x_y));
binary!(fmod = "fmod(Tensor self, Tensor|Scalar other) -> Tensor", [FUNCTION METHOD], other,
    |a| (B::Fmod, ONE),
    with .vjp(&vjp::FMOD).sample(|| pos_args(vec![t(fx::x()), Value::Float(0.7)])));
binary!(hypot = "hypot(Tensor self, Tensor other) -> Tensor", [FUNCTION METHOD COMMUTATIVE],
    other, |a| (B::Hypot, ONE), with .vjp(&vjp::HYPOT).sample(x_y));
binary!(bitwise_left_shift =
    "bitwise_left_shift(Tensor|Scalar self, Tensor|Scalar other) -> Tensor", [FUNCTION METHOD],
    other, |a| (B::LeftShift, ONE),
    with .operators(&["lshift", "ilshift"]).sample(|| ints_with(Value::Int(2))));
binary!(bitwise_right_shift =
    "bitwise_right_shift(Tensor|Scalar self, Tensor|Scalar other) -> Tensor", [FUNCTION METHOD],
    other, |a| (B::RightShift, ONE),
    with .operators(&["rshift", "irshift"]).sample(|| ints_with(Value::Int(2))));

binary_!(add_ = "add_(Tensor self, Tensor|Scalar other, *, Scalar alpha=1) -> Tensor",
    [METHOD INPLACE], add = Add, other,
    with .operators(&["iadd"]).sample(|| with_kw(vec![t(fx::x().deep_clone()), t(fx::y())],
        "alpha", Value::Float(0.5))));
binary_!(sub_ = "sub_(Tensor self, Tensor|Scalar other, *, Scalar alpha=1) -> Tensor",
    [METHOD INPLACE], sub = Sub, other,
    with .operators(&["isub"]).sample(|| with_kw(vec![t(fx::x().deep_clone()), t(fx::y())],
        "alpha", Value::Float(0.5))));
binary_!(mul_ = "mul_(Tensor self, Tensor|Scalar other) -> Tensor", [METHOD INPLACE],
    mul = Mul, other,
    with .operators(&["imul"])
        .sample(|| pos_args(vec![t(fx::x().deep_clone()), Value::Int(3)])));
binary_!(div_ = "div_(Tensor self, Tensor|Scalar other, *, str? rounding_mode=None) -> Tensor",
    [METHOD INPLACE], div = Div, other,
    with .operators(&["itruediv"])
        .sample(|| pos_args(vec![t(fx::x().deep_clone()), t(fx::pos())])));
binary_!(pow_ = "pow_(Tensor self, Tensor|Scalar exponent) -> Tensor", [METHOD INPLACE],
    pow = Pow, exponent,
    with .operators(&["ipow"])
        .sample(|| pos_args(vec![t(fx::ramp().deep_clone()), Value::Float(0.5)])));
binary_!(remainder_ = "remainder_(Tensor self, Tensor|Scalar other) -> Tensor", [METHOD INPLACE],
    remainder = Remainder, other,
    with .operators(&["imod"])
        .sample(|| pos_args(vec![t(fx::x().deep_clone()), Value::Int(-2)])));
binary_!(fmod_ = "fmod_(Tensor self, Tensor|Scalar other) -> Tensor", [METHOD INPLACE],
    fmod = Fmod, other,
    with .sample(|| pos_args(vec![t(fx::x().deep_clone()), Value::Float(0.7)])));
binary_!(floor_divide_ = "floor_divide_(Tensor self, Tensor|Scalar other) -> Tensor",
    [METHOD INPLACE], floor_divide = FloorDivide, other,
    with .operators(&["ifloordiv"])
        .sample(|| pos_args(vec![t(fx::x().deep_clone()), Value::Int(-2)])));

/// The sample `clamp(x, -0.5, 0.5)`.
fn clamp_sample() -> Sample {
    pos_args(vec![t(fx::x()), Value::Float(-0.5), Value::Float(0.5)])
}

op! {
    clamp = "clamp(Tensor self, Tensor|Scalar? min=None, Tensor|Scalar? max=None) -> Tensor",
        Pointwise, [FUNCTION METHOD];
    meta(_, a) { Ok(vec![pointwise::clamp_meta(a.self_, a.min, a.max)?]) }
    eager(_, a) { Ok(vec![pointwise::clamp(a.self_, a.min, a.max)?]) }
    with .complex_error("clamp is not supported for complex types") .vjp(&vjp::CLAMP).sample(clamp_sample)
}

op! {
    clip = "clip(Tensor self, Tensor|Scalar? min=None, Tensor|Scalar? max=None) -> Tensor",
        Pointwise, [FUNCTION METHOD];
    meta(_, a) { Ok(vec![pointwise::clamp_meta(a.self_, a.min, a.max)?]) }
    eager(_, a) { Ok(vec![pointwise::clamp(a.self_, a.min, a.max)?]) }
    with .complex_error("clamp is not supported for complex types") .vjp(&vjp::CLAMP).sample(clamp_sample)
}

op! {
    clamp_min = "clamp_min(Tensor self, Tensor|Scalar min) -> Tensor", Pointwise, [FUNCTION METHOD];
    meta(_, a) { Ok(vec![pointwise::clamp_meta(a.self_, Some(a.min), None)?]) }
    eager(_, a) { Ok(vec![pointwise::clamp(a.self_, Some(a.min), None)?]) }
    with .complex_error("clamp is not supported for complex types") .vjp(&vjp::CLAMP_MIN).sample(|| pos_args(vec![t(fx::x()), Value::Float(0.1)]))
}

op! {
    clamp_max = "clamp_max(Tensor self, Tensor|Scalar max) -> Tensor", Pointwise, [FUNCTION METHOD];
    meta(_, a) { Ok(vec![pointwise::clamp_meta(a.self_, None, Some(a.max))?]) }
    eager(_, a) { Ok(vec![pointwise::clamp(a.self_, None, Some(a.max))?]) }
    with .complex_error("clamp is not supported for complex types") .vjp(&vjp::CLAMP_MAX).sample(|| pos_args(vec![t(fx::x()), Value::Float(0.1)]))
}

op! {
    clamp_ = "clamp_(Tensor self, Tensor|Scalar? min=None, Tensor|Scalar? max=None) -> Tensor",
        Pointwise, [METHOD INPLACE];
    meta(op, a) {
        inplace::check_no_internal_overlap(op, a.self_)?;
        let r = pointwise::clamp_meta(a.self_, a.min, a.max)?;
        inplace::check_into(a.self_, &r)?;
        Ok(vec![meta_of(a.self_)])
    }
    eager(op, a) {
        inplace::check_no_internal_overlap(op, a.self_)?;
        let tensors = [a.min.and_then(TensorOrScalar::tensor), a.max.and_then(TensorOrScalar::tensor)];
        inplace::check_inputs_overlap(a.self_, &tensors)?;
        pointwise::clamp_(a.self_, a.min, a.max)?;
        Ok(vec![a.self_.clone()])
    }
    with .complex_error("clamp is not supported for complex types") .functional(Op::Clamp)
        .sample(|| pos_args(vec![t(fx::x()), Value::Float(-0.5), Value::Float(0.5)]))
}

op! {
    r#where = "where(Tensor condition, Tensor|Scalar self, Tensor|Scalar other) -> Tensor",
        Pointwise, [FUNCTION];
    meta(_, a) { Ok(vec![pointwise::where_meta(a.condition, a.self_, a.other)?]) }
    eager(_, a) { Ok(vec![pointwise::where_(a.condition, a.self_, a.other)?]) }
    with .complex().vjp(&vjp::WHERE)
        .sample(|| pos_args(vec![t(fx::mask()), t(fx::x()), Value::Float(0.0)]))
}

op! {
    masked_fill = "masked_fill(Tensor self, Tensor mask, Tensor|Scalar value) -> Tensor",
        Pointwise, [FUNCTION METHOD];
    meta(_, a) { Ok(vec![pointwise::masked_fill_meta(a.self_, a.mask, a.value)?]) }
    eager(_, a) { Ok(vec![pointwise::masked_fill(a.self_, a.mask, a.value)?]) }
    with .complex().vjp(&vjp::MASKED_FILL)
        .sample(|| pos_args(vec![t(fx::x()), t(fx::mask()), Value::Float(-1.0)]))
}

op! {
    masked_fill_ = "masked_fill_(Tensor self, Tensor mask, Tensor|Scalar value) -> Tensor",
        Pointwise, [METHOD INPLACE];
    meta(op, a) {
        inplace::check_no_internal_overlap(op, a.self_)?;
        let r = pointwise::masked_fill_meta(a.self_, a.mask, a.value)?;
        inplace::check_into(a.self_, &r)?;
        Ok(vec![meta_of(a.self_)])
    }
    eager(op, a) {
        inplace::check_no_internal_overlap(op, a.self_)?;
        inplace::check_inputs_overlap(a.self_, &[Some(a.mask)])?;
        let r = pointwise::masked_fill(a.self_, a.mask, a.value)?;
        inplace::check_into(a.self_, &meta_of(&r))?;
        a.self_.copy_(&r)?;
        Ok(vec![a.self_.clone()])
    }
    with .functional(Op::MaskedFill).complex()
        .sample(|| pos_args(vec![t(fx::x().deep_clone()), t(fx::mask()), Value::Float(-1.0)]))
}

// === Appended: ops added through their definitions alone ===

op! {
    xlogy = "xlogy(Tensor|Scalar self, Tensor|Scalar other) -> Tensor", Pointwise, [FUNCTION METHOD];
    items {
        /// `x * log(y)`, 0 where `x == 0`, NaN where `y` is NaN (PyTorch's `xlogy`).
        #[inline(always)]
        pub(crate) fn expr<T: Real>(x: T, y: T) -> T {
            let zero = T::konst(0.0);
            let finite_y = T::select(x.cmp(Cmp::Eq, zero), zero, x * y.ln());
            T::select(y.is_nan(), T::konst(f64::NAN), finite_y)
        }
    }
    meta(_, a) { Ok(vec![float_expr::binary_meta("xlogy", a.self_, a.other)?]) }
    eager(_, a) { Ok(vec![float_expr::binary("xlogy", a.self_, a.other, (expr::<f32>, expr::<f64>))?]) }
    with .vjp(&vjp::XLOGY)
        .sample(|| pos_args(vec![t(fx::pos()), t(fx::ramp())]))
        .scalar(|_| Ok(Some(record(2, |v| expr(v[0], v[1])))))
}
