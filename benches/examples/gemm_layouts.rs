//! The eight f32 products of one W10 MLP training step (`benchmarks.md`; batch 128, layers
//! 512-1024-1024-512), each in the layout autograd hands it, through the two GEMM libraries the
//! runtime links: the `gemm` crate and faer's matmul (private-gemm-x86). It is the evidence behind
//! `rynamo_tensor`'s `ops/gemm_block.rs`, which sends a product whose right operand is stored
//! transposed (`x @ W.T`, the forward of `linear`) to faer and every other one to `gemm`.
//!
//! Each library runs single-threaded, on the whole product and on the two halves that
//! `for_each_block` gives the threads; the four variants alternate call by call (best of 40, in
//! GFLOP/s), so that a burst of load on this shared machine hits them all alike.
//!
//! `cargo run --release --ignore-rust-version -p rynamo-benches --no-default-features --example gemm_layouts`

use std::time::Instant;

use rynamo_tensor::iter::SendPtr;
use rynamo_tensor::ops::matmul::for_each_block;

/// (row stride, column stride) of a matrix, in elements.
type Strides = (isize, isize);

/// One product `c = a @ b` (`m x k` times `k x n`) with its operands' strides.
#[derive(Clone, Copy)]
struct Product {
    m: usize,
    n: usize,
    k: usize,
    sa: Strides,
    sb: Strides,
}

/// `c = a @ b` by the `gemm` crate (which takes column stride first), single-threaded.
///
/// # Safety
/// The three pointers address in-bounds matrices of `p`'s shapes; `c` is row-major `m x n`.
unsafe fn by_gemm(p: Product, c: *mut f32, a: *const f32, b: *const f32) {
    // SAFETY: forwarded from the caller.
    unsafe {
        gemm::gemm::<f32>(
            p.m,
            p.n,
            p.k,
            c,
            1,
            p.n as isize,
            false,
            a,
            p.sa.1,
            p.sa.0,
            b,
            p.sb.1,
            p.sb.0,
            0.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        )
    }
}

/// `c = a @ b` by faer's matmul, single-threaded.
///
/// # Safety
/// As [`by_gemm`].
unsafe fn by_faer(p: Product, c: *mut f32, a: *const f32, b: *const f32) {
    // SAFETY: forwarded from the caller.
    let (a, b, c) = unsafe {
        (
            faer::MatRef::from_raw_parts(a, p.m, p.k, p.sa.0, p.sa.1),
            faer::MatRef::from_raw_parts(b, p.k, p.n, p.sb.0, p.sb.1),
            faer::MatMut::from_raw_parts_mut(c, p.m, p.n, p.n as isize, 1),
        )
    };
    faer::linalg::matmul::matmul(c, faer::Accum::Replace, a, b, 1.0f32, faer::Par::Seq);
}

/// Runs `f` on the blocks `for_each_block` gives the threads.
fn in_blocks(
    p: Product,
    c: SendPtr<f32>,
    a: SendPtr<f32>,
    b: SendPtr<f32>,
    f: unsafe fn(Product, *mut f32, *const f32, *const f32),
) {
    for_each_block(p.m, p.n, |rows, cols| {
        let (r, s) = (rows.start as isize, cols.start as isize);
        let block = Product {
            m: rows.len(),
            n: cols.len(),
            ..p
        };
        // SAFETY: the block lies inside the three matrices, and blocks write disjoint parts of `c`.
        unsafe {
            f(
                block,
                c.at(r * p.n as isize + s),
                a.at(r * p.sa.0).cast_const(),
                b.at(s * p.sb.1).cast_const(),
            )
        }
    });
}

fn main() {
    let row = |cols: usize| (cols as isize, 1);
    let col = |rows: usize| (1, rows as isize);
    // (name, m, n, k, a row-major, b row-major)
    let cases = [
        ("fwd x @ W1.T", 128, 1024, 512, true, false),
        ("fwd h1 @ W2.T", 128, 1024, 1024, true, false),
        ("fwd h2 @ W3.T", 128, 512, 1024, true, false),
        ("bwd g3 @ W3", 128, 1024, 512, true, true),
        ("bwd g2 @ W2", 128, 1024, 1024, true, true),
        ("bwd g1.T @ x", 1024, 512, 128, false, true),
        ("bwd g2.T @ h1", 1024, 1024, 128, false, true),
        ("bwd g3.T @ h2", 512, 1024, 128, false, true),
    ];
    println!(
        "| product | m x n x k | gemm 2 blocks | faer 2 blocks | gemm 1 thread | faer 1 thread |"
    );
    println!("|---|---|---:|---:|---:|---:|");
    for (name, m, n, k, a_row, b_row) in cases {
        let p = Product {
            m,
            n,
            k,
            sa: if a_row { row(k) } else { col(m) },
            sb: if b_row { row(n) } else { col(k) },
        };
        let (a, b) = (vec![1.0f32; m * k], vec![0.5f32; k * n]);
        let mut c = vec![0.0f32; m * n];
        let (pc, pa, pb) = (
            SendPtr(c.as_mut_ptr()),
            SendPtr(a.as_ptr().cast_mut()),
            SendPtr(b.as_ptr().cast_mut()),
        );
        let variants: [&dyn Fn(); 4] = [
            &|| in_blocks(p, pc, pa, pb, by_gemm),
            &|| in_blocks(p, pc, pa, pb, by_faer),
            // SAFETY: the buffers have exactly `p`'s shapes and strides.
            &|| unsafe { by_gemm(p, pc.0, pa.0, pb.0) },
            // SAFETY: as above.
            &|| unsafe { by_faer(p, pc.0, pa.0, pb.0) },
        ];
        let mut best = [f64::MAX; 4];
        for _ in 0..40 {
            for (v, f) in variants.iter().enumerate() {
                let t = Instant::now();
                f();
                best[v] = best[v].min(t.elapsed().as_secs_f64());
            }
        }
        let gf = best.map(|s| 2.0 * (m * n * k) as f64 / s / 1e9);
        println!(
            "| {name} | {m} x {n} x {k} | {:.0} | {:.0} | {:.0} | {:.0} |",
            gf[0], gf[1], gf[2], gf[3]
        );
    }
}
