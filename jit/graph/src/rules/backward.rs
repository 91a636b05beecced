//! The backward ops autograd's formulas call where a composition of other ops would be much
//! slower (PyTorch's `convolution_backward`, `max_pool2d_with_indices_backward`,
//! `avg_pool2d_backward`, `adaptive_avg_pool2d_backward`, `native_layer_norm_backward`,
//! `native_batch_norm_backward`). Kernels in `rynamo_tensor::ops::{conv,pool,norm}_backward`.
//! The conv and pool ones have formulas of their own (double backward); the norm ones are
//! first-order only: under `create_graph` the norm formulas run as op compositions instead.
//! Samples: the gradients of the forward ops' samples.

use rynamo_tensor::Tensor;
use rynamo_tensor::ops::conv_backward::{self as cb, ConvBackwardArgs};
use rynamo_tensor::ops::norm_backward as nb;
use rynamo_tensor::ops::pool::max_pool2d;
use rynamo_tensor::ops::pool_backward::{self as pb, AvgPoolArgs};

use crate::Value;
use crate::autograd::vjp::conv as vjp_conv;
use crate::def::{Sample, op};
use crate::samples::{f32s, fx, pos_args, t};

fn ints(v: &[i64]) -> Value<Tensor> {
    Value::IntList(v.to_vec())
}

/// The input size of the forward samples' image.
fn img_size() -> Value<Tensor> {
    ints(&[2, 4, 5, 5])
}

/// A tensor shaped `shape` with other values than `f32s(shape)` (a gradient beside its input).
fn other(shape: &[usize]) -> Tensor {
    let mut wide = shape.to_vec();
    wide.push(1);
    let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    f32s(&wide)
        .reshape(&dims)
        .expect("invariant: sample tensors have valid shapes")
}

/// One convolution backward op: `$grad` names its tensor operand besides the output gradient
/// and `$size` the size argument; `$meta`/`$kernel` are its rynamo_tensor functions.
macro_rules! conv_backward {
    ($name:ident = $schema:literal, $other:ident, $size:ident, $meta:path, $kernel:path,
        $vjp:expr, $sample:expr) => {
        op! {
            $name = $schema, Extern, [];
            items {
                fn args<'a, T>(a: &Args<'a, T>) -> ConvBackwardArgs<'a> {
                    ConvBackwardArgs {
                        stride: a.stride,
                        padding: a.padding,
                        dilation: a.dilation,
                        groups: a.groups,
                    }
                }
            }
            meta(_, a) { Ok(vec![$meta(a.grad_output, a.$other, a.$size, &args(&a))?]) }
            eager(_, a) { Ok(vec![$kernel(a.grad_output, a.$other, a.$size, &args(&a))?]) }
            with .vjp($vjp).sample($sample)
        }
    };
}

/// The conv sample's geometry (conv2d(img, [3, 4, 3, 3], stride=2, padding=1)) after the two
/// leading tensors and the size.
fn conv_sample(other: Tensor, size: Value<Tensor>) -> Sample {
    pos_args(vec![
        t(f32s(&[2, 3, 3, 3])),
        t(other),
        size,
        ints(&[2]),
        ints(&[1]),
        ints(&[1]),
        Value::Int(1),
    ])
}

conv_backward!(
    convolution_backward_input = "convolution_backward_input(Tensor grad_output, Tensor weight, int[] input_size, int[] stride, int[] padding, int[] dilation, int groups) -> Tensor",
    weight,
    input_size,
    cb::conv_backward_input_meta,
    cb::conv_backward_input,
    &vjp_conv::CONV_BI,
    || conv_sample(f32s(&[3, 4, 3, 3]), img_size())
);
conv_backward!(
    convolution_backward_weight = "convolution_backward_weight(Tensor grad_output, Tensor input, int[] weight_size, int[] stride, int[] padding, int[] dilation, int groups) -> Tensor",
    input,
    weight_size,
    cb::conv_backward_weight_meta,
    cb::conv_backward_weight,
    &vjp_conv::CONV_BW,
    || conv_sample(fx::img(), ints(&[3, 4, 3, 3]))
);

op! {
    max_pool2d_with_indices_backward = "max_pool2d_with_indices_backward(Tensor grad_output, int[] input_size, Tensor indices) -> Tensor",
        Extern, [];
    meta(_, a) {
        Ok(vec![pb::max_pool2d_backward_meta(a.grad_output, a.input_size, a.indices)?])
    }
    eager(_, a) { Ok(vec![pb::max_pool2d_backward(a.grad_output, a.input_size, a.indices)?]) }
    with .vjp(&vjp_conv::MAX_POOL_B).sample(|| {
        // max_pool2d(img, 3, 2, 1)
        let (_, idx) = max_pool2d(&fx::img(), &[3], &[2], &[1], &[1], false)
            .expect("invariant: sample tensors have valid shapes");
        pos_args(vec![t(f32s(&[2, 4, 3, 3])), img_size(), t(idx)])
    })
}

op! {
    avg_pool2d_backward = "avg_pool2d_backward(Tensor grad_output, int[] input_size, int[2] kernel_size, int[2] stride, int[2] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor",
        Extern, [];
    items {
        fn args<'a, T>(a: &Args<'a, T>) -> AvgPoolArgs<'a> {
            AvgPoolArgs {
                kernel: a.kernel_size,
                stride: a.stride,
                padding: a.padding,
                ceil_mode: a.ceil_mode,
                count_include_pad: a.count_include_pad,
                divisor: a.divisor_override,
            }
        }
    }
    meta(_, a) {
        Ok(vec![pb::avg_pool2d_backward_meta(a.grad_output, a.input_size, &args(&a))?])
    }
    eager(_, a) { Ok(vec![pb::avg_pool2d_backward(a.grad_output, a.input_size, &args(&a))?]) }
    with .vjp(&vjp_conv::AVG_POOL_B).sample(|| {
        // avg_pool2d(img, 2, ceil_mode=True)
        pos_args(vec![
            t(f32s(&[2, 4, 3, 3])),
            img_size(),
            ints(&[2]),
            ints(&[]),
            ints(&[0]),
            Value::Bool(true),
            Value::Bool(true),
            Value::None,
        ])
    })
}

op! {
    adaptive_avg_pool2d_backward = "adaptive_avg_pool2d_backward(Tensor grad_output, int[] input_size) -> Tensor",
        Extern, [];
    meta(_, a) { Ok(vec![pb::adaptive_avg_pool2d_backward_meta(a.grad_output, a.input_size)?]) }
    eager(_, a) { Ok(vec![pb::adaptive_avg_pool2d_backward(a.grad_output, a.input_size)?]) }
    with .vjp(&vjp_conv::ADAPTIVE_B)
        .sample(|| pos_args(vec![t(f32s(&[2, 4, 3, 2])), img_size()]))
}

op! {
    layer_norm_backward = "layer_norm_backward(Tensor grad_out, Tensor input, int[] normalized_shape, Tensor? weight, float eps) -> (Tensor, Tensor, Tensor)",
        Extern, [];
    meta(_, a) {
        Ok(nb::layer_norm_backward_meta(a.grad_out, a.input, a.normalized_shape, a.weight)?
            .to_vec())
    }
    eager(_, a) {
        Ok(
            nb::layer_norm_backward(a.grad_out, a.input, a.normalized_shape, a.weight, a.eps)?
                .to_vec(),
        )
    }
    with .sample(|| {
        pos_args(vec![
            t(other(&[2, 3])),
            t(fx::x()),
            ints(&[3]),
            t(fx::y()),
            Value::Float(1e-5),
        ])
    })
}

op! {
    batch_norm_backward = "batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, float eps) -> (Tensor, Tensor, Tensor)",
        Extern, [];
    meta(_, a) { Ok(nb::batch_norm_backward_meta(a.grad_out, a.input, a.weight)?.to_vec()) }
    eager(_, a) { Ok(nb::batch_norm_backward(a.grad_out, a.input, a.weight, a.eps)?.to_vec()) }
    with .sample(|| {
        pos_args(vec![t(other(&[2, 4, 5, 5])), t(fx::img()), t(f32s(&[4])), Value::Float(1e-5)])
    })
}

op! {
    native_batch_norm_backward = "native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, Tensor? running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, bool train, float eps) -> (Tensor, Tensor, Tensor)",
        Extern, [];
    meta(_, a) {
        Ok(nb::native_batch_norm_backward_meta(
            a.grad_out,
            a.input,
            a.weight,
            a.running_mean,
            a.running_var,
            a.save_mean,
            a.save_invstd,
            a.train,
        )?
        .to_vec())
    }
    eager(_, a) {
        Ok(nb::native_batch_norm_backward(
            a.grad_out,
            a.input,
            a.weight,
            a.running_mean,
            a.running_var,
            a.save_mean,
            a.save_invstd,
            a.train,
            a.eps,
        )?
        .to_vec())
    }
    with .sample(|| {
        let (mean, invstd) = (f32s(&[4]), Tensor::full(&[4], rynamo_tensor::Scalar::Float(1.5), rynamo_tensor::DType::Float32));
        pos_args(vec![
            t(other(&[2, 4, 5, 5])),
            t(fx::img()),
            t(f32s(&[4])),
            Value::None,
            Value::None,
            t(mean),
            t(invstd),
            Value::Bool(true),
            Value::Float(1e-5),
        ])
    })
}
