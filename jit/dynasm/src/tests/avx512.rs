//! Aimed at the AVX-512 tier (`x64/zmm.rs`, `x64/evex.rs`), though every check but the last two
//! runs on all targets: sizes around 16 lanes (and 4 copies of 16), compares, selects and masks,
//! reductions, and sin/cos past `poly::TRIG_FAST` in 16-lane vectors, against eager; the vector
//! math bitwise against AVX2 (the same algorithms, so the ULP bounds of `ulp.rs` carry over);
//! and the listing of an AVX-512 kernel shows zmm instructions with embedded broadcasts.

use rynamo_backend::Backend;
use rynamo_graph::parse;
use rynamo_tensor::Tensor;

use super::common::*;

/// f32 transcendentals: our bound (<= 3 ulp) plus libm's (1 ulp), as in `diff.rs`.
const TRANS: (f64, f64) = (5e-7, 1e-37);

/// Sizes around one vector of 16, one of 8, and four copies of 16.
const SIZES: [usize; 12] = [0, 1, 7, 15, 16, 17, 31, 33, 63, 65, 129, 1023];

fn data(n: usize, seed: u64) -> Tensor {
    let v: Vec<f32> = randn(&[n], seed)
        .to_vec::<f32>()
        .into_iter()
        .map(|x| 3.0 * x)
        .collect();
    Tensor::from_vec(v, &[n]).unwrap()
}

#[test]
fn pointwise_chains_at_sizes_around_16_lanes() {
    for n in SIZES {
        let (x, y) = (data(n, n as u64), data(n, 1000 + n as u64));
        let src = format!(
            "graph(%x: f32[{n}], %y: f32[{n}]):\n  %0: f32[{n}] = sin(%x)\n  %1: f32[{n}] = mul(%0, 1.5)\n  %2: f32[{n}] = cos(%x)\n  %3: f32[{n}] = add(%1, %2, alpha=1)\n  %4: f32[{n}] = relu(%3)\n  %5: f32[{n}] = sub(%4, 0.25, alpha=1)\n  %6: f32[{n}] = sigmoid(%5)\n  %7: f32[{n}] = mul(%6, %x)\n  %8: f32[{n}] = abs(%y)\n  %9: f32[{n}] = log(%8)\n  %10: f32[{n}] = exp(%y)\n  %11: f32[{n}] = tanh(%y)\n  %12: f32[{n}] = erf(%x)\n  %13: f32[{n}] = sqrt(%8)\n  %14: f32[{n}] = floor(%y)\n  %15: f32[{n}] = div(%x, %8)\n  %16: f32[{n}] = neg(%y)\n  return (%7, %9, %10, %11, %12, %13, %14, %15, %16)\n"
        );
        check(&src, &[x, y], TRANS.0, TRANS.1);
    }
    // Rows whose length is off the vector width: each row restarts the vector loop.
    for cols in [15usize, 17, 33] {
        let x = randn(&[5, cols], cols as u64);
        let src = format!(
            "graph(%x: f32[5, {cols}]):\n  %0: f32[5, {cols}] = exp(%x)\n  %1: f32[5, {cols}] = mul(%0, %x)\n  return (%1)\n"
        );
        check(&src, &[x], TRANS.0, TRANS.1);
    }
}

#[test]
fn compares_selects_and_masks_at_16_lanes() {
    for n in SIZES {
        let mut xv = data(n, 7 + n as u64).to_vec::<f32>();
        let mut yv = data(n, 70 + n as u64).to_vec::<f32>();
        // NaNs in both operands, equal pairs, and signed zeros, spread over the lanes.
        for i in (0..n).step_by(5) {
            match (i / 5) % 4 {
                0 => xv[i] = f32::NAN,
                1 => yv[i] = f32::NAN,
                2 => yv[i] = xv[i],
                _ => (xv[i], yv[i]) = (0.0, -0.0),
            }
        }
        let x = Tensor::from_vec(xv, &[n]).unwrap();
        let y = Tensor::from_vec(yv, &[n]).unwrap();
        let src = format!(
            "graph(%x: f32[{n}], %y: f32[{n}]):\n  %0: b8[{n}] = lt(%x, %y)\n  %1: f32[{n}] = where(%0, %x, %y)\n  %2: b8[{n}] = le(%x, %y)\n  %3: b8[{n}] = gt(%x, %y)\n  %4: b8[{n}] = ge(%x, 0.5)\n  %5: b8[{n}] = eq(%x, %y)\n  %6: b8[{n}] = ne(%x, %y)\n  %7: b8[{n}] = isnan(%x)\n  %8: b8[{n}] = logical_and(%2, %4)\n  %9: b8[{n}] = logical_or(%3, %7)\n  %10: b8[{n}] = logical_xor(%5, %6)\n  %11: b8[{n}] = logical_not(%8)\n  %12: f32[{n}] = add(%9, 0.5, alpha=1)\n  %13: f32[{n}] = where(%10, %12, %x)\n  %14: f32[{n}] = where(%11, %y, 2.0)\n  %15: f32[{n}] = masked_fill(%x, %3, -inf)\n  %16: f32[{n}] = maximum(%x, %y)\n  %17: f32[{n}] = minimum(%y, %x)\n  %18: f32[{n}] = clamp(%x, -0.5, 0.75)\n  %19: f32[{n}] = add(%2, %13, alpha=1)\n  return (%1, %13, %14, %15, %16, %17, %18, %19, %0, %7)\n"
        );
        check(&src, &[x, y], 0.0, 0.0);
    }
}

#[test]
fn reductions_with_keepdim_at_16_lanes() {
    for cols in [1usize, 15, 16, 17, 31, 33, 65, 1023] {
        let mut v = randn(&[6, cols], cols as u64).to_vec::<f32>();
        // One NaN row and one -inf row for max/min; the others random.
        v[cols + cols / 2] = f32::NAN;
        v[2 * cols + cols - 1] = f32::NEG_INFINITY;
        let x = Tensor::from_vec(v, &[6, cols]).unwrap();
        for (op, keep, tol) in [
            ("sum", "True", 1e-6),
            ("mean", "False", 1e-6),
            ("amax", "True", 0.0),
            ("amin", "False", 0.0),
        ] {
            let extra = if tol > 0.0 { ", dtype=None" } else { "" };
            let out = if keep == "True" { "6, 1" } else { "6" };
            let src = format!(
                "graph(%x: f32[6, {cols}]):\n  %0: f32[6, {cols}] = mul(%x, 1.5)\n  %1: f32[{out}] = {op}(%0, [-1], {keep}{extra})\n  return (%1)\n"
            );
            check(&src, std::slice::from_ref(&x), tol, 1e-6);
        }
    }
}

#[test]
fn sin_and_cos_past_the_f32_reduction_at_16_lanes() {
    // Vectors holding one lane past TRIG_FAST (reduced in f64, the rest in f32), one past
    // TRIG_LIMIT (the library on every lane), and none.
    let n = 16 * 5 + 9;
    let mut v: Vec<f32> = data(n, 3).to_vec::<f32>();
    v[5] = 5.0e4;
    v[16 + 15] = -3.0e5;
    v[32] = 3.0e7;
    v[64 + 8] = f32::INFINITY;
    v[n - 2] = 9.0e4;
    let x = Tensor::from_vec(v, &[n]).unwrap();
    for op in ["sin", "cos"] {
        let src = format!("graph(%x: f32[{n}]):\n  %0: f32[{n}] = {op}(%x)\n  return (%0)\n");
        check(&src, std::slice::from_ref(&x), TRANS.0, TRANS.1);
    }
    let src = format!(
        "graph(%x: f32[{n}]):\n  %0: f32[{n}] = sin(%x)\n  %1: f32[{n}] = cos(%x)\n  %2: f32[{n}] = add(%0, %1, alpha=1)\n  return (%2, %0)\n"
    );
    // Each function's accuracy is checked alone above; here their fusion. `sin + cos` cancels
    // near 3pi/4, so it is compared on the scale of its terms (both at most 1): absolutely.
    check(&src, &[x], TRANS.0, TRANS.0);
}

/// Max and min in one phase with library calls (sin past `poly::TRIG_LIMIT`, and of NaN): the
/// AVX-512 NaN flags live in opmask registers across the calls (`x64/reduce.rs`). Rows with a
/// NaN before, after or in the vector of a call, and rows with calls but no NaN.
#[test]
fn max_min_nan_flags_survive_library_calls() {
    for cols in [16usize, 64, 100] {
        let rows = 5;
        let mut v = data(rows * cols, cols as u64).to_vec::<f32>();
        let at = |r: usize, c: usize| r * cols + c.min(cols - 1);
        v[at(0, 0)] = f32::NAN;
        v[at(0, 40)] = 3.0e7;
        v[at(1, 3)] = -2.0e7;
        v[at(1, 50)] = 4.0e7;
        v[at(2, 20)] = 3.0e7;
        v[at(2, 21)] = f32::NAN;
        v[at(3, cols - 1)] = f32::NAN;
        v[at(3, 1)] = 5.0e7;
        let x = Tensor::from_vec(v, &[rows, cols]).unwrap();
        let src = format!(
            "graph(%x: f32[{rows}, {cols}]):\n  %0: f32[{rows}, {cols}] = sin(%x)\n  %1: f32[{rows}, 1] = amax(%0, [-1], True)\n  %2: f32[{rows}, 1] = amin(%x, [-1], True)\n  %3: f32[{rows}, {cols}] = mul(%0, 2.0)\n  return (%1, %2, %3)\n"
        );
        check(&src, &[x], TRANS.0, TRANS.1);
    }
}

fn by_name(name: &str) -> Option<crate::DynasmBackend> {
    targets()
        .into_iter()
        .map(|(b, _)| b)
        .find(|b| b.target_name() == name)
}

/// The same algorithms at twice the width: every lane bitwise the AVX2 result, on arguments
/// that stay below `poly::TRIG_LIMIT` (above it, and for NaN, sin and cos send their whole vector
/// to the library, and the tiers group lanes differently; the specials are in the scalar tail).
#[test]
fn vector_math_is_bitwise_the_avx2_tier() {
    let (Some(z), Some(y)) = (by_name("x64-avx512"), by_name("x64-avx2")) else {
        return;
    };
    let n = 20_000;
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut xs: Vec<f32> = (0..n)
        .map(|i| {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            // Magnitudes from 2^-20 to 2^19 (below TRIG_LIMIT), both signs.
            let m = f32::from_bits(0x3f80_0000 | ((s >> 41) as u32));
            let e = i % 39 - 20;
            (if s >> 63 == 1 { -m } else { m }) * 2f32.powi(e)
        })
        .collect();
    xs.extend([
        0.0,
        -0.0,
        1e-40,
        -1e-40,
        f32::NAN,
        f32::INFINITY,
        -f32::INFINITY,
    ]);
    let x = Tensor::from_vec(xs.clone(), &[xs.len()]).unwrap();
    for op in [
        "exp", "log", "sin", "cos", "tanh", "sigmoid", "erf", "floor", "ceil", "round", "sqrt",
    ] {
        let len = xs.len();
        let g = parse(&format!(
            "graph(%x: f32[{len}]):\n  %0: f32[{len}] = {op}(%x)\n  return (%0)\n"
        ))
        .unwrap();
        let run = |b: &crate::DynasmBackend| {
            b.compile(&g)
                .unwrap()
                .run(std::slice::from_ref(&x))
                .unwrap()[0]
                .to_vec::<f32>()
        };
        let (gz, gy) = (run(&z), run(&y));
        for ((a, b), x) in gz.iter().zip(&gy).zip(&xs) {
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "{op}({x:e}): avx512 {a:e} != avx2 {b:e}"
            );
        }
    }
}

#[test]
fn avx512_kernels_are_zmm_code_with_broadcast_constants() {
    let Some(z) = by_name("x64-avx512") else {
        return;
    };
    let src = "graph(%x: f32[4096], %y: f32[4096]):\n  %0: f32[4096] = exp(%x)\n  %1: b8[4096] = lt(%x, %y)\n  %2: f32[4096] = where(%1, %0, %y)\n  %3: f32[] = sum(%2, None, False, dtype=None)\n  return (%2, %3)\n";
    let exe = z.compile_exe(&parse(src).unwrap()).unwrap();
    let dump = exe.dump();
    for want in [
        "vfmadd213ps zmm",
        "{1to16}",
        "vcmpltps k1,zmm",
        "vpmovm2d zmm",
        "vpmovd2m k1,zmm",
        "vblendmps zmm",
        "vmovups zmm",
        "vcvtps2pd zmm",
    ] {
        assert!(dump.contains(want), "no {want} in\n{dump}");
    }
}
