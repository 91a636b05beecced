//! The float math of the unary ops ([`UnaryOp`]) as scalar expressions (`crate::expr`), stated
//! once: `unary.rs`'s float kernels run them per element, and the JIT lowers them (the op's
//! `OpDef::scalar` records [`float_expr`]), so neither side states an op's formula itself.
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

    #[test]
    fn non_arithmetic_ops_have_no_expression() {
        for op in [UnaryOp::LogicalNot, UnaryOp::IsNan, UnaryOp::BitwiseNot] {
            assert!(float_expr(op, 1.0f32).is_none());
        }
    }
}
