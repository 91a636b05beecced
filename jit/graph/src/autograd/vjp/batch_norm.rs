//! Batch norm under autograd, as PyTorch records it: `batch_norm` in training is recorded as
//! `native_batch_norm(...)[0]`, whose other outputs (the batch mean and `1 / sqrt(var + eps)`)
//! are saved for `native_batch_norm_backward`, so the backward reads the input twice instead of
//! four times (it no longer recomputes the statistics). In evaluation mode both ops are
//! recorded as their affine map with the running statistics (constants, not saved).

use rynamo_tensor::DType;
use rynamo_tensor::ops::norm::saved_stats_dtype;

use super::nn::{Facts, normalize, normalized_input_grad};
use super::pointwise::grad_or_return;
use super::{Composite, Grads, Saves, VjpCtx, VjpRule, args, composite_rule, put, vjp_rule};
use crate::autograd::emit::{Emit, f, t};
use crate::{Op, Result, Value};

/// An optional tensor argument as a value.
fn opt<T: Clone>(x: Option<&T>) -> Value<T> {
    x.map_or(Value::None, t)
}

/// native_batch_norm in training (evaluation mode is recorded as its affine map): the
/// `native_batch_norm_backward` kernel on the saved statistics (the running statistics are
/// neither saved nor differentiated, so a second forward updating them before backward is fine,
/// as in PyTorch); under `create_graph` the same as ops, which recompute the statistics
/// differentiably.
fn native_batch_norm<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, NativeBatchNorm => nn::native_batch_norm);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if !a.training {
        return Err(crate::Error::Graph(
            "internal: evaluation-mode native_batch_norm is differentiated through its \
             decomposition"
                .into(),
        ));
    }
    let x = c.saved(a.input)?;
    let shape = c.meta(a.input)?.shape.clone();
    let w = c.saved_opt(a.weight)?;
    let eps = a.eps;
    if !crate::autograd::is_grad_enabled() {
        let (mean, invstd) = (c.output(1)?, c.output(2)?);
        let args = vec![
            t(&g),
            t(&x),
            opt(w.as_ref()),
            Value::None,
            Value::None,
            t(&mean),
            t(&invstd),
            Value::Bool(true),
            Value::Float(eps),
        ];
        let mut r = e.call(Op::NativeBatchNormBackward, args)?;
        for (k, x) in [(2, a.bias), (1, a.weight), (0, Some(a.input))] {
            let d = r.remove(k);
            if c.wants(x) {
                put(&mut out, x, d)?;
            }
        }
        return Ok(out);
    }
    let dims: Vec<i64> = (0..shape.len() as i64).filter(|&d| d != 1).collect();
    let mut chan = vec![1usize; shape.len()];
    chan[1] = shape[1];
    let (xhat, rstd) = normalize(e, &x, &dims, eps)?;
    if c.wants(a.input) {
        let gw = match &w {
            Some(w) => {
                let wv = e.reshape(w, &chan)?;
                e.mul(&g, &wv)?
            }
            None => g.clone(),
        };
        let d = normalized_input_grad(e, &gw, &xhat, &rstd, &dims)?;
        put(&mut out, a.input, d)?;
    }
    if c.wants(a.weight) {
        let d = e.mul(&g, &xhat)?;
        let d = e.sum_dims(&d, &dims, false)?;
        put(&mut out, a.weight, d)?;
    }
    if c.wants(a.bias) {
        let d = e.sum_dims(&g, &dims, false)?;
        put(&mut out, a.bias, d)?;
    }
    Ok(out)
}

/// The arguments both ops share, by name.
struct BnArgs<'a, T> {
    input: &'a T,
    weight: Option<&'a T>,
    bias: Option<&'a T>,
    running_mean: Option<&'a T>,
    running_var: Option<&'a T>,
    eps: f64,
}

/// Evaluation-mode batch norm as the kernel's affine map in f64:
/// `x * scale + shift`, `scale = weight / sqrt(running_var + eps)`,
/// `shift = bias - running_mean * scale`, cast back. The running statistics are read, not saved.
fn affine_map<E: Emit>(e: &mut E, a: &BnArgs<'_, E::T>) -> Result<E::T> {
    let x = a.input;
    let shape = e.shape(x);
    let dt = e.dtype(x);
    let f64_ = DType::Float64;
    let internal = |what: &str| {
        crate::Error::Graph(format!(
            "internal: evaluation-mode batch_norm without {what}"
        ))
    };
    let rm = a.running_mean.ok_or_else(|| internal("running_mean"))?;
    let rv = a.running_var.ok_or_else(|| internal("running_var"))?;
    let rm = e.to_dtype(rm, f64_)?;
    let rv = e.to_dtype(rv, f64_)?;
    let sd = e.add_s(&rv, a.eps)?;
    let sd = e.unary(Op::Sqrt, &sd)?;
    let scale = match a.weight {
        Some(w) => {
            let w = e.to_dtype(w, f64_)?;
            e.div(&w, &sd)?
        }
        None => e.op(Op::Div, vec![f(1.0), t(&sd)])?,
    };
    let ms = e.mul(&rm, &scale)?;
    let shift = match a.bias {
        Some(b) => {
            let b = e.to_dtype(b, f64_)?;
            e.sub(&b, &ms)?
        }
        None => e.rsub_s(0.0, &ms)?,
    };
    let mut chan = vec![1usize; shape.len()];
    chan[1] = shape[1];
    let scale = e.reshape(&scale, &chan)?;
    let shift = e.reshape(&shift, &chan)?;
    let xf = e.to_dtype(x, f64_)?;
    let y = e.mul(&xf, &scale)?;
    let y = e.add(&y, &shift)?;
    e.to_dtype(&y, dt)
}

/// batch_norm as PyTorch records it: in training `native_batch_norm(...)[0]` (the statistics
/// saved by that node), in evaluation the affine map.
fn batch_norm_parts<E: Emit>(e: &mut E, args: &[Value<E::T>]) -> Result<Option<Vec<E::T>>>
where
    E::T: Facts,
{
    E::T::check(Op::BatchNorm, args)?;
    let a = crate::rules::nn::batch_norm::Args::read(args)?;
    let bn = BnArgs {
        input: a.input,
        weight: a.weight,
        bias: a.bias,
        running_mean: a.running_mean,
        running_var: a.running_var,
        eps: a.eps,
    };
    if !a.training {
        return Ok(Some(vec![affine_map(e, &bn)?]));
    }
    let native = vec![
        t(bn.input),
        opt(bn.weight),
        opt(bn.bias),
        opt(bn.running_mean),
        opt(bn.running_var),
        Value::Bool(true),
        Value::Float(a.momentum),
        Value::Float(a.eps),
    ];
    let mut outs = e.call(Op::NativeBatchNorm, native)?;
    outs.truncate(1);
    Ok(Some(outs))
}

/// native_batch_norm in evaluation mode: the affine map, and PyTorch's empty statistics.
fn native_batch_norm_parts<E: Emit>(e: &mut E, args: &[Value<E::T>]) -> Result<Option<Vec<E::T>>>
where
    E::T: Facts,
{
    E::T::check(Op::NativeBatchNorm, args)?;
    let a = crate::rules::nn::native_batch_norm::Args::read(args)?;
    if a.training {
        return Ok(None);
    }
    let bn = BnArgs {
        input: a.input,
        weight: a.weight,
        bias: a.bias,
        running_mean: a.running_mean,
        running_var: a.running_var,
        eps: a.eps,
    };
    let y = affine_map(e, &bn)?;
    let sd = saved_stats_dtype(e.dtype(a.input), a.weight.map(|w| e.dtype(w)));
    let mean = e.zeros(&[0], sd)?;
    let invstd = e.zeros(&[0], sd)?;
    Ok(Some(vec![y, mean, invstd]))
}

pub(crate) static NATIVE_BATCH_NORM: VjpRule = vjp_rule!(
    "NativeBatchNormBackward0",
    Saves::args_and_outputs(&["input", "weight"], &[1, 2]),
    native_batch_norm,
    differentiable_outputs = 1
);
pub(crate) static BATCH_NORM_PARTS: Composite = composite_rule!(batch_norm_parts);
pub(crate) static NATIVE_BATCH_NORM_PARTS: Composite = composite_rule!(native_batch_norm_parts);
