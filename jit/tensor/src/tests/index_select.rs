//! `index_select` against a naive per-element selection: every dim of 1-D to 4-D sources, large
//! enough to split over the threads, with repeated and out-of-order indices, a non-contiguous
//! source, and each element size (1, 2, 4 and 8 bytes). The kernel (`ops/index_select.rs`)
//! copies whole rows as words of the element's size, so a wrong stride or size shows as wrong
//! values here.

use crate::ops::gather::index_select;
use crate::{DType, Tensor};

/// The expected result, element by element, in f64.
fn naive(x: &[f64], shape: &[usize], d: usize, index: &[i64]) -> Vec<f64> {
    let outer: usize = shape[..d].iter().product();
    let inner: usize = shape[d + 1..].iter().product();
    let mut out = Vec::new();
    for o in 0..outer {
        for &j in index {
            for r in 0..inner {
                out.push(x[(o * shape[d] + j as usize) * inner + r]);
            }
        }
    }
    out
}

fn check(shape: &[usize], dtype: DType, transposed: bool) {
    let n: usize = shape.iter().product();
    let vals: Vec<f64> = (0..n).map(|i| ((i * 37) % 101) as f64 - 50.0).collect();
    let stored = Tensor::from_vec(vals.clone(), shape)
        .unwrap()
        .to_dtype(dtype);
    // A transposed source is selected from as the contiguous tensor it views.
    let (x, dense, dense_shape) = if transposed {
        let last = shape.len() - 1;
        let x = stored.transpose(0, last as i64).unwrap();
        let c = x.contiguous();
        let v = c.to_dtype(DType::Float64).to_vec::<f64>();
        (x, v, c.shape().to_vec())
    } else {
        (stored, vals, shape.to_vec())
    };
    for d in 0..dense_shape.len() {
        let size = dense_shape[d] as i64;
        let index: Vec<i64> = vec![size - 1, 0, size / 2, size - 1, 1.min(size - 1)];
        let got = index_select(
            &x,
            d as i64,
            &Tensor::from_vec(index.clone(), &[5]).unwrap(),
        )
        .unwrap();
        let mut want_shape = dense_shape.clone();
        want_shape[d] = 5;
        assert_eq!(got.shape(), want_shape.as_slice());
        assert!(got.is_contiguous());
        assert_eq!(got.dtype(), dtype);
        let got = got.to_dtype(DType::Float64).to_vec::<f64>();
        assert_eq!(
            got,
            naive(&dense, &dense_shape, d, &index),
            "{shape:?} {dtype:?} transposed={transposed} dim={d}"
        );
    }
}

#[test]
fn index_select_matches_naive_selection() {
    for dtype in [
        DType::Float32,
        DType::Float64,
        DType::Int8,
        DType::BFloat16,
        DType::Int16,
    ] {
        for shape in [&[9][..], &[7, 300], &[3, 40, 500], &[2, 3, 64, 96]] {
            for transposed in [false, true] {
                check(shape, dtype, transposed);
            }
        }
    }
}
