//! Division by a loop-invariant divisor (`x64/div.rs`: a reciprocal and Markstein's correction on
//! AVX2 and AVX-512, `vdivps` for vectors out of its range) against eager's division, bit for
//! bit, on every target: hard cases (`a` next to `b` times a rounding midpoint, where a quotient
//! off by one rounding would show), the edges of the fast path's range, and special values.

use rynamo_backend::{Backend, EagerBackend, Executable};
use rynamo_graph::parse;
use rynamo_tensor::Tensor;

use super::common::*;

/// xorshift32.
struct Rng(u32);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }
    /// A float with a random significand in `[1, 2)`.
    fn sig(&mut self) -> f32 {
        f32::from_bits(0x3f80_0000 | (self.next() & 0x7f_ffff))
    }
}

fn pow2(k: i32) -> f32 {
    2f64.powi(k) as f32
}

/// Divisors: random significands over 2^-45..2^45 (past the fast path's [2^-40, 2^40] on both
/// sides), its exact edges and their neighbours, and special values.
fn divisors(rng: &mut Rng, n: usize) -> Vec<f32> {
    let mut d = vec![
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-40,
        -3e-39,
        f32::MAX,
        pow2(-40),
        pow2(40),
        f32::from_bits(pow2(-40).to_bits() - 1),
        f32::from_bits(pow2(40).to_bits() + 1),
        1.0,
        -1.0,
        f32::from_bits(0x3fff_ffff),
    ];
    while d.len() < n {
        let s = if rng.next() & 1 == 0 { 1.0 } else { -1.0 };
        d.push(s * rng.sig() * pow2((rng.next() % 91) as i32 - 45));
    }
    d
}

/// A row of dividends for divisor `b`: mostly `a = RN(b * m)` and its neighbour for `m` just
/// above a midpoint between two floats, so `a / b` lies next to a rounding boundary; quotients
/// spread over 2^-70..2^50 (past the fast path's [2^-60, 2^40]); a few special values.
fn dividends(rng: &mut Rng, b: f32, cols: usize) -> Vec<f32> {
    let mut row = Vec::with_capacity(cols);
    while row.len() < cols {
        let r = rng.next();
        let a = match r % 16 {
            0 => [
                0.0,
                -0.0,
                f32::NAN,
                f32::INFINITY,
                -1e-42,
                f32::MIN_POSITIVE,
            ][(r >> 4) as usize % 6],
            1 => rng.sig() * pow2((rng.next() % 121) as i32 - 70),
            _ => {
                // Quotient scale: mostly inside the fast range, sometimes past it.
                let k = if r % 16 < 12 {
                    (rng.next() % 81) as i32 - 50
                } else {
                    (rng.next() % 121) as i32 - 70
                };
                let q = f64::from(rng.sig()) * 2f64.powi(k);
                let ulp = 2f64.powi(k - 23);
                let m = q + ulp / 2.0 * (1.0 + 2f64.powi(-30));
                let a = (f64::from(b) * m) as f32;
                if rng.next() & 1 == 0 {
                    a
                } else {
                    f32::from_bits(a.to_bits() ^ 1)
                }
            }
        };
        row.push(a);
    }
    row
}

fn bits_equal(got: &[f32], want: &[f32], what: &str) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan());
        assert!(
            ok,
            "{what}: element {i}: got {g:e} ({:#x}), want {w:e} ({:#x})",
            g.to_bits(),
            w.to_bits()
        );
    }
}

#[test]
fn division_by_a_row_value_is_bitwise_the_division() {
    // 1031 columns: full vectors on every tier and a scalar tail.
    let (rows, cols) = (512, 1031);
    let mut rng = Rng(0x9e37_79b9);
    let d = divisors(&mut rng, rows);
    let mut x = Vec::with_capacity(rows * cols);
    for &b in &d {
        x.extend(dividends(&mut rng, b, cols));
    }
    let xt = Tensor::from_vec(x, &[rows, cols]).unwrap();
    let dt = Tensor::from_vec(d, &[rows, 1]).unwrap();
    let src = format!(
        "graph(%x: f32[{rows}, {cols}], %d: f32[{rows}, 1]):\n  %0: f32[{rows}, {cols}] = div(%x, %d)\n  return (%0)\n"
    );
    let g = parse(&src).unwrap();
    let inputs = [xt, dt];
    let want = EagerBackend.compile(&g).unwrap().run(&inputs).unwrap()[0].to_vec::<f32>();
    for (b, _) in targets() {
        let exe = b.compile_exe(&g).unwrap();
        assert!(exe.is_jitted());
        let got = exe.run(&inputs).unwrap()[0].to_vec::<f32>();
        bits_equal(&got, &want, b.target_name());
    }
}

#[test]
fn division_by_a_reduction_is_bitwise_the_division() {
    // The divisor a row value of an earlier phase: the row maximum (exact in any order, unlike
    // a sum), with rows holding -inf, NaN, zeros and one huge value; and the reverse division,
    // whose divisor varies along the row (plain division).
    let (rows, cols) = (64, 333);
    let mut v = randn(&[rows, cols], 11).to_vec::<f32>();
    for (i, x) in v.iter_mut().enumerate() {
        *x *= 6.0;
        if i % 97 == 0 {
            *x = f32::NEG_INFINITY;
        } else if i % 89 == 0 {
            *x = 0.0;
        }
    }
    v[5 * cols + 3] = f32::NAN;
    v[9 * cols + 1] = 3e38;
    for x in &mut v[20 * cols..21 * cols] {
        *x = -x.abs();
    }
    let x = Tensor::from_vec(v, &[rows, cols]).unwrap();
    let src = format!(
        "graph(%x: f32[{rows}, {cols}]):\n  %0: f32[{rows}, 1] = amax(%x, [-1], True)\n  %1: f32[{rows}, {cols}] = div(%x, %0)\n  %2: f32[{rows}, {cols}] = div(%0, %x)\n  return (%1, %2)\n"
    );
    let g = parse(&src).unwrap();
    let inputs = std::slice::from_ref(&x);
    let want = EagerBackend.compile(&g).unwrap().run(inputs).unwrap();
    for (b, _) in targets() {
        let got = b.compile_exe(&g).unwrap().run(inputs).unwrap();
        for (g, w) in got.iter().zip(&want) {
            bits_equal(&g.to_vec::<f32>(), &w.to_vec::<f32>(), b.target_name());
        }
    }
}

/// The fast path is what AVX2 and AVX-512 emit for a hoisted divisor (its FMA correction is in
/// the listing), and SSE2 keeps the division.
#[cfg(target_arch = "x86_64")]
#[test]
fn hoisted_divisors_take_the_reciprocal_on_fma_tiers() {
    let src =
        "graph(%x: f32[8, 64], %d: f32[8, 1]):\n  %0: f32[8, 64] = div(%x, %d)\n  return (%0)\n";
    for (b, sse2) in targets() {
        let exe = b.compile_exe(&parse(src).unwrap()).unwrap();
        let listing = exe.dump();
        assert_eq!(
            listing.contains("vfnmadd231ps"),
            !sse2,
            "{}:\n{listing}",
            b.target_name()
        );
    }
}
