//! PyTorch's default `memory_format=torch.preserve_format` for `clone` and the `*_like`
//! factories: the copy keeps the input's memory order, so `x.t().clone()` is still transposed
//! (`stride() == (1, 2)`) and code that checks `is_contiguous()` or calls `view` sees what it sees
//! in PyTorch.
//!
//! Only those user-facing ops use this; [`Tensor::deep_clone`] stays contiguous for the kernels
//! that rely on it.

use std::cmp::Ordering;

use smallvec::SmallVec;

use crate::layout::{Layout, Shaped, Strides};
use crate::{DType, Tensor, kernels};

/// Whether the elements fill a block of `numel` storage slots exactly once, in some dim order
/// (PyTorch's `is_non_overlapping_and_dense`). Dims of size 0 or 1 may have any stride.
pub fn is_non_overlapping_and_dense(shape: &[usize], strides: &[isize]) -> bool {
    let mut dims: SmallVec<[usize; 6]> = (0..shape.len()).filter(|&d| shape[d] > 1).collect();
    dims.sort_by_key(|&d| strides[d]);
    let mut want = 1isize;
    for d in dims {
        if strides[d] != want {
            return false;
        }
        want *= shape[d] as isize;
    }
    true
}

/// Dense strides that lay the dims out in the same memory order as `strides` do (outermost =
/// largest stride). Stride-0 (broadcast) dims cannot be ordered against the others and keep their
/// row-major place; equal strides put the larger dim outside. As ATen's `infer_dense_strides`,
/// which TensorIterator shares, so a permuted-and-sliced input keeps its permutation.
pub fn dense_strides_like(shape: &[usize], strides: &[isize]) -> Strides {
    let n = shape.len();
    // Innermost dim first; row-major order is the starting point and the tie-breaker.
    let mut order: SmallVec<[usize; 6]> = (0..n).rev().collect();
    let outside = |a: usize, b: usize| -> Ordering {
        let (sa, sb) = (strides[a], strides[b]);
        if sa == 0 || sb == 0 {
            return Ordering::Equal;
        }
        sa.cmp(&sb).then(if shape[a] > shape[b] {
            Ordering::Greater
        } else {
            Ordering::Equal
        })
    };
    // A stable insertion sort that steps over incomparable dims instead of stopping at them.
    for i in 1..n {
        let mut at = i;
        for k in (0..i).rev() {
            match outside(order[k], order[at]) {
                Ordering::Greater => {
                    order.swap(k, at);
                    at = k;
                }
                Ordering::Less => break,
                Ordering::Equal => {}
            }
        }
    }
    let mut out: Strides = SmallVec::from_elem(1, n);
    let mut step = 1isize;
    for d in order {
        out[d] = step;
        step *= shape[d].max(1) as isize;
    }
    out
}

/// The strides `preserve_format` gives a new tensor shaped like one with `strides`: the same
/// strides when they are dense, else dense strides in their memory order.
pub fn preserved_strides(shape: &[usize], strides: &[isize]) -> Strides {
    if is_non_overlapping_and_dense(shape, strides) {
        SmallVec::from_slice(strides)
    } else {
        dense_strides_like(shape, strides)
    }
}

impl Tensor {
    /// `torch.empty_like(x, dtype=dtype)`: contents unspecified, `preserve_format` strides.
    pub fn empty_preserving(x: &impl Shaped, dtype: DType) -> Tensor {
        Tensor::empty(x.shape(), dtype)
            .with_dense_strides(&preserved_strides(x.shape(), x.strides()))
    }

    /// `torch.clone(x)`: a copy with its own storage and `preserve_format` strides.
    pub fn clone_preserving(&self) -> Tensor {
        let out = Tensor::empty_preserving(self, self.dtype());
        kernels::copy::copy_cast(&out, self);
        out
    }

    /// A fresh contiguous tensor's storage under other dense `strides` (covering the same
    /// elements): its values keep their memory order, as when PyTorch fills an `empty_like`
    /// result (`rand_like`), and the logical order changes.
    ///
    /// # Panics
    /// If `self` is not contiguous from offset 0 or `strides` reach past its storage.
    pub fn with_dense_strides(self, strides: &[isize]) -> Tensor {
        if self.strides() == strides {
            return self;
        }
        assert!(
            self.offset() == 0 && self.is_contiguous(),
            "with_dense_strides needs a fresh contiguous tensor"
        );
        let layout = Layout {
            shape: SmallVec::from_slice(self.shape()),
            strides: SmallVec::from_slice(strides),
            offset: 0,
        };
        Tensor::from_storage(self.storage().clone(), self.dtype(), layout)
            .expect("invariant: dense strides cover exactly the contiguous tensor's elements")
    }
}
