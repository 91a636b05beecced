//! Polynomial coefficients and constants of the vectorised f32 math functions, shared by every
//! target's emitter. The table is 32-byte aligned with each constant broadcast to 8 lanes, so an
//! emitter reads entry `k` as a full vector at `table + 32 * k` (NEON reads the first 16 bytes;
//! AVX-512 broadcasts the first element, `{1to16}`, see `x64::asm::Mem`).
//!
//! Where the coefficients come from (no fitted constants are copied from anywhere):
//! - exp: `e^r = 1 + r + r^2 g(r)` on `|r| <= ln2/2`, with `g` (degree 4) the Chebyshev
//!   expansion of `(e^r - 1 - r) / r^2` there, computed here at start-up from its Taylor series
//!   ([`exp_coefficients`]; relative error below 2^-26 with the coefficients rounded to f32, a
//!   Taylor polynomial of the same degree 6 is 2^-22 off). Six FMAs.
//! - log: `log m = 2 atanh s` with `s = (m-1)/(m+1)`, `|s| <= 0.1716`, odd series to `s^11`.
//! - sin/cos: reduction by `pi/2` (quotient by adding `1.5 * 2^23`) in f32 with three FMAs below
//!   `TRIG_FAST` with FMA (AVX2, AVX-512, NEON), else in f64 (two-part constant), then Taylor series to degree 9 / 10
//!   on `|r| <= pi/4` in f32.
//! - tanh: Taylor series (Bernoulli numbers) to degree 15 below `|x| = 0.5`; `1 - 2/(e^{2x}+1)`
//!   above.
//! - erf: eager's piecewise polynomials (`rynamo_tensor::kernels::erf`), their f32 coefficients
//!   taken from there, so that the JIT computes eager's bits (see `vmath/log_erf.rs`).

use std::sync::OnceLock;

macro_rules! consts {
    ($($name:ident,)*) => {
        /// Table entries.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[allow(missing_docs, reason = "names follow the formulas in the module docs")]
        #[repr(usize)]
        pub enum K { $($name),* , ErfCoef0 }
        const NAMED: usize = K::ErfCoef0 as usize;
    };
}

consts! {
    Zero, One, Half, Two, AllOnes, NegZero, AbsMask, Inf, NegInf, Nan, NegZeroD, AbsMaskD, FltMin, Pow2_23, Sqrt2, Log2e, Ln2Hi, Ln2Lo, NegLn2Hi, NegLn2Lo,
    ExpHi, ExpLo, ExpNonnegHi, Exp2, Exp3, Exp4, Exp5, Exp6,
    Log3, Log5, Log7, Log9, Log11, LogNeg23, Int127, IntOne, IntTwo, MantMask,
    TwoOverPi, NegPio2HiD, NegPio2LoD, TrigLimit, Sin3, Sin5, Sin7, Sin9, Cos2, Cos4, Cos6, Cos8, Cos10,
    TanhSmall, Tanh3, Tanh5, Tanh7, Tanh9, Tanh11, Tanh13, Tanh15,
    ErfSmallMax, ErfSplit, ErfOneFrom, ErfCenterLo, ErfCenterHi,
    RoundMagic, NegPio2A, NegPio2B, NegPio2C, TrigFastBias, TrigFastBits, TrigLimitBias, ExpScaleBias, Pow2Neg64,
    DivisorLo, DivisorSpan, QuotientLo, QuotientSpan,
}

use rynamo_tensor::kernels::erf as eager_erf;

/// erf's polynomial coefficients, after the named entries: eager's `SMALL`, `LOWER` and `UPPER`
/// in that order (see [`erf_coef_off`]).
const ERF_COEFS: usize = eager_erf::SMALL.len() + eager_erf::LOWER.len() + eager_erf::UPPER.len();
/// Entries in the table.
pub const LEN: usize = NAMED + ERF_COEFS;
/// Trig arguments above this magnitude take the scalar library path (the f64 reduction by
/// `pi/2 = hi + lo` is exact for quotients below 2^20).
pub const TRIG_LIMIT: f32 = 1.0e6;

/// Below this magnitude (every lane of a vector), sin and cos reduce by `pi/2` in f32 (with FMA)
/// with three FMAs instead of converting to f64; lanes above it, in a vector that has any, are
/// reduced in f64 (each lane's result depends on its own value only). `tests/ulp.rs` checks the
/// f32 path on a dense grid of `[-TRIG_FAST, TRIG_FAST]`.
pub const TRIG_FAST: f32 = 32_768.0;

/// The int32 that, subtracted from the bits of `|x|`, gives `bits(|x|) - bits(2^lo) + 2^31`
/// (mod 2^32): with [`range_span`], a signed compare of it decides `2^lo <= |x| <= 2^hi`
/// (the x86-64 division by a reciprocal, `x64/div.rs`).
fn range_lo(lo: i32) -> u32 {
    f(2f64.powi(lo)).wrapping_add(0x8000_0000)
}

/// `bits(2^hi) - bits(2^lo) - 2^31` (mod 2^32): the largest in-range value of `range_lo`'s
/// difference, as a signed int32.
fn range_span(lo: i32, hi: i32) -> u32 {
    (f(2f64.powi(hi)) - f(2f64.powi(lo))).wrapping_sub(0x8000_0000)
}

/// The int32 that, added to the bits of `|x|`, sets the sign bit exactly when `|x| > limit`
/// (NaN included): `bits(|x|) <= 0x7fff_ffff`, so the sum never wraps.
fn bias_above(limit: f32) -> u32 {
    0x7fff_ffff - limit.to_bits()
}

/// The table: `LEN` entries of 8 lanes.
#[repr(C, align(32))]
pub struct Table(pub [[u32; 8]; LEN]);

impl Table {
    /// Address of the first entry.
    pub fn as_ptr(&self) -> *const u8 {
        self.0.as_ptr().cast()
    }
}

/// Byte offset of entry `k`.
pub const fn off(k: K) -> i32 {
    (k as usize * 32) as i32
}

/// The erf polynomials whose coefficients the table holds (eager's arrays of the same names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErfPoly {
    /// `erf(a)/a - 1` in `a^2`, below `SMALL_MAX`.
    Small,
    /// `erfc` on `[SMALL_MAX, SPLIT)` in `a - CENTER[0]`.
    Lower,
    /// `erfc` on `[SPLIT, ONE_FROM)` in `a - CENTER[1]`.
    Upper,
}

impl ErfPoly {
    /// The coefficients, constant term first.
    pub const fn coefs(self) -> &'static [f32] {
        match self {
            ErfPoly::Small => &eager_erf::SMALL,
            ErfPoly::Lower => &eager_erf::LOWER,
            ErfPoly::Upper => &eager_erf::UPPER,
        }
    }

    /// Index of the polynomial's constant term among the table's erf coefficients.
    const fn first(self) -> usize {
        match self {
            ErfPoly::Small => 0,
            ErfPoly::Lower => eager_erf::SMALL.len(),
            ErfPoly::Upper => eager_erf::SMALL.len() + eager_erf::LOWER.len(),
        }
    }
}

/// Byte offset of the coefficient of degree `i` of erf's polynomial `p`.
pub const fn erf_coef_off(p: ErfPoly, i: usize) -> i32 {
    assert!(i < p.coefs().len());
    ((NAMED + p.first() + i) * 32) as i32
}

fn f(v: f64) -> u32 {
    (v as f32).to_bits()
}

/// The largest f32 at most `v` (`v > 0`).
fn f32_below(v: f64) -> f32 {
    let f = v as f32;
    if f64::from(f) > v {
        f32::from_bits(f.to_bits() - 1)
    } else {
        f
    }
}

fn fact(n: u32) -> f64 {
    (1..=n).map(f64::from).product()
}

/// Chebyshev coefficients `c_0..c_n` of `g` on `[a, b]` (interpolation at Chebyshev nodes).
pub fn chebyshev(g: impl Fn(f64) -> f64, a: f64, b: f64, n: usize) -> Vec<f64> {
    let m = 64;
    let nodes: Vec<f64> = (0..m)
        .map(|k| (std::f64::consts::PI * (k as f64 + 0.5) / m as f64).cos())
        .collect();
    let vals: Vec<f64> = nodes
        .iter()
        .map(|t| g(0.5 * (b - a) * t + 0.5 * (b + a)))
        .collect();
    (0..=n)
        .map(|j| {
            let s: f64 = nodes
                .iter()
                .zip(&vals)
                .map(|(t, v)| v * (j as f64 * t.acos()).cos())
                .sum();
            s * 2.0 / m as f64 * if j == 0 { 0.5 } else { 1.0 }
        })
        .collect()
}

/// `c_2..c_6` with `e^r ~ 1 + r + c_2 r^2 + ... + c_6 r^6` on `|r| <= ln2/2`: the degree-4
/// Chebyshev expansion of `g(r) = (e^r - 1 - r) / r^2 = sum_k r^k / (k+2)!` (summed directly,
/// no cancellation), turned into powers of `r`.
pub fn exp_coefficients() -> [f64; 5] {
    let h = std::f64::consts::LN_2 / 2.0;
    let g = |r: f64| (0..24).map(|k| r.powi(k as i32) / fact(k + 2)).sum::<f64>();
    let c = chebyshev(g, -h, h, 4);
    // Powers of t = r / h in T_j(t), by T_{j+1} = 2t T_j - T_{j-1}.
    let mut t_prev = [0.0; 5];
    let mut t_cur = [0.0; 5];
    t_prev[0] = 1.0;
    t_cur[1] = 1.0;
    let mut p = [0.0; 5];
    for (j, &cj) in c.iter().enumerate() {
        let tj = if j == 0 { t_prev } else { t_cur };
        for i in 0..5 {
            p[i] += cj * tj[i];
        }
        if j >= 1 {
            let mut next = [0.0; 5];
            for i in 0..5 {
                next[i] = -t_prev[i] + if i > 0 { 2.0 * t_cur[i - 1] } else { 0.0 };
            }
            (t_prev, t_cur) = (t_cur, next);
        }
    }
    std::array::from_fn(|i| p[i] / h.powi(i as i32))
}

fn build() -> Table {
    let mut t = [[0u32; 8]; LEN];
    use K::*;
    let ln2 = std::f64::consts::LN_2;
    let ln2_hi = f64::from(f32::from_bits(f(ln2) & 0xffff_f000));
    let pio2 = std::f64::consts::FRAC_PI_2;
    let named: &[(K, u32)] = &[
        (One, f(1.0)),
        (Half, f(0.5)),
        (Two, f(2.0)),
        (AllOnes, u32::MAX),
        (NegZero, 0x8000_0000),
        (AbsMask, 0x7fff_ffff),
        (Inf, f32::INFINITY.to_bits()),
        (NegInf, f32::NEG_INFINITY.to_bits()),
        (Nan, f32::NAN.to_bits()),
        (FltMin, f32::MIN_POSITIVE.to_bits()),
        (Pow2_23, f(8_388_608.0)),
        (Sqrt2, f(std::f64::consts::SQRT_2)),
        (Log2e, f(std::f64::consts::LOG2_E)),
        (Ln2Hi, f(ln2_hi)),
        (Ln2Lo, f(ln2 - ln2_hi)),
        (NegLn2Hi, f(-ln2_hi)),
        (NegLn2Lo, f(-(ln2 - ln2_hi))),
        (ExpHi, f(89.0)),
        (ExpLo, f(-104.0)),
        (ExpNonnegHi, f(88.0)),
        (Log3, f(1.0 / 3.0)),
        (Log5, f(1.0 / 5.0)),
        (Log7, f(1.0 / 7.0)),
        (Log9, f(1.0 / 9.0)),
        (Log11, f(1.0 / 11.0)),
        (LogNeg23, f(-23.0)),
        (Int127, 127),
        (IntOne, 1),
        (IntTwo, 2),
        (MantMask, 0x007f_ffff),
        (TwoOverPi, f(2.0 / std::f64::consts::PI)),
        (TrigLimit, TRIG_LIMIT.to_bits()),
        (Sin3, f(-1.0 / fact(3))),
        (Sin5, f(1.0 / fact(5))),
        (Sin7, f(-1.0 / fact(7))),
        (Sin9, f(1.0 / fact(9))),
        (Cos2, f(-1.0 / fact(2))),
        (Cos4, f(1.0 / fact(4))),
        (Cos6, f(-1.0 / fact(6))),
        (Cos8, f(1.0 / fact(8))),
        (Cos10, f(-1.0 / fact(10))),
        (TanhSmall, f(0.5)),
        (Tanh3, f(-1.0 / 3.0)),
        (Tanh5, f(2.0 / 15.0)),
        (Tanh7, f(-17.0 / 315.0)),
        (Tanh9, f(62.0 / 2835.0)),
        (Tanh11, f(-1382.0 / 155_925.0)),
        (Tanh13, f(21844.0 / 6_081_075.0)),
        (Tanh15, f(-929_569.0 / 638_512_875.0)),
        (ErfSmallMax, eager_erf::SMALL_MAX.to_bits()),
        (ErfSplit, eager_erf::SPLIT.to_bits()),
        (ErfOneFrom, eager_erf::ONE_FROM.to_bits()),
        (ErfCenterLo, eager_erf::CENTER[0].to_bits()),
        (ErfCenterHi, eager_erf::CENTER[1].to_bits()),
        (RoundMagic, f(12_582_912.0)),
        (TrigFastBias, bias_above(TRIG_FAST)),
        (TrigFastBits, TRIG_FAST.to_bits()),
        (TrigLimitBias, bias_above(TRIG_LIMIT)),
        (ExpScaleBias, (127 + 64) << 23),
        (Pow2Neg64, f(2f64.powi(-64))),
        (DivisorLo, range_lo(-40)),
        (DivisorSpan, range_span(-40, 40)),
        (QuotientLo, range_lo(-60)),
        (QuotientSpan, range_span(-60, 40)),
    ];
    for &(k, bits) in named {
        t[k as usize] = [bits; 8];
    }
    for (k, c) in [Exp2, Exp3, Exp4, Exp5, Exp6]
        .into_iter()
        .zip(exp_coefficients())
    {
        t[k as usize] = [f(c); 8];
    }
    // pi/2 as hi + lo in f64: hi keeps 33 bits so q * hi is exact for q < 2^20; lo adds the
    // part of pi/2 below f64 precision (pi/2 - f64(pi/2) = 6.123233995736766e-17).
    let hi = f64::from_bits(pio2.to_bits() & !((1u64 << 20) - 1));
    let lo = (pio2 - hi) + 6.123_233_995_736_766e-17;
    let pair = |v: f64| {
        let b = v.to_bits();
        let (l, h) = (b as u32, (b >> 32) as u32);
        [l, h, l, h, l, h, l, h]
    };
    t[NegPio2HiD as usize] = pair(-hi);
    // pi/2 = a + b + c in f32, each the remainder of the previous rounded down: `x - q a` is
    // exact with FMA (see `TRIG_FAST`), and all three positive keep `x = -0` (q = +0) at -0
    // through the FMAs. `pi/2 - a - b` needs the f64 tail above too (the differences are exact).
    let a = f32_below(pio2);
    let b = f32_below(pio2 - f64::from(a));
    let c = f32_below((pio2 - f64::from(a) - f64::from(b)) + 6.123_233_995_736_766e-17);
    for (k, v) in [(NegPio2A, a), (NegPio2B, b), (NegPio2C, c)] {
        t[k as usize] = [(-v).to_bits(); 8];
    }
    t[NegPio2LoD as usize] = pair(-lo);
    // f64 masks: (low, high) word pairs.
    t[NegZeroD as usize] = [
        0,
        0x8000_0000,
        0,
        0x8000_0000,
        0,
        0x8000_0000,
        0,
        0x8000_0000,
    ];
    t[AbsMaskD as usize] = [
        u32::MAX,
        0x7fff_ffff,
        u32::MAX,
        0x7fff_ffff,
        u32::MAX,
        0x7fff_ffff,
        u32::MAX,
        0x7fff_ffff,
    ];
    for p in [ErfPoly::Small, ErfPoly::Lower, ErfPoly::Upper] {
        for (i, c) in p.coefs().iter().enumerate() {
            t[NAMED + p.first() + i] = [c.to_bits(); 8];
        }
    }
    Table(t)
}

/// The process-wide table.
pub fn table() -> &'static Table {
    static T: OnceLock<Box<Table>> = OnceLock::new();
    T.get_or_init(|| Box::new(build()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_polynomial_is_accurate_with_f32_coefficients() {
        let c = exp_coefficients().map(|c| f64::from(c as f32));
        let h = std::f64::consts::LN_2 / 2.0;
        for i in -1000..=1000 {
            let r = h * f64::from(i) / 1000.0;
            let g = c.iter().rev().fold(0.0, |acc, &ck| acc * r + ck);
            let p = 1.0 + r + r * r * g;
            assert!((p / r.exp() - 1.0).abs() < 2f64.powi(-26), "r={r}");
        }
        // The leading coefficients are close to Taylor's.
        assert!((c[0] - 0.5).abs() < 1e-6 && (c[1] - 1.0 / 6.0).abs() < 1e-5);
    }

    #[test]
    fn table_is_aligned_and_broadcast() {
        let t = table();
        assert_eq!(t.as_ptr() as usize % 32, 0);
        assert_eq!(f32::from_bits(t.0[K::Half as usize][7]), 0.5);
        assert_eq!(t.0[K::Int127 as usize][3], 127);
    }

    /// The erf entries are eager's constants, each polynomial's coefficients in order.
    #[test]
    fn erf_entries_are_eagers_constants() {
        let t = table();
        let at = |off: i32| f32::from_bits(t.0[off as usize / 32][5]);
        assert_eq!(at(off(K::ErfSplit)), eager_erf::SPLIT);
        assert_eq!(at(off(K::ErfCenterHi)), eager_erf::CENTER[1]);
        for p in [ErfPoly::Small, ErfPoly::Lower, ErfPoly::Upper] {
            for (i, &c) in p.coefs().iter().enumerate() {
                assert_eq!(at(erf_coef_off(p, i)).to_bits(), c.to_bits(), "{p:?} {i}");
            }
        }
        assert_eq!(erf_coef_off(ErfPoly::Upper, 11), (LEN as i32 - 1) * 32);
    }
}
