//! The backward ops autograd's formulas call where a composition of other ops would be much
//! slower (PyTorch's `convolution_backward`, `max_pool2d_with_indices_backward`,
//! `avg_pool2d_backward`, `adaptive_avg_pool2d_backward`, `native_layer_norm_backward`,
//! `native_batch_norm_backward`). Kernels in `rynamo_tensor::ops::{conv,pool,norm}_backward`.

use rynamo_tensor::ops::conv_backward::{self as cb, ConvBackwardArgs};
use rynamo_tensor::ops::norm_backward as nb;
use rynamo_tensor::ops::pool_backward::{self as pb, AvgPoolArgs};
use rynamo_tensor::{Shaped, Tensor, TensorMeta};

use super::wrong_module;
use crate::{Args, IValue, Op, Result, Value};

fn conv_args<'a, T>(a: &Args<'a, T>) -> Result<ConvBackwardArgs<'a>> {
    Ok(ConvBackwardArgs {
        stride: a.ints(3)?,
        padding: a.ints(4)?,
        dilation: a.ints(5)?,
        groups: a.int(6)?,
    })
}

fn avg_args<'a, T>(a: &Args<'a, T>) -> Result<AvgPoolArgs<'a>> {
    Ok(AvgPoolArgs {
        kernel: a.ints(2)?,
        stride: a.ints(3)?,
        padding: a.ints(4)?,
        ceil_mode: a.bool(5)?,
        count_include_pad: a.bool(6)?,
        divisor: a.opt_int(7)?,
    })
}

pub(crate) fn meta<T: Shaped + Clone>(op: Op, args: &[Value<T>]) -> Result<Vec<TensorMeta>> {
    let a = Args(args);
    let g = a.tensor(0)?;
    Ok(match op {
        Op::ConvolutionBackwardInput => vec![cb::conv_backward_input_meta(
            g,
            a.tensor(1)?,
            a.ints(2)?,
            &conv_args(&a)?,
        )?],
        Op::ConvolutionBackwardWeight => vec![cb::conv_backward_weight_meta(
            g,
            a.tensor(1)?,
            a.ints(2)?,
            &conv_args(&a)?,
        )?],
        Op::MaxPool2dWithIndicesBackward => {
            vec![pb::max_pool2d_backward_meta(g, a.ints(1)?, a.tensor(2)?)?]
        }
        Op::AvgPool2dBackward => vec![pb::avg_pool2d_backward_meta(g, a.ints(1)?, &avg_args(&a)?)?],
        Op::AdaptiveAvgPool2dBackward => {
            vec![pb::adaptive_avg_pool2d_backward_meta(g, a.ints(1)?)?]
        }
        Op::LayerNormBackward => {
            nb::layer_norm_backward_meta(g, a.tensor(1)?, a.ints(2)?, a.opt_tensor(3)?)?.to_vec()
        }
        Op::BatchNormBackward => {
            nb::batch_norm_backward_meta(g, a.tensor(1)?, a.opt_tensor(2)?)?.to_vec()
        }
        _ => return Err(wrong_module(op)),
    })
}

pub(crate) fn eager(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    let a = Args(args);
    let g = a.tensor(0)?;
    Ok(match op {
        Op::ConvolutionBackwardInput => vec![cb::conv_backward_input(
            g,
            a.tensor(1)?,
            a.ints(2)?,
            &conv_args(&a)?,
        )?],
        Op::ConvolutionBackwardWeight => vec![cb::conv_backward_weight(
            g,
            a.tensor(1)?,
            a.ints(2)?,
            &conv_args(&a)?,
        )?],
        Op::MaxPool2dWithIndicesBackward => {
            vec![pb::max_pool2d_backward(g, a.ints(1)?, a.tensor(2)?)?]
        }
        Op::AvgPool2dBackward => vec![pb::avg_pool2d_backward(g, a.ints(1)?, &avg_args(&a)?)?],
        Op::AdaptiveAvgPool2dBackward => vec![pb::adaptive_avg_pool2d_backward(g, a.ints(1)?)?],
        Op::LayerNormBackward => {
            nb::layer_norm_backward(g, a.tensor(1)?, a.ints(2)?, a.opt_tensor(3)?, a.float(4)?)?
                .to_vec()
        }
        Op::BatchNormBackward => {
            nb::batch_norm_backward(g, a.tensor(1)?, a.opt_tensor(2)?, a.float(3)?)?.to_vec()
        }
        _ => return Err(wrong_module(op)),
    })
}
