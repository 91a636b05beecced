//! Unit tests of the tensor runtime. References are computed independently (naive f64 loops,
//! hand-checked PyTorch outputs) rather than through the kernels under test.

mod backward_kernels;
mod conv_int;
mod erf_kernel;
mod errors;
mod gemm_layouts;
mod im2col;
mod index;
mod index_select;
mod kernels;
mod linalg;
mod memory_format;
mod memory_overlap;
mod pool_where;
mod preserve;
mod promotion;
mod prop;
mod random;
mod scan;
mod view_dtype;
mod views;

use crate::{Scalar, Tensor, TensorOrScalar};

fn t(v: &[f32], shape: &[usize]) -> Tensor {
    Tensor::from_vec(v.to_vec(), shape).unwrap()
}

fn ti(v: &[i64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(v.to_vec(), shape).unwrap()
}

fn arange_f32(n: usize, shape: &[usize]) -> Tensor {
    t(&(0..n).map(|i| i as f32).collect::<Vec<_>>(), shape)
}

fn ts(x: &Tensor) -> TensorOrScalar<&Tensor> {
    TensorOrScalar::Tensor(x)
}

fn sc(v: impl Into<Scalar>) -> TensorOrScalar<&'static Tensor> {
    TensorOrScalar::Scalar(v.into())
}

#[track_caller]
fn assert_close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || (g - w).abs() <= tol * (1.0 + w.abs());
        assert!(ok, "element {i}: got {g}, want {w}");
    }
}
