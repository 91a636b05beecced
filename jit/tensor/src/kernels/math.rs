//! Scalar math traits the elementwise kernels are generic over.

use num_traits::{Float, PrimInt, WrappingMul, WrappingNeg};

use crate::Element;

/// f32 and f64: the two float compute types.
pub trait Flt: Element + Float + std::ops::AddAssign {
    /// Error function: vectorisable for f32 (`kernels/erf.rs`, within 1 ulp); libm's for f64.
    fn erf(self) -> Self;
    /// Round half to even (`torch.round`).
    fn round_even(self) -> Self;
    /// Lossy conversion from f64 for constants.
    fn c(v: f64) -> Self;
    /// `exp`, in a branch-free form the compiler vectorises (f32; f64 uses libm's `exp`).
    fn exp_v(self) -> Self;
    /// `ln`, vectorisable (f32; f64 uses libm).
    fn ln_v(self) -> Self;
    /// `sin`, vectorisable for inputs where [`Flt::trig_rare`] is false (f32; f64 uses libm).
    fn sin_v(self) -> Self;
    /// `cos`, as [`Flt::sin_v`].
    fn cos_v(self) -> Self;
    /// Inputs the vectorisable `sin_v`/`cos_v` get wrong (huge, infinite): the kernels patch
    /// them with the exact `sin`/`cos`.
    fn trig_rare(self) -> bool;
    /// `tanh`, vectorisable (f32; f64 uses libm).
    fn tanh_v(self) -> Self;
    /// Calls the version of scalar function `f` for this type.
    fn call1(f: &crate::expr::ScalarFn1, x: Self) -> Self;
}

impl Flt for f32 {
    #[inline(always)]
    fn erf(self) -> Self {
        super::erf::erf_f32(self)
    }
    #[inline(always)]
    fn round_even(self) -> Self {
        self.round_ties_even()
    }
    #[inline(always)]
    fn c(v: f64) -> Self {
        v as f32
    }
    #[inline(always)]
    fn exp_v(self) -> Self {
        exp_f32(self)
    }
    #[inline(always)]
    fn ln_v(self) -> Self {
        super::vmath::log_f32(self)
    }
    #[inline(always)]
    fn sin_v(self) -> Self {
        super::vmath::sin_f32(self)
    }
    #[inline(always)]
    fn cos_v(self) -> Self {
        super::vmath::cos_f32(self)
    }
    #[inline(always)]
    fn trig_rare(self) -> bool {
        super::vmath::trig_rare(self)
    }
    #[inline(always)]
    fn tanh_v(self) -> Self {
        super::vmath::tanh_f32(self)
    }
    #[inline(always)]
    fn call1(f: &crate::expr::ScalarFn1, x: Self) -> Self {
        (f.f32)(x)
    }
}

impl Flt for f64 {
    #[inline(always)]
    fn erf(self) -> Self {
        libm::erf(self)
    }
    #[inline(always)]
    fn round_even(self) -> Self {
        self.round_ties_even()
    }
    #[inline(always)]
    fn c(v: f64) -> Self {
        v
    }
    #[inline(always)]
    fn exp_v(self) -> Self {
        self.exp()
    }
    #[inline(always)]
    fn ln_v(self) -> Self {
        self.ln()
    }
    #[inline(always)]
    fn sin_v(self) -> Self {
        self.sin()
    }
    #[inline(always)]
    fn cos_v(self) -> Self {
        self.cos()
    }
    #[inline(always)]
    fn trig_rare(self) -> bool {
        false
    }
    #[inline(always)]
    fn tanh_v(self) -> Self {
        self.tanh()
    }
    #[inline(always)]
    fn call1(f: &crate::expr::ScalarFn1, x: Self) -> Self {
        (f.f64)(x)
    }
}

/// `2^k` for `k` in `[-126, 127]`, by building the exponent bits.
#[inline(always)]
fn pow2i(k: i32) -> f32 {
    f32::from_bits(((k + 127) as u32) << 23)
}

/// `e^x` for f32 without branches or calls, so loops over it vectorise: Cody-Waite range reduction
/// `x = k ln2 + r` and a degree-6 polynomial (Cephes `expf` coefficients). Within 2 ulp of the
/// correctly rounded result (tested against f64); overflow gives inf, deep underflow 0, NaN stays
/// NaN. Subnormal results are kept by scaling with two powers of two.
///
/// NOTE: no `round`/`floor`: on the x86-64 baseline (SSE2) those are libm calls, which block
/// vectorisation. Adding and subtracting 1.5 * 2^23 rounds to nearest instead.
#[inline(always)]
pub fn exp_f32(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    const ROUND: f32 = 12_582_912.0;
    // Below -103.97 the result is 0 (selected at the end); computing it from a benign 0 keeps
    // the polynomial out of subnormals, whose microcode assists made a masked softmax (rows
    // of -inf) run at half speed.
    let xc = if x < -103.97 {
        0.0
    } else {
        x.clamp(-104.0, 88.8)
    };
    let t = xc * LOG2E + ROUND;
    // The low mantissa bits of `t` hold k (+ 2^22): read k without a float-to-int conversion.
    let k = t.to_bits() as i32 - ROUND.to_bits() as i32;
    let kf = t - ROUND;
    let r = xc - kf * LN2_HI - kf * LN2_LO;
    let mut p = 1.987_569_1e-4f32;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 0.5;
    let y = p * r * r + r + 1.0;
    let k1 = k >> 1;
    let v = y * pow2i(k1) * pow2i(k - k1);
    if x > 88.72284 {
        f32::INFINITY
    } else if x < -103.97 {
        0.0
    } else if x.is_nan() {
        x
    } else {
        v
    }
}

/// The integer compute types (u8, i8, i16, i32, i64).
pub trait Int:
    Element + PrimInt + WrappingNeg + WrappingMul + num_traits::WrappingAdd + num_traits::WrappingSub
{
    /// `|x|` with wrap-around for the minimum value (as C++).
    fn wabs(self) -> Self;
}

macro_rules! int_impl {
    (signed $($t:ty),*) => {$(
        impl Int for $t {
            #[inline(always)]
            fn wabs(self) -> Self {
                self.wrapping_abs()
            }
        }
    )*};
}
int_impl!(signed i8, i16, i32, i64);
impl Int for u8 {
    #[inline(always)]
    fn wabs(self) -> Self {
        self
    }
}

/// Logistic sigmoid, stable for large |x|.
#[inline(always)]
pub fn sigmoid<F: Flt>(x: F) -> F {
    F::one() / (F::one() + (-x).exp_v())
}

/// `softplus(x) = log(1 + exp(beta x)) / beta`, linear above `threshold`.
#[inline(always)]
pub fn softplus<F: Flt>(x: F, beta: F, threshold: F) -> F {
    if x * beta > threshold {
        x
    } else {
        (x * beta).exp().ln_1p() / beta
    }
}

/// Python/PyTorch floor division for floats (`aten::div_floor_floating`).
#[inline(always)]
pub fn div_floor<F: Flt>(a: F, b: F) -> F {
    if b == F::zero() {
        return a / b;
    }
    let m = a % b;
    let mut div = (a - m) / b;
    if m != F::zero() && (b < F::zero()) != (m < F::zero()) {
        div = div - F::one();
    }
    if div != F::zero() {
        let mut fl = div.floor();
        if div - fl > F::c(0.5) {
            fl += F::one();
        }
        fl
    } else {
        F::zero().copysign(a / b)
    }
}

/// Remainder with the divisor's sign, for floats.
#[inline(always)]
pub fn rem_float<F: Flt>(a: F, b: F) -> F {
    let m = a % b;
    if m != F::zero() && (b < F::zero()) != (m < F::zero()) {
        m + b
    } else {
        m
    }
}

/// NaN-propagating maximum.
#[inline(always)]
pub fn max_nan<T: Element>(a: T, b: T) -> T {
    if a.partial_cmp(&a).is_none() | (a > b) {
        a
    } else {
        b
    }
}

/// NaN-propagating minimum.
#[inline(always)]
pub fn min_nan<T: Element>(a: T, b: T) -> T {
    if a.partial_cmp(&a).is_none() | (a < b) {
        a
    } else {
        b
    }
}

/// `clamp`'s lower bound, as PyTorch's `std::max(v, lo)`: `lo` only where `v < lo` (so
/// `clamp(-0.0, min=0)` keeps -0.0 and a NaN `v` stays NaN) or where `lo` is NaN.
#[inline(always)]
pub fn clamp_lo<T: Element>(v: T, lo: T) -> T {
    if lo.partial_cmp(&lo).is_none() | (v < lo) {
        lo
    } else {
        v
    }
}

/// `clamp`'s upper bound: `hi` only where `v > hi` or where `hi` is NaN.
#[inline(always)]
pub fn clamp_hi<T: Element>(v: T, hi: T) -> T {
    if hi.partial_cmp(&hi).is_none() | (v > hi) {
        hi
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::exp_f32;

    #[test]
    fn exp_f32_is_within_2_ulp() {
        let mut x = -103.0f32;
        while x < 88.7 {
            let want = (x as f64).exp();
            let got = exp_f32(x) as f64;
            let ulp = (want as f32).abs() * f32::EPSILON;
            let ulp = (ulp as f64).max(f32::from_bits(1) as f64);
            assert!(
                (got - want).abs() <= 2.0 * ulp,
                "exp({x}) = {got}, want {want}"
            );
            x += 0.0137;
        }
        assert_eq!(exp_f32(0.0), 1.0);
        assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32(89.0), f32::INFINITY);
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp_f32(-200.0), 0.0);
        assert!(exp_f32(f32::NAN).is_nan());
    }
}
