//! How one large f32 GEMM should use the threads: gemm's own `Parallelism::Rayon`, or one
//! single-threaded call per block from `rynamo_tensor::ops::matmul::for_each_block` (what the
//! runtime does), at W4's two shapes and at the 2048^3 of the GEMM peak; single-threaded for
//! scale. Best of 15 calls, three rounds, in GFLOP/s.
//!
//! `cargo run --release --ignore-rust-version -p rynamo-benches --example gemm_shapes`

use std::time::Instant;

use rynamo_tensor::ops::matmul::for_each_block;

/// `c[rows, cols] = a[rows, :] @ b[:, cols]` for row-major `a` (m x k), `b` (k x n), `c` (m x n).
fn block(
    (m, n, k): (usize, usize, usize),
    (a, b, c): (&[f32], &[f32], usize),
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
    par: gemm::Parallelism,
) {
    assert!(rows.end <= m && cols.end <= n && a.len() == m * k && b.len() == k * n);
    // SAFETY: the asserted shapes keep every access in bounds; `c` (m x n, passed as an address
    // so that blocks can run on several threads) is written only inside `rows` x `cols`.
    unsafe {
        gemm::gemm(
            rows.len(),
            cols.len(),
            k,
            (c as *mut f32).add(rows.start * n + cols.start),
            1,
            n as isize,
            false,
            a.as_ptr().add(rows.start * k),
            1,
            k as isize,
            b.as_ptr().add(cols.start),
            1,
            n as isize,
            0.0,
            1.0,
            false,
            false,
            false,
            par,
        );
    }
}

fn best(f: impl Fn()) -> f64 {
    (0..15)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min)
}

fn main() {
    for (m, n, k) in [(256, 4096, 1024), (256, 1024, 4096), (2048, 2048, 2048)] {
        let (a, b) = (vec![1.0f32; m * k], vec![0.5f32; k * n]);
        let mut c = vec![0.0f32; m * n];
        let c = c.as_mut_ptr() as usize;
        let gf = |s: f64| 2.0 * (m * n * k) as f64 / s / 1e9;
        let dims = (m, n, k);
        for round in 0..3 {
            let rayon = best(|| block(dims, (&a, &b, c), 0..m, 0..n, gemm::Parallelism::Rayon(0)));
            let split = best(|| {
                for_each_block(m, n, |r, s| {
                    block(dims, (&a, &b, c), r, s, gemm::Parallelism::None);
                });
            });
            let one = best(|| block(dims, (&a, &b, c), 0..m, 0..n, gemm::Parallelism::None));
            println!(
                "{m}x{n}x{k} round {round}: gemm Rayon {:.0}, for_each_block {:.0}, 1 thread {:.0}",
                gf(rayon),
                gf(split),
                gf(one)
            );
        }
    }
}
