//! The functions of `crate::vmath` give the same bits on every target with FMA: a sweep of
//! inputs (specials, denormals, each function's branch boundaries and saturation regions, wide
//! grids and random bit patterns) through exp, log, sin, cos, tanh, sigmoid and erf, and
//! softmax's `exp(x - max x)` on rows of it, each checked
//! against eager within `diff.rs`'s bound for transcendentals (sin and cos: against f64, see
//! [`near_f64`]) and hashed; the hash must be the one pinned
//! in `math_bits.txt` on AVX2, AVX-512 and NEON (the AArch64 test run, under qemu-user).
//! `RYNAMO_BLESS=1` rewrites the file from AVX2. SSE2 is held to eager only: without FMA its
//! fused steps round twice (`vmath`'s module docs); except erf, which fuses nothing on any target
//! (it computes eager's bits, `erf_bits.rs`), so SSE2 must match its pin too.

use std::fmt::Write as _;

use rynamo_backend::{Backend, EagerBackend, Executable};
use rynamo_graph::parse;
use rynamo_tensor::Tensor;

use super::common::{assert_close, targets};
use super::ulp::ulp_f32;

const PINNED: &str = include_str!("math_bits.txt");

/// f32 transcendentals: our bound (<= 3 ulp) plus libm's (1 ulp), as in `diff.rs`.
const TRANS: (f64, f64) = (5e-7, 1e-37);

const OPS: [&str; 7] = ["exp", "log", "sin", "cos", "tanh", "sigmoid", "erf"];

/// The sweep, both signs of everything.
fn inputs() -> Vec<f32> {
    let mut v = vec![
        0.0,
        f32::INFINITY,
        f32::NAN,
        f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        1e-40,
        f32::MIN_POSITIVE,
        f32::MAX,
        1e-7,
        // Branches: tanh's 0.5, erf's 1 and 4, exp's clamps and overflow, sigmoid's denormals.
        0.5,
        1.0,
        4.0,
        88.0,
        88.72,
        89.0,
        103.9,
        104.0,
        200.0,
        // Saturation: tanh (about 9), erf (about 3.9).
        9.0,
        9.1,
        3.9,
        3.92,
    ];
    for &x in &v.clone() {
        for d in [-1i32, 1] {
            if x.is_finite() && x != 0.0 {
                v.push(f32::from_bits(x.to_bits().wrapping_add_signed(d)));
            }
        }
    }
    // exp's range-reduction ties: `x log2 e` near `k + 1/2`, where rounding the product before
    // taking the nearest integer, or not, picks a different `k` (for sigmoid's `-|x|` and
    // tanh's `2|x|` too).
    for k in -151..=128 {
        let t = ((f64::from(k) + 0.5) * std::f64::consts::LN_2) as f32;
        for d in -4..=4 {
            let x = f32::from_bits(t.to_bits().wrapping_add_signed(d));
            v.extend([x, x / 2.0]);
        }
    }
    // sin and cos: near multiples of pi/2 (the hardest reductions), around the bound of the
    // f32 reduction (`TRIG_FAST`; vectors mixing lanes on both sides take the f64 one), and
    // below the library's (`TRIG_LIMIT`).
    for k in (0..30_000).step_by(7) {
        let t = (f64::from(k) * std::f64::consts::FRAC_PI_2) as f32;
        v.extend([-1, 0, 1].map(|d| f32::from_bits(t.to_bits().wrapping_add_signed(d))));
    }
    for t in [crate::poly::TRIG_FAST, crate::poly::TRIG_LIMIT] {
        v.extend((-8..=8).map(|d| f32::from_bits(t.to_bits().wrapping_add_signed(d))));
    }
    // A grid over [-120, 120] and one over [-6, 6].
    v.extend((0..24_000).map(|i| -120.0 + i as f32 / 100.0));
    v.extend((0..12_000).map(|i| -6.0 + i as f32 / 1000.0));
    // Every binade: bit patterns stepped evenly over the positive finite floats.
    v.extend((0..20_000u32).map(|i| f32::from_bits(1 + i * (0x7f7f_ffff / 20_000))));
    // Random bit patterns (a fixed LCG), NaN payloads included.
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    v.extend((0..20_000).map(|_| {
        s = s
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        f32::from_bits((s >> 32) as u32)
    }));
    let neg: Vec<f32> = v.iter().map(|x| -x).collect();
    v.extend(neg);
    v
}

/// FNV-1a over the result bits, NaNs as one pattern (x86-64's default NaN is negative, AArch64's
/// positive).
fn hash(ys: &[f32]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for y in ys {
        let bits = if y.is_nan() { 0x7fc0_0000 } else { y.to_bits() };
        for b in bits.to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// Sin and cos within `ulp.rs`'s 1.5 ulp of the f64 function: near multiples of pi/2 eager's
/// f32 sin and cos are themselves off (478 ulp at 505.79642, `0x43fce5f1`, where the JIT's is
/// 0.2 ulp), so they are no oracle there.
#[track_caller]
fn near_f64(x: &Tensor, got: &Tensor, f: fn(f64) -> f64, what: &str) {
    for (x, y) in x.to_vec::<f32>().into_iter().zip(got.to_vec::<f32>()) {
        let r = f(f64::from(x));
        let e = (f64::from(y) - r).abs() / ulp_f32(r);
        assert!(e <= 1.5, "{what}({x:e}) = {y:e}: {e} ulp from {r:e}");
    }
}

/// The cases: each function on the sweep, and softmax's numerator `exp(x - max x)` (the `x <= 0`
/// exp of `vmath/nonpos.rs`) on rows of its finite values.
fn cases() -> Vec<(&'static str, String, Tensor)> {
    let xs = inputs();
    let unary = |op: &str, v: Vec<f32>| {
        let n = v.len();
        let g = format!("graph(%x: f32[{n}]):\n  %0: f32[{n}] = {op}(%x)\n  return (%0)\n");
        (g, Tensor::from_vec(v, &[n]).unwrap())
    };
    let mut out: Vec<(&'static str, String, Tensor)> = OPS
        .into_iter()
        .map(|op| {
            let mut v = xs.clone();
            if matches!(op, "sin" | "cos") {
                // Sin and cos send a vector with a lane beyond `TRIG_LIMIT` (NaN and ±inf
                // included) to the library as a whole, so its other lanes would depend on the
                // vector width.
                v.retain(|x| x.abs() <= crate::poly::TRIG_LIMIT);
            }
            let (g, x) = unary(op, v);
            (op, g, x)
        })
        .collect();
    let cols = 61;
    let mut v: Vec<f32> = xs.into_iter().filter(|x| x.is_finite()).collect();
    v.truncate(v.len() / cols * cols);
    let rows = v.len() / cols;
    let g = format!(
        "graph(%x: f32[{rows}, {cols}]):\n  %0: f32[{rows}, 1] = amax(%x, [-1], True)\n  %1: f32[{rows}, {cols}] = sub(%x, %0, alpha=1)\n  %2: f32[{rows}, {cols}] = exp(%1)\n  return (%2)\n"
    );
    out.push(("exp_nonpos", g, Tensor::from_vec(v, &[rows, cols]).unwrap()));
    out
}

#[test]
fn vector_math_gives_the_same_bits_on_every_fma_target() {
    let pinned: Vec<(&str, &str)> = PINNED.lines().filter_map(|l| l.split_once(' ')).collect();
    let mut blessed = String::new();
    for (op, g, x) in cases() {
        let g = parse(&g).unwrap();
        let x = [x];
        let want = EagerBackend.compile(&g).unwrap().run(&x).unwrap();
        for (b, sse2) in targets() {
            let exe = b.compile_exe(&g).unwrap();
            assert!(exe.is_jitted(), "{}", exe.dump());
            let got = exe.run(&x).unwrap();
            let what = format!("{} {op}", b.target_name());
            match op {
                "sin" => near_f64(&x[0], &got[0], f64::sin, &what),
                "cos" => near_f64(&x[0], &got[0], f64::cos, &what),
                _ => assert_close(&got[0], &want[0], TRANS.0, TRANS.1, &what),
            }
            if sse2 && op != "erf" {
                continue;
            }
            let h = format!("{:016x}", hash(&got[0].to_vec::<f32>()));
            if b.target_name() == "x64-avx2" {
                writeln!(blessed, "{op} {h}").unwrap();
            }
            if std::env::var_os("RYNAMO_BLESS").is_none() {
                let pin = pinned.iter().find(|(o, _)| *o == op).map(|p| p.1);
                assert_eq!(
                    pin,
                    Some(h.as_str()),
                    "{what}: bits differ from AVX2's (math_bits.txt; RYNAMO_BLESS=1 rewrites it on AVX2)"
                );
            }
        }
    }
    if std::env::var_os("RYNAMO_BLESS").is_some() && !blessed.is_empty() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/tests/math_bits.txt");
        std::fs::write(path, blessed).unwrap();
    }
}
