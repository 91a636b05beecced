//! The float math of the unary kernels ([`UnaryOp`]) as scalar expressions (`crate::expr`): what
//! the JIT lowers for a unary op on floats (the op's `OpDef::scalar` records [`float_expr`]), so
//! the JIT states no op's formula itself. Each expression computes what `unary.rs`'s float kernel
//! computes, in its operation order; `tests::expressions_match_the_eager_kernels` checks it.
//!
//! The library functions that neither side vectorises (`exp2`, `asin`, ...) are [`ScalarFn1`]s
//! over the same `std` functions the eager kernel calls.

use super::math::{Flt, softplus};
use super::special_fns::scalar_fn;
use super::unary::UnaryOp;
use crate::expr::{Cmp, Real, ScalarFn1};

scalar_fn!(EXP2, exp2, "exp2", f32::exp2, f64::exp2);
scalar_fn!(EXPM1, expm1, "expm1", f32::exp_m1, f64::exp_m1);
scalar_fn!(LOG2, log2, "log2", f32::log2, f64::log2);
scalar_fn!(LOG10, log10, "log10", f32::log10, f64::log10);
scalar_fn!(LOG1P, log1p, "log1p", f32::ln_1p, f64::ln_1p);
scalar_fn!(TAN, tan, "tan", f32::tan, f64::tan);
scalar_fn!(ASIN, asin, "asin", f32::asin, f64::asin);
scalar_fn!(ACOS, acos, "acos", f32::acos, f64::acos);
scalar_fn!(ATAN, atan, "atan", f32::atan, f64::atan);
scalar_fn!(SINH, sinh, "sinh", f32::sinh, f64::sinh);
scalar_fn!(COSH, cosh, "cosh", f32::cosh, f64::cosh);
scalar_fn!(MISH, mish, "mish", mish_of::<f32>, mish_of::<f64>);

/// `x * tanh(softplus(x))`, with the vectorisable `tanh` (as eager's `mish` kernel).
fn mish_of<F: Flt>(x: F) -> F {
    x * softplus(x, F::one(), F::c(20.0)).tanh_v()
}

/// `op(x)` for a float `x`, or `None` for the ops with no float arithmetic of their own
/// (predicates and bitwise ops) and for `nan_to_num`, whose default bounds are the finite limits
/// of the *output* dtype (half types included), which an expression over the compute type cannot
/// name.
#[inline(always)]
pub fn float_expr<T: Real>(op: UnaryOp, x: T) -> Option<T> {
    use UnaryOp::*;
    let k = T::konst;
    Some(match op {
        Neg => -x,
        Abs => x.abs(),
        Exp => x.exp(),
        Exp2 => exp2(x),
        Expm1 => expm1(x),
        Log => x.ln(),
        Log2 => log2(x),
        Log10 => log10(x),
        Log1p => log1p(x),
        Sqrt => x.sqrt(),
        Rsqrt => k(1.0) / x.sqrt(),
        Sin => x.sin(),
        Cos => x.cos(),
        Tan => tan(x),
        Asin => asin(x),
        Acos => acos(x),
        Atan => atan(x),
        Sinh => sinh(x),
        Cosh => cosh(x),
        Tanh => x.tanh(),
        Sigmoid => x.sigmoid(),
        Relu => x.relu(),
        Relu6 => x.relu().min(k(6.0)),
        LeakyRelu { slope } => T::select(x.cmp(Cmp::Gt, k(0.0)), x, x * k(slope)),
        Elu { alpha } => T::select(x.cmp(Cmp::Gt, k(0.0)), x, k(alpha) * expm1(x)),
        Gelu { tanh: false } => {
            k(0.5) * x * (k(1.0) + (x * k(std::f64::consts::FRAC_1_SQRT_2)).erf())
        }
        Gelu { tanh: true } => {
            // PyTorch's operation order (`x * x * x` first), as eager's `gelu_tanh`.
            let beta = k(std::f64::consts::SQRT_2 * std::f64::consts::FRAC_2_SQRT_PI * 0.5);
            let inner = beta * (x + k(0.044715) * (x * x * x));
            k(0.5) * x * (k(1.0) + inner.tanh())
        }
        Silu => x * x.sigmoid(),
        Mish => mish(x),
        Softplus { beta, threshold } => {
            let (b, t) = (k(beta), k(threshold));
            let xb = x * b;
            T::select(xb.cmp(Cmp::Gt, t), x, log1p(xb.exp()) / b)
        }
        Erf => x.erf(),
        Floor => x.floor(),
        Ceil => x.ceil(),
        Round { decimals: 0 } => x.round_even(),
        Round { decimals } => {
            // Scale by 10^|d| as PyTorch does (multiply for d > 0, divide for d < 0).
            let ten = k(10f64.powi(decimals.unsigned_abs() as i32));
            if decimals > 0 {
                (x * ten).round_even() / ten
            } else {
                (x / ten).round_even() * ten
            }
        }
        Trunc => x.trunc(),
        Frac => x - x.trunc(),
        // PyTorch's `(0 < x) - (x < 0)`: NaN and both zeros give +0.
        Sign => T::select(
            x.cmp(Cmp::Gt, k(0.0)),
            k(1.0),
            T::select(x.cmp(Cmp::Lt, k(0.0)), k(-1.0), k(0.0)),
        ),
        Reciprocal => k(1.0) / x,
        Square => x * x,
        NanToNum { .. } | LogicalNot | BitwiseNot | IsNan | IsInf | IsFinite => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DType, Tensor};

    /// Inputs across each op's domain and its edges: zeros of both signs, NaN, infinities,
    /// halves (rounding ties), values past softplus's threshold and past sin's fast range.
    const XS: [f64; 22] = [
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        2.5,
        -2.5,
        0.3,
        -0.7,
        0.999,
        3.0,
        -4.25,
        7.0,
        21.0,
        -30.0,
        100.0,
        1e6,
        -3e9,
        1e-30,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];

    fn ops() -> Vec<UnaryOp> {
        use UnaryOp::*;
        vec![
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
            LeakyRelu { slope: 0.2 },
            Elu { alpha: 1.5 },
            Gelu { tanh: false },
            Gelu { tanh: true },
            Silu,
            Mish,
            Softplus {
                beta: 2.0,
                threshold: 5.0,
            },
            Erf,
            Floor,
            Ceil,
            Round { decimals: 0 },
            Round { decimals: 2 },
            Round { decimals: -1 },
            Trunc,
            Frac,
            Sign,
            Reciprocal,
            Square,
        ]
    }

    /// The expression, evaluated on `f32`/`f64`, gives the eager kernel's results, bit for bit,
    /// except softplus: its eager kernel calls the library `exp` where the expression has the
    /// vectorisable one the JIT emits (both within 2 ulp of `e^x`), so there it is compared to 4
    /// ulp of `f32`.
    #[test]
    fn expressions_match_the_eager_kernels() {
        for op in ops() {
            for dt in [DType::Float32, DType::Float64] {
                let x = Tensor::from_vec(XS.to_vec(), &[XS.len()])
                    .unwrap()
                    .to_dtype(dt);
                let r = crate::kernels::unary::unary(op, &x).unwrap();
                let want = r.to_dtype(DType::Float64).to_vec::<f64>();
                for (i, (&v, &w)) in XS.iter().zip(&want).enumerate() {
                    let got = if dt == DType::Float32 {
                        f64::from(float_expr(op, v as f32).unwrap())
                    } else {
                        float_expr(op, v).unwrap()
                    };
                    let same = got.to_bits() == w.to_bits() || (got.is_nan() && w.is_nan());
                    let close = matches!(op, UnaryOp::Softplus { .. })
                        && (got - w).abs() <= 4.0 * f64::from(f32::EPSILON) * w.abs();
                    assert!(
                        same || close,
                        "{op:?} {dt:?} x[{i}]={v}: {got} != eager {w}"
                    );
                }
            }
        }
    }

    #[test]
    fn non_arithmetic_ops_have_no_expression() {
        for op in [UnaryOp::LogicalNot, UnaryOp::IsNan, UnaryOp::BitwiseNot] {
            assert!(float_expr(op, 1.0f32).is_none());
        }
    }
}
