//! How one large f32 GEMM should use the threads: gemm's own `Parallelism::Rayon`, or the
//! runtime's `gemm_raw` (one single-threaded call per block from `for_each_block`), at W4's two
//! shapes and at the 2048^3 of the GEMM peak; single-threaded for scale. Best of 15 calls, three
//! rounds, in GFLOP/s.
//!
//! `cargo run --release --ignore-rust-version -p rynamo-benches --example gemm_shapes`

use std::time::Instant;

use rynamo_tensor::ops::matmul::gemm_raw;

fn best(mut f: impl FnMut()) -> f64 {
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
        let gf = |s: f64| 2.0 * (m * n * k) as f64 / s / 1e9;
        // Row-major `a` (m x k), `b` (k x n), `c` (m x n): (row stride, column stride).
        let (sa, sb, sc) = ((k as isize, 1), (n as isize, 1), (n as isize, 1));
        let runtime = |c: &mut [f32], parallel: bool| {
            // SAFETY: the three buffers have exactly these shapes and strides; `c` is borrowed
            // mutably for the call, `a` and `b` only read.
            unsafe {
                gemm_raw::<f32>(
                    (m, n, k),
                    c.as_mut_ptr(),
                    sc,
                    false,
                    a.as_ptr(),
                    sa,
                    b.as_ptr(),
                    sb,
                    parallel,
                );
            }
        };
        for round in 0..3 {
            let rayon = best(|| {
                // SAFETY: as above.
                unsafe {
                    gemm::gemm(
                        m,
                        n,
                        k,
                        c.as_mut_ptr(),
                        1,
                        n as isize,
                        false,
                        a.as_ptr(),
                        1,
                        k as isize,
                        b.as_ptr(),
                        1,
                        n as isize,
                        0.0,
                        1.0,
                        false,
                        false,
                        false,
                        gemm::Parallelism::Rayon(0),
                    );
                }
            });
            let blocks = best(|| runtime(&mut c, true));
            let one = best(|| runtime(&mut c, false));
            println!(
                "{m}x{n}x{k} round {round}: gemm Rayon {:.0}, gemm_raw (for_each_block) {:.0}, 1 thread {:.0}",
                gf(rayon),
                gf(blocks),
                gf(one)
            );
        }
    }
}
