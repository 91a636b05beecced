//! Special functions for pointwise ops' scalar expressions (`crate::expr`): each is a
//! [`ScalarFn1`] the eager kernel and the JIT both call.

use std::f64::consts::{FRAC_2_SQRT_PI, PI};

use crate::expr::{Real, ScalarFn1};

/// The inverse error function: `erfinv(erf(x)) = x` on `(-1, 1)`, `±inf` at `±1`, NaN outside.
///
/// A closed-form first guess (Winitzki's `erf` approximation inverted, relative error below
/// 2e-3), then Halley's iteration, which triples the correct digits per step: on `erf(x) - |y|`
/// for `|y| <= 0.5`, and in the tails on `erfc(x) - (1 - |y|)`, where `1 - |y|` is exact and
/// `erfc` keeps the precision `erf` rounds away near 1.
pub fn erfinv_f64(y: f64) -> f64 {
    if y.is_nan() || y.abs() > 1.0 {
        return f64::NAN;
    }
    if y.abs() == 1.0 {
        return f64::INFINITY.copysign(y);
    }
    if y == 0.0 {
        return y;
    }
    let a = y.abs();
    const K: f64 = 0.147;
    let l = ((1.0 - a) * (1.0 + a)).ln();
    let t = 2.0 / (PI * K) + l / 2.0;
    let mut x = ((t * t - l / K).sqrt() - t).sqrt();
    let slope = |x: f64| FRAC_2_SQRT_PI * (-x * x).exp();
    if a <= 0.5 {
        for _ in 0..3 {
            let f = libm::erf(x) - a;
            x -= f / (slope(x) + x * f);
        }
    } else {
        let tail = 1.0 - a;
        for _ in 0..3 {
            let f = libm::erfc(x) - tail;
            x += f / (slope(x) - x * f);
        }
    }
    x.copysign(y)
}

/// `erfinv` in f32: the f64 function rounded once.
pub fn erfinv_f32(y: f32) -> f32 {
    erfinv_f64(f64::from(y)) as f32
}

extern "C" fn erfinv_c32(y: f32) -> f32 {
    erfinv_f32(y)
}

extern "C" fn erfinv_c64(y: f64) -> f64 {
    erfinv_f64(y)
}

/// `erfinv` as a scalar function (the eager kernel and the JIT's scalar call both use it).
pub static ERFINV: ScalarFn1 = ScalarFn1 {
    name: "erfinv",
    f32: erfinv_c32,
    f64: erfinv_c64,
};

/// `erfinv` as an expression.
#[inline(always)]
pub fn erfinv<T: Real>(x: T) -> T {
    x.call(&ERFINV)
}
