//! The eager erf and exact-GELU kernels run `kernels::erf::erf_f32` vectorised at the CPU's
//! widest tier (`simd::with_wide`); their results must be the scalar function's bits exactly,
//! on the vector lanes, the loop tails and the strided (non-vectorised) path alike.

use super::*;
use crate::UnaryOp;
use crate::kernels::erf::erf_f32;
use crate::ops::pointwise;

/// Values over every piece of erf (and past where it saturates), the special values, and a
/// length that leaves a tail after any vector width.
fn inputs() -> Vec<f32> {
    let mut v: Vec<f32> = (0..10_007).map(|i| (i as f32 - 5003.0) / 1000.0).collect();
    v.extend([
        0.0,
        -0.0,
        1e-40,
        -1e-40,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e30,
    ]);
    v
}

fn same_bits(got: &[f32], want: impl Iterator<Item = f32>) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            g.to_bits() == w.to_bits() || g.is_nan() && w.is_nan(),
            "element {i}: kernel {g:e}, scalar {w:e}"
        );
    }
}

fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf_f32(x * std::f32::consts::FRAC_1_SQRT_2))
}

#[test]
fn erf_kernel_matches_the_scalar_function_bit_for_bit() {
    let xs = inputs();
    let x = t(&xs, &[xs.len()]);
    let got = pointwise::unary(UnaryOp::Erf, &x).unwrap().to_vec::<f32>();
    same_bits(&got, xs.iter().map(|&v| erf_f32(v)));
    // Strided: the element-by-element loop.
    let n = xs.len() / 2;
    let col = t(&xs[..2 * n], &[n, 2]).select(1, 1).unwrap();
    let got = pointwise::unary(UnaryOp::Erf, &col)
        .unwrap()
        .to_vec::<f32>();
    same_bits(&got, (0..n).map(|i| erf_f32(xs[2 * i + 1])));
}

#[test]
fn exact_gelu_kernel_matches_the_scalar_formula_bit_for_bit() {
    let xs = inputs();
    let x = t(&xs, &[xs.len()]);
    let got = pointwise::unary(UnaryOp::Gelu { tanh: false }, &x)
        .unwrap()
        .to_vec::<f32>();
    same_bits(&got, xs.iter().map(|&v| gelu(v)));
}
