//! ATen's overlap classification (`MemoryOverlap.cpp`), case by case.

use super::arange_f32;
use crate::memory_overlap::{
    MemOverlap, MemOverlapStatus, assert_no_internal_overlap, assert_no_overlap,
    assert_no_partial_overlap, check_copy, internal_overlap, overlap_status,
};

#[test]
fn internal_overlap_of_layouts() {
    let a = arange_f32(6, &[2, 3]);
    assert_eq!(internal_overlap(&a), MemOverlap::No);
    // A permutation is still non-overlapping and dense.
    assert_eq!(internal_overlap(&a.t().unwrap()), MemOverlap::No);
    let e = arange_f32(3, &[3]).expand(&[2, 3]).unwrap();
    assert_eq!(internal_overlap(&e), MemOverlap::Yes);
    assert!(assert_no_internal_overlap(&e).is_err());
    // Expanding a size-1 dim to size 1 shares nothing.
    let one = arange_f32(3, &[1, 3]).expand(&[1, 3]).unwrap();
    assert_eq!(internal_overlap(&one), MemOverlap::No);
    // A column of a matrix: strided, not decided.
    let col = a.narrow(1, 0, 1).unwrap().reshape(&[2]).unwrap();
    assert_eq!(internal_overlap(&col), MemOverlap::TooHard);
}

#[test]
fn overlap_status_of_views() {
    let a = arange_f32(5, &[5]);
    let head = a.narrow(0, 0, 4).unwrap();
    let tail = a.narrow(0, 1, 4).unwrap();
    assert_eq!(overlap_status(&a, &a.clone()), MemOverlapStatus::Full);
    assert_eq!(overlap_status(&tail, &head), MemOverlapStatus::Partial);
    assert_eq!(
        overlap_status(&a.narrow(0, 0, 2).unwrap(), &a.narrow(0, 2, 3).unwrap()),
        MemOverlapStatus::No
    );
    // Same bytes, other element order: partial.
    let m = arange_f32(9, &[3, 3]);
    assert_eq!(
        overlap_status(&m, &m.t().unwrap()),
        MemOverlapStatus::Partial
    );
    // Another storage with the same values never overlaps.
    assert_eq!(overlap_status(&a, &a.deep_clone()), MemOverlapStatus::No);
    // Empty tensors share nothing.
    assert_eq!(
        overlap_status(&a.narrow(0, 1, 0).unwrap(), &a),
        MemOverlapStatus::No
    );
    // A strided view is too hard to decide.
    let rows = arange_f32(6, &[3, 2]);
    let col0 = rows.narrow(1, 0, 1).unwrap();
    let col1 = rows.narrow(1, 1, 1).unwrap();
    assert_eq!(overlap_status(&col1, &col0), MemOverlapStatus::TooHard);
}

#[test]
fn asserts_follow_the_status() {
    let a = arange_f32(5, &[5]);
    let (head, tail) = (a.narrow(0, 0, 4).unwrap(), a.narrow(0, 1, 4).unwrap());
    let msg = assert_no_partial_overlap(&tail, &head)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("some elements of the input tensor and the written-to tensor"));
    // Full overlap is what `x.add_(x)` is: TensorIterator allows it, index_put_ does not.
    assert!(assert_no_partial_overlap(&a, &a.clone()).is_ok());
    assert!(assert_no_overlap(&a, &a.clone()).is_err());
    assert!(assert_no_overlap(&a.narrow(0, 0, 2).unwrap(), &a.narrow(0, 2, 2).unwrap()).is_ok());
    // copy_ onto the same view is a no-op even when expanded; elsewhere the checks apply.
    let e = arange_f32(3, &[3]).expand(&[2, 3]).unwrap();
    assert!(check_copy(&e, &e.clone()).is_ok());
    assert!(check_copy(&e, &arange_f32(6, &[2, 3])).is_err());
    assert!(check_copy(&tail, &head).is_err());
}
