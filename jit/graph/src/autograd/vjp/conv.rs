//! Backward formulas of the convolutions and 2-D pools, through the backward ops of
//! `rules/backward.rs`, and of those backward ops themselves (double backward: each is linear in
//! its gradient argument, so its own gradients are the forward op or the other backward op);
//! `max_pool2d` is recorded as `max_pool2d_with_indices` so the indices are saved, as PyTorch.

use super::nn::Facts;
use super::pointwise::grad_or_return;
use super::{Composite, Grads, Saves, VjpCtx, VjpRule, composite_rule, put, put_at, vjp_rule};
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
        let dilation = per_dim(nd, c.a().ints(5)?);
        let pad = match c.op {
            Op::Conv1dPadding | Op::Conv2dPadding => match c.a().str(4)? {
                // 'same': the total padding split with the odd one at the end
                "same" => (0..nd)
                    .map(|i| dilation[i] * (wshape[2 + i] as i64 - 1) / 2)
                    .collect(),
                _ => vec![0; nd],
            },
            _ => per_dim(nd, c.a().ints(4)?),
        };
        Ok(ConvGeo {
            nd,
            stride: per_dim(nd, c.a().ints(3)?),
            pad,
            dilation,
            groups: c.a().int(6)?,
        })
    }

    /// From a backward op's own arguments.
    fn of_backward<T: Clone>(c: &VjpCtx<'_, T>) -> Result<ConvGeo> {
        let nd = c.input_meta(0)?.shape.len() - 2;
        Ok(ConvGeo {
            nd,
            stride: per_dim(nd, c.a().ints(3)?),
            pad: per_dim(nd, c.a().ints(4)?),
            dilation: per_dim(nd, c.a().ints(5)?),
            groups: c.a().int(6)?,
        })
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
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let xshape = c.input_meta(0)?.shape.clone();
    let wshape = c.input_meta(1)?.shape.clone();
    let geo = ConvGeo::of_forward(c, &wshape)?;
    let batched = xshape.len() == geo.nd + 2;
    let mut xb = xshape.clone();
    let gb = if batched {
        g
    } else {
        xb.insert(0, 1);
        e.unsqueeze(&g, 0)?
    };
    if c.needs(0) {
        let d = geo.input_grad(e, &gb, &c.input(1)?, &xb)?;
        let d = if batched { d } else { e.reshape(&d, &xshape)? };
        put_at(&mut out, c, 0, d)?;
    }
    if c.needs(1) {
        let x = c.input(0)?;
        let x = if batched { x } else { e.unsqueeze(&x, 0)? };
        let d = geo.weight_grad(e, &gb, &x, &wshape)?;
        put_at(&mut out, c, 1, d)?;
    }
    if c.needs(2) {
        let dims: Vec<i64> = (0..xb.len() as i64).filter(|&d| d != 1).collect();
        let d = e.sum_dims(&gb, &dims, false)?;
        put_at(&mut out, c, 2, d)?;
    }
    Ok(out)
}

/// convolution_backward_input(g, w, ...) is linear in `g` (through `w`): its gradient for `g`
/// is the forward convolution of the incoming gradient, for `w` the weight gradient of a
/// convolution of that gradient.
fn conv_backward_input<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let gg = grad_or_return!(c);
    let mut out = c.no_grads();
    let geo = ConvGeo::of_backward(c)?;
    let gshape = c.input_meta(0)?.shape.clone();
    let wshape = c.input_meta(1)?.shape.clone();
    if c.needs(0) {
        let d = geo.forward(e, &gg, &c.input(1)?, &gshape[2..])?;
        put_at(&mut out, c, 0, d)?;
    }
    if c.needs(1) {
        let d = geo.weight_grad(e, &c.input(0)?, &gg, &wshape)?;
        put_at(&mut out, c, 1, d)?;
    }
    Ok(out)
}

/// convolution_backward_weight(g, x, ...): for `g` the forward convolution of `x` with the
/// incoming gradient as weight, for `x` the input gradient through that weight.
fn conv_backward_weight<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let gg = grad_or_return!(c);
    let mut out = c.no_grads();
    let geo = ConvGeo::of_backward(c)?;
    let gshape = c.input_meta(0)?.shape.clone();
    let xshape = c.input_meta(1)?.shape.clone();
    if c.needs(0) {
        let d = geo.forward(e, &c.input(1)?, &gg, &gshape[2..])?;
        put_at(&mut out, c, 0, d)?;
    }
    if c.needs(1) {
        let d = geo.input_grad(e, &c.input(0)?, &gg, &xshape)?;
        put_at(&mut out, c, 1, d)?;
    }
    Ok(out)
}

/// max_pool2d_with_indices: each output's gradient added at the input position it took.
fn max_pool2d<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.needs(0) {
        let shape = c.input_meta(0)?.shape.clone();
        let d = e.op(
            Op::MaxPool2dWithIndicesBackward,
            vec![t(&g), ints(&shape), t(&c.output(1)?)],
        )?;
        put_at(&mut out, c, 0, d)?;
    }
    Ok(out)
}

/// max_pool2d_with_indices_backward: linear in the gradient, which it scatters; the adjoint
/// gathers at the same indices.
fn max_pool2d_backward<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let gg = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.needs(0) {
        let gshape = c.input_meta(0)?.shape.clone();
        let xshape = c.a().ints(1)?.to_vec();
        let nd = gshape.len();
        let hw = (xshape[nd - 2] * xshape[nd - 1]) as usize;
        let ohw = gshape[nd - 2] * gshape[nd - 1];
        let planes = gshape.iter().product::<usize>() / ohw.max(1);
        let src = e.reshape(&gg, &[planes, hw])?;
        let idx = e.reshape(&c.input(2)?, &[planes, ohw])?;
        let d = e.op(Op::Gather, vec![t(&src), Value::Int(1), t(&idx)])?;
        let d = e.reshape(&d, &gshape)?;
        put_at(&mut out, c, 0, d)?;
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

fn avg_pool2d<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let shape = c.input_meta(0)?.shape.clone();
    let mut rest: Vec<Value<E::T>> = c.args[1..]
        .iter()
        .map(|v| {
            v.try_map(|_| Err(()))
                .expect("invariant: no tensors after self")
        })
        .collect();
    super::pointwise::unary(e, c, |e, _, g| {
        let mut a = vec![t(&g), ints(&shape)];
        a.append(&mut rest);
        e.op(Op::AvgPool2dBackward, a)
    })
}

/// avg_pool2d_backward: linear in the gradient; the adjoint is the average pool itself.
fn avg_pool2d_backward<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let mut rest: Vec<Value<E::T>> = c.args[2..]
        .iter()
        .map(|v| {
            v.try_map(|_| Err(()))
                .expect("invariant: no tensors after input_size")
        })
        .collect();
    super::pointwise::unary(e, c, |e, _, gg| {
        let mut a = vec![t(&gg)];
        a.append(&mut rest);
        e.op(Op::AvgPool2d, a)
    })
}

fn adaptive_avg_pool2d<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let shape = c.input_meta(0)?.shape.clone();
    super::pointwise::unary(e, c, |e, _, g| {
        e.op(Op::AdaptiveAvgPool2dBackward, vec![t(&g), ints(&shape)])
    })
}

/// adaptive_avg_pool2d_backward: the adjoint is the adaptive pool to the gradient's size.
fn adaptive_avg_pool2d_backward<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let gshape = c.input_meta(0)?.shape.clone();
    let nd = gshape.len();
    let size = [gshape[nd - 2], gshape[nd - 1]];
    super::pointwise::unary(e, c, |e, _, gg| {
        e.op(Op::AdaptiveAvgPool2d, vec![t(&gg), ints(&size)])
    })
}

pub(crate) static CONV: VjpRule = vjp_rule!("ConvolutionBackward0", Saves::cross(&[0, 1]), conv);
pub(crate) static CONV_BI: VjpRule = vjp_rule!(
    "ConvolutionBackwardBackward0",
    Saves::cross(&[0, 1]),
    conv_backward_input
);
pub(crate) static CONV_BW: VjpRule = vjp_rule!(
    "ConvolutionBackwardBackward0",
    Saves::cross(&[0, 1]),
    conv_backward_weight
);
pub(crate) static MAX_POOL: VjpRule =
    vjp_rule!("MaxPool2DWithIndicesBackward0", Saves::OUTPUT, max_pool2d);
pub(crate) static MAX_POOL_B: VjpRule = vjp_rule!(
    "MaxPool2DWithIndicesBackwardBackward0",
    Saves::args(&[2]),
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
