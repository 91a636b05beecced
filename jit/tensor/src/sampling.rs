//! `torch.multinomial`: indices drawn from rows of (unnormalized) category weights, with or
//! without replacement, from a [`Generator`] (the default one unless the caller swaps it in).
//!
//! The draws are ATen's CPU kernel's, number for number (PyTorch's stream, [`crate::random`]):
//! - one sample, or any number without replacement: the exponential race. Every weight, in
//!   order, gets `q = -log1p(-u)` (`u` a double uniform), rounded to the weights' dtype, and the
//!   key `p / q` in that dtype; the draws are the `n` largest keys, largest first (a single
//!   draw is the first maximum);
//! - several samples with replacement: each draw is the first category whose normalized
//!   cumulative weight (summed and divided in the weights' dtype) reaches a double uniform.

use crate::error::bail;
use crate::layout::Shaped;
use crate::random::{Generator, default_generator, round_to};
use crate::{DType, Result, Tensor, TensorMeta};

/// Shape/dtype rule of `multinomial(probs, n, replacement)`.
pub fn multinomial_meta(p: &impl Shaped, n: i64, replacement: bool) -> Result<TensorMeta> {
    if !p.dtype().is_floating_point() {
        bail!(
            Runtime,
            "multinomial only supports floating-point dtypes for input, got: {}",
            p.dtype().aten_name()
        );
    }
    if n <= 0 {
        bail!(Runtime, "cannot sample n_sample <= 0 samples");
    }
    let shape = p.shape();
    if shape.is_empty() || shape.len() > 2 {
        bail!(Runtime, "prob_dist must be 1 or 2 dim");
    }
    let cats = shape[shape.len() - 1];
    if !replacement && n as usize > cats {
        bail!(
            Runtime,
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        );
    }
    if cats > 1 << 24 {
        bail!(Runtime, "number of categories cannot exceed 2^24");
    }
    let mut out = shape[..shape.len() - 1].to_vec();
    out.push(n as usize);
    Ok(TensorMeta::contiguous(DType::Int64, &out))
}

/// `multinomial(probs, n, replacement)`.
pub fn multinomial(p: &Tensor, n: i64, replacement: bool, g: Option<&Generator>) -> Result<Tensor> {
    let meta = multinomial_meta(p, n, replacement)?;
    let cats = p.shape()[p.ndim() - 1];
    let rows = if p.ndim() == 2 { p.shape()[0] } else { 1 };
    let dt = p.dtype();
    let probs: Vec<f64> = p.to_dtype(DType::Float64).contiguous().to_vec();
    for row in probs.chunks(cats.max(1)).take(rows) {
        if row.iter().any(|v| !v.is_finite() || *v < 0.0) {
            bail!(
                Runtime,
                "probability tensor contains either `inf`, `nan` or element < 0"
            );
        }
        if cats == 0 || row.iter().sum::<f64>() <= 0.0 {
            bail!(
                Runtime,
                "invalid multinomial distribution (sum of probabilities <= 0)"
            );
        }
    }
    let n = n as usize;
    let g = g.unwrap_or_else(|| default_generator());
    let mut out: Vec<i64> = Vec::with_capacity(rows * n);
    // One rounding to the weights' dtype (an f64 operation on two values of a narrower float
    // type, rounded once, is that type's correctly rounded operation).
    let r = |x: f64| round_to(dt, x);
    g.with(|e| {
        if replacement && n > 1 {
            for row in probs.chunks(cats).take(rows) {
                let mut acc = 0.0;
                let cdf: Vec<f64> = row
                    .iter()
                    .map(|&v| {
                        acc = r(acc + v);
                        acc
                    })
                    .collect();
                let total = acc;
                let cdf: Vec<f64> = cdf.iter().map(|&c| r(c / total)).collect();
                for _ in 0..n {
                    let u = e.uniform_f64();
                    out.push(cdf.partition_point(|&c| c < u).min(cats - 1) as i64);
                }
            }
        } else {
            // The exponential variates for the whole tensor come first, in order.
            let q: Vec<f64> = (0..rows * cats)
                .map(|_| r(-(-e.uniform_f64()).ln_1p()))
                .collect();
            for (row, q) in probs.chunks(cats).take(rows).zip(q.chunks(cats)) {
                let mut keys: Vec<(f64, usize)> = row
                    .iter()
                    .zip(q)
                    .enumerate()
                    .map(|(i, (&v, &q))| (r(v / q), i))
                    .collect();
                // Largest key first; equal keys keep the lower index first (stable).
                keys.sort_by(|a, b| b.0.total_cmp(&a.0));
                out.extend(keys.iter().take(n).map(|&(_, i)| i as i64));
            }
        }
    });
    Tensor::from_vec(out, &meta.shape)
}
