//! `batch_norm` (training with running-stat updates, and eval) and `group_norm`. Statistics are
//! two-pass in f64; channels (or groups) run in parallel.

use rayon::prelude::*;

use crate::error::bail;
use crate::iter::SendPtr;
use crate::kernels::simd::with_wide;
use crate::layout::{Shaped, numel};
use crate::ops::reduce::sum_f64;
use crate::parallel::{parallel_for, parallel_map};
use crate::{DType, Element, Error, Result, Tensor, TensorMeta};

fn float_only(x: &impl Shaped, kernel: &'static str) -> Result<()> {
    if !x.dtype().is_floating_point() {
        return Err(Error::NotImplementedFor {
            op: kernel,
            dtype: x.dtype().aten_name(),
        });
    }
    Ok(())
}

/// Shape/dtype rule of `batch_norm(input, running_mean, running_var, weight, bias, training)`.
pub fn batch_norm_meta<S: Shaped>(
    x: &S,
    running_mean: Option<&S>,
    running_var: Option<&S>,
    weight: Option<&S>,
    bias: Option<&S>,
    training: bool,
) -> Result<TensorMeta> {
    let stats = (running_mean, running_var);
    let meta = checked_meta(x, stats, weight, bias, training, Error::Runtime)?;
    // F.batch_norm's own check (`native_batch_norm` normalises a single value to zero)
    if training && x.shape()[0] * numel(&x.shape()[2..]) == 1 {
        bail!(
            Value,
            "Expected more than 1 value per channel when training, got input size torch.Size({:?})",
            x.shape()
        );
    }
    Ok(meta)
}

/// The checks both batch norms make, in ATen's order; a missing running statistic in evaluation
/// is `missing`'s kind (`batch_norm`: RuntimeError, `native_batch_norm`: ValueError).
fn checked_meta<S: Shaped>(
    x: &S,
    (running_mean, running_var): (Option<&S>, Option<&S>),
    weight: Option<&S>,
    bias: Option<&S>,
    training: bool,
    missing: fn(String) -> Error,
) -> Result<TensorMeta> {
    if x.ndim() < 2 {
        // ATen reads `input.size(1)` first
        return Err(Error::DimOutOfRange {
            dim: 1,
            min: -(x.ndim().max(1) as i64),
            max: x.ndim().max(1) as i64 - 1,
        });
    }
    let c = x.shape()[1];
    for (name, t) in [
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ] {
        if let Some(t) = t
            && t.numel() != c
        {
            bail!(
                Runtime,
                "{name} should contain {c} elements not {}",
                t.numel()
            );
        }
    }
    if !training {
        for (name, t) in [("running_mean", running_mean), ("running_var", running_var)] {
            if t.is_none() {
                return Err(missing(format!(
                    "{name} must be defined in evaluation mode"
                )));
            }
        }
    }
    float_only(x, "batch_norm")?;
    let format = crate::memory_format::suggested(x);
    Ok(TensorMeta::contiguous(x.dtype(), x.shape()).in_format(format))
}

/// Per-channel mean and biased variance of `x` viewed as `[n, c, s]`.
pub(crate) fn channel_stats<F: Element>(x: &[F], n: usize, c: usize, s: usize) -> Vec<(f64, f64)> {
    // The caller works too (see `crate::parallel`).
    parallel_map(c, |ch| {
        let row = |i: usize| &x[(i * c + ch) * s..(i * c + ch + 1) * s];
        let cnt = (n * s) as f64;
        // Both passes inside `with_wide`, as plain loops: `sum_f64` and `square_dev_sum`
        // are inlined into the wide copy only where no out-of-line iterator adapter sits
        // between (a `map(..).sum()` there compiled its body as SSE2 code, ~10% of W12's
        // training step). Rows are added in order from -0.0, as `Iterator::sum` does.
        with_wide(
            #[inline(always)]
            || {
                let mut total = -0.0;
                for i in 0..n {
                    total += sum_f64(row(i));
                }
                let mean = total / cnt;
                // The squared deviations over eight f64 lanes (one serial chain was bound by
                // the add's latency), each plane's lanes folded pairwise and the planes added
                // in order.
                let mut ss = -0.0;
                for i in 0..n {
                    ss += square_dev_sum(row(i), mean);
                }
                (mean, ss / cnt)
            },
        )
    })
}

/// The sum of `(x - mean)^2` over `xs`, element `k` in lane `k % 8`, the lanes folded pairwise.
#[inline(always)]
fn square_dev_sum<F: Element>(xs: &[F], mean: f64) -> f64 {
    let mut acc = [0f64; 8];
    let chunks = xs.chunks_exact(8);
    let tail = chunks.remainder();
    for c in chunks {
        for k in 0..8 {
            let d = c[k].to_f64() - mean;
            acc[k] += d * d;
        }
    }
    for (k, v) in tail.iter().enumerate() {
        let d = v.to_f64() - mean;
        acc[k] += d * d;
    }
    ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
}

/// `y = x * scale[c] + shift[c]` over `[n, c, s]` (`scale`, `shift` folded per channel), in
/// f64 and rounded once to the output type (the wide tier: same operations, no FMA).
fn affine<F: Element>(x: &Tensor, out: &Tensor, n: usize, c: usize, s: usize, coef: &[(f64, f64)]) {
    per_channel(
        x,
        out,
        (n, c, s),
        coef,
        #[inline(always)]
        |v: F, (a, b): (f64, f64)| F::from_f64(v.to_f64() * a + b),
    );
}

/// Runs `y = apply(x, coef[c])` over every element of the contiguous `[n, c, s]` tensors, planes in
/// parallel, each plane's loop in the wide tier (`apply` must be `#[inline(always)]` to be
/// compiled into it).
fn per_channel<F: Element, C: Copy + Sync>(
    x: &Tensor,
    out: &Tensor,
    (n, c, s): (usize, usize, usize),
    coef: &[C],
    apply: impl Fn(F, C) -> F + Sync,
) {
    let (px, po) = (SendPtr(x.data_ptr::<F>()), SendPtr(out.data_ptr::<F>()));
    // Runs of planes per task: one shared-counter claim per plane cost more than a small
    // plane's work (W12's are 256 elements).
    let planes = n * c;
    let per = planes.div_ceil(32).max(1);
    parallel_for(planes.div_ceil(per), |t| {
        for p in t * per..((t + 1) * per).min(planes) {
            let k = coef[p % c];
            // SAFETY: plane `p` of two contiguous [n, c, s] tensors; planes are disjoint.
            let (src, dst) = unsafe {
                (
                    std::slice::from_raw_parts(px.at((p * s) as isize), s),
                    std::slice::from_raw_parts_mut(po.at((p * s) as isize), s),
                )
            };
            with_wide(
                #[inline(always)]
                || {
                    for (o, &v) in dst.iter_mut().zip(src) {
                        *o = apply(v, k);
                    }
                },
            );
        }
    });
}

/// `batch_norm`: normalises each channel by batch statistics (`training`, also updating the
/// running stats in place with `momentum`, the variance unbiased) or by the running stats.
#[allow(clippy::too_many_arguments, reason = "PyTorch's batch_norm arguments")]
pub fn batch_norm(
    x: &Tensor,
    running_mean: Option<&Tensor>,
    running_var: Option<&Tensor>,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    training: bool,
    momentum: f64,
    eps: f64,
) -> Result<Tensor> {
    let meta = batch_norm_meta(x, running_mean, running_var, weight, bias, training)?;
    let args = (running_mean, running_var, weight, bias);
    Ok(normalized(x, &meta, args, training, momentum, eps)?.0)
}

/// The dtype of `native_batch_norm`'s saved statistics from the input's and the weight's: the
/// parameters' where a reduced-precision input has them (PyTorch's mixed-type batch norm), the
/// input's otherwise.
pub fn saved_stats_dtype(x: DType, weight: Option<DType>) -> DType {
    match weight {
        Some(w) if x.compute_dtype() != x => w,
        _ => x,
    }
}

/// Shape/dtype rules of `native_batch_norm(input, weight, bias, running_mean, running_var,
/// training)`: [`batch_norm_meta`]'s output, then `save_mean` and `save_invstd` (`[C]` in
/// training, `[0]` in evaluation, as PyTorch's CPU kernel).
pub fn native_batch_norm_meta<S: Shaped>(
    x: &S,
    weight: Option<&S>,
    bias: Option<&S>,
    running_mean: Option<&S>,
    running_var: Option<&S>,
    training: bool,
) -> Result<[TensorMeta; 3]> {
    let stats = (running_mean, running_var);
    let out = checked_meta(x, stats, weight, bias, training, Error::Value)?;
    let c = if training { x.shape()[1] } else { 0 };
    let sd = saved_stats_dtype(x.dtype(), weight.map(Shaped::dtype));
    let stat = TensorMeta::contiguous(sd, &[c]);
    Ok([out, stat.clone(), stat])
}

/// `native_batch_norm`: [`batch_norm`] (note PyTorch's argument order: the parameters before the
/// running statistics) that also returns the batch mean and `1 / sqrt(var + eps)` it normalised
/// by, which training-mode autograd saves for `native_batch_norm_backward` instead of reading
/// the input twice more to recompute them.
#[allow(
    clippy::too_many_arguments,
    reason = "PyTorch's native_batch_norm arguments"
)]
pub fn native_batch_norm(
    x: &Tensor,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    running_mean: Option<&Tensor>,
    running_var: Option<&Tensor>,
    training: bool,
    momentum: f64,
    eps: f64,
) -> Result<[Tensor; 3]> {
    let metas = native_batch_norm_meta(x, weight, bias, running_mean, running_var, training)?;
    let args = (running_mean, running_var, weight, bias);
    let (out, stats) = normalized(x, &metas[0], args, training, momentum, eps)?;
    let (mean, invstd): (Vec<f64>, Vec<f64>) = if training {
        stats
            .iter()
            .map(|&(m, v)| (m, 1.0 / (v + eps).sqrt()))
            .unzip()
    } else {
        (vec![], vec![])
    };
    let stat = |v: Vec<f64>| -> Result<Tensor> {
        Ok(Tensor::from_vec(v, &metas[1].shape)?.to_dtype(metas[1].dtype))
    };
    Ok([out, stat(mean)?, stat(invstd)?])
}

/// The optional tensors of `batch_norm`, in its order: running mean and variance, weight, bias.
type NormArgs<'a> = (
    Option<&'a Tensor>,
    Option<&'a Tensor>,
    Option<&'a Tensor>,
    Option<&'a Tensor>,
);

/// Both ops' forward, after their checks (`meta`, the output's): the output, and per channel
/// the `(mean, biased variance)` it used.
fn normalized(
    x: &Tensor,
    meta: &TensorMeta,
    (running_mean, running_var, weight, bias): NormArgs<'_>,
    training: bool,
    momentum: f64,
    eps: f64,
) -> Result<(Tensor, Vec<(f64, f64)>)> {
    // f32 and f64 are read and written in place of an f64 copy: the statistics and the affine
    // map are computed in f64 from the exactly widened values and rounded once, as the copy's
    // path did (same bits), without the two conversions over the whole tensor.
    let (xc, run): (Tensor, BatchNormIn) = match x.dtype() {
        DType::Float32 => (x.contiguous(), batch_norm_in::<f32>),
        DType::Float64 => (x.contiguous(), batch_norm_in::<f64>),
        _ => (
            x.to_dtype(DType::Float64).contiguous(),
            batch_norm_in::<f64>,
        ),
    };
    let (out, stats) = run(
        &xc,
        running_mean,
        running_var,
        weight,
        bias,
        training,
        momentum,
        eps,
    )?;
    Ok((out.to_dtype(meta.dtype).laid_out_as(meta), stats))
}

/// [`batch_norm_in`] for one element type.
type BatchNormIn = fn(
    &Tensor,
    Option<&Tensor>,
    Option<&Tensor>,
    Option<&Tensor>,
    Option<&Tensor>,
    bool,
    f64,
    f64,
) -> Result<(Tensor, Vec<(f64, f64)>)>;

/// [`batch_norm`] on a contiguous tensor of element type `F`, computed in f64; the output is `F`,
/// returned with the per-channel `(mean, variance)` it normalised by.
#[allow(clippy::too_many_arguments, reason = "PyTorch's batch_norm arguments")]
fn batch_norm_in<F: Element>(
    xc: &Tensor,
    running_mean: Option<&Tensor>,
    running_var: Option<&Tensor>,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    training: bool,
    momentum: f64,
    eps: f64,
) -> Result<(Tensor, Vec<(f64, f64)>)> {
    let (n, c) = (xc.shape()[0], xc.shape()[1]);
    let s = numel(&xc.shape()[2..]);
    // SAFETY: `xc` is a contiguous `F` tensor with n * c * s elements, only read here.
    let data = unsafe { std::slice::from_raw_parts(xc.data_ptr::<F>(), n * c * s) };
    let stats: Vec<(f64, f64)> = if training {
        let st = channel_stats(data, n, c, s);
        let cnt = (n * s) as f64;
        if let (Some(rm), Some(rv)) = (running_mean, running_var) {
            let upd = |t: &Tensor, f: &dyn Fn(usize, f64) -> f64| -> Result<()> {
                let old = t.to_vec::<f64>();
                let new: Vec<f64> = old.iter().enumerate().map(|(i, &o)| f(i, o)).collect();
                t.copy_(&Tensor::from_vec(new, t.shape())?)
            };
            upd(rm, &|i, o| (1.0 - momentum) * o + momentum * st[i].0)?;
            upd(rv, &|i, o| {
                (1.0 - momentum) * o + momentum * st[i].1 * cnt / (cnt - 1.0)
            })?;
        }
        st
    } else {
        let rm = running_mean
            .expect("invariant: checked by the meta rule")
            .to_vec::<f64>();
        let rv = running_var
            .expect("invariant: checked by the meta rule")
            .to_vec::<f64>();
        rm.into_iter().zip(rv).collect()
    };
    let out = Tensor::empty(xc.shape(), F::DTYPE);
    if !training && F::DTYPE == DType::Float32 {
        // Two roundings, no FMA, as the JIT's vector code.
        per_channel(
            xc,
            &out,
            (n, c, s),
            &eval_coefficients_f32(&stats, weight, bias, eps),
            #[inline(always)]
            |v: f32, (a, b): (f32, f32)| v * a + b,
        );
        return Ok((out, stats));
    }
    let w = weight.map(|t| t.to_vec::<f64>());
    let b = bias.map(|t| t.to_vec::<f64>());
    let coef: Vec<(f64, f64)> = (0..c)
        .map(|ch| {
            let (mean, var) = stats[ch];
            let scale = w.as_ref().map_or(1.0, |w| w[ch]) / (var + eps).sqrt();
            (scale, b.as_ref().map_or(0.0, |b| b[ch]) - mean * scale)
        })
        .collect();
    affine::<F>(xc, &out, n, c, s, &coef);
    Ok((out, stats))
}

/// Evaluation mode's per-channel `(alpha, beta)` for an f32 input, as ATen's CPU kernel
/// (`batch_norm_cpu_collect_linear_and_constant_terms`) computes them in float:
/// `invstd = 1 / sqrt(var + (float)eps)`, `alpha = invstd * weight`,
/// `beta = bias - mean * alpha`. The graph decomposition (`rules/nn.rs`) emits the same
/// operations, so compiled code stays bitwise eager's while running in f32 vector code.
fn eval_coefficients_f32(
    stats: &[(f64, f64)],
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> Vec<(f32, f32)> {
    let w = weight.map(|t| t.to_vec::<f32>());
    let b = bias.map(|t| t.to_vec::<f32>());
    let eps = eps as f32;
    stats
        .iter()
        .enumerate()
        .map(|(ch, &(mean, var))| {
            // The running statistics are f32 for an f32 input: these casts are exact.
            let invstd = 1.0 / (var as f32 + eps).sqrt();
            let alpha = w.as_ref().map_or(invstd, |w| invstd * w[ch]);
            (
                alpha,
                b.as_ref().map_or(0.0, |b| b[ch]) - mean as f32 * alpha,
            )
        })
        .collect()
}

/// Shape/dtype rule of `group_norm(input, num_groups, weight, bias)`.
pub fn group_norm_meta<S: Shaped>(
    x: &S,
    groups: i64,
    weight: Option<&S>,
    bias: Option<&S>,
) -> Result<TensorMeta> {
    if x.ndim() < 2 {
        bail!(
            Runtime,
            "Expected at least 2 dimensions for input tensor but received {}",
            x.ndim()
        );
    }
    let c = x.shape()[1];
    if groups <= 0 || !c.is_multiple_of(groups as usize) {
        bail!(
            Runtime,
            "Expected number of channels in input to be divisible by num_groups, but got input of shape {:?} and num_groups={groups}",
            x.shape()
        );
    }
    for (name, t) in [("weight", weight), ("bias", bias)] {
        if let Some(t) = t
            && (t.ndim() != 1 || t.numel() != c)
        {
            bail!(
                Runtime,
                "Expected {name} to be a vector of size equal to the number of channels in input, but got {name} of shape {:?} and input of shape {:?}",
                t.shape(),
                x.shape()
            );
        }
    }
    float_only(x, "GroupNormKernelImpl")?;
    Ok(TensorMeta::contiguous(x.dtype(), x.shape()))
}

/// `group_norm`: each sample's channels split into `groups`; each group normalised by its own
/// mean and biased variance, then the per-channel affine.
pub fn group_norm(
    x: &Tensor,
    groups: i64,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> Result<Tensor> {
    let meta = group_norm_meta(x, groups, weight, bias)?;
    let (n, c) = (x.shape()[0], x.shape()[1]);
    let g = groups as usize;
    let s = numel(&x.shape()[2..]);
    let xc = x.to_dtype(DType::Float64).contiguous();
    let per = c / g * s;
    // SAFETY: `xc` is a contiguous f64 tensor with n * c * s elements, only read here.
    let data = unsafe { std::slice::from_raw_parts(xc.data_ptr::<f64>(), n * c * s) };
    let stats: Vec<(f64, f64)> = (0..n * g)
        .into_par_iter()
        .map(|k| {
            let r = &data[k * per..(k + 1) * per];
            let mean = sum_f64(r) / per as f64;
            let var = r.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / per as f64;
            (mean, var)
        })
        .collect();
    let w = weight.map(|t| t.to_vec::<f64>());
    let b = bias.map(|t| t.to_vec::<f64>());
    // Fold into per-(sample, channel) coefficients and reuse the [n*c, 1, s] affine kernel.
    let coef: Vec<(f64, f64)> = (0..n * c)
        .map(|p| {
            let (i, ch) = (p / c, p % c);
            let (mean, var) = stats[i * g + ch / (c / g)];
            let scale = w.as_ref().map_or(1.0, |w| w[ch]) / (var + eps).sqrt();
            (scale, b.as_ref().map_or(0.0, |b| b[ch]) - mean * scale)
        })
        .collect();
    let out = Tensor::empty(x.shape(), DType::Float64);
    if n * c > 0 {
        affine::<f64>(&xc, &out, 1, n * c, s, &coef);
    }
    Ok(out.to_dtype(meta.dtype))
}
