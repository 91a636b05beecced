//! Reductions in unrolled phases (`x64/unroll.rs`): max/min with NaN, ±inf and ±0 in every copy
//! of the body and in the tail, against eager exactly; f32 sums and means bitwise against a
//! model of the single-vector loop's order (lane `j` sums elements `j, j + W, ...` in f64, the
//! lanes fold by halves, the tail adds on); and `pow` with a small integer exponent as
//! multiplications, against eager's `pow`.

#[cfg(target_arch = "x86_64")]
use rynamo_backend::Backend;
#[cfg(target_arch = "x86_64")]
use rynamo_graph::parse;
use rynamo_tensor::Tensor;

use super::common::*;

/// Column counts around the vector width (16, 8 or 4 lanes) times the copies (up to 4), so that
/// the special values land in each copy, the single-vector loop and the scalar tail.
const COLS: [usize; 11] = [1, 7, 9, 17, 31, 33, 64, 100, 127, 257, 1031];

fn row_reduce(op: &str, rows: usize, cols: usize) -> String {
    format!(
        "graph(%x: f32[{rows}, {cols}]):\n  %0: f32[{rows}, 1] = {op}(%x, [-1], True)\n  return (%0)\n"
    )
}

#[test]
fn max_and_min_with_nan_inf_and_zeros_in_every_copy_match_eager_exactly() {
    for &cols in &COLS {
        // One row per position of the special value (capped), plus rows of only -inf, +inf,
        // mixed zeros, and two NaNs.
        let rows = cols.min(40) + 4;
        let mut v = randn(&[rows, cols], cols as u64).to_vec::<f32>();
        for r in 0..cols.min(40) {
            let c = (r * 37) % cols;
            let special = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0][r % 4];
            v[r * cols + c] = special;
        }
        let base = cols.min(40) * cols;
        v[base..base + cols].fill(f32::NEG_INFINITY);
        v[base + cols..base + 2 * cols].fill(f32::INFINITY);
        for (i, x) in v[base + 2 * cols..base + 3 * cols].iter_mut().enumerate() {
            *x = if i % 3 == 0 { 0.0 } else { -0.0 };
        }
        v[base + 3 * cols] = f32::NAN;
        v[base + 4 * cols - 1] = f32::NAN;
        let x = Tensor::from_vec(v, &[rows, cols]).unwrap();
        for op in ["amax", "amin"] {
            check(
                &row_reduce(op, rows, cols),
                std::slice::from_ref(&x),
                0.0,
                0.0,
            );
        }
    }
}

/// The x86-64 single-vector loop's f32 sum of `row`: per lane in f64, lanes folded by halves (the low
/// half plus the high half, until one is left), then the tail in order.
#[cfg(target_arch = "x86_64")]
fn lane_order_sum(row: &[f32], lanes: usize) -> f64 {
    let full = row.len() / lanes * lanes;
    let mut acc = vec![0f64; lanes];
    for chunk in row[..full].chunks_exact(lanes) {
        for (a, &x) in acc.iter_mut().zip(chunk) {
            *a += f64::from(x);
        }
    }
    while acc.len() > 1 {
        let h = acc.len() / 2;
        acc = (0..h).map(|k| acc[k] + acc[k + h]).collect();
    }
    row[full..].iter().fold(acc[0], |s, &x| s + f64::from(x))
}

/// The model is of the x86-64 emitter's accumulators (`x64/reduce.rs`).
#[cfg(target_arch = "x86_64")]
#[test]
fn sums_and_means_keep_the_single_vector_order_bitwise() {
    for &cols in &COLS {
        let rows = 6;
        // Values over many binades, so that any other summation order would round differently.
        let v: Vec<f32> = randn(&[rows, cols], 100 + cols as u64)
            .to_vec::<f32>()
            .into_iter()
            .enumerate()
            .map(|(i, x)| x * 2f32.powi((i * 7 % 61) as i32 - 30))
            .collect();
        let x = Tensor::from_vec(v.clone(), &[rows, cols]).unwrap();
        for (b, _) in targets() {
            let lanes = lanes(&b);
            for op in ["sum", "mean"] {
                let src = format!(
                    "graph(%x: f32[{rows}, {cols}]):\n  %0: f32[{rows}] = {op}(%x, [-1], False, dtype=None)\n  return (%0)\n"
                );
                let exe = b.compile(&parse(&src).unwrap()).unwrap();
                let got = exe.run(std::slice::from_ref(&x)).unwrap()[0].to_vec::<f32>();
                for (r, g) in got.iter().enumerate() {
                    let row = &v[r * cols..(r + 1) * cols];
                    let mut want = lane_order_sum(row, lanes);
                    if op == "mean" {
                        want /= cols as f64;
                    }
                    assert_eq!(
                        g.to_bits(),
                        (want as f32).to_bits(),
                        "{op} row {r} of {cols} columns, {}",
                        b.target_name()
                    );
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn reducing_phases_are_unrolled_on_avx2_and_avx512() {
    for (b, _) in targets().into_iter().filter(|(_, sse2)| !sse2) {
        let exe = b
            .compile_exe(&parse(&row_reduce("amax", 4, 1024)).unwrap())
            .unwrap();
        // The copies fold pairwise before the accumulator: more `vmaxps` than the single-vector
        // loop (one), its lane collapse (two; three on AVX-512) and the scalar tail (one
        // `vmaxss`) have.
        let n = exe.dump().matches("vmaxps").count();
        assert!(n >= 6, "{} {n} vmaxps:\n{}", b.target_name(), exe.dump());
    }
}

fn pow_data() -> Tensor {
    let mut v: Vec<f32> = randn(&[1031], 77)
        .to_vec::<f32>()
        .into_iter()
        .map(|x| x * 5.0)
        .collect();
    let specials = [
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -1.0,
        1e-20,
        -1e-15,
        3e12,
        -3e12,
        1e30,
        f32::MIN_POSITIVE,
        -2.5,
    ];
    v[..specials.len()].copy_from_slice(&specials);
    Tensor::from_vec(v, &[1031]).unwrap()
}

#[test]
fn pow_with_exponent_three_or_four_is_multiplication_within_eager_pow_bounds() {
    let x = pow_data();
    let xd = x.to_dtype(rynamo_tensor::DType::Float64);
    for k in ["3", "4", "3.0"] {
        let src = format!("graph(%x: f32[1031]):\n  %0: f32[1031] = pow(%x, {k})\n  return (%0)\n");
        // Two (three for ^4) roundings of the products plus libm's one ulp; results below the
        // normal range compare absolutely.
        let exe = check(&src, std::slice::from_ref(&x), 3e-7, 1e-37);
        assert!(!exe.dump().contains("Pow"), "{}", exe.dump());
        let src = format!("graph(%x: f64[1031]):\n  %0: f64[1031] = pow(%x, {k})\n  return (%0)\n");
        check(&src, std::slice::from_ref(&xd), 7e-16, 1e-300);
    }
}
