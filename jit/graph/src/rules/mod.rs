//! Meta rules and eager kernels, one module per op family. Each module exposes
//! `meta<T: Shaped>(op, args)` (generic, so it runs on metas while tracing and on real tensors for
//! the eager consistency check) and `eager(op, args)`; both match on the op. The shape and dtype
//! logic itself lives in `rynamo_tensor` (`*_meta` functions), shared by both.

pub(crate) mod backward;
pub(crate) mod binary;
pub(crate) mod complex;
pub(crate) mod conv;
pub(crate) mod creation;
pub(crate) mod fft;
pub(crate) mod host;
pub(crate) mod indexing;
pub(crate) mod inplace;
pub(crate) mod inplace_forms;
pub(crate) mod linalg;
pub(crate) mod loss;
pub(crate) mod models;
pub(crate) mod nn;
pub(crate) mod optim;
pub(crate) mod order;
pub(crate) mod random;
pub(crate) mod rearrange;
pub(crate) mod reduce;
pub(crate) mod shape;
pub(crate) mod special;
pub(crate) mod ternary;
pub(crate) mod unary;
pub(crate) mod upsample;
pub(crate) mod views;

use rynamo_tensor::{DType, Shaped, TensorMeta, TensorOrScalar};

/// The meta of a tensor-like value (strides kept: in-place ops return their input).
pub(crate) fn meta_of<T: Shaped>(t: &T) -> TensorMeta {
    TensorMeta {
        dtype: t.dtype(),
        shape: t.shape().to_vec(),
        strides: t.strides().to_vec(),
    }
}

/// The meta of `clone(x)` / `*_like(x)`: `x`'s shape, `preserve_format` strides.
pub(crate) fn preserving<T: Shaped>(x: &T, dtype: DType) -> TensorMeta {
    TensorMeta {
        dtype,
        shape: x.shape().to_vec(),
        strides: rynamo_tensor::preserve::preserved_strides(x.shape(), x.strides()).to_vec(),
    }
}

/// A binary operand as the kernels take it: a tensor (`Tensor` parameters) or a tensor or a
/// wrapped number (`Tensor|Scalar` parameters).
pub(crate) trait IntoOperand<'a, T> {
    /// The operand.
    fn into_operand(self) -> TensorOrScalar<&'a T>;
}

impl<'a, T> IntoOperand<'a, T> for &'a T {
    fn into_operand(self) -> TensorOrScalar<&'a T> {
        TensorOrScalar::Tensor(self)
    }
}

impl<'a, T> IntoOperand<'a, T> for TensorOrScalar<&'a T> {
    fn into_operand(self) -> TensorOrScalar<&'a T> {
        self
    }
}
