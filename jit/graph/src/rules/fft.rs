//! The discrete Fourier transform primitives behind `torch.fft` (issue 29), ATen's own three:
//! `_fft_c2c`, `_fft_r2c`, `_fft_c2r`. `torch.fft.fft`, `rfft2`, `irfftn`, ... are Python over
//! them (`stdlib-shims/python/torch/fft/__init__.py`), as ATen's composites are: the argument
//! resolution (`n`, `s`, `dim`, `norm`), padding and trimming are ordinary traced ops, and the
//! three primitives carry PyTorch's backward formulas (`FftC2CBackward0`, `FftR2CBackward0`,
//! `FftC2RBackward0`), so every public function is differentiable through them. Three ops rather
//! than fourteen keep one kernel and one formula per kind of transform. Kernels:
//! `rynamo_tensor::ops::fft`; formulas: `autograd::vjp::fft`.

use rynamo_tensor::Tensor;
use rynamo_tensor::ops::complex as cx;
use rynamo_tensor::ops::fft::{self as k, FftNorm};

use crate::Value;
use crate::autograd::vjp::fft as vjp;
use crate::def::{Sample, op};
use crate::samples::{f32s, pos_args, t};

/// A complex64 [2, 3] sample (components from the ramp fixture).
fn cx23() -> Tensor {
    cx::view_as_complex(&f32s(&[2, 3, 2])).expect("invariant: a contiguous [.., 2] float tensor")
}

fn c2c_sample() -> Sample {
    pos_args(vec![
        t(cx23()),
        Value::IntList(vec![1]),
        Value::Int(0),
        Value::Bool(true),
    ])
}

fn r2c_sample() -> Sample {
    pos_args(vec![
        t(f32s(&[2, 4])),
        Value::IntList(vec![1]),
        Value::Int(2),
        Value::Bool(true),
    ])
}

/// A one-sided [2, 3] spectrum for an output of 4 along dim 1.
fn c2r_sample() -> Sample {
    pos_args(vec![
        t(cx23()),
        Value::IntList(vec![1]),
        Value::Int(1),
        Value::Int(4),
    ])
}

op! {
    fft_c2c = "_fft_c2c(Tensor self, int[] dim, int normalization, bool forward) -> Tensor",
        Extern, [FUNCTION];
    meta(_, a) { Ok(vec![k::c2c_meta(a.self_, a.dim)?]) }
    eager(_, a) { Ok(vec![k::fft_c2c(a.self_, a.dim, FftNorm::from_code(a.normalization)?, a.forward)?]) }
    with .complex_grad().vjp(&vjp::C2C).sample(c2c_sample)
}

op! {
    fft_r2c = "_fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor",
        Extern, [FUNCTION];
    meta(_, a) { Ok(vec![k::r2c_meta(a.self_, a.dim, a.onesided)?]) }
    eager(_, a) { Ok(vec![k::fft_r2c(a.self_, a.dim, FftNorm::from_code(a.normalization)?, a.onesided)?]) }
    with .complex_grad().vjp(&vjp::R2C).sample(r2c_sample)
}

op! {
    fft_c2r = "_fft_c2r(Tensor self, int[] dim, int normalization, int last_dim_size) -> Tensor",
        Extern, [FUNCTION];
    meta(_, a) { Ok(vec![k::c2r_meta(a.self_, a.dim, a.last_dim_size)?]) }
    eager(_, a) { Ok(vec![k::fft_c2r(a.self_, a.dim, FftNorm::from_code(a.normalization)?, a.last_dim_size)?]) }
    with .complex_grad().vjp(&vjp::C2R).sample(c2r_sample)
}
