//! Scalar math traits the elementwise kernels are generic over.

use num_traits::{Float, PrimInt, WrappingMul, WrappingNeg};

use crate::Element;

/// f32 and f64: the two float compute types.
pub trait Flt: Element + Float + std::ops::AddAssign {
    /// Error function.
    fn erf(self) -> Self;
    /// Round half to even (`torch.round`).
    fn round_even(self) -> Self;
    /// Lossy conversion from f64 for constants.
    fn c(v: f64) -> Self;
}

impl Flt for f32 {
    #[inline(always)]
    fn erf(self) -> Self {
        libm::erff(self)
    }
    #[inline(always)]
    fn round_even(self) -> Self {
        self.round_ties_even()
    }
    #[inline(always)]
    fn c(v: f64) -> Self {
        v as f32
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
    F::one() / (F::one() + (-x).exp())
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

/// Exact GELU: `x * Phi(x)`.
#[inline(always)]
pub fn gelu_erf<F: Flt>(x: F) -> F {
    F::c(0.5) * x * (F::one() + (x * F::c(std::f64::consts::FRAC_1_SQRT_2)).erf())
}

/// Tanh-approximated GELU.
#[inline(always)]
pub fn gelu_tanh<F: Flt>(x: F) -> F {
    let k = F::c((2.0 / std::f64::consts::PI).sqrt());
    F::c(0.5) * x * (F::one() + (k * (x + F::c(0.044715) * x * x * x)).tanh())
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
    if a.partial_cmp(&a).is_none() || a > b {
        a
    } else {
        b
    }
}

/// NaN-propagating minimum.
#[inline(always)]
pub fn min_nan<T: Element>(a: T, b: T) -> T {
    if a.partial_cmp(&a).is_none() || a < b {
        a
    } else {
        b
    }
}
