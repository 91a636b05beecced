//! Convolutions and 2-D pooling.

use rynamo_tensor::ops::conv::{self, ConvArgs, ConvPadding};
use rynamo_tensor::ops::pool;

use crate::autograd::vjp::conv as vjp_conv;
use crate::def::{Sample, op};
use crate::samples::{f32s, fx, pos_args, t, with_kw};
use crate::{Result, Value};

/// A convolution of `$nd` spatial dims; `|a| padding` reads its padding (explicit sizes, or
/// `'same'`/`'valid'` for the `.padding` overloads).
macro_rules! convolution {
    ($name:ident = $schema:literal, $nd:literal, |$a:ident| $padding:expr $(, with $($with:tt)*)?) => {
        op! {
            $name = $schema, Extern, [FUNCTION NN_FUNCTIONAL];
            items {
                /// The convolution's arguments.
                fn args<'a, T>($a: &Args<'a, T>) -> Result<ConvArgs<'a>> {
                    Ok(ConvArgs {
                        stride: $a.stride,
                        padding: $padding,
                        dilation: $a.dilation,
                        groups: $a.groups,
                    })
                }
            }
            meta(_, a) { Ok(vec![conv::conv_meta($nd, a.input, a.weight, a.bias, &args(&a)?)?]) }
            eager(_, a) { Ok(vec![conv::conv($nd, a.input, a.weight, a.bias, &args(&a)?)?]) }
            $(with $($with)*)?
        }
    };
}

convolution!(
    conv1d = "conv1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, int[1] padding=0, int[1] dilation=1, int groups=1) -> Tensor",
    1,
    |a| ConvPadding::Explicit(a.padding),
    with.vjp(&vjp_conv::CONV).sample(|| {
        let args = vec![t(f32s(&[2, 4, 9])), t(f32s(&[6, 2, 3])), t(f32s(&[6]))];
        with_kw(args, "groups", Value::Int(2))
    })
);
convolution!(
    conv1d_padding = "conv1d.padding(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, str padding='valid', int[1] dilation=1, int groups=1) -> Tensor",
    1,
    |a| ConvPadding::parse(a.padding)?,
    with.vjp(&vjp_conv::CONV).sample(|| {
        let args = vec![t(f32s(&[4, 9])), t(f32s(&[6, 4, 3]))];
        with_kw(args, "padding", Value::Str("same".into()))
    })
);
convolution!(
    conv2d = "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, int[2] dilation=1, int groups=1) -> Tensor",
    2,
    |a| ConvPadding::Explicit(a.padding),
    with.vjp(&vjp_conv::CONV).sample(|| {
        let args = vec![t(fx::img()), t(f32s(&[3, 4, 3, 3])), t(f32s(&[3]))];
        let kw = vec![
            ("stride".into(), Value::Int(2)),
            ("padding".into(), Value::Int(1)),
        ];
        (args, kw)
    })
);
convolution!(
    conv2d_padding = "conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, str padding='valid', int[2] dilation=1, int groups=1) -> Tensor",
    2,
    |a| ConvPadding::parse(a.padding)?,
    with.vjp(&vjp_conv::CONV).sample(|| {
        let args = vec![t(fx::img()), t(f32s(&[3, 4, 2, 3]))];
        with_kw(args, "padding", Value::Str("same".into()))
    })
);

/// `op(img, 3, 2, 1)`.
fn pool_3_2_1() -> Sample {
    pos_args(vec![
        t(fx::img()),
        Value::Int(3),
        Value::Int(2),
        Value::Int(1),
    ])
}

op! {
    max_pool2d = "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> Tensor",
        Extern, [FUNCTION NN_FUNCTIONAL];
    meta(_, a) {
        let (v, _) = pool::max_pool2d_meta(
            a.self_, a.kernel_size, a.stride, a.padding, a.dilation, a.ceil_mode,
        )?;
        Ok(vec![v])
    }
    eager(_, a) {
        Ok(vec![pool::max_pool2d_values(
            a.self_, a.kernel_size, a.stride, a.padding, a.dilation, a.ceil_mode,
        )?])
    }
    with .recorded_as(&vjp_conv::MAX_POOL_PARTS).sample(pool_3_2_1)
}

op! {
    max_pool2d_with_indices = "max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor output, Tensor indices)",
        Extern, [NN_FUNCTIONAL];
    meta(_, a) {
        let (v, i) = pool::max_pool2d_meta(
            a.self_, a.kernel_size, a.stride, a.padding, a.dilation, a.ceil_mode,
        )?;
        Ok(vec![v, i])
    }
    eager(_, a) {
        let (v, i) =
            pool::max_pool2d(a.self_, a.kernel_size, a.stride, a.padding, a.dilation, a.ceil_mode)?;
        Ok(vec![v, i])
    }
    with .vjp(&vjp_conv::MAX_POOL).sample(pool_3_2_1)
}

op! {
    avg_pool2d = "avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor",
        Extern, [NN_FUNCTIONAL];
    meta(_, a) {
        Ok(vec![pool::avg_pool2d_meta(
            a.self_, a.kernel_size, a.stride, a.padding, a.ceil_mode, a.divisor_override,
        )?])
    }
    eager(_, a) {
        Ok(vec![pool::avg_pool2d(
            a.self_,
            a.kernel_size,
            a.stride,
            a.padding,
            a.ceil_mode,
            a.count_include_pad,
            a.divisor_override,
        )?])
    }
    with .vjp(&vjp_conv::AVG_POOL).sample(|| with_kw(vec![t(fx::img()), Value::Int(2)], "ceil_mode", Value::Bool(true)))
}

op! {
    adaptive_avg_pool2d = "adaptive_avg_pool2d(Tensor self, int[2] output_size) -> Tensor", Extern,
        [NN_FUNCTIONAL];
    meta(_, a) { Ok(vec![pool::adaptive_avg_pool2d_meta(a.self_, a.output_size)?]) }
    eager(_, a) { Ok(vec![pool::adaptive_avg_pool2d(a.self_, a.output_size)?]) }
    with .vjp(&vjp_conv::ADAPTIVE).sample(|| pos_args(vec![t(fx::img()), Value::IntList(vec![3, 2])]))
}
