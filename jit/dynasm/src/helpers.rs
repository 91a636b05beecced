//! Scalar functions that kernels call per element: the library functions the JIT does not
//! vectorise, and the slow paths of the vectorised ones. They compute exactly what the eager
//! kernels compute (the same std/libm calls, and eager's own f32 `erf`), so called elements match eager
//! bit for bit.
//! Every one is `extern "C"` (the platform ABI the emitters call), takes and returns registers only, and cannot unwind.

use rynamo_tensor::kernels::math::{div_floor, rem_float};

use crate::loop_ir::{Func1, Func2};

macro_rules! f1 {
    ($name:ident, $t:ty, $body:expr) => {
        extern "C" fn $name(x: $t) -> $t {
            let f: fn($t) -> $t = $body;
            f(x)
        }
    };
}

f1!(exp_f32, f32, f32::exp);
f1!(log_f32, f32, f32::ln);
f1!(sin_f32, f32, f32::sin);
f1!(cos_f32, f32, f32::cos);
f1!(tanh_f32, f32, f32::tanh);
f1!(erf_f32, f32, rynamo_tensor::kernels::erf::erf_f32);
f1!(floor_f32, f32, f32::floor);
f1!(ceil_f32, f32, f32::ceil);
f1!(trunc_f32, f32, f32::trunc);
f1!(round_f32, f32, f32::round_ties_even);
f1!(sigmoid_f32, f32, |v| 1.0 / (1.0 + (-v).exp()));
f1!(exp_f64, f64, f64::exp);
f1!(log_f64, f64, f64::ln);
f1!(sin_f64, f64, f64::sin);
f1!(cos_f64, f64, f64::cos);
f1!(tanh_f64, f64, f64::tanh);
f1!(erf_f64, f64, libm::erf);
f1!(floor_f64, f64, f64::floor);
f1!(ceil_f64, f64, f64::ceil);
f1!(trunc_f64, f64, f64::trunc);
f1!(round_f64, f64, f64::round_ties_even);
f1!(sigmoid_f64, f64, |v| 1.0 / (1.0 + (-v).exp()));

macro_rules! f2 {
    ($name:ident, $t:ty, $body:expr) => {
        extern "C" fn $name(x: $t, y: $t) -> $t {
            let f: fn($t, $t) -> $t = $body;
            f(x, y)
        }
    };
}

f2!(pow_f32, f32, f32::powf);
f2!(atan2_f32, f32, f32::atan2);
f2!(div_floor_f32, f32, div_floor::<f32>);
f2!(rem_f32, f32, rem_float::<f32>);
f2!(pow_f64, f64, f64::powf);
f2!(atan2_f64, f64, f64::atan2);
f2!(div_floor_f64, f64, div_floor::<f64>);
f2!(rem_f64, f64, rem_float::<f64>);
// Eager's fmod and hypot kernels: Rust's `%` (C's fmod, exact) and `hypot` (the platform libm's).
f2!(fmod_f32, f32, |x, y| x % y);
f2!(fmod_f64, f64, |x, y| x % y);
f2!(hypot_f32, f32, f32::hypot);
f2!(hypot_f64, f64, f64::hypot);

/// Address of the scalar function `f` for f32 (`double` = false) or f64.
pub fn func1(f: Func1, double: bool) -> usize {
    macro_rules! pick {
        ($a:ident, $b:ident) => {
            if double {
                $b as extern "C" fn(f64) -> f64 as usize
            } else {
                $a as extern "C" fn(f32) -> f32 as usize
            }
        };
    }
    match f {
        Func1::Exp => pick!(exp_f32, exp_f64),
        Func1::Log => pick!(log_f32, log_f64),
        Func1::Sin => pick!(sin_f32, sin_f64),
        Func1::Cos => pick!(cos_f32, cos_f64),
        Func1::Tanh => pick!(tanh_f32, tanh_f64),
        Func1::Erf => pick!(erf_f32, erf_f64),
        Func1::Floor => pick!(floor_f32, floor_f64),
        Func1::Ceil => pick!(ceil_f32, ceil_f64),
        Func1::Trunc => pick!(trunc_f32, trunc_f64),
        Func1::Round => pick!(round_f32, round_f64),
        Func1::Sigmoid => pick!(sigmoid_f32, sigmoid_f64),
        Func1::Extern(s) if double => s.f64 as usize,
        Func1::Extern(s) => s.f32 as usize,
    }
}

/// Address of the two-argument scalar function `f`.
pub fn func2(f: Func2, double: bool) -> usize {
    macro_rules! pick {
        ($a:ident, $b:ident) => {
            if double {
                $b as extern "C" fn(f64, f64) -> f64 as usize
            } else {
                $a as extern "C" fn(f32, f32) -> f32 as usize
            }
        };
    }
    match f {
        Func2::Pow => pick!(pow_f32, pow_f64),
        Func2::Atan2 => pick!(atan2_f32, atan2_f64),
        Func2::DivFloor => pick!(div_floor_f32, div_floor_f64),
        Func2::Remainder => pick!(rem_f32, rem_f64),
        Func2::Fmod => pick!(fmod_f32, fmod_f64),
        Func2::Hypot => pick!(hypot_f32, hypot_f64),
    }
}

/// Slow path of vectorised sin/cos for huge arguments: `which` 0 = sin, 1 = cos, over `n` lanes
/// in place.
///
/// # Safety
/// `p` points to `n` writable f32s.
pub unsafe extern "C" fn trig_lanes(p: *mut f32, n: usize, which: usize) {
    // SAFETY: forwarded to the caller (the emitted code passes its call slot, one vector).
    let xs = unsafe { std::slice::from_raw_parts_mut(p, n) };
    for x in xs {
        *x = if which == 0 { x.sin() } else { x.cos() };
    }
}
