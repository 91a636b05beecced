//! Property tests against naive f64 references over random shapes, broadcasting and strides.

use proptest::prelude::*;

use super::*;
use crate::layout::contiguous_strides;
use crate::ops::{matmul, pointwise, reduce};
use crate::{BinaryOp, DType, ReduceOp};

/// Row-major index of `idx` (a multi-index into `out`) in a tensor of `shape` broadcast to `out`.
fn bcast_index(idx: &[usize], shape: &[usize]) -> usize {
    let off = idx.len() - shape.len();
    let st = contiguous_strides(shape);
    (0..shape.len())
        .map(|d| {
            if shape[d] == 1 {
                0
            } else {
                idx[off + d] * st[d] as usize
            }
        })
        .sum()
}

fn multi_index(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        idx[d] = i % shape[d];
        i /= shape[d];
    }
    idx
}

fn values(n: usize, seed: u64) -> Vec<f32> {
    (0..n)
        .map(|i| (((i as u64 * 2654435761 + seed * 97) % 1000) as f32) / 100.0 - 5.0)
        .collect()
}

/// A tensor with these values that is a non-contiguous view when `transposed` (and ndim >= 2).
fn make(vals: &[f32], shape: &[usize], transposed: bool) -> Tensor {
    if !transposed || shape.len() < 2 {
        return t(vals, shape);
    }
    let base = t(vals, shape).transpose(0, -1).unwrap().contiguous();
    let v = base.transpose(0, -1).unwrap();
    assert_eq!(v.shape(), shape);
    v
}

fn shapes() -> impl Strategy<Value = (Vec<usize>, Vec<usize>, Vec<usize>)> {
    proptest::collection::vec(1usize..5, 0..4).prop_flat_map(|out| {
        let n = out.len();
        (
            Just(out),
            proptest::collection::vec(any::<bool>(), n),
            proptest::collection::vec(any::<bool>(), n),
            0..=n,
            0..=n,
        )
            .prop_map(|(out, ka, kb, da, db)| {
                let pick = |keep: &[bool], drop: usize| -> Vec<usize> {
                    (drop..out.len())
                        .map(|d| if keep[d] { out[d] } else { 1 })
                        .collect()
                };
                (out.clone(), pick(&ka, da), pick(&kb, db))
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn binary_broadcasting_matches_reference((_out, sa, sb) in shapes(), ta: bool, tb: bool, opi in 0usize..5) {
        let (va, vb) = (values(crate::layout::numel(&sa), 1), values(crate::layout::numel(&sb), 2));
        let (a, b) = (make(&va, &sa, ta), make(&vb, &sb, tb));
        let (op, f): (BinaryOp, fn(f64, f64) -> f64) = [
            (BinaryOp::Add, (|x, y| x + y) as fn(f64, f64) -> f64),
            (BinaryOp::Sub, |x, y| x - y),
            (BinaryOp::Mul, |x, y| x * y),
            (BinaryOp::Maximum, f64::max),
            (BinaryOp::Div, |x, y| x / y),
        ][opi];
        let got = pointwise::binary(op, ts(&a), ts(&b), Scalar::Int(1)).unwrap();
        let real_out = crate::broadcast_shapes(&sa, &sb).unwrap();
        prop_assert_eq!(got.shape(), real_out.as_slice());
        let n = crate::layout::numel(&real_out);
        let want: Vec<f64> = (0..n).map(|i| {
            let idx = multi_index(i, &real_out);
            f(va[bcast_index(&idx, &sa)] as f64, vb[bcast_index(&idx, &sb)] as f64)
        }).collect();
        let g = got.to_vec::<f64>();
        for (x, y) in g.iter().zip(&want) {
            prop_assert!((x - y).abs() <= 1e-6 * (1.0 + y.abs()), "{} vs {}", x, y);
        }
    }

    #[test]
    fn sum_over_random_dims_matches_reference(shape in proptest::collection::vec(1usize..5, 1..5), mask in any::<u8>(), keep: bool, tr: bool) {
        let v = values(crate::layout::numel(&shape), 3);
        let x = make(&v, &shape, tr);
        let dims: Vec<usize> = (0..shape.len()).filter(|d| mask & (1 << d) != 0).collect();
        let di: Vec<i64> = dims.iter().map(|&d| d as i64 - shape.len() as i64).collect();
        let got = reduce::reduce(ReduceOp::Sum, &x, Some(&di), keep, None).unwrap();
        let all: Vec<usize> = if dims.is_empty() { (0..shape.len()).collect() } else { dims.clone() };
        let want = super::kernels::naive_sum(&v.iter().map(|&a| a as f64).collect::<Vec<_>>(), &shape, &all);
        let g = got.to_vec::<f64>();
        prop_assert_eq!(g.len(), want.len());
        for (x, y) in g.iter().zip(&want) {
            prop_assert!((x - y).abs() <= 1e-5 * (1.0 + y.abs()));
        }
    }

    #[test]
    fn batched_matmul_matches_reference(batch in proptest::collection::vec(1usize..3, 0..3), n in 1usize..6, k in 1usize..9, p in 1usize..6, tr: bool) {
        let mut sa = batch.clone();
        sa.extend([n, k]);
        let mut sb = vec![k, p];
        if tr { sb.insert(0, 1); }
        let (va, vb) = (values(crate::layout::numel(&sa), 4), values(crate::layout::numel(&sb), 5));
        let (a, b) = (make(&va, &sa, tr), make(&vb, &sb, !tr));
        let got = matmul::matmul(&a, &b).unwrap();
        let nb: usize = batch.iter().product();
        let mut want = Vec::new();
        for bi in 0..nb {
            for i in 0..n {
                for j in 0..p {
                    want.push((0..k).map(|l| va[bi * n * k + i * k + l] as f64 * vb[l * p + j] as f64).sum::<f64>());
                }
            }
        }
        let g = got.to_vec::<f64>();
        prop_assert_eq!(g.len(), want.len());
        for (x, y) in g.iter().zip(&want) {
            prop_assert!((x - y).abs() <= 1e-4 * (1.0 + y.abs()), "{} vs {}", x, y);
        }
    }
}

/// Each element's bytes in logical row-major order, read one at a time through the strides: the
/// naive reference the strided copy kernels are compared with.
fn logical_bytes(x: &Tensor) -> Vec<u8> {
    let isz = x.dtype().itemsize();
    let mut out = Vec::with_capacity(x.numel() * isz);
    for i in 0..x.numel() {
        let idx = multi_index(i, x.shape());
        let e = x.offset() as isize
            + idx
                .iter()
                .zip(x.strides())
                .map(|(&j, &s)| j as isize * s)
                .sum::<isize>();
        // SAFETY: a valid view's elements lie inside its storage.
        out.extend_from_slice(unsafe {
            std::slice::from_raw_parts(x.storage().as_ptr().add(e as usize * isz), isz)
        });
    }
    out
}

/// A 1-D tensor of `n` elements with arbitrary bits (NaN payloads included; 0/1 for bool).
fn noise(n: usize, dtype: DType, seed: u64) -> Tensor {
    let t = Tensor::zeros(&[n], dtype);
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    for b in 0..n * dtype.itemsize() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let v = if dtype == DType::Bool { x & 1 } else { x >> 56 } as u8;
        // SAFETY: `b` is inside the fresh storage, which nothing else references.
        unsafe { *t.storage().as_ptr().add(b) = v };
    }
    t
}

const COPY_DTYPES: [DType; 11] = [
    DType::Float32,
    DType::Float64,
    DType::Int64,
    DType::Bool,
    DType::Float16,
    DType::BFloat16,
    DType::UInt8,
    DType::Int16,
    DType::Int32,
    DType::Complex64,
    DType::Complex128,
];

/// A view of noise: `sizes` taken every `steps[d]` elements of a contiguous parent from
/// `offset` (stride 0 where `bcast`), then permuted by `perm`.
fn strided_source(
    dtype: DType,
    sizes: &[usize],
    steps: &[usize],
    bcast: &[bool],
    offset: usize,
    perm: &[usize],
) -> Tensor {
    let parent: Vec<usize> = (0..sizes.len())
        .map(|d| if bcast[d] { 1 } else { sizes[d] * steps[d] })
        .collect();
    let pst = contiguous_strides(&parent);
    let strides: Vec<i64> = (0..sizes.len())
        .map(|d| {
            if bcast[d] {
                0
            } else {
                (pst[d] as usize * steps[d]) as i64
            }
        })
        .collect();
    let base = noise(
        offset + crate::layout::numel(&parent),
        dtype,
        sizes.len() as u64,
    );
    let size: Vec<i64> = sizes.iter().map(|&n| n as i64).collect();
    let v = base
        .as_strided(&size, &strides, Some(offset as i64))
        .unwrap();
    v.permute(&perm.iter().map(|&d| d as i64).collect::<Vec<_>>())
        .unwrap()
}

/// Copies `src` with `contiguous()` and with `copy_` into a destination laid out by `out_perm`,
/// checking both against the element-by-element reference.
fn check_copies(src: &Tensor, out_perm: &[usize]) -> Result<(), TestCaseError> {
    let want = logical_bytes(src);
    let c = src.contiguous();
    prop_assert!(c.is_contiguous());
    prop_assert_eq!(c.shape(), src.shape());
    prop_assert!(logical_bytes(&c) == want, "contiguous() of {:?}", src);
    let inner: Vec<usize> = out_perm.iter().map(|&d| src.shape()[d]).collect();
    let mut inv = vec![0i64; out_perm.len()];
    for (i, &d) in out_perm.iter().enumerate() {
        inv[d] = i as i64;
    }
    let dst = Tensor::zeros(&inner, src.dtype()).permute(&inv).unwrap();
    dst.copy_(src).unwrap();
    prop_assert!(
        logical_bytes(&dst) == want,
        "copy_ into {:?}",
        dst.strides()
    );
    Ok(())
}

/// Ranks 2-6 with the inner-run lengths the copy special-cases, a permutation of the source
/// and of the destination, steps, broadcast dims and a storage offset.
#[allow(clippy::type_complexity)]
fn copy_layouts() -> impl Strategy<
    Value = (
        Vec<usize>,
        Vec<usize>,
        Vec<usize>,
        Vec<bool>,
        usize,
        Vec<usize>,
    ),
> {
    (2usize..=6).prop_flat_map(|rank| {
        let ids: Vec<usize> = (0..rank).collect();
        (
            proptest::collection::vec(prop_oneof![1usize..=5, Just(16), Just(32), Just(17)], rank)
                .prop_filter("at most 40k elements", |s| {
                    s.iter().product::<usize>() <= 40_000
                }),
            Just(ids.clone()).prop_shuffle(),
            proptest::collection::vec(1usize..=3, rank),
            proptest::collection::vec(proptest::bool::weighted(0.15), rank),
            0usize..5,
            Just(ids).prop_shuffle(),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    #[test]
    fn strided_copies_match_elementwise_reference(
        (sizes, perm, steps, bcast, offset, out_perm) in copy_layouts(),
        di in 0..COPY_DTYPES.len(),
    ) {
        let src = strided_source(COPY_DTYPES[di], &sizes, &steps, &bcast, offset, &perm);
        check_copies(&src, &out_perm)?;
    }
}

/// Sizes, steps, source permutation, storage offset and destination permutation of a case.
type CopyCase = (
    &'static [usize],
    &'static [usize],
    &'static [usize],
    usize,
    &'static [usize],
);

/// Layouts above the parallel threshold (runs split across threads) and wide transposes (whole
/// SIMD tiles plus odd edges), for every element size.
#[test]
fn large_strided_copies_match_elementwise_reference() {
    let cases: [CopyCase; 6] = [
        (&[257, 263], &[1, 1], &[1, 0], 3, &[0, 1]),
        (&[300, 300], &[1, 2], &[1, 0], 0, &[1, 0]),
        (
            &[8, 65, 4, 32],
            &[1, 1, 1, 1],
            &[0, 2, 1, 3],
            1,
            &[0, 1, 2, 3],
        ),
        (
            &[8, 3, 8, 4, 8, 4],
            &[1; 6],
            &[0, 2, 4, 3, 5, 1],
            0,
            &[0, 1, 2, 3, 4, 5],
        ),
        (&[129, 70, 9], &[1, 1, 1], &[2, 0, 1], 5, &[2, 1, 0]),
        (
            &[4, 4, 32, 16],
            &[1, 1, 1, 1],
            &[0, 2, 1, 3],
            0,
            &[0, 1, 2, 3],
        ),
    ];
    for dtype in COPY_DTYPES {
        for (sizes, steps, perm, offset, out_perm) in cases {
            let bcast = vec![false; sizes.len()];
            let src = strided_source(dtype, sizes, steps, &bcast, offset, perm);
            check_copies(&src, out_perm).unwrap();
        }
        // A column broadcast along rows (stride-0 inner dim), above the threshold.
        let col = strided_source(dtype, &[256, 1], &[1, 1], &[false; 2], 0, &[0, 1]);
        check_copies(&col.expand(&[256, 512]).unwrap(), &[1, 0]).unwrap();
    }
}
