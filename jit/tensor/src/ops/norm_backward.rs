//! Backward kernels of `layer_norm` and of `batch_norm` (PyTorch's `native_layer_norm_backward` /
//! `native_batch_norm_backward`). Layer norm recomputes its row statistics from the saved input
//! (the row is in cache anyway); batch norm reads the forward's saved per-channel mean and
//! inverse standard deviation (`batch_norm_backward` recomputes them, one more pass over the
//! input). All return `(d_input, d_weight, d_bias)`:
//! `d_input = rstd * (g w - mean(g w) - x_hat * mean(g w x_hat))`, `d_weight = sum(g x_hat)`,
//! `d_bias = sum(g)`, the sums over everything but the normalized (layer) or channel (batch)
//! dims. Elementwise math in the compute dtype, sums in f64.

use rayon::prelude::*;

use crate::error::bail;
use crate::iter::SendPtr;
use crate::kernels::math::Flt;
use crate::kernels::simd::with_wide;
use crate::layout::{Shaped, numel};
use crate::ops::norm::channel_stats;
use crate::ops::reduce::sum_f64;
use crate::parallel::parallel_map;
use crate::{DType, Element, Error, Result, Tensor, TensorMeta};

fn float_check(x: &impl Shaped, op: &'static str) -> Result<()> {
    if !x.dtype().is_floating_point() {
        return Err(Error::NotImplementedFor {
            op,
            dtype: x.dtype().aten_name(),
        });
    }
    Ok(())
}

fn same_shape(g: &impl Shaped, x: &impl Shaped, op: &str) -> Result<()> {
    if g.shape() != x.shape() {
        bail!(
            Runtime,
            "{op}: grad_out {:?} and input {:?} differ in shape",
            g.shape(),
            x.shape()
        );
    }
    Ok(())
}

/// Shape/dtype rules of `layer_norm_backward`: the input's, then the normalized shape twice.
pub fn layer_norm_backward_meta<S: Shaped>(
    g: &S,
    x: &S,
    normalized_shape: &[i64],
    weight: Option<&S>,
) -> Result<[TensorMeta; 3]> {
    let m = crate::ops::nn::layer_norm_meta(x, normalized_shape, weight, None)?;
    same_shape(g, x, "layer_norm_backward")?;
    float_check(g, "layer_norm_backward")?;
    let ns = &x.shape()[x.ndim() - normalized_shape.len()..];
    let p = TensorMeta::contiguous(m.dtype, ns);
    Ok([TensorMeta::contiguous(g.dtype(), x.shape()), p.clone(), p])
}

/// `layer_norm_backward(grad_out, input, normalized_shape, weight, eps)`.
pub fn layer_norm_backward(
    g: &Tensor,
    x: &Tensor,
    normalized_shape: &[i64],
    weight: Option<&Tensor>,
    eps: f64,
) -> Result<[Tensor; 3]> {
    let metas = layer_norm_backward_meta(g, x, normalized_shape, weight)?;
    let inner = numel(&metas[1].shape);
    let c = x.dtype().compute_dtype();
    let prep = |t: &Tensor| t.to_dtype(c).contiguous();
    let (gc, xc, wc) = (prep(g), prep(x), weight.map(prep));
    let (dx, dw, db) = match c {
        DType::Float32 => ln_backward::<f32>(&gc, &xc, wc.as_ref(), inner, eps),
        DType::Float64 => ln_backward::<f64>(&gc, &xc, wc.as_ref(), inner, eps),
        _ => unreachable!("invariant: float compute dtype"),
    };
    let ps = &metas[1].shape;
    Ok([
        dx.to_dtype(metas[0].dtype),
        Tensor::from_vec(dw, ps)?.to_dtype(metas[1].dtype),
        Tensor::from_vec(db, ps)?.to_dtype(metas[2].dtype),
    ])
}

/// Rows per parallel task: enough work per task, a few tasks per thread.
fn rows_per_task(rows: usize, inner: usize) -> usize {
    let threads = rayon::current_num_threads().max(1);
    let by_threads = rows.div_ceil(threads * 4).max(1);
    let by_size = (16384 / inner.max(1)).max(1);
    by_threads.max(by_size.min(rows.max(1)))
}

fn ln_backward<F: Flt>(
    g: &Tensor,
    x: &Tensor,
    w: Option<&Tensor>,
    inner: usize,
    eps: f64,
) -> (Tensor, Vec<f64>, Vec<f64>) {
    let n = x.numel();
    let dx = Tensor::empty(x.shape(), F::DTYPE);
    if n == 0 || inner == 0 {
        return (dx, vec![0.0; inner], vec![0.0; inner]);
    }
    // SAFETY: contiguous tensors of F with the stated lengths; `dx` is fresh.
    let (gs, xs, ws, dxs) = unsafe {
        (
            std::slice::from_raw_parts(g.data_ptr::<F>(), n),
            std::slice::from_raw_parts(x.data_ptr::<F>(), n),
            w.map(|w| std::slice::from_raw_parts(w.data_ptr::<F>(), inner)),
            std::slice::from_raw_parts_mut(dx.data_ptr::<F>(), n),
        )
    };
    let rows = n / inner;
    let chunk = rows_per_task(rows, inner) * inner;
    // One task: its rows' input gradients, and its partial weight/bias sums.
    let task = |(xr, (gr, dr)): (&[F], (&[F], &mut [F]))| {
        let mut dw = vec![0.0f64; inner];
        let mut db = vec![0.0f64; inner];
        let mut gw = vec![F::zero(); inner];
        for ((a, gv), o) in xr
            .chunks(inner)
            .zip(gr.chunks(inner))
            .zip(dr.chunks_mut(inner))
        {
            // the forward's statistics, computed the same way
            let mean = sum_f64(a) / inner as f64;
            let var = a
                .iter()
                .map(|v| (Element::to_f64(*v) - mean).powi(2))
                .sum::<f64>()
                / inner as f64;
            let rstd = 1.0 / (var + eps).sqrt();
            let (m, r) = (F::c(mean), F::c(rstd));
            let (mut s1, mut s2) = (0.0f64, 0.0f64);
            for i in 0..inner {
                let xh = (a[i] - m) * r;
                let gi = gv[i];
                dw[i] += Element::to_f64(gi * xh);
                db[i] += Element::to_f64(gi);
                let gwi = match ws {
                    Some(ws) => gi * ws[i],
                    None => gi,
                };
                gw[i] = gwi;
                s1 += Element::to_f64(gwi);
                s2 += Element::to_f64(gwi * xh);
            }
            let (m1, m2) = (F::c(s1 / inner as f64), F::c(s2 / inner as f64));
            for i in 0..inner {
                let xh = (a[i] - m) * r;
                o[i] = r * (gw[i] - m1 - xh * m2);
            }
        }
        (dw, db)
    };
    let add = |(mut a, mut b): (Vec<f64>, Vec<f64>), (c, d): (Vec<f64>, Vec<f64>)| {
        a.iter_mut().zip(c).for_each(|(x, y)| *x += y);
        b.iter_mut().zip(d).for_each(|(x, y)| *x += y);
        (a, b)
    };
    let (dw, db) = if n >= crate::iter::PAR_THRESHOLD {
        // Partials collected in chunk order and summed in that order: a reduce tree would
        // depend on rayon's scheduling, and the weight gradients would differ between runs.
        xs.par_chunks(chunk)
            .zip(gs.par_chunks(chunk).zip(dxs.par_chunks_mut(chunk)))
            .map(task)
            .collect::<Vec<_>>()
            .into_iter()
            .fold((vec![0.0; inner], vec![0.0; inner]), add)
    } else {
        xs.chunks(chunk)
            .zip(gs.chunks(chunk).zip(dxs.chunks_mut(chunk)))
            .map(task)
            .fold((vec![0.0; inner], vec![0.0; inner]), add)
    };
    (dx, dw, db)
}

/// Shape/dtype rules of `batch_norm_backward`: the input's, then `[C]` twice.
pub fn batch_norm_backward_meta<S: Shaped>(
    g: &S,
    x: &S,
    weight: Option<&S>,
) -> Result<[TensorMeta; 3]> {
    crate::ops::norm::batch_norm_meta(x, None, None, weight, None, true)?;
    same_shape(g, x, "batch_norm_backward")?;
    float_check(g, "batch_norm_backward")?;
    let p = TensorMeta::contiguous(weight.map_or(x.dtype(), Shaped::dtype), &[x.shape()[1]]);
    Ok([TensorMeta::contiguous(g.dtype(), x.shape()), p.clone(), p])
}

/// `batch_norm_backward(grad_out, input, weight, eps)` of training-mode batch norm, the batch
/// statistics recomputed from the input ([`native_batch_norm_backward`] reads the forward's).
pub fn batch_norm_backward(
    g: &Tensor,
    x: &Tensor,
    weight: Option<&Tensor>,
    eps: f64,
) -> Result<[Tensor; 3]> {
    let metas = batch_norm_backward_meta(g, x, weight)?;
    let xc = x.to_dtype(x.dtype().compute_dtype()).contiguous();
    let stats: Vec<(f64, f64)> = match xc.dtype() {
        DType::Float32 => batch_stats::<f32>(&xc),
        DType::Float64 => batch_stats::<f64>(&xc),
        _ => unreachable!("invariant: float compute dtype"),
    }
    .into_iter()
    .map(|(mean, var)| (mean, 1.0 / (var + eps).sqrt()))
    .collect();
    bn_backward_with(g, &xc, weight, &stats, true, metas)
}

/// [`channel_stats`] of a contiguous `[n, c, ...]` tensor of `F`.
fn batch_stats<F: Element>(x: &Tensor) -> Vec<(f64, f64)> {
    let (n, c) = (x.shape()[0], x.shape()[1]);
    let s = numel(&x.shape()[2..]);
    // SAFETY: contiguous tensor of F with n * c * s elements, only read.
    let xs = unsafe { std::slice::from_raw_parts(x.data_ptr::<F>(), n * c * s) };
    channel_stats(xs, n, c, s)
}

/// Shape/dtype rules of `native_batch_norm_backward`: [`batch_norm_backward_meta`]'s, with the
/// statistics it reads checked (the forward's `save_mean`/`save_invstd` in training, the
/// running statistics in evaluation).
#[allow(
    clippy::too_many_arguments,
    reason = "PyTorch's native_batch_norm_backward arguments"
)]
pub fn native_batch_norm_backward_meta<S: Shaped>(
    g: &S,
    x: &S,
    weight: Option<&S>,
    running_mean: Option<&S>,
    running_var: Option<&S>,
    save_mean: Option<&S>,
    save_invstd: Option<&S>,
    train: bool,
) -> Result<[TensorMeta; 3]> {
    let metas = batch_norm_backward_meta(g, x, weight)?;
    let ch = x.shape()[1];
    let (names, stats) = if train {
        (["save_mean", "save_invstd"], [save_mean, save_invstd])
    } else {
        (["running_mean", "running_var"], [running_mean, running_var])
    };
    for (name, t) in names.into_iter().zip(stats) {
        match t {
            None => bail!(
                Runtime,
                "native_batch_norm_backward: {name} must be defined when train={}",
                if train { "True" } else { "False" }
            ),
            Some(t) if t.numel() != ch => bail!(
                Runtime,
                "native_batch_norm_backward: {name} should contain {ch} elements not {}",
                t.numel()
            ),
            Some(t) => float_check(t, "native_batch_norm_backward")?,
        }
    }
    Ok(metas)
}

/// `native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean,
/// save_invstd, train, eps)`: in training the statistics are the forward's saved mean and
/// inverse standard deviation (nothing recomputed); in evaluation the running statistics,
/// which are constants (`d_input = g * weight * invstd`). PyTorch's `output_mask` is not taken:
/// all three gradients are returned.
#[allow(
    clippy::too_many_arguments,
    reason = "PyTorch's native_batch_norm_backward arguments"
)]
pub fn native_batch_norm_backward(
    g: &Tensor,
    x: &Tensor,
    weight: Option<&Tensor>,
    running_mean: Option<&Tensor>,
    running_var: Option<&Tensor>,
    save_mean: Option<&Tensor>,
    save_invstd: Option<&Tensor>,
    train: bool,
    eps: f64,
) -> Result<[Tensor; 3]> {
    let metas = native_batch_norm_backward_meta(
        g,
        x,
        weight,
        running_mean,
        running_var,
        save_mean,
        save_invstd,
        train,
    )?;
    let vec = |t: Option<&Tensor>| {
        t.expect("invariant: checked by the meta rule")
            .to_vec::<f64>()
    };
    let stats: Vec<(f64, f64)> = if train {
        vec(save_mean).into_iter().zip(vec(save_invstd)).collect()
    } else {
        let rv = vec(running_var);
        vec(running_mean)
            .into_iter()
            .zip(rv.into_iter().map(|v| 1.0 / (v + eps).sqrt()))
            .collect()
    };
    let xc = x.to_dtype(x.dtype().compute_dtype()).contiguous();
    bn_backward_with(g, &xc, weight, &stats, train, metas)
}

/// Both backward ops past their statistics: per channel `(mean, invstd)`; `train` adds the
/// terms of the batch statistics' own dependence on the input.
fn bn_backward_with(
    g: &Tensor,
    xc: &Tensor,
    weight: Option<&Tensor>,
    stats: &[(f64, f64)],
    train: bool,
    metas: [TensorMeta; 3],
) -> Result<[Tensor; 3]> {
    let (n, ch) = (xc.shape()[0], xc.shape()[1]);
    let s = numel(&xc.shape()[2..]);
    let c = xc.dtype();
    let gc = g.to_dtype(c).contiguous();
    let w: Vec<f64> = weight.map_or_else(|| vec![1.0; ch], |w| w.to_vec::<f64>());
    let dx = Tensor::empty(xc.shape(), c);
    let geo = (n, ch, s);
    let sums = match c {
        DType::Float32 => bn_backward::<f32>(&gc, xc, &dx, geo, &w, stats, train),
        DType::Float64 => bn_backward::<f64>(&gc, xc, &dx, geo, &w, stats, train),
        _ => unreachable!("invariant: float compute dtype"),
    };
    let (dw, db): (Vec<f64>, Vec<f64>) = sums.into_iter().unzip();
    Ok([
        dx.to_dtype(metas[0].dtype),
        Tensor::from_vec(dw, &[ch])?.to_dtype(metas[1].dtype),
        Tensor::from_vec(db, &[ch])?.to_dtype(metas[2].dtype),
    ])
}

/// Independent f64 accumulators of the per-channel sums: one serial chain was bound by the
/// latency of the f64 add (4 cycles an element), the largest cost of batch norm's backward.
const LANES: usize = 8;

/// Adds a plane's `g` and `g * (x - mean)` into the lanes (element `k` into lane `k % LANES`).
#[inline(always)]
fn grad_sums<F: Flt>(g: &[F], x: &[F], mean: f64, lg: &mut [f64; LANES], lgx: &mut [f64; LANES]) {
    let (gc, xc) = (g.chunks_exact(LANES), x.chunks_exact(LANES));
    let (gt, xt) = (gc.remainder(), xc.remainder());
    for (g8, x8) in gc.zip(xc) {
        for k in 0..LANES {
            let gf = Element::to_f64(g8[k]);
            lg[k] += gf;
            lgx[k] += gf * (Element::to_f64(x8[k]) - mean);
        }
    }
    for (k, (gv, xv)) in gt.iter().zip(xt).enumerate() {
        let gf = Element::to_f64(*gv);
        lg[k] += gf;
        lgx[k] += gf * (Element::to_f64(*xv) - mean);
    }
}

/// The lanes summed pairwise, in a fixed order.
pub(crate) fn fold_lanes(l: &[f64; LANES]) -> f64 {
    ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]))
}

/// Per channel: the input gradient written into `dx`; `(d_weight, d_bias)` returned. The sums
/// are in f64 over [`LANES`] accumulators (fixed order, so runs are bitwise repeatable).
fn bn_backward<F: Flt>(
    g: &Tensor,
    x: &Tensor,
    dx: &Tensor,
    (n, c, s): (usize, usize, usize),
    w: &[f64],
    stats: &[(f64, f64)],
    train: bool,
) -> Vec<(f64, f64)> {
    let len = n * c * s;
    // SAFETY: contiguous tensors of F with n * c * s elements.
    let (gs, xs) = unsafe {
        (
            std::slice::from_raw_parts(g.data_ptr::<F>(), len),
            std::slice::from_raw_parts(x.data_ptr::<F>(), len),
        )
    };
    let pd = SendPtr(dx.data_ptr::<F>());
    let cnt = (n * s) as f64;
    // The caller works too (see `crate::parallel`).
    parallel_map(c, |ch| {
        let (mean, invstd) = stats[ch];
        let plane = |i: usize| (i * c + ch) * s..(i * c + ch + 1) * s;
        let (mut lg, mut lgx) = ([0.0f64; LANES], [0.0f64; LANES]);
        for i in 0..n {
            let r = plane(i);
            with_wide(
                #[inline(always)]
                || grad_sums(&gs[r.clone()], &xs[r], mean, &mut lg, &mut lgx),
            );
        }
        let (sg, sgx) = (fold_lanes(&lg), fold_lanes(&lgx));
        // dx = (g - sg / M - (x - mean) * invstd^2 * sgx / M) * w * invstd in training;
        // with constant statistics (evaluation) only g * w * invstd
        let k = F::c(w[ch] * invstd);
        let (a, b) = if train {
            (F::c(sg / cnt), F::c(invstd * invstd * sgx / cnt))
        } else {
            (F::zero(), F::zero())
        };
        let m = F::c(mean);
        for i in 0..n {
            let r = plane(i);
            // SAFETY: plane (i, ch) of the contiguous dx; each channel writes only its own.
            let out = unsafe { std::slice::from_raw_parts_mut(pd.at(r.start as isize), s) };
            let (gp, xp) = (&gs[r.clone()], &xs[r]);
            with_wide(
                #[inline(always)]
                || {
                    for ((o, gv), xv) in out.iter_mut().zip(gp).zip(xp) {
                        *o = (*gv - a - (*xv - m) * b) * k;
                    }
                },
            );
        }
        (sgx * invstd, sg)
    })
}
