//! Linear-mode upsampling: `upsample_linear1d`, `upsample_bilinear2d` and `upsample_trilinear3d`
//! (`F.interpolate(mode="linear"/"bilinear"/"trilinear")` without antialiasing,
//! `stdlib-shims/python/torch/nn/_interpolate.py`) and their backward ops, with ATen's names and
//! schemas (`SymInt[N]` is `int[N]` here). Kernels in `rynamo_tensor::ops::upsample{,_backward,3d}`.
//! The backward is linear in its gradient, so its own gradient is the forward op (double
//! backward).

use rynamo_tensor::ops::upsample as up;
use rynamo_tensor::ops::upsample_backward as upb;
use rynamo_tensor::ops::upsample3d as up3;

use crate::Value;
use crate::autograd::vjp::upsample as vjp_up;
use crate::def::op;
use crate::samples::{f32s, fx, pos_args, t};

op! {
    upsample_bilinear2d = "upsample_bilinear2d(Tensor self, int[2] output_size, bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor",
        Extern, [NN_FUNCTIONAL];
    meta(_, a) { Ok(vec![up::upsample_bilinear2d_meta(a.self_, a.output_size)?]) }
    eager(_, a) {
        Ok(vec![up::upsample_bilinear2d(
            a.self_,
            a.output_size,
            a.align_corners,
            [a.scales_h, a.scales_w],
        )?])
    }
    with .vjp(&vjp_up::BILINEAR2D).sample(|| {
        pos_args(vec![t(fx::img()), Value::IntList(vec![7, 10]), Value::Bool(false)])
    })
}

op! {
    upsample_bilinear2d_backward = "upsample_bilinear2d_backward(Tensor grad_output, int[2] output_size, int[4] input_size, bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor",
        Extern, [];
    meta(_, a) {
        Ok(vec![upb::upsample_bilinear2d_backward_meta(a.grad_output, a.output_size, a.input_size)?])
    }
    eager(_, a) {
        Ok(vec![upb::upsample_bilinear2d_backward(
            a.grad_output,
            a.output_size,
            a.input_size,
            a.align_corners,
            [a.scales_h, a.scales_w],
        )?])
    }
    with .vjp(&vjp_up::BILINEAR2D_B).sample(|| {
        // The gradient of the forward's sample, with align_corners and a given scale.
        pos_args(vec![
            t(f32s(&[2, 4, 10, 10])),
            Value::IntList(vec![10, 10]),
            Value::IntList(vec![2, 4, 5, 5]),
            Value::Bool(true),
            Value::Float(2.0),
            Value::Float(2.0),
        ])
    })
}

op! {
    upsample_linear1d = "upsample_linear1d(Tensor self, int[1] output_size, bool align_corners, float? scales=None) -> Tensor",
        Extern, [NN_FUNCTIONAL];
    meta(_, a) { Ok(vec![up::upsample_linear1d_meta(a.self_, a.output_size)?]) }
    eager(_, a) {
        Ok(vec![up::upsample_linear1d(a.self_, a.output_size, a.align_corners, a.scales)?])
    }
    with .vjp(&vjp_up::LINEAR1D).sample(|| {
        pos_args(vec![t(f32s(&[2, 3, 5])), Value::IntList(vec![8]), Value::Bool(false)])
    })
}

op! {
    upsample_linear1d_backward = "upsample_linear1d_backward(Tensor grad_output, int[1] output_size, int[3] input_size, bool align_corners, float? scales=None) -> Tensor",
        Extern, [];
    meta(_, a) {
        Ok(vec![upb::upsample_linear1d_backward_meta(a.grad_output, a.output_size, a.input_size)?])
    }
    eager(_, a) {
        Ok(vec![upb::upsample_linear1d_backward(
            a.grad_output,
            a.output_size,
            a.input_size,
            a.align_corners,
            a.scales,
        )?])
    }
    with .vjp(&vjp_up::LINEAR1D_B).sample(|| {
        pos_args(vec![
            t(f32s(&[2, 3, 10])),
            Value::IntList(vec![10]),
            Value::IntList(vec![2, 3, 5]),
            Value::Bool(true),
            Value::Float(2.0),
        ])
    })
}

op! {
    upsample_trilinear3d = "upsample_trilinear3d(Tensor self, int[3] output_size, bool align_corners, float? scales_d=None, float? scales_h=None, float? scales_w=None) -> Tensor",
        Extern, [NN_FUNCTIONAL];
    meta(_, a) { Ok(vec![up3::upsample_trilinear3d_meta(a.self_, a.output_size)?]) }
    eager(_, a) {
        Ok(vec![up3::upsample_trilinear3d(
            a.self_,
            a.output_size,
            a.align_corners,
            [a.scales_d, a.scales_h, a.scales_w],
        )?])
    }
    with .vjp(&vjp_up::TRILINEAR3D).sample(|| {
        pos_args(vec![t(f32s(&[1, 2, 2, 3, 4])), Value::IntList(vec![3, 5, 6]), Value::Bool(false)])
    })
}

op! {
    upsample_trilinear3d_backward = "upsample_trilinear3d_backward(Tensor grad_output, int[3] output_size, int[5] input_size, bool align_corners, float? scales_d=None, float? scales_h=None, float? scales_w=None) -> Tensor",
        Extern, [];
    meta(_, a) {
        Ok(vec![up3::upsample_trilinear3d_backward_meta(a.grad_output, a.output_size, a.input_size)?])
    }
    eager(_, a) {
        Ok(vec![up3::upsample_trilinear3d_backward(
            a.grad_output,
            a.output_size,
            a.input_size,
            a.align_corners,
            [a.scales_d, a.scales_h, a.scales_w],
        )?])
    }
    with .vjp(&vjp_up::TRILINEAR3D_B).sample(|| {
        pos_args(vec![
            t(f32s(&[1, 2, 4, 6, 8])),
            Value::IntList(vec![4, 6, 8]),
            Value::IntList(vec![1, 2, 2, 3, 4]),
            Value::Bool(true),
            Value::Float(2.0),
            Value::Float(2.0),
            Value::Float(2.0),
        ])
    })
}
