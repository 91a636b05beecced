//! Memory-overlap checks of in-place writes, as ATen's `MemoryOverlap.cpp`.
//!
//! An in-place op whose destination shares memory with one of its inputs in a way that makes the
//! result depend on the order elements are written in is refused rather than given some order's
//! answer: PyTorch raises, so code that relies on an answer here would not run under PyTorch.
//! The checks are conservative in ATen's way: layouts too hard to decide (neither tensor
//! non-overlapping and dense) pass.
//!
//! Which op runs which check follows ATen (callers in `rynamo-graph`'s in-place rules):
//! TensorIterator ops (pointwise in-place forms, `copy_`, `normal_`/`uniform_`) refuse an expanded
//! destination ([`assert_no_internal_overlap`]) and a destination partially overlapping an input
//! ([`assert_no_partial_overlap`]); `index_put_` and `scatter_` refuse any overlap of the
//! destination with the values or indices ([`assert_no_overlap`]); `fill_`, `zero_`,
//! `masked_fill_` and `index_put_` accept an expanded destination.

use crate::error::{Error, Result};
use crate::layout::Shaped;
use crate::preserve::is_non_overlapping_and_dense;
use crate::tensor::Tensor;

/// Whether a tensor's own elements share memory (`at::MemOverlap`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemOverlap {
    /// Every element has its own memory location.
    No,
    /// Some location holds more than one element (a stride-0 dim of size > 1).
    Yes,
    /// Not decided (a layout that is neither dense nor expanded).
    TooHard,
}

/// How two tensors' memory relates (`at::MemOverlapStatus`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemOverlapStatus {
    /// The same elements at the same locations.
    Full,
    /// Some locations shared, element for element differently.
    Partial,
    /// No location shared.
    No,
    /// Not decided (a layout that is not non-overlapping and dense).
    TooHard,
}

/// `at::has_internal_overlap` (geometry only, so meta rules can ask too).
pub fn internal_overlap(t: &impl Shaped) -> MemOverlap {
    if is_non_overlapping_and_dense(t.shape(), t.strides()) {
        return MemOverlap::No;
    }
    if t.shape()
        .iter()
        .zip(t.strides())
        .any(|(&n, &s)| n > 1 && s == 0)
    {
        return MemOverlap::Yes;
    }
    MemOverlap::TooHard
}

/// `at::get_overlap_status`: compares the byte ranges of two non-overlapping dense tensors in one
/// storage (equal ranges with equal strides are the same elements).
pub fn overlap_status(a: &Tensor, b: &Tensor) -> MemOverlapStatus {
    if same_layout(a, b) {
        return MemOverlapStatus::Full;
    }
    if a.numel() == 0 || b.numel() == 0 {
        return MemOverlapStatus::No;
    }
    if !is_non_overlapping_and_dense(a.shape(), a.strides())
        || !is_non_overlapping_and_dense(b.shape(), b.strides())
    {
        return MemOverlapStatus::TooHard;
    }
    if !a.shares_storage(b) {
        return MemOverlapStatus::No;
    }
    let range = |t: &Tensor| {
        let begin = t.offset() * t.dtype().itemsize();
        (begin, begin + t.numel() * t.dtype().itemsize())
    };
    let ((a0, a1), (b0, b1)) = (range(a), range(b));
    if (a0, a1) == (b0, b1) {
        return if a.strides() == b.strides() {
            MemOverlapStatus::Full
        } else {
            MemOverlapStatus::Partial
        };
    }
    if a0 < b1 && b0 < a1 {
        return MemOverlapStatus::Partial;
    }
    MemOverlapStatus::No
}

/// The same view of the same storage (ATen's `a == b` on tensor impls, which also exits
/// `copy_` early): writing it onto itself is a no-op.
pub fn same_layout(a: &Tensor, b: &Tensor) -> bool {
    a.shares_storage(b)
        && a.offset() == b.offset()
        && a.dtype() == b.dtype()
        && a.shape() == b.shape()
        && a.strides() == b.strides()
}

/// The checks of `dst.copy_(src)` (and of a basic-indexing `x[...] = src`): nothing to do when
/// both are the same view, else an expanded destination or a partial overlap is refused.
pub fn check_copy(dst: &Tensor, src: &Tensor) -> Result<()> {
    if same_layout(dst, src) {
        return Ok(());
    }
    assert_no_internal_overlap(dst)?;
    assert_no_partial_overlap(dst, src)
}

/// Refuses a destination whose elements share memory (an `expand`ed tensor).
pub fn assert_no_internal_overlap(t: &impl Shaped) -> Result<()> {
    if internal_overlap(t) == MemOverlap::Yes {
        return Err(Error::Runtime(
            "unsupported operation: more than one element of the written-to tensor refers to a \
             single memory location. Please clone() the tensor before performing the operation."
                .into(),
        ));
    }
    Ok(())
}

/// Refuses an input that partially overlaps the destination `out`.
pub fn assert_no_partial_overlap(out: &Tensor, input: &Tensor) -> Result<()> {
    if overlap_status(out, input) == MemOverlapStatus::Partial {
        return Err(shared_location_error());
    }
    Ok(())
}

/// Refuses an input that overlaps the destination `out` at all.
pub fn assert_no_overlap(out: &Tensor, input: &Tensor) -> Result<()> {
    if matches!(
        overlap_status(out, input),
        MemOverlapStatus::Partial | MemOverlapStatus::Full
    ) {
        return Err(shared_location_error());
    }
    Ok(())
}

fn shared_location_error() -> Error {
    Error::Runtime(
        "unsupported operation: some elements of the input tensor and the written-to tensor refer \
         to a single memory location. Please clone() the tensor before performing the operation."
            .into(),
    )
}

/// Whether an input at one of the `written` positions shares memory with another input or with
/// itself (an expanded tensor): a graph whose in-place updates of those inputs were made
/// functional (written back at its end) assumes it does not, so backends run the original graph
/// for such calls.
pub fn written_inputs_alias(written: &[usize], inputs: &[Tensor]) -> bool {
    written.iter().any(|&w| {
        let Some(t) = inputs.get(w) else {
            return true;
        };
        internal_overlap(t) != MemOverlap::No
            || inputs
                .iter()
                .enumerate()
                .any(|(i, u)| i != w && t.shares_storage(u))
    })
}
