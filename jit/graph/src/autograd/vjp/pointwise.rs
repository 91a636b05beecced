//! Backward formulas of the pointwise ops (PyTorch's `derivatives.yaml` entries for them).
//! Gradients come back in the broadcast shape; the engine sums them to each argument's shape.

use std::f64::consts::{LN_2, LN_10, PI};

use super::{Grads, Saves, VjpCtx, VjpRule, args, put, vjp_rule};
use crate::autograd::emit::{Emit, f, t};
use crate::{Op, Result};

/// The single output gradient, or no gradients at all when none reached the node.
macro_rules! grad_or_return {
    ($c:expr) => {
        match $c.grad(0) {
            Some(g) => g,
            None => return Ok($c.no_grads()),
        }
    };
}
pub(super) use grad_or_return;

/// A formula whose only differentiable argument is the tensor in slot `x` (the op's `self`):
/// `dself = f(e, c, g)`.
pub(super) fn unary<E: Emit>(
    e: &mut E,
    c: &VjpCtx<'_, E::T>,
    x: &usize,
    f: impl FnOnce(&mut E, &VjpCtx<'_, E::T>, E::T) -> Result<E::T>,
) -> Grads<E> {
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.wants(x) {
        let d = f(e, c, g)?;
        put(&mut out, x, d)?;
    }
    Ok(out)
}

fn neg<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Neg => unary::neg);
    unary(e, c, a.self_, |e, _, g| e.neg(&g))
}

fn exp<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Exp => unary::exp);
    unary(e, c, a.self_, |e, c, g| {
        let y = c.output(0)?;
        // Holomorphic: the gradient is `g * conj(exp(z))` (PyTorch's complex convention).
        let y = if e.dtype(&y).is_complex() {
            e.unary(Op::Conj, &y)?
        } else {
            y
        };
        e.mul(&g, &y)
    })
}

fn exp2<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Exp2 => unary::exp2);
    unary(e, c, a.self_, |e, c, g| {
        let d = e.mul_s(&c.output(0)?, LN_2)?;
        e.mul(&g, &d)
    })
}

fn expm1<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Expm1 => unary::expm1);
    unary(e, c, a.self_, |e, c, g| {
        let d = e.add_s(&c.output(0)?, 1.0)?;
        e.mul(&g, &d)
    })
}

fn log<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Log => unary::log);
    unary(e, c, a.self_, |e, c, g| e.div(&g, &c.saved(a.self_)?))
}

fn log_base<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let self_ = args!(c, |a| a.self_, Log2 => unary::log2, Log10 => unary::log10);
    let ln = if c.op == Op::Log2 { LN_2 } else { LN_10 };
    unary(e, c, self_, |e, c, g| {
        let d = e.mul_s(&c.saved(self_)?, ln)?;
        e.div(&g, &d)
    })
}

fn log1p<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Log1p => unary::log1p);
    unary(e, c, a.self_, |e, c, g| {
        let d = e.add_s(&c.saved(a.self_)?, 1.0)?;
        e.div(&g, &d)
    })
}

fn sqrt<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Sqrt => unary::sqrt);
    unary(e, c, a.self_, |e, c, g| {
        let d = e.mul_s(&c.output(0)?, 2.0)?;
        e.div(&g, &d)
    })
}

fn rsqrt<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Rsqrt => unary::rsqrt);
    // -0.5 * grad * result^3
    unary(e, c, a.self_, |e, c, g| {
        let r3 = e.pow_s(&c.output(0)?, 3.0)?;
        let d = e.mul_s(&r3, -0.5)?;
        e.mul(&g, &d)
    })
}

fn sin<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Sin => unary::sin);
    unary(e, c, a.self_, |e, c, g| {
        let d = e.unary(Op::Cos, &c.saved(a.self_)?)?;
        e.mul(&g, &d)
    })
}

fn cos<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Cos => unary::cos);
    unary(e, c, a.self_, |e, c, g| {
        let s = e.unary(Op::Sin, &c.saved(a.self_)?)?;
        let d = e.neg(&s)?;
        e.mul(&g, &d)
    })
}

fn tan<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Tan => unary::tan);
    // grad * (1 + result^2)
    unary(e, c, a.self_, |e, c, g| {
        let r = c.output(0)?;
        let r2 = e.mul(&r, &r)?;
        let d = e.add_s(&r2, 1.0)?;
        e.mul(&g, &d)
    })
}

/// `1 - x^2` (asin/acos).
pub(super) fn one_minus_sq<E: Emit>(e: &mut E, x: &E::T) -> Result<E::T> {
    let x2 = e.mul(x, x)?;
    e.rsub_s(1.0, &x2)
}

fn asin<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Asin => unary::asin);
    unary(e, c, a.self_, |e, c, g| {
        let d = one_minus_sq(e, &c.saved(a.self_)?)?;
        let d = e.unary(Op::Sqrt, &d)?;
        e.div(&g, &d)
    })
}

fn acos<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Acos => unary::acos);
    unary(e, c, a.self_, |e, c, g| {
        let d = one_minus_sq(e, &c.saved(a.self_)?)?;
        let d = e.unary(Op::Rsqrt, &d)?;
        let d = e.neg(&d)?;
        e.mul(&g, &d)
    })
}

fn atan<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Atan => unary::atan);
    unary(e, c, a.self_, |e, c, g| {
        let x = c.saved(a.self_)?;
        let x2 = e.mul(&x, &x)?;
        let d = e.add_s(&x2, 1.0)?;
        e.div(&g, &d)
    })
}

fn sinh<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Sinh => unary::sinh);
    unary(e, c, a.self_, |e, c, g| {
        let d = e.unary(Op::Cosh, &c.saved(a.self_)?)?;
        e.mul(&g, &d)
    })
}

fn cosh<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Cosh => unary::cosh);
    unary(e, c, a.self_, |e, c, g| {
        let d = e.unary(Op::Sinh, &c.saved(a.self_)?)?;
        e.mul(&g, &d)
    })
}

fn tanh<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Tanh => unary::tanh);
    // grad * (1 - result^2)
    unary(e, c, a.self_, |e, c, g| {
        let d = one_minus_sq(e, &c.output(0)?)?;
        e.mul(&g, &d)
    })
}

fn sigmoid<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Sigmoid => unary::sigmoid);
    // grad * result * (1 - result)
    unary(e, c, a.self_, |e, c, g| {
        let r = c.output(0)?;
        let one_minus = e.rsub_s(1.0, &r)?;
        let d = e.mul(&r, &one_minus)?;
        e.mul(&g, &d)
    })
}

fn relu<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Relu => unary::relu);
    // threshold_backward(grad, result, 0): grad where result > 0
    unary(e, c, a.self_, |e, c, g| {
        let pos = e.cmp_s(Op::Gt, &c.output(0)?, 0.0)?;
        e.where_(&pos, t(&g), f(0.0))
    })
}

fn relu6<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Relu6 => unary::relu6);
    // hardtanh_backward(grad, self, 0, 6): grad where 0 < x < 6
    unary(e, c, a.self_, |e, c, g| {
        let x = c.saved(a.self_)?;
        let lo = e.cmp_s(Op::Gt, &x, 0.0)?;
        let hi = e.cmp_s(Op::Lt, &x, 6.0)?;
        let inside = e.op(Op::LogicalAnd, vec![t(&lo), t(&hi)])?;
        e.where_(&inside, t(&g), f(0.0))
    })
}

fn leaky_relu<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, LeakyRelu => unary::leaky_relu);
    let slope = a.negative_slope.to_f64();
    unary(e, c, a.self_, |e, c, g| {
        let pos = e.cmp_s(Op::Gt, &c.saved(a.self_)?, 0.0)?;
        let neg = e.mul_s(&g, slope)?;
        e.where_(&pos, t(&g), t(&neg))
    })
}

fn elu<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Elu => unary::elu);
    // x > 0: grad; else grad * alpha * exp(x)
    let alpha = a.alpha.to_f64();
    unary(e, c, a.self_, |e, c, g| {
        let x = c.saved(a.self_)?;
        let pos = e.cmp_s(Op::Gt, &x, 0.0)?;
        let ex = e.unary(Op::Exp, &x)?;
        let ex = e.mul_s(&ex, alpha)?;
        let neg = e.mul(&g, &ex)?;
        e.where_(&pos, t(&g), t(&neg))
    })
}

fn gelu<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Gelu => unary::gelu);
    let tanh_approx = a.approximate == "tanh";
    unary(e, c, a.self_, |e, c, g| {
        let x = c.saved(a.self_)?;
        let d = if tanh_approx {
            // u = k * (x + 0.044715 x^3), k = sqrt(2/pi); y = 0.5 x (1 + tanh u)
            // dy/dx = 0.5 (1 + tanh u) + 0.5 x (1 - tanh^2 u) k (1 + 3 * 0.044715 x^2)
            let k = (2.0 / PI).sqrt();
            let x2 = e.mul(&x, &x)?;
            let x3 = e.mul(&x2, &x)?;
            let inner = e.mul_s(&x3, 0.044715)?;
            let inner = e.add(&x, &inner)?;
            let u = e.mul_s(&inner, k)?;
            let th = e.unary(Op::Tanh, &u)?;
            let left = e.add_s(&th, 1.0)?;
            let left = e.mul_s(&left, 0.5)?;
            let sech2 = one_minus_sq(e, &th)?;
            let du = e.mul_s(&x2, 3.0 * 0.044715)?;
            let du = e.add_s(&du, 1.0)?;
            let du = e.mul_s(&du, k)?;
            let right = e.mul(&sech2, &du)?;
            let right = e.mul(&right, &x)?;
            let right = e.mul_s(&right, 0.5)?;
            e.add(&left, &right)?
        } else {
            // cdf + x * pdf, cdf = 0.5 (1 + erf(x / sqrt 2)), pdf = exp(-x^2 / 2) / sqrt(2 pi)
            let xs = e.mul_s(&x, std::f64::consts::FRAC_1_SQRT_2)?;
            let erf = e.unary(Op::Erf, &xs)?;
            let cdf = e.add_s(&erf, 1.0)?;
            let cdf = e.mul_s(&cdf, 0.5)?;
            let x2 = e.mul(&x, &x)?;
            let x2 = e.mul_s(&x2, -0.5)?;
            let pdf = e.unary(Op::Exp, &x2)?;
            let pdf = e.mul_s(&pdf, 1.0 / (2.0 * PI).sqrt())?;
            let xpdf = e.mul(&x, &pdf)?;
            e.add(&cdf, &xpdf)?
        };
        e.mul(&g, &d)
    })
}

fn silu<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Silu => unary::silu);
    // sig(x) * (1 + x * (1 - sig(x)))
    unary(e, c, a.self_, |e, c, g| {
        let x = c.saved(a.self_)?;
        let s = e.unary(Op::Sigmoid, &x)?;
        let one_minus = e.rsub_s(1.0, &s)?;
        let xs = e.mul(&x, &one_minus)?;
        let xs = e.add_s(&xs, 1.0)?;
        let d = e.mul(&s, &xs)?;
        e.mul(&g, &d)
    })
}

fn mish<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Mish => unary::mish);
    // tanh(sp) + x * sig(x) * (1 - tanh(sp)^2), sp = softplus(x)
    unary(e, c, a.self_, |e, c, g| {
        let x = c.saved(a.self_)?;
        let sp = e.op(Op::Softplus, vec![t(&x)])?;
        let th = e.unary(Op::Tanh, &sp)?;
        let s = e.unary(Op::Sigmoid, &x)?;
        let sech2 = one_minus_sq(e, &th)?;
        let r = e.mul(&x, &s)?;
        let r = e.mul(&r, &sech2)?;
        let d = e.add(&th, &r)?;
        e.mul(&g, &d)
    })
}

fn softplus<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Softplus => unary::softplus);
    // x * beta > threshold: grad; else grad * sigmoid(beta * x)
    let beta = a.beta.to_f64();
    let threshold = a.threshold.to_f64();
    unary(e, c, a.self_, |e, c, g| {
        let x = c.saved(a.self_)?;
        let bx = e.mul_s(&x, beta)?;
        let lin = e.cmp_s(Op::Gt, &bx, threshold)?;
        let s = e.unary(Op::Sigmoid, &bx)?;
        let gs = e.mul(&g, &s)?;
        e.where_(&lin, t(&g), t(&gs))
    })
}

fn erf<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Erf => unary::erf);
    // 2 / sqrt(pi) * exp(-x^2)
    unary(e, c, a.self_, |e, c, g| {
        let x = c.saved(a.self_)?;
        let x2 = e.mul(&x, &x)?;
        let nx2 = e.neg(&x2)?;
        let ex = e.unary(Op::Exp, &nx2)?;
        let d = e.mul_s(&ex, 2.0 / PI.sqrt())?;
        e.mul(&g, &d)
    })
}

/// floor, ceil, round, trunc, sign: zero almost everywhere (PyTorch returns zeros, so a leaf's
/// `.grad` becomes zeros rather than staying `None`).
fn zero<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let self_ = args!(c, |a| a.self_,
        Floor => unary::floor, Ceil => unary::ceil, Round => unary::round, Trunc => unary::trunc,
        Sign => unary::sign);
    unary(e, c, self_, |e, _, g| e.zeros_like(&g))
}

fn identity<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Frac => unary::frac);
    unary(e, c, a.self_, |_, _, g| Ok(g))
}

fn abs<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Abs => unary::abs);
    unary(e, c, a.self_, |e, c, g| {
        let x = c.saved(a.self_)?;
        if e.dtype(&x).is_complex() {
            return super::complex::abs_complex(e, &x, &g);
        }
        let s = e.unary(Op::Sign, &x)?;
        e.mul(&g, &s)
    })
}

fn reciprocal<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Reciprocal => unary::reciprocal);
    // -grad * result^2
    unary(e, c, a.self_, |e, c, g| {
        let r = c.output(0)?;
        let r2 = e.mul(&r, &r)?;
        let d = e.neg(&r2)?;
        e.mul(&g, &d)
    })
}

fn square<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Square => unary::square);
    unary(e, c, a.self_, |e, c, g| {
        let d = e.mul_s(&c.saved(a.self_)?, 2.0)?;
        e.mul(&g, &d)
    })
}

fn nan_to_num<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, NanToNum => unary::nan_to_num);
    // grad * isfinite(self)
    unary(e, c, a.self_, |e, c, g| {
        let fin = e.unary(Op::IsFinite, &c.saved(a.self_)?)?;
        e.where_(&fin, t(&g), f(0.0))
    })
}

fn logit<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Logit => unary::logit);
    // grad / (x (1 - x)); outside [eps, 1 - eps]: 0, or without eps outside [0, 1]: NaN
    let eps = a.eps.filter(|eps| *eps >= 0.0);
    let (lo, hi, outside) = match eps {
        Some(eps) => (eps, 1.0 - eps, 0.0),
        None => (0.0, 1.0, f64::NAN),
    };
    unary(e, c, a.self_, |e, c, g| {
        let x = c.saved(a.self_)?;
        let one_minus = e.rsub_s(1.0, &x)?;
        let den = e.mul(&x, &one_minus)?;
        let d = e.div(&g, &den)?;
        let below = e.cmp_s(Op::Lt, &x, lo)?;
        let above = e.cmp_s(Op::Gt, &x, hi)?;
        let out = e.op(Op::LogicalOr, vec![t(&below), t(&above)])?;
        e.where_(&out, f(outside), t(&d))
    })
}

fn erfinv<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Erfinv => unary::erfinv);
    // grad * sqrt(pi) / 2 * exp(result^2)
    unary(e, c, a.self_, |e, c, g| {
        let r = c.output(0)?;
        let r2 = e.mul(&r, &r)?;
        let ex = e.unary(Op::Exp, &r2)?;
        let d = e.mul_s(&ex, PI.sqrt() / 2.0)?;
        e.mul(&g, &d)
    })
}

pub(crate) static NEG: VjpRule = vjp_rule!("NegBackward0", Saves::NONE, neg);
pub(crate) static EXP: VjpRule = vjp_rule!("ExpBackward0", Saves::OUTPUT, exp);
pub(crate) static EXP2: VjpRule = vjp_rule!("Exp2Backward0", Saves::OUTPUT, exp2);
pub(crate) static EXPM1: VjpRule = vjp_rule!("Expm1Backward0", Saves::OUTPUT, expm1);
pub(crate) static LOG: VjpRule = vjp_rule!("LogBackward0", Saves::args(&["self"]), log);
pub(crate) static LOG2: VjpRule = vjp_rule!("Log2Backward0", Saves::args(&["self"]), log_base);
pub(crate) static LOG10: VjpRule = vjp_rule!("Log10Backward0", Saves::args(&["self"]), log_base);
pub(crate) static LOG1P: VjpRule = vjp_rule!("Log1PBackward0", Saves::args(&["self"]), log1p);
pub(crate) static SQRT: VjpRule = vjp_rule!("SqrtBackward0", Saves::OUTPUT, sqrt);
pub(crate) static RSQRT: VjpRule = vjp_rule!("RsqrtBackward0", Saves::OUTPUT, rsqrt);
pub(crate) static SIN: VjpRule = vjp_rule!("SinBackward0", Saves::args(&["self"]), sin);
pub(crate) static COS: VjpRule = vjp_rule!("CosBackward0", Saves::args(&["self"]), cos);
pub(crate) static TAN: VjpRule = vjp_rule!("TanBackward0", Saves::OUTPUT, tan);
pub(crate) static ASIN: VjpRule = vjp_rule!("AsinBackward0", Saves::args(&["self"]), asin);
pub(crate) static ACOS: VjpRule = vjp_rule!("AcosBackward0", Saves::args(&["self"]), acos);
pub(crate) static ATAN: VjpRule = vjp_rule!("AtanBackward0", Saves::args(&["self"]), atan);
pub(crate) static SINH: VjpRule = vjp_rule!("SinhBackward0", Saves::args(&["self"]), sinh);
pub(crate) static COSH: VjpRule = vjp_rule!("CoshBackward0", Saves::args(&["self"]), cosh);
pub(crate) static TANH: VjpRule = vjp_rule!("TanhBackward0", Saves::OUTPUT, tanh);
pub(crate) static SIGMOID: VjpRule = vjp_rule!("SigmoidBackward0", Saves::OUTPUT, sigmoid);
pub(crate) static RELU: VjpRule = vjp_rule!("ReluBackward0", Saves::OUTPUT, relu);
pub(crate) static RELU6: VjpRule = vjp_rule!("HardtanhBackward0", Saves::args(&["self"]), relu6);
pub(crate) static LEAKY: VjpRule =
    vjp_rule!("LeakyReluBackward0", Saves::args(&["self"]), leaky_relu);
pub(crate) static ELU: VjpRule = vjp_rule!("EluBackward0", Saves::args(&["self"]), elu);
pub(crate) static GELU: VjpRule = vjp_rule!("GeluBackward0", Saves::args(&["self"]), gelu);
pub(crate) static SILU: VjpRule = vjp_rule!("SiluBackward0", Saves::args(&["self"]), silu);
pub(crate) static MISH: VjpRule = vjp_rule!("MishBackward0", Saves::args(&["self"]), mish);
pub(crate) static SOFTPLUS: VjpRule =
    vjp_rule!("SoftplusBackward0", Saves::args(&["self"]), softplus);
pub(crate) static ERF: VjpRule = vjp_rule!("ErfBackward0", Saves::args(&["self"]), erf);
pub(crate) static FLOOR: VjpRule = vjp_rule!("FloorBackward0", Saves::NONE, zero);
pub(crate) static CEIL: VjpRule = vjp_rule!("CeilBackward0", Saves::NONE, zero);
pub(crate) static ROUND: VjpRule = vjp_rule!("RoundBackward0", Saves::NONE, zero);
pub(crate) static TRUNC: VjpRule = vjp_rule!("TruncBackward0", Saves::NONE, zero);
pub(crate) static SIGN: VjpRule = vjp_rule!("SignBackward0", Saves::NONE, zero);
pub(crate) static FRAC: VjpRule = vjp_rule!("FracBackward0", Saves::NONE, identity);
pub(crate) static ABS: VjpRule = vjp_rule!("AbsBackward0", Saves::args(&["self"]), abs);
pub(crate) static RECIP: VjpRule = vjp_rule!("ReciprocalBackward0", Saves::OUTPUT, reciprocal);
pub(crate) static SQUARE: VjpRule = vjp_rule!("PowBackward0", Saves::args(&["self"]), square);
pub(crate) static NAN_TO_NUM: VjpRule =
    vjp_rule!("NanToNumBackward0", Saves::args(&["self"]), nan_to_num);
pub(crate) static LOGIT: VjpRule = vjp_rule!("LogitBackward0", Saves::args(&["self"]), logit);
pub(crate) static ERFINV: VjpRule = vjp_rule!("ErfinvBackward0", Saves::OUTPUT, erfinv);
