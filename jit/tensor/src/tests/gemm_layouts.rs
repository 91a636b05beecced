//! `mm`/`addmm` on every operand layout, at sizes that run one block and that split over the
//! threads, in f32 and f64, against a naive f64 product. The layouts route to different GEMM
//! libraries (`ops/gemm_block.rs`: faer for a transposed right operand, `gemm` otherwise), and
//! `addmm` with `alpha`/`beta` covers both accumulation forms.

use crate::ops::matmul::{addmm, matmul, mm};
use crate::{DType, Scalar, Tensor};

/// Deterministic values in [-2, 2).
fn vals(n: usize, seed: usize) -> Vec<f64> {
    (0..n)
        .map(|i| (((i * 7919 + seed * 104_729) % 4001) as f64) / 1000.0 - 2.0)
        .collect()
}

/// A `rows x cols` tensor holding `v` row-major, stored transposed (column-major) when asked.
fn matrix(v: &[f64], (rows, cols): (usize, usize), col_major: bool, dtype: DType) -> Tensor {
    if !col_major {
        return Tensor::from_vec(v.to_vec(), &[rows, cols])
            .unwrap()
            .to_dtype(dtype);
    }
    let mut t = vec![0.0; v.len()];
    for i in 0..rows {
        for j in 0..cols {
            t[j * rows + i] = v[i * cols + j];
        }
    }
    let stored = Tensor::from_vec(t, &[cols, rows]).unwrap().to_dtype(dtype);
    stored.transpose(0, 1).unwrap()
}

fn reference(a: &[f64], b: &[f64], (m, n, k): (usize, usize, usize)) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|l| a[i * k + l] * b[l * n + j]).sum();
        }
    }
    c
}

fn assert_close(got: &Tensor, want: &[f64], tol: f64, what: &str) {
    let g = got.to_vec::<f64>();
    assert_eq!(g.len(), want.len(), "{what}");
    for (i, (x, y)) in g.iter().zip(want).enumerate() {
        assert!(
            (x - y).abs() <= tol * (1.0 + y.abs()),
            "{what}: element {i}: {x} vs {y}"
        );
    }
}

#[test]
fn mm_and_addmm_agree_with_the_reference_on_every_layout() {
    // 3x5x4 is one small block; 96x80x72 (552,960 multiply-adds) splits over the threads.
    for (m, n, k) in [(3, 5, 4), (96, 80, 72), (2, 130, 33)] {
        let (av, bv, cv) = (vals(m * k, 1), vals(k * n, 2), vals(m * n, 3));
        let prod = reference(&av, &bv, (m, n, k));
        for dtype in [DType::Float32, DType::Float64] {
            let tol = if dtype == DType::Float32 { 1e-5 } else { 1e-12 };
            for (a_cm, b_cm) in [(false, false), (false, true), (true, false), (true, true)] {
                let what = format!("{m}x{n}x{k} {dtype:?} a col-major {a_cm}, b col-major {b_cm}");
                let a = matrix(&av, (m, k), a_cm, dtype);
                let b = matrix(&bv, (k, n), b_cm, dtype);
                assert_close(&mm(&a, &b).unwrap(), &prod, tol, &what);
                let c = matrix(&cv, (m, n), false, dtype);
                for (beta, alpha) in [(1.0, 1.0), (0.5, -2.0), (0.0, 3.0)] {
                    let want: Vec<f64> = cv
                        .iter()
                        .zip(&prod)
                        .map(|(c, p)| beta * c + alpha * p)
                        .collect();
                    let got = addmm(&c, &a, &b, Scalar::Float(beta), Scalar::Float(alpha));
                    assert_close(
                        &got.unwrap(),
                        &want,
                        tol,
                        &format!("{what} beta {beta} alpha {alpha}"),
                    );
                }
            }
        }
    }
}

#[test]
fn batched_matmul_agrees_with_the_reference_folded_or_not() {
    // A batch times one matrix (or vector) folds into one product over all the rows; a batch times
    // a batch of small matrices runs one task per matrix once there is enough work in all, and one
    // after another below that. `a` is also taken as a permuted view, whose rows do not fold into a
    // view (the fold copies them).
    for (batch, m, n, k) in [(4, 32, 65, 64), (3, 5, 4, 7), (64, 9, 10, 11)] {
        let (av, bv) = (vals(batch * m * k, 4), vals(batch * k * n, 5));
        for dtype in [DType::Float32, DType::Float64] {
            let tol = if dtype == DType::Float32 { 1e-5 } else { 1e-12 };
            let a = Tensor::from_vec(av.clone(), &[batch, m, k])
                .unwrap()
                .to_dtype(dtype);
            // The same values stored [m, batch, k] and viewed back as [batch, m, k].
            let mut t = vec![0.0; av.len()];
            for (i, j, l) in
                (0..batch).flat_map(|i| (0..m).flat_map(move |j| (0..k).map(move |l| (i, j, l))))
            {
                t[(j * batch + i) * k + l] = av[(i * m + j) * k + l];
            }
            let a_perm = Tensor::from_vec(t, &[m, batch, k])
                .unwrap()
                .to_dtype(dtype)
                .transpose(0, 1)
                .unwrap();
            for b_cm in [false, true] {
                let b = matrix(&bv[..k * n], (k, n), b_cm, dtype);
                let want: Vec<f64> = (0..batch)
                    .flat_map(|i| {
                        reference(&av[i * m * k..(i + 1) * m * k], &bv[..k * n], (m, n, k))
                    })
                    .collect();
                for (x, how) in [(&a, "contiguous"), (&a_perm, "permuted")] {
                    let what = format!(
                        "[{batch},{m},{k}] @ [{k},{n}] {dtype:?} a {how}, b col-major {b_cm}"
                    );
                    let got = matmul(x, &b).unwrap();
                    assert_eq!(got.shape(), &[batch, m, n], "{what}");
                    assert_close(&got, &want, tol, &what);
                }
            }
            let v = Tensor::from_vec(bv[..k].to_vec(), &[k])
                .unwrap()
                .to_dtype(dtype);
            let want: Vec<f64> = (0..batch)
                .flat_map(|i| reference(&av[i * m * k..(i + 1) * m * k], &bv[..k], (m, 1, k)))
                .collect();
            let got = matmul(&a, &v).unwrap();
            assert_eq!(
                got.shape(),
                &[batch, m],
                "[{batch},{m},{k}] @ [{k}] {dtype:?}"
            );
            assert_close(
                &got,
                &want,
                tol,
                &format!("[{batch},{m},{k}] @ [{k}] {dtype:?}"),
            );
            let bb = Tensor::from_vec(bv.clone(), &[batch, k, n])
                .unwrap()
                .to_dtype(dtype);
            let want: Vec<f64> = (0..batch)
                .flat_map(|i| {
                    reference(
                        &av[i * m * k..(i + 1) * m * k],
                        &bv[i * k * n..(i + 1) * k * n],
                        (m, n, k),
                    )
                })
                .collect();
            let what = format!("[{batch},{m},{k}] @ [{batch},{k},{n}] {dtype:?}");
            assert_close(&matmul(&a, &bb).unwrap(), &want, tol, &what);
        }
    }
}
