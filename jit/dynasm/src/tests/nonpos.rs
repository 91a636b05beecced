//! `exp(x - max(x))` (softmax's numerator) takes the lean non-positive exp on every target
//! (`vmath/nonpos.rs`): its accuracy against an f64 reference on every target, with the bound of
//! the general exp in `ulp.rs` (1.5 ulp; measured over [-104, 0]: AVX2, AVX-512 and NEON
//! 0.899, SSE2 1.159), special values exactly, and softmax against eager.

use rynamo_backend::Backend;
use rynamo_graph::parse;
use rynamo_tensor::Tensor;

use super::common::*;

/// Rows of `cols` values, each holding a 0 (so the row maximum is 0 and `x - max` is `x`).
fn rows_with_zero_max(xs: &[f32], cols: usize) -> Tensor {
    let mut v = Vec::new();
    for chunk in xs.chunks(cols - 1) {
        v.extend_from_slice(chunk);
        v.resize(v.len() + (cols - 1 - chunk.len()), -1.0);
        v.push(0.0);
    }
    let rows = v.len() / cols;
    Tensor::from_vec(v, &[rows, cols]).unwrap()
}

fn graph(rows: usize, cols: usize) -> String {
    format!(
        "graph(%x: f32[{rows}, {cols}]):\n  %0: f32[{rows}, 1] = amax(%x, [-1], True)\n  %1: f32[{rows}, {cols}] = sub(%x, %0, alpha=1)\n  %2: f32[{rows}, {cols}] = exp(%1)\n  return (%2)\n"
    )
}

#[test]
fn exp_of_x_minus_row_max_is_within_the_exp_bound_and_exact_on_specials() {
    let cols = 37;
    // [-104, 0]: down through the denormal results to 0.
    let n = 200_000;
    let xs: Vec<f32> = (0..n).map(|i| -104.0 * (i as f32 / n as f32)).collect();
    let x = rows_with_zero_max(&xs, cols);
    let g = parse(&graph(x.shape()[0], cols)).unwrap();
    for (b, _) in targets() {
        let got = b
            .compile(&g)
            .unwrap()
            .run(std::slice::from_ref(&x))
            .unwrap()[0]
            .to_vec::<f32>();
        let mut worst = 0f64;
        for (&xi, &yi) in x.to_vec::<f32>().iter().zip(&got) {
            let r = f64::from(xi).exp();
            let ulp = 2f64.powf(r.max(f64::from(f32::MIN_POSITIVE)).log2().floor() - 23.0);
            worst = worst.max((f64::from(yi) - r).abs() / ulp);
        }
        eprintln!("exp(x - max x): {}: max {worst:.3} ulp", b.target_name());
        assert!(worst <= 1.5, "{}: {worst} ulp", b.target_name());
    }
    // Specials: -inf -> 0, -0 -> 1, denormal -> 1, NaN rows -> NaN, +inf in a row -> NaN.
    let specials = [f32::NEG_INFINITY, -0.0, -1e-40, 0.0];
    let mut v = specials.to_vec();
    v.extend([f32::NAN, -1.0, 0.0, -2.0]);
    v.extend([f32::INFINITY, -1.0, 0.0, f32::NEG_INFINITY]);
    let x = Tensor::from_vec(v, &[3, 4]).unwrap();
    check(&graph(3, 4), &[x], 0.0, 0.0);
}

#[test]
fn softmax_and_scaled_softmax_match_eager() {
    for &(r, c) in &[(5usize, 3usize), (9, 17), (33, 129), (64, 1024)] {
        let v: Vec<f32> = randn(&[r, c], (r * c) as u64).to_vec::<f32>();
        let x = Tensor::from_vec(v.iter().map(|a| 4.0 * a).collect(), &[r, c]).unwrap();
        let src = format!(
            "graph(%x: f32[{r}, {c}]):\n  %0: f32[{r}, {c}] = softmax(%x, -1, None)\n  %1: f32[{r}, {c}] = mul(%x, 0.125)\n  %2: f32[{r}, {c}] = softmax(%1, -1, None)\n  return (%0, %2)\n"
        );
        check(&src, &[x], 3e-6, 1e-7);
    }
}

/// The lean path is taken for `x - max(x)` and not for `x - min(x)` (which can be positive):
/// the same kernel otherwise, so its code is shorter by the clamp and the split scaling.
#[cfg(target_arch = "x86_64")]
#[test]
fn only_the_row_maximum_makes_the_exp_lean() {
    let src = |red: &str| {
        format!(
            "graph(%x: f32[8, 64]):\n  %0: f32[8, 1] = {red}(%x, [-1], True)\n  %1: f32[8, 64] = sub(%x, %0, alpha=1)\n  %2: f32[8, 64] = exp(%1)\n  return (%2)\n"
        )
    };
    let x = randn(&[8, 64], 3);
    for (b, _) in targets() {
        let len = |red: &str| {
            let exe = b.compile_exe(&parse(&src(red)).unwrap()).unwrap();
            exe.dump().lines().count()
        };
        let (lean, full) = (len("amax"), len("amin"));
        assert!(lean < full, "{}: {lean} vs {full} lines", b.target_name());
    }
    check(&src("amin"), std::slice::from_ref(&x), 2e-6, 1e-7);
}
