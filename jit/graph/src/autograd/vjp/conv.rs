//! Backward formulas of the convolutions and 2-D pools, through the backward ops of
//! `rules/backward.rs`, and of those backward ops themselves (double backward: each is linear in
//! its gradient argument, so its own gradients are the forward op or the other backward op);
//! `max_pool2d` is recorded as `max_pool2d_with_indices` so the indices are saved, as PyTorch.

use super::nn::Facts;
use super::pointwise::grad_or_return;
use super::{Composite, Grads, Saves, VjpCtx, VjpRule, args, composite_rule, put, vjp_rule};
use crate::autograd::emit::{Emit, ints, t};
use crate::{Op, Result, Value};

/// A convolution's geometry as the backward ops take it: spatial rank, stride, leading
/// padding, dilation (one value per spatial dim) and groups.
struct ConvGeo {
    nd: usize,
    stride: Vec<i64>,
    pad: Vec<i64>,
    dilation: Vec<i64>,
    groups: i64,
}

fn per_dim(nd: usize, v: &[i64]) -> Vec<i64> {
    if v.len() == 1 {
        vec![v[0]; nd]
    } else {
        v.to_vec()
    }
}

impl ConvGeo {
    /// From a forward convolution call (`conv{1,2}d` or their `.padding` forms) on a weight of
    /// `wshape`.
    fn of_forward<T: Clone>(c: &VjpCtx<'_, T>, wshape: &[usize]) -> Result<ConvGeo> {
        let nd = match c.op {
            Op::Conv1d | Op::Conv1dPadding => 1,
            _ => 2,
        };
        let (stride, pad, dilation, groups) = match c.op {
            Op::Conv1dPadding | Op::Conv2dPadding => {
                let (stride, mode, dilation, groups) = args!(c,
                    |a| (a.stride, a.padding, a.dilation, a.groups),
                    Conv1dPadding => conv::conv1d_padding, Conv2dPadding => conv::conv2d_padding);
                let dilation = per_dim(nd, dilation);
                let pad = match mode {
                    // 'same': the total padding split with the odd one at the end
                    "same" => (0..nd)
                        .map(|i| dilation[i] * (wshape[2 + i] as i64 - 1) / 2)
                        .collect(),
                    _ => vec![0; nd],
                };
                (stride, pad, dilation, groups)
            }
            _ => {
                let (stride, padding, dilation, groups) = args!(c,
                    |a| (a.stride, a.padding, a.dilation, a.groups),
                    Conv1d => conv::conv1d, Conv2d => conv::conv2d);
                (stride, per_dim(nd, padding), per_dim(nd, dilation), groups)
            }
        };
        Ok(ConvGeo {
            nd,
            stride: per_dim(nd, stride),
            pad,
            dilation,
            groups,
        })
    }

    /// From a backward op's own arguments (`a`: its `Args`, whose gradient has `ndim` dims).
    fn of_backward(
        ndim: usize,
        stride: &[i64],
        pad: &[i64],
        dilation: &[i64],
        groups: i64,
    ) -> ConvGeo {
        let nd = ndim - 2;
        ConvGeo {
            nd,
            stride: per_dim(nd, stride),
            pad: per_dim(nd, pad),
            dilation: per_dim(nd, dilation),
            groups,
        }
    }

    /// The trailing arguments of both backward ops.
    fn args<T>(&self) -> Vec<Value<T>> {
        vec![
            Value::IntList(self.stride.clone()),
            Value::IntList(self.pad.clone()),
            Value::IntList(self.dilation.clone()),
            Value::Int(self.groups),
        ]
    }

    fn input_grad<E: Emit>(&self, e: &mut E, g: &E::T, w: &E::T, x: &[usize]) -> Result<E::T> {
        let mut a = vec![t(g), t(w), ints(x)];
        a.extend(self.args());
        e.op(Op::ConvolutionBackwardInput, a)
    }

    fn weight_grad<E: Emit>(&self, e: &mut E, g: &E::T, x: &E::T, w: &[usize]) -> Result<E::T> {
        let mut a = vec![t(g), t(x), ints(w)];
        a.extend(self.args());
        e.op(Op::ConvolutionBackwardWeight, a)
    }

    /// The forward convolution of a batched `x` with `w`, its output `out` spatial sizes (the
    /// trailing padding is whatever gives them: the double backward of a `'same'` or strided
    /// convolution may need an uneven or negative one).
    fn forward<E: Emit>(&self, e: &mut E, x: &E::T, w: &E::T, out: &[usize]) -> Result<E::T> {
        let xs = e.shape(x);
        let ws = e.shape(w);
        let hi: Vec<i64> = (0..self.nd)
            .map(|i| {
                let eff = self.dilation[i] * (ws[2 + i] as i64 - 1) + 1;
                (out[i] as i64 - 1) * self.stride[i] + eff - xs[2 + i] as i64 - self.pad[i]
            })
            .collect();
        let op = if self.nd == 1 { Op::Conv1d } else { Op::Conv2d };
        let (x, pad) = if hi == self.pad {
            (x.clone(), self.pad.clone())
        } else {
            // F.pad lists the last dim first
            let mut p = Vec::with_capacity(2 * self.nd);
            for i in (0..self.nd).rev() {
                p.push(self.pad[i]);
                p.push(hi[i]);
            }
            (
                e.op(Op::Pad, vec![t(x), Value::IntList(p)])?,
                vec![0; self.nd],
            )
        };
        e.op(
            op,
            vec![
                t(&x),
                t(w),
                Value::None,
                Value::IntList(self.stride.clone()),
                Value::IntList(pad),
                Value::IntList(self.dilation.clone()),
                Value::Int(self.groups),
            ],
        )
    }
}

/// conv1d / conv2d (all padding forms): input and weight gradients from the backward ops
/// (unbatched inputs get a batch dim of 1 around them); the bias gradient sums the gradient.
fn conv<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let (input, weight, bias) = args!(c, |a| (a.input, a.weight, a.bias),
        Conv1d => conv::conv1d, Conv1dPadding => conv::conv1d_padding, Conv2d => conv::conv2d,
        Conv2dPadding => conv::conv2d_padding);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let xshape = c.meta(input)?.shape.clone();
    let wshape = c.meta(weight)?.shape.clone();
    let geo = ConvGeo::of_forward(c, &wshape)?;
    let batched = xshape.len() == geo.nd + 2;
    if xshape[usize::from(batched)] == 0 {
        // An input without channels: the forward's result has none either (ATen routes it around
        // its kernels), so every gradient is zero, the bias's included.
        let dtype = c.meta(input)?.dtype;
        if c.wants(input) {
            put(&mut out, input, e.zeros(&xshape, dtype)?)?;
        }
        if c.wants(weight) {
            put(&mut out, weight, e.zeros(&wshape, dtype)?)?;
        }
        if c.wants(bias) {
            put(&mut out, bias, e.zeros(&wshape[..1], dtype)?)?;
        }
        return Ok(out);
    }
    let mut xb = xshape.clone();
    let gb = if batched {
        g
    } else {
        xb.insert(0, 1);
        e.unsqueeze(&g, 0)?
    };
    if c.wants(input) {
        let d = geo.input_grad(e, &gb, &c.saved(weight)?, &xb)?;
        let d = if batched { d } else { e.reshape(&d, &xshape)? };
        put(&mut out, input, d)?;
    }
    if c.wants(weight) {
        let x = c.saved(input)?;
        let x = if batched { x } else { e.unsqueeze(&x, 0)? };
        let d = geo.weight_grad(e, &gb, &x, &wshape)?;
        put(&mut out, weight, d)?;
    }
    if c.wants(bias) {
        let dims: Vec<i64> = (0..xb.len() as i64).filter(|&d| d != 1).collect();
        let d = e.sum_dims(&gb, &dims, false)?;
        put(&mut out, bias, d)?;
    }
    Ok(out)
}

/// convolution_backward_input(g, w, ...) is linear in `g` (through `w`): its gradient for `g`
/// is the forward convolution of the incoming gradient, for `w` the weight gradient of a
/// convolution of that gradient.
fn conv_backward_input<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, ConvolutionBackwardInput => backward::convolution_backward_input);
    let gg = grad_or_return!(c);
    let mut out = c.no_grads();
    let gshape = c.meta(a.grad_output)?.shape.clone();
    let geo = ConvGeo::of_backward(gshape.len(), a.stride, a.padding, a.dilation, a.groups);
    let wshape = c.meta(a.weight)?.shape.clone();
    if c.wants(a.grad_output) {
        let d = geo.forward(e, &gg, &c.saved(a.weight)?, &gshape[2..])?;
        put(&mut out, a.grad_output, d)?;
    }
    if c.wants(a.weight) {
        let d = geo.weight_grad(e, &c.saved(a.grad_output)?, &gg, &wshape)?;
        put(&mut out, a.weight, d)?;
    }
    Ok(out)
}

/// convolution_backward_weight(g, x, ...): for `g` the forward convolution of `x` with the
/// incoming gradient as weight, for `x` the input gradient through that weight.
fn conv_backward_weight<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, ConvolutionBackwardWeight => backward::convolution_backward_weight);
    let gg = grad_or_return!(c);
    let mut out = c.no_grads();
    let gshape = c.meta(a.grad_output)?.shape.clone();
    let geo = ConvGeo::of_backward(gshape.len(), a.stride, a.padding, a.dilation, a.groups);
    let xshape = c.meta(a.input)?.shape.clone();
    if c.wants(a.grad_output) {
        let d = geo.forward(e, &c.saved(a.input)?, &gg, &gshape[2..])?;
        put(&mut out, a.grad_output, d)?;
    }
    if c.wants(a.input) {
        let d = geo.input_grad(e, &c.saved(a.grad_output)?, &gg, &xshape)?;
        put(&mut out, a.input, d)?;
    }
    Ok(out)
}

/// max_pool2d_with_indices: each output's gradient added at the input position it took.
fn max_pool2d<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, MaxPool2dWithIndices => conv::max_pool2d_with_indices);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.wants(a.self_) {
        let shape = c.meta(a.self_)?.shape.clone();
        let d = e.op(
            Op::MaxPool2dWithIndicesBackward,
            vec![t(&g), ints(&shape), t(&c.output(1)?)],
        )?;
        put(&mut out, a.self_, d)?;
    }
    Ok(out)
}

/// max_pool2d_with_indices_backward: linear in the gradient, which it scatters; the adjoint
/// gathers at the same indices.
fn max_pool2d_backward<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, MaxPool2dWithIndicesBackward => backward::max_pool2d_with_indices_backward);
    let gg = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.wants(a.grad_output) {
        let gshape = c.meta(a.grad_output)?.shape.clone();
        let xshape = a.input_size.to_vec();
        let nd = gshape.len();
        let hw = (xshape[nd - 2] * xshape[nd - 1]) as usize;
        let ohw = gshape[nd - 2] * gshape[nd - 1];
        let planes = gshape.iter().product::<usize>() / ohw.max(1);
        let src = e.reshape(&gg, &[planes, hw])?;
        let idx = e.reshape(&c.saved(a.indices)?, &[planes, ohw])?;
        let d = e.op(Op::Gather, vec![t(&src), Value::Int(1), t(&idx)])?;
        let d = e.reshape(&d, &gshape)?;
        put(&mut out, a.grad_output, d)?;
    }
    Ok(out)
}

/// max_pool2d as PyTorch records it: `max_pool2d_with_indices(...)[0]`.
fn max_pool2d_parts<E: Emit>(e: &mut E, args: &[Value<E::T>]) -> Result<Option<Vec<E::T>>>
where
    E::T: Facts,
{
    let mut outs = e.call(Op::MaxPool2dWithIndices, args.to_vec())?;
    outs.truncate(1);
    Ok(Some(outs))
}

/// The pooling arguments that `avg_pool2d` and `avg_pool2d_backward` share (same names), in
/// their order, from either op's `Args`.
macro_rules! pool_args {
    ($a:expr) => {
        vec![
            Value::IntList($a.kernel_size.to_vec()),
            Value::IntList($a.stride.to_vec()),
            Value::IntList($a.padding.to_vec()),
            Value::Bool($a.ceil_mode),
            Value::Bool($a.count_include_pad),
            $a.divisor_override.map_or(Value::None, Value::Int),
        ]
    };
}

fn avg_pool2d<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, AvgPool2d => conv::avg_pool2d);
    let shape = c.meta(a.self_)?.shape.clone();
    let pool: Vec<Value<E::T>> = pool_args!(a);
    super::pointwise::unary(e, c, a.self_, |e, _, g| {
        let mut args = vec![t(&g), ints(&shape)];
        args.extend(pool);
        e.op(Op::AvgPool2dBackward, args)
    })
}

/// avg_pool2d_backward: linear in the gradient; the adjoint is the average pool itself.
fn avg_pool2d_backward<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, AvgPool2dBackward => backward::avg_pool2d_backward);
    let pool: Vec<Value<E::T>> = pool_args!(a);
    super::pointwise::unary(e, c, a.grad_output, |e, _, gg| {
        let mut args = vec![t(&gg)];
        args.extend(pool);
        e.op(Op::AvgPool2d, args)
    })
}

fn adaptive_avg_pool2d<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, AdaptiveAvgPool2d => conv::adaptive_avg_pool2d);
    let shape = c.meta(a.self_)?.shape.clone();
    super::pointwise::unary(e, c, a.self_, |e, _, g| {
        e.op(Op::AdaptiveAvgPool2dBackward, vec![t(&g), ints(&shape)])
    })
}

/// adaptive_avg_pool2d_backward: the adjoint is the adaptive pool to the gradient's size.
fn adaptive_avg_pool2d_backward<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, AdaptiveAvgPool2dBackward => backward::adaptive_avg_pool2d_backward);
    let gshape = c.meta(a.grad_output)?.shape.clone();
    let nd = gshape.len();
    let size = [gshape[nd - 2], gshape[nd - 1]];
    super::pointwise::unary(e, c, a.grad_output, |e, _, gg| {
        e.op(Op::AdaptiveAvgPool2d, vec![t(&gg), ints(&size)])
    })
}

pub(crate) static CONV: VjpRule = vjp_rule!(
    "ConvolutionBackward0",
    Saves::cross(&["input", "weight"]),
    conv
);
pub(crate) static CONV_BI: VjpRule = vjp_rule!(
    "ConvolutionBackwardBackward0",
    Saves::cross(&["grad_output", "weight"]),
    conv_backward_input
);
pub(crate) static CONV_BW: VjpRule = vjp_rule!(
    "ConvolutionBackwardBackward0",
    Saves::cross(&["grad_output", "input"]),
    conv_backward_weight
);
pub(crate) static MAX_POOL: VjpRule =
    vjp_rule!("MaxPool2DWithIndicesBackward0", Saves::OUTPUT, max_pool2d);
pub(crate) static MAX_POOL_B: VjpRule = vjp_rule!(
    "MaxPool2DWithIndicesBackwardBackward0",
    Saves::args(&["indices"]),
    max_pool2d_backward
);
pub(crate) static AVG_POOL: VjpRule = vjp_rule!("AvgPool2DBackward0", Saves::NONE, avg_pool2d);
pub(crate) static AVG_POOL_B: VjpRule = vjp_rule!(
    "AvgPool2DBackwardBackward0",
    Saves::NONE,
    avg_pool2d_backward
);
pub(crate) static ADAPTIVE: VjpRule = vjp_rule!(
    "AdaptiveAvgPool2DBackward0",
    Saves::NONE,
    adaptive_avg_pool2d
);
pub(crate) static ADAPTIVE_B: VjpRule = vjp_rule!(
    "AdaptiveAvgPool2DBackwardBackward0",
    Saves::NONE,
    adaptive_avg_pool2d_backward
);

pub(crate) static MAX_POOL_PARTS: Composite = composite_rule!(max_pool2d_parts);
