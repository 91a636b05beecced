//! Branch-free, call-free f32 transcendentals (`log`, `sin`, `cos`, `tanh`) that loops can
//! vectorise: range reduction plus minimax polynomials (Cephes' coefficients). Selects instead of
//! branches, bit tricks instead of `floor`/`frexp` (which are libm calls on the x86-64 baseline).
//! `sin`/`cos` reduce accurately only for |x| <= [`TRIG_FAST_MAX`]; the kernels send larger and
//! non-finite inputs to libm (see `map1_patched`).

/// Largest |x| for which [`sin_f32`] / [`cos_f32`] are accurate (the 3-part pi/4 reduction).
pub const TRIG_FAST_MAX: f32 = 8192.0;

/// `ln(x)`, within 2 ulp for every positive normal or subnormal input; `ln(0) = -inf`,
/// negative and NaN inputs give NaN, `ln(inf) = inf`.
#[inline(always)]
#[allow(
    clippy::excessive_precision,
    reason = "Cephes' coefficients, as published"
)]
pub fn log_f32(x: f32) -> f32 {
    // Subnormals: scale into the normal range first.
    let sub = x < f32::MIN_POSITIVE;
    let xs = if sub { x * 8_388_608.0 } else { x };
    let bits = xs.to_bits() as i32;
    let mut e = ((bits >> 23) & 0xff) - 127 - if sub { 23 } else { 0 };
    let mut m = f32::from_bits(((bits & 0x007f_ffff) | 0x3f80_0000) as u32);
    // m in [1, 2); fold to [sqrt(1/2), sqrt(2)) so the polynomial argument stays small.
    let big = m > std::f32::consts::SQRT_2;
    m = if big { m * 0.5 } else { m };
    e += i32::from(big);
    let f = m - 1.0;
    let z = f * f;
    let mut y = 7.037_683_6e-2f32;
    y = y * f - 1.151_461e-1;
    y = y * f + 1.167_699_9e-1;
    y = y * f - 1.242_014_1e-1;
    y = y * f + 1.424_932_3e-1;
    y = y * f - 1.666_805_8e-1;
    y = y * f + 2.000_071_4e-1;
    y = y * f - 2.499_999_4e-1;
    y = y * f + 3.333_333_1e-1;
    y = y * f * z;
    let fe = e as f32;
    y += -2.121_944_4e-4 * fe;
    y += -0.5 * z;
    let r = f + y + 0.693_359_4 * fe;
    if x == 0.0 {
        f32::NEG_INFINITY
    } else if x.is_nan() | (x < 0.0) {
        f32::NAN
    } else if x == f32::INFINITY {
        x
    } else {
        r
    }
}

/// Shared `sin`/`cos` core: reduce by multiples of pi/4, pick the sine or cosine polynomial and
/// the sign by octant.
#[inline(always)]
#[allow(
    clippy::excessive_precision,
    reason = "Cephes' coefficients, as published"
)]
fn sincos(x: f32, cos: bool) -> f32 {
    const FOPI: f32 = 1.273_239_5;
    const DP1: f32 = 0.785_156_25;
    const DP2: f32 = 2.418_756_5e-4;
    const DP3: f32 = 3.774_895e-8;
    let ax = x.abs();
    // NOTE: a saturating `as i32` of an arbitrary float does not vectorise (LLVM scalarises it
    // per lane with compare-and-select; 3x slower). Out-of-range inputs are patched by the
    // caller anyway, so give them (and NaN, which `as` maps to 0) quotient 0 and convert
    // unchecked.
    let q = if ax <= TRIG_FAST_MAX { ax * FOPI } else { 0.0 };
    // SAFETY: q is in [0, TRIG_FAST_MAX * FOPI], far inside i32's range.
    let mut j: i32 = unsafe { q.to_int_unchecked() };
    j = j.wrapping_add(j & 1);
    let y = j as f32;
    let mut jj = j & 7;
    // For sin the sign follows x; cos is even.
    let mut sign = if cos { 0u32 } else { x.to_bits() >> 31 };
    let hi = jj > 3;
    sign ^= u32::from(hi);
    jj -= if hi { 4 } else { 0 };
    if cos {
        sign ^= u32::from(jj > 1);
    }
    let r = ((ax - y * DP1) - y * DP2) - y * DP3;
    let z = r * r;
    let pc = ((2.443_315_7e-5 * z - 1.388_731_6e-3) * z + 4.166_664_6e-2) * z * z - 0.5 * z + 1.0;
    let ps = ((-1.951_529_6e-4 * z + 8.332_161e-3) * z - 1.666_665_5e-1) * z * r + r;
    let v = if (jj == 2) != cos { pc } else { ps };
    f32::from_bits(v.to_bits() ^ (sign << 31))
}

/// `sin(x)` for |x| <= [`TRIG_FAST_MAX`] (and NaN).
#[inline(always)]
pub fn sin_f32(x: f32) -> f32 {
    sincos(x, false)
}

/// `cos(x)` for |x| <= [`TRIG_FAST_MAX`] (and NaN).
#[inline(always)]
pub fn cos_f32(x: f32) -> f32 {
    sincos(x, true)
}

/// Inputs the fast `sin`/`cos` do not cover (libm handles them).
#[inline(always)]
pub fn trig_rare(x: f32) -> bool {
    x.abs() > TRIG_FAST_MAX
}

/// `tanh(x)`: an odd polynomial below |x| = 0.625, `1 - 2 / (e^{2|x|} + 1)` above.
#[inline(always)]
#[allow(
    clippy::excessive_precision,
    reason = "Cephes' coefficients, as published"
)]
pub fn tanh_f32(x: f32) -> f32 {
    let ax = x.abs();
    let z = x * x;
    let mut p = -5.704_988_7e-3f32;
    p = p * z + 2.063_908_9e-2;
    p = p * z - 5.373_971_6e-2;
    p = p * z + 1.333_144_2e-1;
    p = p * z - 3.333_328_2e-1;
    let small = p * z * x + x;
    let e = super::math::exp_f32(ax + ax);
    let large = f32::from_bits((1.0 - 2.0 / (e + 1.0)).to_bits() | (x.to_bits() & 0x8000_0000));
    // `p * z * x + x` is +0.0 at x = -0.0; tanh is odd, so the sign is x's (PyTorch: -0.0).
    if ax < 0.625 { small.copysign(x) } else { large }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in f32 ulps between `got` and the correctly rounded `want`.
    fn ulps(got: f32, want: f64) -> u32 {
        let w = want as f32;
        if got.is_nan() && w.is_nan() || got == w {
            return 0;
        }
        let key = |v: f32| {
            let b = v.to_bits() as i32;
            if b < 0 { i32::MIN - b } else { b }
        };
        (key(got) as i64 - key(w) as i64).unsigned_abs() as u32
    }

    fn sweep(lo: f32, hi: f32, n: usize) -> impl Iterator<Item = f32> {
        (0..=n).map(move |i| lo + (hi - lo) * i as f32 / n as f32)
    }

    #[test]
    fn log_is_within_2_ulp() {
        let mut worst = 0;
        for x in sweep(1e-6, 100.0, 200_000).chain([1e-40, 1e-45, 3e38, 1.0, 2.0, 0.5]) {
            worst = worst.max(ulps(log_f32(x), (x as f64).ln()));
        }
        assert!(worst <= 2, "log: {worst} ulp");
        assert_eq!(log_f32(0.0), f32::NEG_INFINITY);
        assert!(log_f32(-1.0).is_nan() && log_f32(f32::NAN).is_nan());
        assert_eq!(log_f32(f32::INFINITY), f32::INFINITY);
    }

    #[test]
    fn sin_cos_are_within_2_ulp_or_1e_7_absolute() {
        for x in sweep(-TRIG_FAST_MAX, TRIG_FAST_MAX, 400_000).chain([
            0.0,
            -0.0,
            1e-30,
            std::f32::consts::PI,
        ]) {
            for (got, want) in [
                (sin_f32(x), (x as f64).sin()),
                (cos_f32(x), (x as f64).cos()),
            ] {
                // Near zeros of sin/cos the ulp is tiny; bound the absolute error there.
                assert!(
                    ulps(got, want) <= 2 || (got as f64 - want).abs() < 1e-7,
                    "x = {x}: got {got}, want {want}"
                );
            }
        }
        assert!(sin_f32(-0.0).is_sign_negative());
        assert!(sin_f32(f32::NAN).is_nan() && cos_f32(f32::NAN).is_nan());
    }

    #[test]
    fn tanh_is_within_3_ulp() {
        let mut worst = 0;
        for x in sweep(-12.0, 12.0, 200_000).chain([1e-30, -1e-40, 50.0, -90.0]) {
            worst = worst.max(ulps(tanh_f32(x), (x as f64).tanh()));
        }
        assert!(worst <= 3, "tanh: {worst} ulp");
        assert!(tanh_f32(f32::NAN).is_nan());
        assert_eq!(tanh_f32(f32::INFINITY), 1.0);
        assert_eq!(tanh_f32(f32::NEG_INFINITY), -1.0);
    }
}
