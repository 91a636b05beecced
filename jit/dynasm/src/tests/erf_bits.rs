//! The JIT's erf (`vmath/log_erf.rs`) computes eager's `erf_f32` bit for bit on every target
//! (the x86-64 tiers the CPU has, SSE2 included; NEON where the tests run on AArch64), and so
//! compiled exact GELU computes eager's GELU bit for bit: its `1 + erf(x / sqrt 2)` cancels below
//! x = -3.3, where one ulp of erf moves GELU by 1e-3 relative, beyond any tolerance worth having.
//! The oracle is eager's function itself (`rynamo_tensor::kernels::erf::erf_f32`, and the eager
//! backend for GELU); its accuracy against libm's f64 erf is `rynamo-tensor`'s tests' business.

use rynamo_backend::{Backend, EagerBackend, Executable};
use rynamo_graph::parse;
use rynamo_tensor::Tensor;
use rynamo_tensor::kernels::erf::{CENTER, ONE_FROM, SMALL_MAX, SPLIT, erf_f32};

use super::common::targets;

/// The next f32 `d` ulps from `x` (`x >= 0`).
fn step(x: f32, d: i32) -> f32 {
    f32::from_bits(x.to_bits().wrapping_add_signed(d))
}

/// The sweep: specials and NaN payloads, subnormals, every f32 in `[0, 4.5]` whose bit pattern is
/// a multiple of 1009, 2000 ulps either side of each piece boundary and centre, values up to
/// `f32::MAX`, and a fixed pseudo-random shuffle of all of it (so one vector mixes lanes of every
/// piece); both signs. An odd length, so the scalar tail runs too.
fn inputs() -> Vec<f32> {
    let mut v = vec![
        0.0,
        f32::INFINITY,
        f32::NAN,
        f32::from_bits(0x7fc1_2345),
        f32::from_bits(0x7f80_0001),
        f32::from_bits(0x7fbf_ffff),
        f32::MIN_POSITIVE,
        f32::MAX,
        1e-30,
        1e-10,
        1e-4,
        5.0,
        10.0,
        1e10,
    ];
    v.extend((0..4096u32).map(|i| f32::from_bits(i * 2047 + 1)));
    v.extend((0..=4.5f32.to_bits()).step_by(1009).map(f32::from_bits));
    for b in [SMALL_MAX, SPLIT, ONE_FROM, CENTER[0], CENTER[1]] {
        v.extend((-2000..=2000).map(|d| step(b, d)));
    }
    v.extend((0..2000u32).map(|i| f32::from_bits(ONE_FROM.to_bits() + i * 500_000)));
    let mut s = 0x243f_6a88_85a3_08d3u64;
    let mut shuffled = v.clone();
    for i in (1..shuffled.len()).rev() {
        s = s
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        shuffled.swap(i, (s >> 33) as usize % (i + 1));
    }
    v.extend(shuffled);
    let neg: Vec<f32> = v.iter().map(|x| -x).collect();
    v.extend(neg);
    if v.len() % 2 == 0 {
        v.push(-0.0);
    }
    v
}

/// Runs `op(%x)` compiled by every target and asserts each element's bits equal `want`'s.
fn assert_bitwise(op: &str, xs: &[f32], want: &[f32]) {
    let n = xs.len();
    let g = parse(&format!(
        "graph(%x: f32[{n}]):\n  %0: f32[{n}] = {op}(%x)\n  return (%0)\n"
    ))
    .unwrap();
    let x = [Tensor::from_vec(xs.to_vec(), &[n]).unwrap()];
    for (b, _) in targets() {
        let exe = b.compile_exe(&g).unwrap();
        assert!(exe.is_jitted(), "{}", exe.dump());
        let got = exe.run(&x).unwrap()[0].to_vec::<f32>();
        let bad: Vec<String> = xs
            .iter()
            .zip(got.iter().zip(want))
            .filter(|(_, (g, w))| g.to_bits() != w.to_bits())
            .take(8)
            .map(|(x, (g, w))| format!("{op}({x:e} = {:#x}): {g:e} != {w:e}", x.to_bits()))
            .collect();
        assert!(bad.is_empty(), "{}: {bad:#?}", b.target_name());
    }
}

#[test]
fn jit_erf_is_eagers_erf_bit_for_bit() {
    let xs = inputs();
    let want: Vec<f32> = xs.iter().map(|&x| erf_f32(x)).collect();
    assert_bitwise("erf", &xs, &want);
}

/// Exact GELU, where erf's last bit matters most: the JIT's fused kernel against the eager
/// backend, bitwise, on a grid of `[-12, 12]` with step 1e-4 (the cancelling tail is
/// `[-5.6, -3.3]`) plus every third input of the erf sweep scaled by `sqrt 2` (so `x / sqrt 2`
/// lands near erf's boundaries).
#[test]
fn jit_exact_gelu_is_eagers_gelu_bit_for_bit() {
    let mut xs: Vec<f32> = (0..240_001).map(|i| -12.0 + i as f32 / 10_000.0).collect();
    xs.extend(
        inputs()
            .into_iter()
            .step_by(3)
            .map(|x| x * std::f32::consts::SQRT_2),
    );
    let n = xs.len();
    let g = parse(&format!(
        "graph(%x: f32[{n}]):\n  %0: f32[{n}] = gelu(%x)\n  return (%0)\n"
    ))
    .unwrap();
    let x = [Tensor::from_vec(xs.clone(), &[n]).unwrap()];
    let want = EagerBackend.compile(&g).unwrap().run(&x).unwrap()[0].to_vec::<f32>();
    assert_bitwise("gelu", &xs, &want);
}
