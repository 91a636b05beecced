//! `preserve_format` strides of `clone` / `*_like` (values hand-checked against PyTorch 2.x).

use super::*;
use crate::DType;
use crate::preserve::{dense_strides_like, is_non_overlapping_and_dense, preserved_strides};

#[test]
fn dense_layouts_keep_their_strides() {
    // `torch.ones(2, 3).t()`: (1, 3); size-1 dims may have any stride.
    assert!(is_non_overlapping_and_dense(&[3, 2], &[1, 3]));
    assert_eq!(preserved_strides(&[3, 2], &[1, 3]).as_slice(), &[1, 3]);
    assert_eq!(preserved_strides(&[1, 3], &[100, 1]).as_slice(), &[100, 1]);
    let nchw_as_nhwc = [2usize, 3, 4, 5];
    assert_eq!(
        preserved_strides(&nchw_as_nhwc, &[60, 1, 15, 3]).as_slice(),
        &[60, 1, 15, 3]
    );
    assert!(!is_non_overlapping_and_dense(&[2, 3], &[0, 1]));
    assert!(!is_non_overlapping_and_dense(&[2, 3], &[6, 2]));
}

#[test]
fn other_layouts_get_dense_strides_in_their_memory_order() {
    // `torch.ones(4, 6)[:, ::2].t()`: sizes (3, 4), strides (2, 6) -> clone strides (1, 3).
    assert_eq!(preserved_strides(&[3, 4], &[2, 6]).as_slice(), &[1, 3]);
    // Slices that keep row-major order, and broadcasts, become contiguous.
    assert_eq!(preserved_strides(&[2, 4], &[8, 1]).as_slice(), &[4, 1]);
    assert_eq!(preserved_strides(&[2, 3], &[0, 1]).as_slice(), &[3, 1]);
    // A stride-0 dim keeps its row-major place among the ordered ones (ATen's example).
    assert_eq!(
        dense_strides_like(&[6, 5, 4, 3, 2], &[6, 0, 120, 0, 1]).as_slice(),
        &[6, 36, 180, 2, 1]
    );
    assert_eq!(dense_strides_like(&[], &[]).as_slice(), &[] as &[isize]);
}

#[test]
fn clone_and_empty_like_preserve_a_permutation() {
    let x = Tensor::from_vec((0..6).map(|v| v as f32).collect(), &[2, 3]).unwrap();
    let xt = x.t().unwrap();
    let c = xt.clone_preserving();
    assert!(!c.shares_storage(&x));
    assert_eq!((c.strides(), c.is_contiguous()), (&[1isize, 3][..], false));
    assert_eq!(c.to_vec::<f32>(), xt.to_vec::<f32>());
    let e = Tensor::empty_preserving(&xt, DType::Int64);
    assert_eq!((e.dtype(), e.strides()), (DType::Int64, &[1isize, 3][..]));
    // Internal callers keep the contiguous copy.
    assert!(xt.deep_clone().is_contiguous());
    // Values of a fresh contiguous tensor keep their memory order under new strides.
    let r = arange_f32(6, &[3, 2]).with_dense_strides(&[1, 3]);
    assert_eq!(r.to_vec::<f32>(), vec![0., 3., 1., 4., 2., 5.]);
}
