//! Unary pointwise ops: the dtype rule ([`UnaryOp::out_dtype`]) and the kernels.

use super::copy::through_dtype;
use super::map::{map1, map1_patched};
use super::math::{Flt, Int};
use super::unary_expr::float_expr;
use crate::error::bail;
use crate::{DEFAULT_FLOAT, DType, Element, Error, Result, Tensor};

/// A unary pointwise op with its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(
    missing_docs,
    reason = "each variant is the PyTorch op of the same name"
)]
pub enum UnaryOp {
    Neg,
    Abs,
    Exp,
    Exp2,
    Expm1,
    Log,
    Log2,
    Log10,
    Log1p,
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Sigmoid,
    Relu,
    Relu6,
    LeakyRelu {
        slope: f64,
    },
    Elu {
        alpha: f64,
    },
    Gelu {
        tanh: bool,
    },
    Silu,
    Mish,
    Softplus {
        beta: f64,
        threshold: f64,
    },
    Erf,
    Floor,
    Ceil,
    Round {
        decimals: i64,
    },
    Trunc,
    Frac,
    Sign,
    Reciprocal,
    Square,
    LogicalNot,
    BitwiseNot,
    IsNan,
    IsInf,
    IsFinite,
    NanToNum {
        nan: f64,
        posinf: Option<f64>,
        neginf: Option<f64>,
    },
}

/// How an op treats its input dtype.
enum Class {
    /// Float result; integers and bool promote to the default float dtype.
    FloatPromote,
    /// Float inputs only (activations that PyTorch does not define on integers).
    FloatOnly(&'static str),
    /// Same dtype as the input (integers computed exactly).
    Same,
    /// Bool result.
    Predicate,
}

impl UnaryOp {
    /// PyTorch's name of the op.
    pub fn name(self) -> &'static str {
        use UnaryOp::*;
        match self {
            Neg => "neg",
            Abs => "abs",
            Exp => "exp",
            Exp2 => "exp2",
            Expm1 => "expm1",
            Log => "log",
            Log2 => "log2",
            Log10 => "log10",
            Log1p => "log1p",
            Sqrt => "sqrt",
            Rsqrt => "rsqrt",
            Sin => "sin",
            Cos => "cos",
            Tan => "tan",
            Asin => "asin",
            Acos => "acos",
            Atan => "atan",
            Sinh => "sinh",
            Cosh => "cosh",
            Tanh => "tanh",
            Sigmoid => "sigmoid",
            Relu => "relu",
            Relu6 => "relu6",
            LeakyRelu { .. } => "leaky_relu",
            Elu { .. } => "elu",
            Gelu { .. } => "gelu",
            Silu => "silu",
            Mish => "mish",
            Softplus { .. } => "softplus",
            Erf => "erf",
            Floor => "floor",
            Ceil => "ceil",
            Round { .. } => "round",
            Trunc => "trunc",
            Frac => "frac",
            Sign => "sign",
            Reciprocal => "reciprocal",
            Square => "square",
            LogicalNot => "logical_not",
            BitwiseNot => "bitwise_not",
            IsNan => "isnan",
            IsInf => "isinf",
            IsFinite => "isfinite",
            NanToNum { .. } => "nan_to_num",
        }
    }

    fn class(self) -> Class {
        use UnaryOp::*;
        match self {
            Exp | Exp2 | Expm1 | Log | Log2 | Log10 | Log1p | Sqrt | Rsqrt | Sin | Cos | Tan
            | Asin | Acos | Atan | Sinh | Cosh | Tanh | Sigmoid | Erf | Reciprocal => {
                Class::FloatPromote
            }
            LeakyRelu { .. } => Class::FloatOnly("leaky_relu_cpu"),
            Elu { .. } => Class::FloatOnly("elu_cpu"),
            Gelu { .. } => Class::FloatOnly("GeluKernelImpl"),
            Silu => Class::FloatOnly("silu_cpu"),
            Mish => Class::FloatOnly("mish_cpu"),
            Softplus { .. } => Class::FloatOnly("softplus_cpu"),
            Frac => Class::FloatOnly("frac_cpu"),
            Neg
            | Abs
            | Relu
            | Relu6
            | Floor
            | Ceil
            | Round { .. }
            | Trunc
            | Sign
            | Square
            | BitwiseNot
            | NanToNum { .. } => Class::Same,
            LogicalNot | IsNan | IsInf | IsFinite => Class::Predicate,
        }
    }

    /// The output dtype for an input of `x`, or PyTorch's error for unsupported dtypes.
    pub fn out_dtype(self, x: DType) -> Result<DType> {
        if x.is_complex() {
            return crate::ops::complex::unary_out_dtype(self, x);
        }
        match self.class() {
            Class::FloatPromote => Ok(if x.is_floating_point() {
                x
            } else {
                DEFAULT_FLOAT
            }),
            Class::FloatOnly(kernel) => {
                if x.is_floating_point() {
                    Ok(x)
                } else {
                    Err(Error::NotImplementedFor {
                        op: kernel,
                        dtype: x.aten_name(),
                    })
                }
            }
            Class::Predicate => Ok(DType::Bool),
            Class::Same => match (self, x) {
                (UnaryOp::Neg, DType::Bool) => Err(Error::NotImplemented(
                    "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.".into(),
                )),
                (UnaryOp::BitwiseNot, d) if d.is_floating_point() => {
                    Err(Error::NotImplementedFor {
                        op: "bitwise_not_cpu",
                        dtype: d.aten_name(),
                    })
                }
                (UnaryOp::Abs | UnaryOp::Relu | UnaryOp::Relu6, DType::Bool) => {
                    Err(Error::NotImplementedFor {
                        op: "clamp_min_cpu",
                        dtype: "Bool",
                    })
                }
                (UnaryOp::Square, DType::Bool) => Ok(DType::Int64),
                (_, d) => Ok(d),
            },
        }
    }
}

/// `op(x)` into a new tensor.
pub fn unary(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    let dt = op.out_dtype(x.dtype())?;
    let out = Tensor::empty_pointwise(x.shape(), dt, &[(x.shape(), x.strides())]);
    unary_into(op, x, &out)?;
    Ok(out)
}

/// `out = op(x)`; `out` has `x`'s shape and `op.out_dtype(x)` (or any dtype it casts into).
pub fn unary_into(op: UnaryOp, x: &Tensor, out: &Tensor) -> Result<()> {
    if x.dtype().is_complex() {
        let r = crate::ops::complex::unary(op, x)?;
        crate::kernels::copy::copy_cast(out, &r);
        return Ok(());
    }
    let dt = op.out_dtype(x.dtype())?;
    match op.class() {
        Class::Predicate => {
            crate::dispatch_all!(x.dtype(), T => predicate::<T>(op, out, x));
            return Ok(());
        }
        Class::Same if !dt.is_floating_point() => {
            let src = x.to_dtype(dt);
            return through_dtype(out, dt, |target| {
                match dt {
                    DType::Bool => bool_kernel(op, target, &src)?,
                    DType::UInt8 => int_kernel::<u8>(op, target, &src),
                    DType::Int8 => int_kernel::<i8>(op, target, &src),
                    DType::Int16 => int_kernel::<i16>(op, target, &src),
                    DType::Int32 => int_kernel::<i32>(op, target, &src),
                    DType::Int64 => int_kernel::<i64>(op, target, &src),
                    _ => unreachable!("invariant: integral dtype"),
                }
                Ok(())
            });
        }
        _ => {}
    }
    let op = half_limits(op, dt);
    let c = dt.compute_dtype();
    let src = x.to_dtype(c);
    through_dtype(out, c, |target| {
        match c {
            DType::Float32 => float_kernel::<f32>(op, target, &src),
            DType::Float64 => float_kernel::<f64>(op, target, &src),
            _ => unreachable!("invariant: float compute dtype"),
        }
        Ok(())
    })
}

/// `nan_to_num`'s default infinities are the finite limits of the *output* dtype, which for half
/// types are not the limits of the f32 compute type.
fn half_limits(op: UnaryOp, dt: DType) -> UnaryOp {
    let lim = match dt {
        DType::Float16 => half::f16::MAX.to_f64(),
        DType::BFloat16 => half::bf16::MAX.to_f64(),
        _ => return op,
    };
    match op {
        UnaryOp::NanToNum {
            nan,
            posinf,
            neginf,
        } => UnaryOp::NanToNum {
            nan,
            posinf: Some(posinf.unwrap_or(lim)),
            neginf: Some(neginf.unwrap_or(-lim)),
        },
        op => op,
    }
}

fn predicate<T: Element>(op: UnaryOp, out: &Tensor, x: &Tensor) {
    let is_nan = |v: T| T::IS_FLOAT && v.to_f64().is_nan();
    let is_inf = |v: T| T::IS_FLOAT && v.to_f64().is_infinite();
    match op {
        UnaryOp::LogicalNot => map1::<T, bool>(out, x, move |v| !v.to_bool()),
        UnaryOp::IsNan => map1::<T, bool>(out, x, is_nan),
        UnaryOp::IsInf => map1::<T, bool>(out, x, is_inf),
        UnaryOp::IsFinite => map1::<T, bool>(out, x, move |v| !is_nan(v) && !is_inf(v)),
        _ => unreachable!("invariant: predicate op"),
    }
}

fn bool_kernel(op: UnaryOp, out: &Tensor, x: &Tensor) -> Result<()> {
    match op {
        UnaryOp::BitwiseNot => map1::<bool, bool>(out, x, move |v| !v),
        UnaryOp::Floor
        | UnaryOp::Ceil
        | UnaryOp::Round { .. }
        | UnaryOp::Trunc
        | UnaryOp::Sign
        | UnaryOp::NanToNum { .. } => map1::<bool, bool>(out, x, move |v| v),
        _ => bail!(Runtime, "\"{}\" not implemented for 'Bool'", op.name()),
    }
    Ok(())
}

fn int_kernel<T: Int>(op: UnaryOp, out: &Tensor, x: &Tensor) {
    let (zero, six) = (T::ZERO, T::from_i64(6));
    match op {
        UnaryOp::Neg => map1::<T, T>(out, x, move |v| v.wrapping_neg()),
        UnaryOp::Abs => map1::<T, T>(out, x, move |v| v.wabs()),
        UnaryOp::Relu => map1::<T, T>(out, x, move |v| if v > zero { v } else { zero }),
        UnaryOp::Relu6 => map1::<T, T>(out, x, move |v| v.max(zero).min(six)),
        UnaryOp::Sign => map1::<T, T>(out, x, move |v| {
            T::from_i64(i64::from(v > zero) - i64::from(v < zero))
        }),
        UnaryOp::Square => map1::<T, T>(out, x, move |v| v.wrapping_mul(&v)),
        UnaryOp::BitwiseNot => map1::<T, T>(out, x, move |v| !v),
        // Rounding and nan_to_num are the identity on integers.
        _ => map1::<T, T>(out, x, move |v| v),
    }
}

/// The float kernels run the op's one scalar expression ([`float_expr`], which the JIT lowers
/// too), monomorphised per variant: each arm names its variant as a constant, so the match inside
/// `float_expr` folds away and the loop vectorises as a hand-written closure would.
fn float_kernel<F: Flt>(op: UnaryOp, out: &Tensor, x: &Tensor) {
    use UnaryOp::*;
    macro_rules! by_expr {
        ($($pat:pat => $op:expr),* $(,)?) => {
            match op {
                $($pat => map1::<F, F>(out, x, move |v| expr($op, v)),)*
                // The vectorised fast path with the library call for the rare arguments: the
                // schedule of `Real::sin`/`Real::cos`, which the expression calls per element.
                Sin => map1_patched::<F, F>(out, x, move |v| v.sin_v(), |v| v.trig_rare(), |v| v.sin()),
                Cos => map1_patched::<F, F>(out, x, move |v| v.cos_v(), |v| v.trig_rare(), |v| v.cos()),
                NanToNum { nan, posinf, neginf } => nan_to_num::<F>(out, x, nan, posinf, neginf),
                BitwiseNot | LogicalNot | IsNan | IsInf | IsFinite => {
                    unreachable!("invariant: rejected by out_dtype or handled as predicate")
                }
            }
        };
    }
    by_expr!(
        Neg => Neg, Abs => Abs, Exp => Exp, Exp2 => Exp2, Expm1 => Expm1, Log => Log,
        Log2 => Log2, Log10 => Log10, Log1p => Log1p, Sqrt => Sqrt, Rsqrt => Rsqrt, Tan => Tan,
        Asin => Asin, Acos => Acos, Atan => Atan, Sinh => Sinh, Cosh => Cosh, Tanh => Tanh,
        Sigmoid => Sigmoid, Relu => Relu, Relu6 => Relu6,
        LeakyRelu { slope } => LeakyRelu { slope }, Elu { alpha } => Elu { alpha },
        Gelu { tanh: false } => Gelu { tanh: false }, Gelu { tanh: true } => Gelu { tanh: true },
        Silu => Silu, Mish => Mish,
        Softplus { beta, threshold } => Softplus { beta, threshold },
        Erf => Erf, Floor => Floor, Ceil => Ceil,
        Round { decimals: 0 } => Round { decimals: 0 }, Round { decimals } => Round { decimals },
        Trunc => Trunc, Frac => Frac, Sign => Sign, Reciprocal => Reciprocal, Square => Square,
    )
}

#[inline(always)]
fn expr<F: Flt>(op: UnaryOp, v: F) -> F {
    float_expr(op, v).expect("invariant: every arithmetic unary op has an expression")
}

/// `nan_to_num`'s default bounds are the finite limits of the output dtype, which an expression
/// over the compute type cannot name (see [`float_expr`]).
fn nan_to_num<F: Flt>(
    out: &Tensor,
    x: &Tensor,
    nan: f64,
    posinf: Option<f64>,
    neginf: Option<f64>,
) {
    let n = F::c(nan);
    let p = posinf.map_or(F::max_value(), F::c);
    let m = neginf.map_or(F::min_value(), F::c);
    map1::<F, F>(out, x, move |v| {
        if v.is_nan() {
            n
        } else if v == F::infinity() {
            p
        } else if v == F::neg_infinity() {
            m
        } else {
            v
        }
    })
}
