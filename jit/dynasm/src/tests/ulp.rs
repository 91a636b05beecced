//! Accuracy of the vectorised f32 math against an f64 reference, in ulps of the f32 result, on
//! every target (the three x86-64 tiers; NEON under qemu-user), over wide ranges and special
//! values (NaN, ±inf, denormals, -0.0).
//!
//! Measured maximum errors over 250,000 points per function (AVX2+FMA / SSE2 / NEON), and the
//! bounds asserted below (NEON is held to the AVX2 bounds). AVX-512 and NEON run AVX2's algorithms (`vmath`) and
//! measure exactly as AVX2 (`tests/avx512.rs` and `tests/math_bits.rs` check them bitwise).
//!
//! | function | range tested | AVX2, AVX-512 | SSE2 | NEON | bound |
//! |---|---|---|---|---|---|
//! | exp | [-104, 89] | 0.89 | 1.16 | 0.89 | 1.5 |
//! | log | every binade of (0, 3.4e38], denormals too | 1.72 | 1.72 | 1.72 | 2 |
//! | sin | [-1e6, 1e6] (beyond: scalar libm) | 1.40 | 1.42 | 1.40 | 1.5 |
//! | cos | [-1e6, 1e6] (beyond: scalar libm) | 1.43 | 1.43 | 1.43 | 1.5 |
//! | sin, cos | [-32768, 32768] dense, plus `TRIG_HARD` | 1.49 | 1.49 | 1.49 | 1.5 |
//! | tanh | [-20, 20] | 1.60 | 1.91 | 1.60 | 2 |
//! | sigmoid | [-100, 100] | 2.06 | 2.09 | 2.06 | 2.5 |
//! | erf | [-6, 6] | 0.87 | 0.87 | 0.87 | 1 |
//!
//! The `[-32768, 32768]` row is the f32 reduction of the FMA targets (`poly::TRIG_FAST`; SSE2
//! reduces in f64 there). An exhaustive scalar model of both reductions over every f32 with
//! `0.7 <= |x| <= 32768` (below 0.7 neither reduces) gave the same maxima for each, 1.486 ulp for
//! sin and for cos (at 625.0518 and 648.6137, kept in `TRIG_HARD`); the closest approach to a
//! multiple of pi/2 there is `|r| = 4.2e-9` (252.89821).
//!
//! Errors are in ulps of the correctly rounded f32 result against an f64 reference (results
//! below 2^-126 in ulps of the smallest normal, i.e. absolutely). The SSE2 path has no FMA, so
//! its polynomials round once more per step. erf uses no FMA on any target: it computes eager's
//! `erf_f32` bit for bit everywhere (`tests/erf_bits.rs`), at most 1 ulp from the correctly
//! rounded result over every f32 (eager's exhaustive test).
//! Special values (NaN, ±inf, ±0, denormals, huge trig arguments) are checked exactly.

use rynamo_backend::Backend;
use rynamo_graph::parse;
use rynamo_tensor::Tensor;

use super::common::targets;

pub(super) fn ulp_f32(r: f64) -> f64 {
    let a = r.abs().max(f64::from(f32::MIN_POSITIVE));
    let e = a.log2().floor();
    2f64.powf(e - 23.0)
}

fn run_jit(op: &str, xs: &[f32], backend: &crate::DynasmBackend) -> Vec<f32> {
    let n = xs.len();
    let g = parse(&format!(
        "graph(%x: f32[{n}]):\n  %0: f32[{n}] = {op}(%x)\n  return (%0)\n"
    ))
    .unwrap();
    let exe = backend.compile(&g).unwrap();
    let x = Tensor::from_vec(xs.to_vec(), &[n]).unwrap();
    exe.run(&[x]).unwrap()[0].to_vec::<f32>()
}

fn grid(lo: f32, hi: f32, n: usize) -> Vec<f32> {
    let mut v: Vec<f32> = (0..n)
        .map(|i| lo + (hi - lo) * (i as f32 / n as f32))
        .collect();
    // Plus pseudo-random points (a fixed LCG) and the specials.
    let mut s = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..n / 4 {
        s = s
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        v.push(lo + (hi - lo) * ((s >> 40) as f32 / (1u64 << 24) as f32));
    }
    v.extend([
        0.0,
        -0.0,
        1e-40,
        -1e-40,
        f32::MIN_POSITIVE,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1e-7,
        -1e-7,
    ]);
    v
}

/// Max ulp error of `op` over `xs`; specials must match exactly (NaN for NaN).
fn max_ulp(op: &str, xs: &[f32], reference: fn(f64) -> f64, backend: &crate::DynasmBackend) -> f64 {
    let got = run_jit(op, xs, backend);
    let mut worst = 0f64;
    for (&x, &y) in xs.iter().zip(&got) {
        let r = reference(f64::from(x));
        let rf = r as f32;
        if rf.is_nan() || rf.is_infinite() || y.is_nan() || y.is_infinite() {
            assert!(
                (rf.is_nan() && y.is_nan()) || rf == y || (f64::from(y) - r).abs() <= ulp_f32(r),
                "{op}({x:e}) = {y:e}, want {r:e}"
            );
            continue;
        }
        let e = (f64::from(y) - r).abs() / ulp_f32(r);
        worst = worst.max(e);
    }
    worst
}

/// `want`'s pairs repeated over 40 elements, so that each lands in vector lanes (up to 16 a
/// vector) and in the scalar tail.
fn specials(op: &str, want: &[(f32, f32)], backend: &crate::DynasmBackend) {
    let want: Vec<(f32, f32)> = want.iter().copied().cycle().take(40).collect();
    let xs: Vec<f32> = want.iter().map(|p| p.0).collect();
    let got = run_jit(op, &xs, backend);
    for ((x, w), g) in want.iter().zip(got) {
        assert!(
            (w.is_nan() && g.is_nan()) || (*w == g && w.is_sign_negative() == g.is_sign_negative()),
            "{op}({x}) = {g}, want {w}"
        );
    }
}

/// Arguments in `[-TRIG_FAST, TRIG_FAST]` closest to a multiple of pi/2 (the hardest to reduce:
/// `|r|` down to 4.2e-9), and the two where the exhaustive search found the largest errors.
const TRIG_HARD: &[f32] = &[
    f32::from_bits(0x437c_e5f1),
    f32::from_bits(0x43fc_e5f1),
    f32::from_bits(0x4096_cbe4),
    f32::from_bits(0x447c_e5f1),
    f32::from_bits(0x4116_cbe4),
    f32::from_bits(0x44fc_e5f1),
    f32::from_bits(0x4162_31d6),
    f32::from_bits(0x3fc9_0fdb),
    625.0518,
    648.6137,
];

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[test]
fn vector_math_ulp_bounds() {
    let (inf, nan) = (f32::INFINITY, f32::NAN);
    for (b, _) in targets() {
        type Case = (&'static str, f32, f32, fn(f64) -> f64, f64);
        let cases: [Case; 7] = [
            ("exp", -104.0, 89.0, f64::exp, 1.5),
            ("log", 1e-30, 1e30, f64::ln, 2.0),
            ("sin", -1e6, 1e6, f64::sin, 1.5),
            ("cos", -1e6, 1e6, f64::cos, 1.5),
            ("tanh", -20.0, 20.0, f64::tanh, 2.0),
            ("sigmoid", -100.0, 100.0, sigmoid, 2.5),
            ("erf", -6.0, 6.0, libm::erf, 1.0),
        ];
        for (op, lo, hi, f, bound) in cases {
            let mut xs = grid(lo, hi, 200_000);
            if op == "log" {
                // Log-uniform over every binade, denormals included.
                xs = (0..200_000)
                    .map(|i| f32::from_bits(1 + (i as u32) * (0x7f7f_ffff / 200_000)))
                    .collect();
            }
            let e = max_ulp(op, &xs, f, &b);
            eprintln!("{} {op}: max {e:.3} ulp", b.target_name());
            assert!(e <= bound, "{} {op}: {e} ulp > {bound}", b.target_name());
        }
        // The f32 reduction of sin and cos (the FMA targets) on its own: a dense grid of its
        // range, whose vectors all take it, plus the arguments that come closest to multiples of
        // pi/2 there (found by an exhaustive search over every f32 in range; see the module docs).
        let fast = crate::poly::TRIG_FAST;
        let mut xs = grid(-fast, fast, 200_000);
        xs.retain(|x| x.abs() <= fast);
        for &x in TRIG_HARD {
            xs.extend([x, -x]);
        }
        let pad = xs.len().next_multiple_of(16) - xs.len();
        xs.extend(std::iter::repeat_n(0.5, pad));
        for (op, f) in [("sin", f64::sin as fn(f64) -> f64), ("cos", f64::cos)] {
            let e = max_ulp(op, &xs, f, &b);
            eprintln!("{} {op} (|x| <= {fast}): max {e:.3} ulp", b.target_name());
            assert!(e <= 1.5, "{} {op} near 0: {e} ulp > 1.5", b.target_name());
        }
        specials(
            "exp",
            &[
                (nan, nan),
                (inf, inf),
                (-inf, 0.0),
                (0.0, 1.0),
                (-0.0, 1.0),
                (100.0, inf),
                (-200.0, 0.0),
            ],
            &b,
        );
        specials(
            "log",
            &[
                (nan, nan),
                (inf, inf),
                (-inf, nan),
                (0.0, -inf),
                (-0.0, -inf),
                (-1.0, nan),
                (1.0, 0.0),
            ],
            &b,
        );
        specials(
            "sin",
            &[
                (nan, nan),
                (inf, nan),
                (-inf, nan),
                (0.0, 0.0),
                (-0.0, -0.0),
                (1e30, 1e30f32.sin()),
            ],
            &b,
        );
        specials(
            "cos",
            &[
                (nan, nan),
                (inf, nan),
                (0.0, 1.0),
                (-0.0, 1.0),
                (-1e30, (-1e30f32).cos()),
            ],
            &b,
        );
        specials(
            "tanh",
            &[
                (nan, nan),
                (inf, 1.0),
                (-inf, -1.0),
                (0.0, 0.0),
                (-0.0, -0.0),
                (1e-40, 1e-40),
            ],
            &b,
        );
        specials(
            "sigmoid",
            &[(nan, nan), (inf, 1.0), (-inf, 0.0), (0.0, 0.5)],
            &b,
        );
        specials(
            "erf",
            &[
                (nan, nan),
                (inf, 1.0),
                (-inf, -1.0),
                (0.0, 0.0),
                (-0.0, -0.0),
                (10.0, 1.0),
            ],
            &b,
        );
    }
}

/// The vector loop and the scalar tail run the same operation sequence, so equal inputs give
/// bit-identical outputs wherever they land. Rows of 31 repeat 8 values, so on 4-, 8- and 16-lane
/// targets alike element `i` equals element `i - 8`, and each tail element (from column 28, 24 or
/// 16 on) equals a vector element through that chain. Sin and cos get no arguments beyond
/// `poly::TRIG_LIMIT` (NaN and ±inf included): those send their whole vector to the library,
/// and a contiguous tensor's rows may merge into one, so vectors straddle the rows of 31.
#[test]
fn vector_lanes_and_scalar_tails_agree_bitwise() {
    // A grid, pseudo-random points and the specials (NaN, ±inf, ±0, denormals), plus trig
    // arguments past `poly::TRIG_FAST`, which send the vectors holding them to the f64
    // reduction (per lane the same result).
    let mut pool = grid(-30.0, 30.0, 1600);
    pool.extend([1.0e3, -2.5e4, 7.0e5, 3.3e2]);
    pool.extend([f32::NAN, f32::INFINITY, f32::NEG_INFINITY]);
    let cols = 31;
    for (b, _) in targets() {
        for op in [
            "exp", "log", "sin", "cos", "tanh", "sigmoid", "erf", "floor", "sqrt",
        ] {
            let mut pool = pool.clone();
            if matches!(op, "sin" | "cos") {
                pool.retain(|v| v.abs() <= crate::poly::TRIG_LIMIT);
            }
            let rows = pool.len().div_ceil(8);
            let xs: Vec<f32> = (0..rows)
                .flat_map(|r| (0..cols).map(move |i| (r, i)))
                .map(|(r, i)| pool[(8 * r + i % 8) % pool.len()])
                .collect();
            let g = parse(&format!(
                "graph(%x: f32[{rows}, {cols}]):\n  %0: f32[{rows}, {cols}] = {op}(%x)\n  return (%0)\n"
            ))
            .unwrap();
            let exe = b.compile(&g).unwrap();
            let x = Tensor::from_vec(xs.clone(), &[rows, cols]).unwrap();
            let y = exe.run(&[x]).unwrap()[0].to_vec::<f32>();
            for r in 0..rows {
                for i in 8..cols {
                    let (a, v) = (y[cols * r + i], y[cols * r + i - 8]);
                    assert!(
                        a.to_bits() == v.to_bits() || (a.is_nan() && v.is_nan()),
                        "{} {op}({:e}): tail {a:e} != vector {v:e}",
                        b.target_name(),
                        xs[cols * r + i]
                    );
                }
            }
        }
    }
}
