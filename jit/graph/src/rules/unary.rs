//! Unary pointwise ops and their in-place forms. Each op's `kind` maps its typed arguments to the
//! kernel-level [`UnaryOp`] (with parameters: `leaky_relu`'s slope); the meta rule and the kernel
//! are `rynamo_tensor`'s `unary_meta` / `unary` of that kind, and the scalar expression backends
//! lower on floats is that kind's `unary_expr::float_expr` (checked against the kernel there).

use rynamo_tensor::UnaryOp as U;
use rynamo_tensor::expr::{Cmp, Real, record, try_record};
use rynamo_tensor::kernels::special;
use rynamo_tensor::kernels::unary_expr::float_expr;
use rynamo_tensor::ops::{float_expr, pointwise};

use super::inplace;
use crate::autograd::vjp::pointwise as vjp;
use crate::def::op;
use crate::samples::{fx, pos_args, t, with_kw};
use crate::{Error, Op, Result, Value};

/// One unary op: `|a| kind` gives its kernel op from its typed arguments `a`.
macro_rules! unary {
    ($name:ident = $schema:literal, [$($flag:ident)*], |$a:ident| $kind:expr $(, with $($with:tt)*)?) => {
        op! {
            $name = $schema, Pointwise, [$($flag)*];
            items {
                /// The kernel op for these arguments.
                #[allow(unused_variables, reason = "most kinds take no parameters")]
                pub(crate) fn kind<T>($a: &Args<'_, T>) -> Result<U> {
                    Ok($kind)
                }
            }
            meta(_, a) { Ok(vec![pointwise::unary_meta(kind(&a)?, a.self_)?]) }
            eager(_, a) { Ok(vec![pointwise::unary(kind(&a)?, a.self_)?]) }
            with .complex().scalar(|args| {
                let k = kind(&Args::read(args)?)?;
                Ok(try_record(1, |v| float_expr(k, v[0])))
            }) $($($with)*)?
        }
    };
}

/// The in-place form of unary op `$twin` (`neg_` of `neg`): the same arguments, read with the
/// twin's accessors, written back into `self`.
macro_rules! unary_ {
    ($name:ident = $schema:literal, [$($flag:ident)*], $twin:ident = $Twin:ident $(, with $($with:tt)*)?) => {
        op! {
            $name = $schema, Pointwise, [$($flag)*];
            meta(op, a, args) {
                let k = super::$twin::kind(&super::$twin::Args::read(args)?)?;
                inplace::unary_meta(op, a.self_, k)
            }
            eager(op, a, args) {
                let k = super::$twin::kind(&super::$twin::Args::read(args)?)?;
                inplace::unary_eager(op, a.self_, k)
            }
            with .functional(Op::$Twin).complex() $($($with)*)?
        }
    };
}

/// A fresh copy of the default sample's tensor (in-place samples write into it).
fn mine() -> crate::def::Sample {
    pos_args(vec![t(fx::x().deep_clone())])
}

fn ramp() -> crate::def::Sample {
    pos_args(vec![t(fx::ramp().deep_clone())])
}

unary!(neg = "neg(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Neg,
    with .complex_grad().vjp(&vjp::NEG).operators(&["neg"]));
unary!(abs = "abs(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Abs,
    with .complex_grad().vjp(&vjp::ABS).operators(&["abs"]));
unary!(exp = "exp(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Exp,
    with .complex_grad().vjp(&vjp::EXP));
unary!(exp2 = "exp2(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Exp2, with .vjp(&vjp::EXP2));
unary!(expm1 = "expm1(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Expm1,
    with .vjp(&vjp::EXPM1));
unary!(log = "log(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Log,
    with .vjp(&vjp::LOG).sample(crate::samples::pos));
unary!(log2 = "log2(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Log2,
    with .vjp(&vjp::LOG2).sample(crate::samples::pos));
unary!(log10 = "log10(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Log10,
    with .vjp(&vjp::LOG10).sample(crate::samples::pos));
unary!(log1p = "log1p(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Log1p,
    with .vjp(&vjp::LOG1P));
unary!(sqrt = "sqrt(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Sqrt,
    with .vjp(&vjp::SQRT).sample(crate::samples::pos));
unary!(rsqrt = "rsqrt(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Rsqrt,
    with .vjp(&vjp::RSQRT).sample(crate::samples::pos));
unary!(sin = "sin(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Sin, with .vjp(&vjp::SIN));
unary!(cos = "cos(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Cos, with .vjp(&vjp::COS));
unary!(tan = "tan(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Tan, with .vjp(&vjp::TAN));
unary!(asin = "asin(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Asin,
    with .vjp(&vjp::ASIN).sample(|| pos_args(vec![t(fx::pos().to_dtype(rynamo_tensor::DType::Float64))])));
unary!(acos = "acos(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Acos,
    with .vjp(&vjp::ACOS).sample(|| pos_args(vec![t(fx::pos().to_dtype(rynamo_tensor::DType::Float64))])));
unary!(atan = "atan(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Atan, with .vjp(&vjp::ATAN));
unary!(sinh = "sinh(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Sinh, with .vjp(&vjp::SINH));
unary!(cosh = "cosh(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Cosh, with .vjp(&vjp::COSH));
unary!(tanh = "tanh(Tensor self) -> Tensor", [FUNCTION METHOD NN_FUNCTIONAL], |a| U::Tanh,
    with .vjp(&vjp::TANH));
unary!(sigmoid = "sigmoid(Tensor self) -> Tensor", [FUNCTION METHOD NN_FUNCTIONAL], |a| U::Sigmoid,
    with .vjp(&vjp::SIGMOID));
unary!(relu = "relu(Tensor self) -> Tensor", [FUNCTION METHOD NN_FUNCTIONAL], |a| U::Relu,
    with .vjp(&vjp::RELU));
unary!(
    relu6 = "relu6(Tensor self) -> Tensor",
    [NN_FUNCTIONAL],
    |a| U::Relu6,
    with.vjp(&vjp::RELU6)
);
unary!(
    leaky_relu = "leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
    [NN_FUNCTIONAL],
    |a| U::LeakyRelu {
        slope: a.negative_slope.to_f64()
    },
    with.vjp(&vjp::LEAKY)
        .sample(|| pos_args(vec![t(fx::x()), Value::Float(0.2)]))
);
unary!(
    elu = "elu(Tensor self, Scalar alpha=1.0) -> Tensor",
    [NN_FUNCTIONAL],
    |a| U::Elu {
        alpha: a.alpha.to_f64()
    },
    with.vjp(&vjp::ELU)
);
unary!(
    gelu = "gelu(Tensor self, *, str approximate='none') -> Tensor",
    [NN_FUNCTIONAL],
    |a| match a.approximate {
        "none" => U::Gelu { tanh: false },
        "tanh" => U::Gelu { tanh: true },
        _ => {
            return Err(Error::Tensor(rynamo_tensor::Error::Runtime(
                "approximate argument must be either none or tanh.".into(),
            )));
        }
    },
    with.vjp(&vjp::GELU).sample(|| with_kw(
        vec![t(fx::x())],
        "approximate",
        Value::Str("tanh".into())
    ))
);
unary!(
    silu = "silu(Tensor self) -> Tensor",
    [NN_FUNCTIONAL],
    |a| U::Silu,
    with.vjp(&vjp::SILU)
);
unary!(
    mish = "mish(Tensor self) -> Tensor",
    [NN_FUNCTIONAL],
    |a| U::Mish,
    with.vjp(&vjp::MISH)
);
unary!(
    softplus = "softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor",
    [NN_FUNCTIONAL],
    |a| U::Softplus {
        beta: a.beta.to_f64(),
        threshold: a.threshold.to_f64()
    },
    with.vjp(&vjp::SOFTPLUS)
);
unary!(erf = "erf(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Erf, with .vjp(&vjp::ERF));
unary!(floor = "floor(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Floor,
    with .vjp(&vjp::FLOOR));
unary!(ceil = "ceil(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Ceil, with .vjp(&vjp::CEIL));
unary!(round = "round(Tensor self, *, int decimals=0) -> Tensor", [FUNCTION METHOD],
    |a| U::Round { decimals: a.decimals },
    with .vjp(&vjp::ROUND).sample(|| with_kw(vec![t(fx::x())], "decimals", Value::Int(2))));
unary!(trunc = "trunc(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Trunc,
    with .vjp(&vjp::TRUNC));
unary!(frac = "frac(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Frac, with .vjp(&vjp::FRAC));
unary!(sign = "sign(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Sign, with .vjp(&vjp::SIGN));
unary!(reciprocal = "reciprocal(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Reciprocal,
    with .vjp(&vjp::RECIP).sample(crate::samples::pos));
unary!(square = "square(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::Square,
    with .vjp(&vjp::SQUARE));
unary!(logical_not = "logical_not(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::LogicalNot,
    with .sample(|| pos_args(vec![t(fx::ints())])));
unary!(bitwise_not = "bitwise_not(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::BitwiseNot,
    with .sample(|| pos_args(vec![t(fx::ints())])).operators(&["invert"]));
unary!(is_nan = "isnan(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::IsNan);
unary!(is_inf = "isinf(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::IsInf);
unary!(is_finite = "isfinite(Tensor self) -> Tensor", [FUNCTION METHOD], |a| U::IsFinite);
unary!(nan_to_num = "nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor",
    [FUNCTION METHOD],
    |a| U::NanToNum { nan: a.nan.unwrap_or(0.0), posinf: a.posinf, neginf: a.neginf },
    with .vjp(&vjp::NAN_TO_NUM).sample(|| pos_args(vec![t(fx::x()), Value::Float(0.0)])));

unary_!(neg_ = "neg_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], neg = Neg, with .sample(mine));
unary_!(abs_ = "abs_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], abs = Abs, with .sample(mine));
unary_!(exp_ = "exp_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], exp = Exp, with .sample(mine));
unary_!(log_ = "log_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], log = Log, with .sample(ramp));
unary_!(sqrt_ = "sqrt_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], sqrt = Sqrt,
    with .sample(ramp));
unary_!(rsqrt_ = "rsqrt_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], rsqrt = Rsqrt,
    with .sample(ramp));
unary_!(sin_ = "sin_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], sin = Sin, with .sample(mine));
unary_!(cos_ = "cos_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], cos = Cos, with .sample(mine));
unary_!(tanh_ = "tanh_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], tanh = Tanh,
    with .sample(mine));
unary_!(sigmoid_ = "sigmoid_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], sigmoid = Sigmoid,
    with .sample(mine));
unary_!(relu_ = "relu_(Tensor self) -> Tensor", [FUNCTION METHOD NN_FUNCTIONAL INPLACE], relu = Relu,
    with .sample(mine));
unary_!(floor_ = "floor_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], floor = Floor,
    with .sample(mine));
unary_!(ceil_ = "ceil_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], ceil = Ceil,
    with .sample(mine));
unary_!(round_ = "round_(Tensor self, *, int decimals=0) -> Tensor", [FUNCTION METHOD INPLACE],
    round = Round,
    with .sample(|| with_kw(vec![t(fx::x().deep_clone())], "decimals", Value::Int(1))));
unary_!(trunc_ = "trunc_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE], trunc = Trunc,
    with .sample(mine));
unary_!(reciprocal_ = "reciprocal_(Tensor self) -> Tensor", [FUNCTION METHOD INPLACE],
    reciprocal = Reciprocal, with .sample(ramp));

// === Appended: ops added through their definitions alone ===

/// A floating-point op given by its scalar expression `|a, x| ...` (typed arguments `a`, element
/// `x`): the eager kernel maps it over `f32`/`f64` elements (`float_expr`) and the JIT lowers
/// the recording of the same function. Integer inputs promote to the default float dtype.
macro_rules! float_unary {
    ($name:ident = $schema:literal, [$($flag:ident)*], |$a:ident, $x:ident| $expr:expr
        $(, with $($with:tt)*)?) => {
        op! {
            $name = $schema, Pointwise, [$($flag)*];
            items {
                /// The op's scalar expression on element `x`.
                #[inline(always)]
                #[allow(unused_variables, reason = "not every expression has parameters")]
                pub(crate) fn expr<T: Real, U>($a: &Args<'_, U>, $x: T) -> T {
                    $expr
                }
            }
            meta(_, a) { Ok(vec![float_expr::unary_meta(a.self_)]) }
            eager(_, a) {
                Ok(vec![float_expr::unary(a.self_, (|v: f32| expr(&a, v), |v: f64| expr(&a, v)))?])
            }
            with .scalar(|args| {
                let a = Args::read(args)?;
                Ok(Some(record(1, |v| expr(&a, v[0]))))
            }) $($($with)*)?
        }
    };
}

/// The in-place form of float expression op `$twin`.
macro_rules! float_unary_ {
    ($name:ident = $schema:literal, [$($flag:ident)*], $twin:ident = $Twin:ident
        $(, with $($with:tt)*)?) => {
        op! {
            $name = $schema, Pointwise, [$($flag)*];
            meta(op, a) {
                inplace::check_no_internal_overlap(op, a.self_)?;
                inplace::check_into(a.self_, &float_expr::unary_meta(a.self_))?;
                Ok(vec![super::super::meta_of(a.self_)])
            }
            eager(op, a, args) {
                let f = super::$twin::Args::read(args)?;
                inplace::check_no_internal_overlap(op, a.self_)?;
                let fns = (|v: f32| super::$twin::expr(&f, v), |v: f64| super::$twin::expr(&f, v));
                float_expr::unary_(a.self_, fns)?;
                Ok(vec![a.self_.clone()])
            }
            with .functional(Op::$Twin) $($($with)*)?
        }
    };
}
pub(crate) use {float_unary, float_unary_, unary_};

// `log(z / (1 - z))` with `z = x` clamped to `[eps, 1 - eps]` when `eps` is given and not
// negative (a negative `eps` means none, as in PyTorch). NaN stays NaN.
float_unary!(logit = "logit(Tensor self, float? eps=None) -> Tensor", [FUNCTION METHOD],
    |a, x| {
        let one = T::konst(1.0);
        let z = match a.eps.filter(|e| *e >= 0.0) {
            Some(e) => {
                let lo = T::konst(e);
                let hi = one - lo;
                T::select(x.cmp(Cmp::Lt, lo), lo, T::select(x.cmp(Cmp::Gt, hi), hi, x))
            }
            None => x,
        };
        (z / (one - z)).ln()
    },
    with.vjp(&vjp::LOGIT).sample(|| pos_args(vec![t(fx::unit())])));
float_unary_!(logit_ = "logit_(Tensor self, float? eps=None) -> Tensor", [FUNCTION METHOD INPLACE],
    logit = Logit,
    with.sample(|| with_kw(vec![t(fx::unit().deep_clone())], "eps", Value::Float(0.2))));
unary_!(nan_to_num_ =
    "nan_to_num_(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor",
    [FUNCTION METHOD INPLACE], nan_to_num = NanToNum,
    with.sample(|| pos_args(vec![t(fx::x().deep_clone()), Value::Float(0.0)])));
float_unary!(erfinv = "erfinv(Tensor self) -> Tensor", [FUNCTION METHOD], |a, x| special::erfinv(x),
    with.vjp(&vjp::ERFINV).sample(|| pos_args(vec![t(fx::unit())])));
