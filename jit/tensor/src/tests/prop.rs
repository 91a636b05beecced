//! Property tests against naive f64 references over random shapes, broadcasting and strides.

use proptest::prelude::*;

use super::*;
use crate::layout::contiguous_strides;
use crate::ops::{matmul, pointwise, reduce};
use crate::{BinaryOp, ReduceOp};

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
