//! Native element types and the dtype-dispatch macros that turn a runtime [`DType`] into a generic
//! type parameter.

use half::{bf16, f16};

use crate::DType;

/// A Rust type that stores one element of a [`DType`].
///
/// Conversions follow PyTorch's casts: float to int truncates toward zero, anything to bool is `!= 0`
/// (NaN is true), int to narrower int wraps.
pub trait Element: Copy + Send + Sync + PartialOrd + std::fmt::Debug + 'static {
    /// The dtype this type stores.
    const DTYPE: DType;
    /// Whether values should round-trip through f64 (floats) rather than i64 (integers, bool).
    const IS_FLOAT: bool;
    /// Zero.
    const ZERO: Self;
    /// One.
    const ONE: Self;
    /// Widening conversion to f64.
    fn to_f64(self) -> f64;
    /// Narrowing conversion from f64.
    fn from_f64(v: f64) -> Self;
    /// Conversion to i64 (floats truncate).
    fn to_i64(self) -> i64;
    /// Conversion from i64 (wrapping for narrower ints).
    fn from_i64(v: i64) -> Self;
    /// Truthiness.
    fn to_bool(self) -> bool;

    /// Converts to another element type with PyTorch's cast semantics.
    #[inline(always)]
    fn cast<D: Element>(self) -> D {
        if D::DTYPE == DType::Bool {
            D::from_i64(i64::from(self.to_bool()))
        } else if Self::IS_FLOAT {
            D::from_f64(self.to_f64())
        } else {
            D::from_i64(self.to_i64())
        }
    }
}

macro_rules! int_element {
    ($t:ty, $dt:ident) => {
        impl Element for $t {
            const DTYPE: DType = DType::$dt;
            const IS_FLOAT: bool = false;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                // Through i64 so out-of-range values wrap like C casts instead of saturating.
                v as i64 as $t
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn to_bool(self) -> bool {
                self != 0
            }
        }
    };
}
int_element!(u8, UInt8);
int_element!(i8, Int8);
int_element!(i16, Int16);
int_element!(i32, Int32);
int_element!(i64, Int64);

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    const IS_FLOAT: bool = false;
    const ZERO: Self = false;
    const ONE: Self = true;
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(u8::from(self))
    }
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    #[inline(always)]
    fn to_i64(self) -> i64 {
        i64::from(self)
    }
    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        v != 0
    }
    #[inline(always)]
    fn to_bool(self) -> bool {
        self
    }
}

macro_rules! float_element {
    ($t:ty, $dt:ident, $to:expr, $from:expr) => {
        impl Element for $t {
            const DTYPE: DType = DType::$dt;
            const IS_FLOAT: bool = true;
            const ZERO: Self = <$t>::from_f32_const(0.0);
            const ONE: Self = <$t>::from_f32_const(1.0);
            #[inline(always)]
            fn to_f64(self) -> f64 {
                $to(self)
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                $from(v)
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self.to_f64() as i64
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                Self::from_f64(v as f64)
            }
            #[inline(always)]
            fn to_bool(self) -> bool {
                self.to_f64() != 0.0
            }
        }
    };
}
float_element!(f16, Float16, f16::to_f64, f16::from_f64);
float_element!(bf16, BFloat16, bf16::to_f64, bf16::from_f64);

/// f32/f64 need their own impls: `from_f32_const` does not exist on primitives.
macro_rules! prim_float_element {
    ($t:ty, $dt:ident) => {
        impl Element for $t {
            const DTYPE: DType = DType::$dt;
            const IS_FLOAT: bool = true;
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn to_bool(self) -> bool {
                self != 0.0
            }
        }
    };
}
prim_float_element!(f32, Float32);
prim_float_element!(f64, Float64);

/// Raised by the dtype-dispatch macros for a complex dtype: the generic kernels have no complex
/// element type (complex values are not ordered, and most real kernels have no complex meaning),
/// so an op that has no complex path of its own fails with PyTorch's error style instead of
/// reinterpreting the bytes.
#[cold]
pub fn no_complex_kernel(d: DType) -> ! {
    crate::unwind::raise(crate::Error::NotImplementedFor {
        op: "kernel",
        dtype: d.aten_name(),
    })
}

/// Runs `$body` with `$T` bound to the element type of `$dt`, for every real dtype (a complex
/// dtype raises [`no_complex_kernel`]).
#[macro_export]
macro_rules! dispatch_all {
    ($dt:expr, $T:ident => $body:expr) => {
        match $dt {
            $crate::DType::Bool => {
                type $T = bool;
                $body
            }
            $crate::DType::UInt8 => {
                type $T = u8;
                $body
            }
            $crate::DType::Int8 => {
                type $T = i8;
                $body
            }
            $crate::DType::Int16 => {
                type $T = i16;
                $body
            }
            $crate::DType::Int32 => {
                type $T = i32;
                $body
            }
            $crate::DType::Int64 => {
                type $T = i64;
                $body
            }
            $crate::DType::Float16 => {
                type $T = $crate::half::f16;
                $body
            }
            $crate::DType::BFloat16 => {
                type $T = $crate::half::bf16;
                $body
            }
            $crate::DType::Float32 => {
                type $T = f32;
                $body
            }
            $crate::DType::Float64 => {
                type $T = f64;
                $body
            }
            d @ ($crate::DType::Complex64 | $crate::DType::Complex128) => {
                $crate::element::no_complex_kernel(d)
            }
        }
    };
}

/// Like [`dispatch_all!`] but only for compute dtypes (no f16/bf16): those evaluate `$half` instead.
#[macro_export]
macro_rules! dispatch_compute {
    ($dt:expr, $T:ident => $body:expr, half => $half:expr) => {
        match $dt {
            $crate::DType::Bool => {
                type $T = bool;
                $body
            }
            $crate::DType::UInt8 => {
                type $T = u8;
                $body
            }
            $crate::DType::Int8 => {
                type $T = i8;
                $body
            }
            $crate::DType::Int16 => {
                type $T = i16;
                $body
            }
            $crate::DType::Int32 => {
                type $T = i32;
                $body
            }
            $crate::DType::Int64 => {
                type $T = i64;
                $body
            }
            $crate::DType::Float32 => {
                type $T = f32;
                $body
            }
            $crate::DType::Float64 => {
                type $T = f64;
                $body
            }
            $crate::DType::Float16 | $crate::DType::BFloat16 => $half,
            d @ ($crate::DType::Complex64 | $crate::DType::Complex128) => {
                $crate::element::no_complex_kernel(d)
            }
        }
    };
}
