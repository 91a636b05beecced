//! Scalar functions of the `torch.special` family (issue 29): the inverse hyperbolics and `erfc`
//! (the `libm` crate's), and the gamma and modified Bessel families, written here because no
//! well-kept crate has PyTorch's set (`digamma`, `polygamma`, `i0e`, `i1e`). Each is a
//! [`ScalarFn1`] the eager kernel and the JIT both call; float32 rounds the float64 result once
//! unless `libm` has a float32 version (PyTorch calls the C library's float function there too).

use std::f64::consts::PI;

use crate::expr::{Real, ScalarFn1};

/// A [`ScalarFn1`] named `$name` over `$f32`/`$f64` (plain Rust functions), and its expression
/// helper `$expr` (what ops' scalar expressions call).
macro_rules! scalar_fn {
    ($stat:ident, $expr:ident, $name:literal, $f32:expr, $f64:expr) => {
        #[doc = concat!("`", $name, "` as a scalar function.")]
        pub static $stat: ScalarFn1 = ScalarFn1 {
            name: $name,
            f32: {
                extern "C" fn c(x: f32) -> f32 {
                    ($f32)(x)
                }
                c
            },
            f64: {
                extern "C" fn c(x: f64) -> f64 {
                    ($f64)(x)
                }
                c
            },
        };

        #[doc = concat!("`", $name, "` as an expression.")]
        #[inline(always)]
        pub fn $expr<T: Real>(x: T) -> T {
            x.call(&$stat)
        }
    };
}

pub(crate) use scalar_fn;

/// Rounds an f64 function to f32.
fn via64(f: fn(f64) -> f64) -> impl Fn(f32) -> f32 {
    move |x| f(f64::from(x)) as f32
}

scalar_fn!(ASINH, asinh, "asinh", libm::asinhf, libm::asinh);
scalar_fn!(ACOSH, acosh, "acosh", libm::acoshf, libm::acosh);
scalar_fn!(ATANH, atanh, "atanh", libm::atanhf, libm::atanh);
scalar_fn!(ERFC, erfc, "erfc", libm::erfcf, libm::erfc);
scalar_fn!(LGAMMA, lgamma, "lgamma", libm::lgammaf, libm::lgamma);
scalar_fn!(DIGAMMA, digamma, "digamma", via64(digamma_f64), digamma_f64);
scalar_fn!(TRIGAMMA, trigamma, "trigamma", trigamma_f32, trigamma_f64);
scalar_fn!(I0, i0, "i0", |x| unscaled_f32(i0_f64, x), i0_f64);
scalar_fn!(I0E, i0e, "i0e", via64(i0e_f64), i0e_f64);
scalar_fn!(I1, i1, "i1", |x| unscaled_f32(i1_f64, x), i1_f64);
scalar_fn!(I1E, i1e, "i1e", via64(i1e_f64), i1e_f64);

/// `B_{2k} / (2k)` for k = 1..: the coefficients of digamma's asymptotic series in `1/x^{2k}`.
const DIGAMMA_ASYMPTOTIC: [f64; 7] = [
    1.0 / 12.0,
    -1.0 / 120.0,
    1.0 / 252.0,
    -1.0 / 240.0,
    1.0 / 132.0,
    -691.0 / 32760.0,
    1.0 / 12.0,
];

/// Even Bernoulli numbers `B_2 .. B_24` (Euler–Maclaurin's correction terms).
const BERNOULLI_EVEN: [f64; 12] = [
    1.0 / 6.0,
    -1.0 / 30.0,
    1.0 / 42.0,
    -1.0 / 30.0,
    5.0 / 66.0,
    -691.0 / 2730.0,
    7.0 / 6.0,
    -3617.0 / 510.0,
    43867.0 / 798.0,
    -174611.0 / 330.0,
    854513.0 / 138.0,
    -236364091.0 / 2730.0,
];

/// The digamma function `ψ(x) = Γ'(x)/Γ(x)`. As PyTorch (and SciPy): `∓inf` at `±0`, NaN at the
/// negative integers and at `-inf`, `inf` at `inf`.
///
/// Negative arguments reflect (`ψ(x) = ψ(1-x) - π / tan(πx)`, the tangent of the fractional
/// part keeps the period exact); positive ones climb by `ψ(x) = ψ(x+1) - 1/x` to `x >= 10`, where
/// the asymptotic series `ln x - 1/(2x) - Σ B_{2k}/(2k x^{2k})` is below an ulp after 7 terms.
pub fn digamma_f64(x: f64) -> f64 {
    if x == 0.0 {
        return f64::INFINITY.copysign(-x);
    }
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if x == f64::INFINITY {
        return x;
    }
    if x < 0.0 {
        let frac = x - x.trunc();
        if frac == 0.0 {
            return f64::NAN;
        }
        return digamma_f64(1.0 - x) - PI / (PI * frac).tan();
    }
    let mut acc = 0.0;
    let mut x = x;
    while x < 10.0 {
        acc -= 1.0 / x;
        x += 1.0;
    }
    let inv2 = 1.0 / (x * x);
    let mut series = 0.0;
    for c in DIGAMMA_ASYMPTOTIC.iter().rev() {
        series = series * inv2 + c;
    }
    acc + x.ln() - 0.5 / x - series * inv2
}

/// The trigamma function `ψ'(x)`, PyTorch's `polygamma(1, x)`: below 1/2 by reflection
/// `ψ'(x) = π² / sin²(πx) - ψ'(1-x)` (PyTorch's form, so the poles at the non-positive integers
/// come out as it computes them), then climbing `ψ'(x) = ψ'(x+1) + 1/x²` to `x >= 10` and the
/// asymptotic series `1/x + 1/(2x²) + Σ B_{2k} / x^{2k+1}`.
pub fn trigamma_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x < 0.5 {
        let s = (PI * x).sin();
        return PI * PI / (s * s) - trigamma_f64(1.0 - x);
    }
    let mut acc = 0.0;
    let mut x = x;
    while x < 10.0 {
        acc += 1.0 / (x * x);
        x += 1.0;
    }
    if x == f64::INFINITY {
        return acc;
    }
    let inv2 = 1.0 / (x * x);
    let mut series = 0.0;
    for b in BERNOULLI_EVEN[..8].iter().rev() {
        series = series * inv2 + b;
    }
    acc + 1.0 / x + 0.5 * inv2 + series * inv2 / x
}

/// Trigamma in f32: PyTorch's float version computes the reflection term `π² / sin²(πx)` in
/// f32, so near (and at) the poles it follows that rounding (`ψ'(-1)` is 1.29e15 there, 6.6e32 in
/// f64); the rest is the f64 function rounded once.
pub fn trigamma_f32(x: f32) -> f32 {
    if x < 0.5 {
        const PI32: f32 = std::f32::consts::PI;
        let s = (PI32 * x).sin();
        let reflection = PI32 * PI32 / (s * s);
        return (f64::from(reflection) - trigamma_f64(1.0 - f64::from(x))) as f32;
    }
    trigamma_f64(f64::from(x)) as f32
}

/// The Hurwitz zeta function `ζ(s, q) = Σ_k (q + k)^{-s}` for `s > 1` (polygamma's kernel): the
/// first terms summed until `q + N >= s + 10`, the rest by Euler–Maclaurin with 12 Bernoulli
/// corrections. Infinite at the non-positive integers `q`, as PyTorch's `zeta`.
pub fn hurwitz_zeta(s: f64, q: f64) -> f64 {
    if s.is_nan() || q.is_nan() {
        return f64::NAN;
    }
    if s == 1.0 {
        return f64::INFINITY;
    }
    if s < 1.0 {
        return f64::NAN;
    }
    if q <= 0.0 && q == q.floor() {
        return f64::INFINITY;
    }
    if q == f64::INFINITY {
        return 0.0;
    }
    let mut sum = 0.0;
    let mut a = q;
    while a < s + 10.0 {
        sum += a.powf(-s);
        a += 1.0;
    }
    // The tail from `a`: ∫ + half the first term + Σ B_{2j}/(2j)! (s)_{2j-1} a^{-s-2j+1}.
    let a_s = a.powf(-s);
    let mut tail = a * a_s / (s - 1.0) + 0.5 * a_s;
    let mut rising = s; // (s)_{2j-1}
    let mut fact = 2.0; // (2j)!
    let mut pow = a_s / a; // a^{-s-2j+1}
    for (j, b) in BERNOULLI_EVEN.iter().enumerate() {
        let term = b / fact * rising * pow;
        tail += term;
        if term.abs() < f64::EPSILON * tail.abs() {
            break;
        }
        let k = 2.0 * (j as f64 + 1.0);
        rising *= (s + k - 1.0) * (s + k);
        fact *= (k + 1.0) * (k + 2.0);
        pow /= a * a;
    }
    sum + tail
}

/// `ψ^{(n)}(x)`, the n-th derivative of digamma: digamma and trigamma for `n` of 0 and 1, else
/// `(-1)^{n+1} n! ζ(n+1, x)`.
pub fn polygamma_f64(n: i64, x: f64) -> f64 {
    match n {
        0 => digamma_f64(x),
        1 => trigamma_f64(x),
        _ => {
            let fact: f64 = (2..=n).map(|k| k as f64).product();
            let sign = if n % 2 == 1 { 1.0 } else { -1.0 };
            sign * fact * hurwitz_zeta(n as f64 + 1.0, x)
        }
    }
}

/// `polygamma` in f32: trigamma's own f32 form, else the f64 value rounded once.
pub fn polygamma_f32(n: i64, x: f32) -> f32 {
    if n == 1 {
        trigamma_f32(x)
    } else {
        polygamma_f64(n, f64::from(x)) as f32
    }
}

/// Where the power series of the modified Bessel functions gives way to their asymptotic
/// expansion: at 30 both converge to an ulp in under 60 terms.
const BESSEL_ASYMPTOTIC_FROM: f64 = 30.0;

/// `Σ_k (x/2)^{2k+ν} / (k! (k+ν)!)` for `ν` of 0 or 1 and `x >= 0`: every term positive, so
/// summing loses nothing to cancellation.
fn bessel_i_series(nu: u32, x: f64) -> f64 {
    let h = x / 2.0;
    let q = h * h;
    let mut term = if nu == 0 { 1.0 } else { h };
    let mut sum = term;
    let mut k = 1.0;
    loop {
        term *= q / (k * (k + f64::from(nu)));
        sum += term;
        if term <= f64::EPSILON * 0.5 * sum {
            return sum;
        }
        k += 1.0;
    }
}

/// `I_ν(x) e^{-x} √(2πx)` for large `x`: `Σ_k (-1)^k a_k(ν) / x^k`, with
/// `a_k = Π_{j<=k} (4ν² - (2j-1)²) / (k! 8^k)`, summed until the terms stop shrinking.
fn bessel_i_asymptotic(nu: u32, x: f64) -> f64 {
    let mu = 4.0 * f64::from(nu * nu);
    let mut term = 1.0;
    let mut sum = 1.0;
    for k in 1..80 {
        let j = 2.0 * f64::from(k) - 1.0;
        let next = -term * (mu - j * j) / (8.0 * f64::from(k) * x);
        if next.abs() >= term.abs() {
            break;
        }
        term = next;
        sum += term;
        if term.abs() <= f64::EPSILON * 0.5 * sum.abs() {
            break;
        }
    }
    sum / (2.0 * PI * x).sqrt()
}

/// `I_ν(|x|)` scaled by `e^{-|x|}` when `scaled`, for `ν` of 0 or 1.
fn bessel_i(nu: u32, x: f64, scaled: bool) -> f64 {
    let a = x.abs();
    if a == f64::INFINITY {
        // PyTorch's unscaled functions are `e^x · (series in 1/x) / √x` there: `inf / inf`.
        return if scaled { 0.0 } else { f64::NAN };
    }
    if a < BESSEL_ASYMPTOTIC_FROM {
        let v = bessel_i_series(nu, a);
        return if scaled { v * (-a).exp() } else { v };
    }
    let s = bessel_i_asymptotic(nu, a);
    // Unscaled, `e^a` overflows first (past 709.78), as in PyTorch, although `I_ν` itself would
    // stay finite a few units further.
    if scaled { s } else { a.exp() * s }
}

/// An unscaled Bessel function in f32: PyTorch computes `e^|x|` in f32, so the result is
/// infinite from where that overflows (|x| > 88.72), not where `I_ν` does.
fn unscaled_f32(f: fn(f64) -> f64, x: f32) -> f32 {
    if x.is_finite() && x.abs().exp().is_infinite() {
        return f32::INFINITY.copysign(f(f64::from(x)) as f32);
    }
    f(f64::from(x)) as f32
}

/// The modified Bessel function of the first kind of order 0 (even).
pub fn i0_f64(x: f64) -> f64 {
    if x.is_nan() { x } else { bessel_i(0, x, false) }
}

/// `i0(x) e^{-|x|}`.
pub fn i0e_f64(x: f64) -> f64 {
    if x.is_nan() { x } else { bessel_i(0, x, true) }
}

/// The modified Bessel function of the first kind of order 1 (odd).
pub fn i1_f64(x: f64) -> f64 {
    if x.is_nan() {
        x
    } else {
        bessel_i(1, x, false).copysign(x)
    }
}

/// `i1(x) e^{-|x|}`.
pub fn i1e_f64(x: f64) -> f64 {
    if x.is_nan() {
        x
    } else {
        bessel_i(1, x, true).copysign(x)
    }
}
