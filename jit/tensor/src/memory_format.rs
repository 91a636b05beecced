//! Which strides a new result gets: PyTorch's memory-format propagation.
//!
//! Pointwise results follow TensorIterator's output-stride rule (`compute_fast_setup_type`, then
//! `reorder_dimensions` + `compatible_stride`): a channels-last input gives a channels-last
//! result, a permuted input a result permuted alike, and the first operand that orders two dims
//! decides. Ops that pick a layout from one tensor (convolution, batch norm, pooling, upsampling)
//! use [`suggest_memory_format`]. The meta rules and the eager kernels call the same functions,
//! so eager and compiled results have the same strides.
//!
//! The common case stays one check per operand: operands with row-major strides give a row-major
//! result ([`output_strides`]).

use smallvec::SmallVec;

use crate::layout::{Strides, contiguous_strides, is_contiguous};
use crate::preserve::is_non_overlapping_and_dense;

/// A dense stride order (`torch.memory_format` without `preserve_format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryFormat {
    /// Row-major (`torch.contiguous_format`).
    Contiguous,
    /// `N, H, W, C` innermost last for 4-D tensors (`torch.channels_last`).
    ChannelsLast,
    /// `N, D, H, W, C` for 5-D tensors (`torch.channels_last_3d`).
    ChannelsLast3d,
}

impl MemoryFormat {
    /// Dense strides of this format for `shape` (ATen's `get_channels_last_strides_2d/3d`; like
    /// them, a zero size zeroes the strides outside it). Channels-last formats need their rank.
    pub fn strides(self, shape: &[usize]) -> Strides {
        let order: &[usize] = match (self, shape.len()) {
            (MemoryFormat::ChannelsLast, 4) => &[1, 3, 2, 0],
            (MemoryFormat::ChannelsLast3d, 5) => &[1, 4, 3, 2, 0],
            _ => return contiguous_strides(shape),
        };
        let mut out: Strides = SmallVec::from_elem(1, shape.len());
        let mut step = 1isize;
        for &d in order {
            out[d] = step;
            step *= shape[d] as isize;
        }
        out
    }

    /// ATen's `is_contiguous(memory_format)`: dense in this format's order, size-1 dims ignored;
    /// false for a channels-last format at another rank.
    pub fn is_contiguous(self, shape: &[usize], strides: &[isize]) -> bool {
        let order: &[usize] = match (self, shape.len()) {
            (MemoryFormat::Contiguous, _) => return is_contiguous(shape, strides),
            (MemoryFormat::ChannelsLast, 4) => &[1, 3, 2, 0],
            (MemoryFormat::ChannelsLast3d, 5) => &[1, 4, 3, 2, 0],
            _ => return false,
        };
        if shape.contains(&0) {
            return true;
        }
        let mut expected = 1isize;
        for &d in order {
            if shape[d] != 1 {
                if strides[d] != expected {
                    return false;
                }
                expected *= shape[d] as isize;
            }
        }
        true
    }
}

/// ATen's `is_channels_last_strides_2d_s4` / `_3d_s5`: whether strides are ordered like
/// channels-last along `order` (channels first, batch last), with its rules for ambiguous
/// size-1 dims (`N111` and `N11W` stay row-major).
fn strides_like(shape: &[usize], strides: &[isize], order: &[usize]) -> bool {
    if strides[1] == 0 {
        return false;
    }
    let mut min = 0isize;
    for &d in order {
        if shape[d] == 0 || strides[d] < min {
            return false;
        }
        if d == 0 && min == strides[1] {
            return false;
        }
        min = strides[d];
        if shape[d] > 1 {
            min *= shape[d] as isize;
        }
    }
    true
}

/// `Tensor::suggest_memory_format()`: the format whose stride order the tensor has.
pub fn suggest_memory_format(shape: &[usize], strides: &[isize]) -> MemoryFormat {
    match shape.len() {
        4 if strides_like(shape, strides, &[1, 3, 2, 0]) => MemoryFormat::ChannelsLast,
        5 if strides_like(shape, strides, &[1, 4, 3, 2, 0]) => MemoryFormat::ChannelsLast3d,
        _ => MemoryFormat::Contiguous,
    }
}

/// Whether `strides` are exactly the row-major strides of `shape` (what `Tensor::empty` makes).
fn has_row_major_strides(shape: &[usize], strides: &[isize]) -> bool {
    let mut expected = 1isize;
    for i in (0..shape.len()).rev() {
        if strides[i] != expected {
            return false;
        }
        expected = expected.saturating_mul(shape[i].max(1) as isize);
    }
    true
}

/// One input of a pointwise op: its shape and strides (`(&[], &[])` for a Python number, which
/// ATen wraps as a 0-dim tensor).
pub type Operand<'a> = (&'a [usize], &'a [isize]);

/// Strides of a fresh pointwise result of `shape` computed from `inputs` in ATen's operand order.
///
/// Fast path: inputs with row-major strides give row-major strides (they order every pair of dims
/// outer-before-inner or not at all, so `reorder_dimensions` keeps the row-major order).
pub fn output_strides(shape: &[usize], inputs: &[Operand<'_>]) -> Strides {
    if inputs.iter().all(|(s, st)| has_row_major_strides(s, st)) {
        return contiguous_strides(shape);
    }
    if let Some(strides) = fast_setup_strides(shape, inputs) {
        return strides;
    }
    reordered_strides(shape, inputs)
}

/// `compute_fast_setup_type` + `fast_set_up`: when every input has the result's shape, a result
/// row-major if all are, channels-last if all are (4-D only, as ATen checks), else the inputs'
/// own strides if they are all the same and dense.
fn fast_setup_strides(shape: &[usize], inputs: &[Operand<'_>]) -> Option<Strides> {
    if inputs.iter().any(|(s, _)| *s != shape) {
        return None;
    }
    if inputs.iter().all(|(s, st)| is_contiguous(s, st)) {
        return Some(contiguous_strides(shape));
    }
    if inputs
        .iter()
        .all(|(s, st)| MemoryFormat::ChannelsLast.is_contiguous(s, st))
    {
        return Some(MemoryFormat::ChannelsLast.strides(shape));
    }
    let (_, last) = *inputs.last()?;
    if inputs
        .iter()
        .all(|(s, st)| is_non_overlapping_and_dense(s, st) && *st == last)
    {
        return Some(SmallVec::from_slice(last));
    }
    None
}

/// `compute_strides` + `reorder_dimensions` + `compatible_stride`: the dims sorted innermost
/// first by the inputs' strides (broadcast dims, stride 0, do not vote; the first input that
/// orders a pair decides; equal strides put the smaller dim inside), then dense strides in that
/// order. A plain reversal is row-major.
fn reordered_strides(shape: &[usize], inputs: &[Operand<'_>]) -> Strides {
    let n = shape.len();
    // Each input's strides broadcast to `shape`: 0 where it is expanded (size 1 under a larger
    // size, or a missing leading dim); a size-1 dim of the result keeps the input's stride.
    let strided: SmallVec<[Strides; 3]> = inputs
        .iter()
        .map(|(s, st)| {
            let off = n - s.len();
            let mut out: Strides = SmallVec::from_elem(0, n);
            for i in 0..s.len() {
                out[off + i] = if s[i] == 1 && shape[off + i] != 1 {
                    0
                } else {
                    st[i]
                };
            }
            out
        })
        .collect();
    let perm = sort_dims(shape, strided.iter().map(|s| &s[..]));
    if perm.iter().enumerate().all(|(j, &d)| d == n - 1 - j) {
        return contiguous_strides(shape);
    }
    let mut out: Strides = SmallVec::from_elem(1, n);
    let mut step = 1isize;
    for &d in &perm {
        out[d] = step;
        step *= shape[d] as isize;
    }
    out
}

/// ATen's `reorder_dimensions`: the dims from innermost to outermost, sorted by the operands'
/// strides (broadcast dims, stride 0, do not vote; the first operand that orders a pair decides;
/// equal strides put the smaller dim inside). An insertion sort from row-major order that steps
/// over pairs no operand orders, so it keeps row-major order wherever the strides allow it.
fn sort_dims<'a>(
    shape: &[usize],
    operands: impl Iterator<Item = &'a [isize]> + Clone,
) -> SmallVec<[usize; 6]> {
    let n = shape.len();
    // 1: `d0` goes outside `d1`; -1: inside; 0: no operand decides.
    let should_swap = |d0: usize, d1: usize| -> i32 {
        for st in operands.clone() {
            let (s0, s1) = (st[d0], st[d1]);
            if s0 == 0 || s1 == 0 {
                continue;
            }
            if s0 < s1 {
                return -1;
            }
            if s0 > s1 {
                return 1;
            }
            if shape[d0] > shape[d1] {
                return 1;
            }
        }
        0
    };
    let mut perm: SmallVec<[usize; 6]> = (0..n).rev().collect();
    for i in 1..n {
        let mut d1 = i;
        for d0 in (0..i).rev() {
            match should_swap(perm[d0], perm[d1]) {
                c if c > 0 => {
                    perm.swap(d0, d1);
                    d1 = d0;
                }
                c if c < 0 => break,
                _ => {}
            }
        }
    }
    perm
}

/// The order, outermost first, in which a kernel should walk the dims so that it touches memory
/// in order (the output, given first, decides before the inputs); `None` when that is row-major.
/// A permuted-dense operand then costs what a contiguous one does.
pub fn memory_order<const N: usize>(
    shape: &[usize],
    strides: [&[isize]; N],
) -> Option<SmallVec<[usize; 6]>> {
    // One check for the common case: a row-major first operand orders every pair of dims of
    // size > 1 itself, so the sort could only move size-1 dims, which the walk skips.
    if N == 0 || is_contiguous(shape, strides[0]) {
        return None;
    }
    let mut perm = sort_dims(shape, strides.iter().copied());
    let n = shape.len();
    if perm.iter().enumerate().all(|(j, &d)| d == n - 1 - j) {
        return None;
    }
    perm.reverse();
    Some(perm)
}

/// The operand a [`TensorOrScalar`](crate::TensorOrScalar) is to [`output_strides`].
pub fn operand_of<'a, S: crate::Shaped>(x: &crate::TensorOrScalar<&'a S>) -> Operand<'a> {
    match x {
        crate::TensorOrScalar::Tensor(t) => (t.shape(), t.strides()),
        crate::TensorOrScalar::Scalar(_) => (&[], &[]),
    }
}

/// ATen's `obeys_layout_contract(grad, variable)`: whether a gradient may become `.grad` of a
/// leaf as it is. A dense leaf wants its own strides on every dim of size > 1 (and no stride-0
/// size-1 dim); any other leaf a row-major gradient.
pub fn obeys_layout_contract(grad: Operand<'_>, leaf: Operand<'_>) -> bool {
    let ((shape, gs), (_, ls)) = (grad, leaf);
    if !is_non_overlapping_and_dense(leaf.0, ls) {
        return is_contiguous(shape, gs);
    }
    (0..shape.len()).all(|d| {
        if shape[d] != 1 {
            gs[d] == ls[d]
        } else {
            gs[d] != 0
        }
    })
}

/// [`suggest_memory_format`] of a tensor or meta.
pub fn suggested(x: &impl crate::Shaped) -> MemoryFormat {
    suggest_memory_format(x.shape(), x.strides())
}

/// The layout ATen's CPU convolution gives its output (`thnn_conv_use_channels_last` and
/// mkldnn's `mkldnn_conv_use_channels_last`): channels-last when the input or the weight
/// suggests it.
pub fn conv_output_format(x: &impl crate::Shaped, w: &impl crate::Shaped) -> MemoryFormat {
    let (fx, fw) = (suggested(x), suggested(w));
    match (x.ndim(), w.ndim()) {
        (4, 4) if fx == MemoryFormat::ChannelsLast || fw == MemoryFormat::ChannelsLast => {
            MemoryFormat::ChannelsLast
        }
        (5, 5) if fx == MemoryFormat::ChannelsLast3d || fw == MemoryFormat::ChannelsLast3d => {
            MemoryFormat::ChannelsLast3d
        }
        _ => MemoryFormat::Contiguous,
    }
}

impl crate::TensorMeta {
    /// This meta with `format`'s dense strides.
    pub fn in_format(mut self, format: MemoryFormat) -> Self {
        self.strides = format.strides(&self.shape).to_vec();
        self
    }

    /// A pointwise result: `dtype`, `shape`, strides from `inputs` ([`output_strides`]).
    pub fn pointwise(dtype: crate::DType, shape: &[usize], inputs: &[Operand<'_>]) -> Self {
        crate::TensorMeta {
            dtype,
            shape: shape.to_vec(),
            strides: output_strides(shape, inputs).to_vec(),
        }
    }
}

impl crate::Tensor {
    /// A fresh tensor with `meta`'s dtype, shape and (dense) strides, contents unspecified.
    pub fn empty_meta(meta: &crate::TensorMeta) -> crate::Tensor {
        crate::Tensor::empty(&meta.shape, meta.dtype).with_dense_strides(&meta.strides)
    }

    /// A fresh tensor of `shape` and `dtype` laid out like a pointwise result of `inputs`.
    pub fn empty_pointwise(
        shape: &[usize],
        dtype: crate::DType,
        inputs: &[Operand<'_>],
    ) -> crate::Tensor {
        crate::Tensor::empty(shape, dtype).with_dense_strides(&output_strides(shape, inputs))
    }

    /// ATen's `clone_obey_contract`: a copy of gradient `self` laid out as a dense `leaf`, or
    /// row-major for any other leaf.
    pub fn clone_obeying(&self, leaf: &crate::TensorMeta) -> crate::Tensor {
        if !is_non_overlapping_and_dense(&leaf.shape, &leaf.strides) {
            return self.deep_clone();
        }
        let out =
            crate::Tensor::empty(self.shape(), self.dtype()).with_dense_strides(&leaf.strides);
        crate::kernels::copy::copy_cast(&out, self);
        out
    }

    /// `self` with `meta`'s strides: itself when it has them, else a copy. For kernels that build
    /// their result row-major (the complex ones) behind a meta rule that follows the inputs.
    pub fn laid_out_as(self, meta: &crate::TensorMeta) -> crate::Tensor {
        if self.strides() == meta.strides.as_slice() {
            return self;
        }
        let out =
            crate::Tensor::empty(self.shape(), self.dtype()).with_dense_strides(&meta.strides);
        crate::kernels::copy::copy_cast(&out, &self);
        out
    }
}
