//! `layer_norm`, `batch_norm`, `group_norm`, `embedding`, `dropout`, `pad`.

use rynamo_tensor::ops::pad::PadMode;
use rynamo_tensor::ops::{self, index, nn, norm};
use rynamo_tensor::{DType, Tensor, random};

use crate::autograd::emit::{Emit, t as arg};
use crate::autograd::vjp::batch_norm as vjp_bn;
use crate::autograd::vjp::nn as vjp_nn;
use crate::def::{decomposition, op};
use crate::samples::{f32s, fx, pos_args, t, with_kw};
use crate::{Op, Result, Value};

op! {
    layer_norm = "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05) -> Tensor",
        Extern, [FUNCTION NN_FUNCTIONAL];
    meta(_, a) { Ok(vec![nn::layer_norm_meta(a.input, a.normalized_shape, a.weight, a.bias)?]) }
    eager(_, a) {
        Ok(vec![nn::layer_norm(a.input, a.normalized_shape, a.weight, a.bias, a.eps)?])
    }
    with .vjp(&vjp_nn::LAYER_NORM).sample(|| {
        pos_args(vec![t(fx::x()), Value::IntList(vec![3]), t(fx::y()), t(fx::y())])
    })
    .decompose(decomposition!(super::layer_norm_decomposition))
}

op! {
    embedding = "embedding(Tensor input, Tensor weight, int? padding_idx=None) -> Tensor", Extern,
        [NN_FUNCTIONAL];
    meta(_, a) { Ok(vec![index::embedding_meta(a.input, a.weight)?]) }
    eager(_, a) { Ok(vec![index::embedding(a.input, a.weight)?]) }
    with .vjp(&vjp_nn::EMBEDDING).sample(|| pos_args(vec![t(fx::longs(&[1, 0, 1])), t(fx::x())]))
}

op! {
    dropout = "dropout(Tensor input, float p=0.5, bool training=True) -> Tensor", Extern,
        [NN_FUNCTIONAL RANDOM];
    meta(_, a) { Ok(vec![random::dropout_meta(a.input, a.p)?]) }
    eager(_, a) { Ok(vec![random::dropout(a.input, a.p, a.training, None)?]) }
    with .recorded_as(&vjp_nn::DROPOUT_PARTS).vjp(&vjp_nn::DROPOUT).sample(|| pos_args(vec![t(fx::x()), Value::Float(0.3)]))
}

op! {
    batch_norm = "batch_norm(Tensor input, Tensor? running_mean, Tensor? running_var, Tensor? weight=None, Tensor? bias=None, bool training=False, float momentum=0.1, float eps=1e-05) -> Tensor",
        Extern, [NN_FUNCTIONAL MUTATES_ARGS];
    meta(_, a) {
        Ok(vec![norm::batch_norm_meta(
            a.input,
            a.running_mean,
            a.running_var,
            a.weight,
            a.bias,
            a.training,
        )?])
    }
    eager(_, a) {
        Ok(vec![norm::batch_norm(
            a.input,
            a.running_mean,
            a.running_var,
            a.weight,
            a.bias,
            a.training,
            a.momentum,
            a.eps,
        )?])
    }
    with .recorded_as(&vjp_bn::BATCH_NORM_PARTS).sample(|| {
        let stats = vec![
            t(fx::img()),
            t(Tensor::zeros(&[4], DType::Float32)),
            t(Tensor::ones(&[4], DType::Float32)),
        ];
        with_kw(stats, "training", Value::Bool(true))
    })
    .decompose(decomposition!(super::batch_norm_decomposition))
}

op! {
    native_batch_norm = "native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
        Extern, [FUNCTION MUTATES_ARGS];
    meta(_, a) {
        Ok(norm::native_batch_norm_meta(
            a.input,
            a.weight,
            a.bias,
            a.running_mean,
            a.running_var,
            a.training,
        )?
        .to_vec())
    }
    eager(_, a) {
        Ok(norm::native_batch_norm(
            a.input,
            a.weight,
            a.bias,
            a.running_mean,
            a.running_var,
            a.training,
            a.momentum,
            a.eps,
        )?
        .to_vec())
    }
    with .recorded_as(&vjp_bn::NATIVE_BATCH_NORM_PARTS).vjp(&vjp_bn::NATIVE_BATCH_NORM).sample(|| {
        pos_args(vec![
            t(fx::img()),
            t(f32s(&[4])),
            t(f32s(&[4])),
            t(Tensor::zeros(&[4], DType::Float32)),
            t(Tensor::ones(&[4], DType::Float32)),
            Value::Bool(true),
            Value::Float(0.1),
            Value::Float(1e-5),
        ])
    })
}

op! {
    group_norm = "group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05) -> Tensor",
        Extern, [FUNCTION NN_FUNCTIONAL];
    meta(_, a) { Ok(vec![norm::group_norm_meta(a.input, a.num_groups, a.weight, a.bias)?]) }
    eager(_, a) { Ok(vec![norm::group_norm(a.input, a.num_groups, a.weight, a.bias, a.eps)?]) }
    with .vjp(&vjp_nn::GROUP_NORM).sample(|| pos_args(vec![t(fx::img()), Value::Int(2)]))
}

op! {
    pad = "pad(Tensor input, int[] pad, str mode='constant', float? value=None) -> Tensor", Extern,
        [NN_FUNCTIONAL];
    meta(_, a) { Ok(vec![ops::pad::pad_meta(a.input, a.pad, PadMode::parse(a.mode)?)?]) }
    eager(_, a) { Ok(vec![ops::pad::pad(a.input, a.pad, PadMode::parse(a.mode)?, a.value)?]) }
    // Complex: the kernel fills and copies whole elements; the constant mode's formula is a
    // pad (linear), the other modes' `scatter_add` refuses complex gradients.
    with .complex_grad().vjp(&vjp_nn::PAD).sample(|| {
        let args = vec![t(fx::img()), Value::IntList(vec![1, 2, 2, 1])];
        with_kw(args, "mode", Value::Str("reflect".into()))
    })
}

// === Decompositions (the JIT fuses their parts) ===

/// `layer_norm` as mean / variance / affine over the normalized dims (floating point only).
fn layer_norm_decomposition<E: Emit>(e: &mut E, args: &[Value<E::T>]) -> Result<Option<E::T>> {
    let a = layer_norm::Args::read(args)?;
    let x = a.input;
    let m = e.meta(x);
    if !m.dtype.is_floating_point() || m.shape.is_empty() {
        return Ok(None);
    }
    let k = a.normalized_shape.len() as i64;
    let dims: Vec<i64> = (-k..0).collect();
    let mean_of = |e: &mut E, v: &E::T| {
        e.op(
            Op::Mean,
            vec![arg(v), Value::IntList(dims.clone()), Value::Bool(true)],
        )
    };
    let mean = mean_of(e, x)?;
    let d = e.sub(x, &mean)?;
    let sq = e.mul(&d, &d)?;
    let var = mean_of(e, &sq)?;
    let ve = e.add_s(&var, a.eps)?;
    let rstd = e.unary(Op::Rsqrt, &ve)?;
    let mut y = e.mul(&d, &rstd)?;
    if let Some(w) = a.weight {
        y = e.mul(&y, w)?;
    }
    if let Some(b) = a.bias {
        y = e.add(&y, b)?;
    }
    Ok(Some(y))
}

/// `batch_norm` in evaluation mode (running statistics, nothing written) as eager computes it:
/// for f32, ATen's float formula (`alpha = invstd * w`, `beta = b - mean * alpha`,
/// `x * alpha + beta`); for f64, per channel `scale = w / sqrt(var + eps)` (`1 / sqrt` without a weight) and
/// `shift = b - mean * scale` (`0 - ...` without a bias), then `x * scale + shift` rounded to the
/// input dtype; exact operations in eager's order, so bitwise eager's. Training mode updates the
/// running statistics in place and keeps the eager node.
fn batch_norm_decomposition<E: Emit>(e: &mut E, args: &[Value<E::T>]) -> Result<Option<E::T>> {
    let a = batch_norm::Args::read(args)?;
    let x = a.input;
    let xm = e.meta(x);
    let (dt, shape) = (xm.dtype, xm.shape);
    if a.training || !matches!(dt, DType::Float32 | DType::Float64) || shape.len() < 2 {
        return Ok(None);
    }
    let (Some(mean), Some(var)) = (a.running_mean, a.running_var) else {
        return Ok(None);
    };
    // [c] -> [c, 1, ...]: broadcast over the dims after the channel.
    let per_channel: Vec<i64> = std::iter::once(shape[1] as i64)
        .chain(std::iter::repeat_n(1, shape.len() - 2))
        .collect();
    let view =
        |e: &mut E, v: &E::T| e.op(Op::View, vec![arg(v), Value::IntList(per_channel.clone())]);
    if dt == DType::Float32 {
        // ATen's float formula (see `norm::eval_coefficients_f32`): every op in f32, so the
        // JIT runs the per-element part as f32 vector code.
        let f32_of = |e: &mut E, v: &E::T| e.to_dtype(v, DType::Float32);
        let (mean, var) = (f32_of(e, mean)?, f32_of(e, var)?);
        let ve = e.add_s(&var, a.eps)?;
        let sd = e.unary(Op::Sqrt, &ve)?;
        let invstd = e.unary(Op::Reciprocal, &sd)?;
        let alpha = match a.weight {
            Some(w) => {
                let w = f32_of(e, w)?;
                e.mul(&invstd, &w)?
            }
            None => invstd,
        };
        let ms = e.mul(&mean, &alpha)?;
        let b = match a.bias {
            Some(b) => f32_of(e, b)?,
            None => e.zeros_like(&ms)?,
        };
        let beta = e.sub(&b, &ms)?;
        let (alpha, beta) = (view(e, &alpha)?, view(e, &beta)?);
        let y = e.mul(x, &alpha)?;
        return Ok(Some(e.add(&y, &beta)?));
    }
    let f64_of = |e: &mut E, v: &E::T| e.to_dtype(v, DType::Float64);
    let (mean, var) = (f64_of(e, mean)?, f64_of(e, var)?);
    let w = a.weight.map(|w| f64_of(e, w)).transpose()?;
    let b = a.bias.map(|b| f64_of(e, b)).transpose()?;
    let ve = e.add_s(&var, a.eps)?;
    let sd = e.unary(Op::Sqrt, &ve)?;
    let scale = match w {
        Some(w) => e.div(&w, &sd)?,
        None => e.unary(Op::Reciprocal, &sd)?,
    };
    let ms = e.mul(&mean, &scale)?;
    let b = match b {
        Some(b) => b,
        None => e.zeros_like(&ms)?,
    };
    let shift = e.sub(&b, &ms)?;
    let (scale, shift) = (view(e, &scale)?, view(e, &shift)?);
    let x = f64_of(e, x)?;
    let y = e.mul(&x, &scale)?;
    let y = e.add(&y, &shift)?;
    Ok(Some(e.to_dtype(&y, dt)?))
}
