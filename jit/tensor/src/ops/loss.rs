//! Losses: `nll_loss`, `cross_entropy` (class indices or probabilities, weights, `ignore_index`,
//! label smoothing), `mse_loss`, `l1_loss`. Computed in f64 from `log_softmax` in the input dtype.

use crate::dtype::{Operand, result_type};
use crate::error::bail;
use crate::kernels::binary::BinaryOp;
use crate::kernels::unary::UnaryOp;
use crate::layout::{Shaped, broadcast_shapes, numel};
use crate::ops::nn::softmax;
use crate::ops::pointwise::{TensorOrScalar, binary, unary};
use crate::ops::reduce::{ReduceOp, reduce};
use crate::{DType, Error, Result, Scalar, Tensor, TensorMeta};

/// How a loss reduces its per-element values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// Per-element losses.
    None,
    /// The mean (weighted for class losses).
    Mean,
    /// The sum.
    Sum,
}

impl Reduction {
    /// `reduction=`, or the legacy `size_average`/`reduce` pair when either is given.
    pub fn parse(
        reduction: &str,
        size_average: Option<bool>,
        reduce: Option<bool>,
    ) -> Result<Reduction> {
        if size_average.is_some() || reduce.is_some() {
            let (sa, rd) = (size_average.unwrap_or(true), reduce.unwrap_or(true));
            return Ok(match (sa, rd) {
                (true, true) => Reduction::Mean,
                (false, true) => Reduction::Sum,
                (_, false) => Reduction::None,
            });
        }
        match reduction {
            "none" => Ok(Reduction::None),
            "mean" => Ok(Reduction::Mean),
            "sum" => Ok(Reduction::Sum),
            r => bail!(Value, "{r} is not a valid value for reduction"),
        }
    }
}

/// `[n, c, r]` view of a class-dim input and the shape of its per-element losses.
struct ClassGeo {
    n: usize,
    c: usize,
    r: usize,
    elem_shape: Vec<usize>,
}

fn class_geo<S: Shaped>(x: &S, target: &S, weight: Option<&S>) -> Result<ClassGeo> {
    let xs = x.shape();
    if x.ndim() < 1 {
        bail!(Value, "Expected 1 or more dimensions (got 0)");
    }
    let ts = target.shape();
    let (n, c, r, elem_shape) = if x.ndim() == 1 {
        if target.ndim() != 0 {
            bail!(
                Runtime,
                "0D or 1D target tensor expected, multi-target not supported"
            );
        }
        (1, xs[0], 1, vec![])
    } else {
        if target.ndim() == 0 || ts[0] != xs[0] {
            bail!(
                Value,
                "Expected input batch_size ({}) to match target batch_size ({}).",
                xs[0],
                ts.first().copied().unwrap_or(0)
            );
        }
        let mut want = vec![xs[0]];
        want.extend_from_slice(&xs[2..]);
        if ts != want.as_slice() {
            if x.ndim() == 2 {
                bail!(
                    Runtime,
                    "0D or 1D target tensor expected, multi-target not supported"
                );
            }
            bail!(Runtime, "Expected target size {want:?}, got {ts:?}");
        }
        (xs[0], xs[1], numel(&xs[2..]), want)
    };
    if let Some(w) = weight
        && (w.ndim() != 1 || w.numel() != c)
    {
        bail!(
            Runtime,
            "weight tensor should be defined either for all {c} classes or no classes but got weight tensor of shape: {:?}",
            w.shape()
        );
    }
    if target.dtype() != DType::Int64 {
        bail!(
            Runtime,
            "expected scalar type Long but found {}",
            target.dtype().aten_name()
        );
    }
    if !x.dtype().is_floating_point() {
        return Err(Error::NotImplementedFor {
            op: "nll_loss_out_frame",
            dtype: x.dtype().aten_name(),
        });
    }
    Ok(ClassGeo {
        n,
        c,
        r,
        elem_shape,
    })
}

fn reduced_meta(dtype: DType, elem_shape: &[usize], red: Reduction) -> TensorMeta {
    match red {
        Reduction::None => TensorMeta::contiguous(dtype, elem_shape),
        _ => TensorMeta::contiguous(dtype, &[]),
    }
}

/// Shape/dtype rule of `nll_loss`.
pub fn nll_loss_meta<S: Shaped>(
    x: &S,
    target: &S,
    weight: Option<&S>,
    red: Reduction,
) -> Result<TensorMeta> {
    let g = class_geo(x, target, weight)?;
    Ok(reduced_meta(x.dtype(), &g.elem_shape, red))
}

/// Per-element `-w[t] * x[n, t, r]` (0 where ignored) and the weights counted by `mean`.
fn nll_terms(
    logp: &[f64],
    g: &ClassGeo,
    target: &[i64],
    w: Option<&[f64]>,
    ignore: i64,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let mut loss = vec![0.0; g.n * g.r];
    let mut wsum = vec![0.0; g.n * g.r];
    for i in 0..g.n {
        for k in 0..g.r {
            let t = target[i * g.r + k];
            if t == ignore {
                continue;
            }
            if t < 0 || t >= g.c as i64 {
                bail!(Index, "Target {t} is out of bounds.");
            }
            let wt = w.map_or(1.0, |w| w[t as usize]);
            loss[i * g.r + k] = -wt * logp[(i * g.c + t as usize) * g.r + k];
            wsum[i * g.r + k] = wt;
        }
    }
    Ok((loss, wsum))
}

fn finish(
    vals: Vec<f64>,
    shape: &[usize],
    red: Reduction,
    denom: f64,
    dtype: DType,
) -> Result<Tensor> {
    let t = match red {
        Reduction::None => Tensor::from_vec(vals, shape)?,
        Reduction::Sum => Tensor::scalar(vals.iter().sum::<f64>()),
        Reduction::Mean => Tensor::scalar(vals.iter().sum::<f64>() / denom),
    };
    Ok(t.to_dtype(dtype))
}

/// `nll_loss(input, target, weight, ignore_index, reduction)` on log-probabilities.
pub fn nll_loss(
    x: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    ignore_index: i64,
    red: Reduction,
) -> Result<Tensor> {
    let g = class_geo(x, target, weight)?;
    let w = weight.map(|w| w.to_vec::<f64>());
    let (loss, ws) = nll_terms(
        &x.to_vec::<f64>(),
        &g,
        &target.to_vec::<i64>(),
        w.as_deref(),
        ignore_index,
    )?;
    finish(loss, &g.elem_shape, red, ws.iter().sum(), x.dtype())
}

/// Whether `cross_entropy` reads `target` as class probabilities (same shape as the input).
fn prob_target(x: &impl Shaped, target: &impl Shaped) -> bool {
    x.shape() == target.shape()
}

/// Shape/dtype rule of `cross_entropy`.
pub fn cross_entropy_meta<S: Shaped>(
    x: &S,
    target: &S,
    weight: Option<&S>,
    red: Reduction,
    label_smoothing: f64,
) -> Result<TensorMeta> {
    if !(0.0..=1.0).contains(&label_smoothing) {
        bail!(
            Runtime,
            "label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
        );
    }
    if !prob_target(x, target) {
        return nll_loss_meta(x, target, weight, red);
    }
    if !target.dtype().is_floating_point() {
        bail!(
            Runtime,
            "Expected floating point type for target with class probabilities, got {}",
            target.dtype().aten_name()
        );
    }
    if !x.dtype().is_floating_point() {
        return Err(Error::NotImplementedFor {
            op: "log_softmax_lastdim_kernel_impl",
            dtype: x.dtype().aten_name(),
        });
    }
    let cd = usize::from(x.ndim() >= 2);
    if x.ndim() == 0 {
        bail!(Value, "Expected 1 or more dimensions (got 0)");
    }
    let c = x.shape()[cd];
    if let Some(w) = weight
        && (w.ndim() != 1 || w.numel() != c)
    {
        bail!(
            Runtime,
            "weight tensor should be defined either for all {c} classes or no classes but got weight tensor of shape: {:?}",
            w.shape()
        );
    }
    let mut elem = x.shape().to_vec();
    elem.remove(cd);
    Ok(reduced_meta(x.dtype(), &elem, red))
}

/// `cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)`.
pub fn cross_entropy(
    x: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    ignore_index: i64,
    red: Reduction,
    label_smoothing: f64,
) -> Result<Tensor> {
    let meta = cross_entropy_meta(x, target, weight, red, label_smoothing)?;
    let cd = i64::from(x.ndim() >= 2);
    let logp = softmax(x, cd, None, true)?;
    let lp = logp.to_vec::<f64>();
    let w = weight.map(|w| w.to_vec::<f64>());
    let ls = label_smoothing;
    if prob_target(x, target) {
        if ignore_index >= 0 {
            bail!(
                Runtime,
                "ignore_index is not supported for floating point target"
            );
        }
        let c = x.shape()[cd as usize];
        let (n, r) = (
            x.shape().first().copied().unwrap_or(1),
            numel(&x.shape()[cd as usize + 1..]),
        );
        let n = if cd == 0 { 1 } else { n };
        let t = target.to_vec::<f64>();
        let mut loss = vec![0.0; n * r];
        for i in 0..n {
            for ci in 0..c {
                for k in 0..r {
                    let at = (i * c + ci) * r + k;
                    let tv = if ls > 0.0 {
                        t[at] * (1.0 - ls) + ls / c as f64
                    } else {
                        t[at]
                    };
                    loss[i * r + k] -= w.as_ref().map_or(1.0, |w| w[ci]) * lp[at] * tv;
                }
            }
        }
        let denom = if x.numel() == 0 {
            f64::NAN
        } else {
            (x.numel() / c.max(1)) as f64
        };
        return finish(loss, &meta.shape, red, denom, x.dtype());
    }
    let g = class_geo(x, target, weight)?;
    let tv = target.to_vec::<i64>();
    let (nll, ws) = nll_terms(&lp, &g, &tv, w.as_deref(), ignore_index)?;
    if ls <= 0.0 {
        return finish(nll, &g.elem_shape, red, ws.iter().sum(), x.dtype());
    }
    // Label smoothing mixes in the (weighted) mean over classes of -log p, as ATen does.
    let mut smooth = vec![0.0; g.n * g.r];
    let mut counted = 0.0;
    for i in 0..g.n {
        for k in 0..g.r {
            let t = tv[i * g.r + k];
            if t == ignore_index {
                continue;
            }
            counted += w.as_ref().map_or(1.0, |w| w[t as usize]);
            smooth[i * g.r + k] = -(0..g.c)
                .map(|ci| lp[(i * g.c + ci) * g.r + k] * w.as_ref().map_or(1.0, |w| w[ci]))
                .sum::<f64>();
        }
    }
    let c = g.c as f64;
    let reduce = |v: &[f64], denom: f64| -> Vec<f64> {
        match red {
            Reduction::None => v.to_vec(),
            Reduction::Sum => vec![v.iter().sum()],
            Reduction::Mean => vec![v.iter().sum::<f64>() / denom],
        }
    };
    let a = reduce(&nll, ws.iter().sum());
    let b = reduce(&smooth, counted);
    let mixed: Vec<f64> = a
        .iter()
        .zip(&b)
        .map(|(a, b)| (1.0 - ls) * a + b * (ls / c))
        .collect();
    let t = match red {
        Reduction::None => Tensor::from_vec(mixed, &g.elem_shape)?,
        _ => Tensor::scalar(mixed[0]),
    };
    Ok(t.to_dtype(x.dtype()))
}

/// Which elementwise regression loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Regression {
    /// `(a - b)^2`.
    Mse,
    /// `|a - b|`.
    L1,
}

/// Shape/dtype rule of `mse_loss`/`l1_loss`: inputs broadcast, dtypes promote.
pub fn regression_meta<S: Shaped>(
    kind: Regression,
    x: &S,
    target: &S,
    red: Reduction,
) -> Result<TensorMeta> {
    let shape = broadcast_shapes(x.shape(), target.shape())?;
    let op = |t: &S| {
        if t.ndim() == 0 {
            Operand::ZeroDim(t.dtype())
        } else {
            Operand::Dimensioned(t.dtype())
        }
    };
    let dt = result_type(&[op(x), op(target)]);
    if !dt.is_floating_point() {
        return Err(Error::NotImplementedFor {
            op: if kind == Regression::Mse {
                "mse_cpu"
            } else {
                "abs_cpu"
            },
            dtype: dt.aten_name(),
        });
    }
    Ok(reduced_meta(dt, &shape, red))
}

/// `mse_loss` / `l1_loss`, composed as PyTorch composes them: `(input - target)` squared (or its
/// magnitude) in the promoted dtype, then the reduction's `sum`/`mean` kernel.
pub fn regression(kind: Regression, x: &Tensor, target: &Tensor, red: Reduction) -> Result<Tensor> {
    let meta = regression_meta(kind, x, target, red)?;
    let diff = binary(
        BinaryOp::Sub,
        TensorOrScalar::Tensor(x),
        TensorOrScalar::Tensor(target),
        Scalar::Int(1),
    )?;
    let per_elem = match kind {
        Regression::Mse => binary(
            BinaryOp::Mul,
            TensorOrScalar::Tensor(&diff),
            TensorOrScalar::Tensor(&diff),
            Scalar::Int(1),
        )?,
        Regression::L1 => unary(UnaryOp::Abs, &diff)?,
    };
    Ok(match red {
        Reduction::None => per_elem.laid_out_as(&meta),
        Reduction::Sum => reduce(ReduceOp::Sum, &per_elem, None, false, None)?,
        Reduction::Mean => reduce(ReduceOp::Mean, &per_elem, None, false, None)?,
    })
}
