//! `torch.multinomial`: indices drawn from rows of (unnormalized) category weights, with or
//! without replacement, from a [`Generator`] (the default one unless the caller swaps it in).
//!
//! With replacement, each draw is the first category whose normalized cumulative weight (f64)
//! reaches a uniform sample, as ATen's CPU kernel searches. Without replacement, ATen's
//! exponential-race: each category gets `p / q` with `q ~ Exp(1)`, and the `n` largest keys are
//! the draws, largest first (a single draw is the first maximum).

use crate::error::bail;
use crate::layout::Shaped;
use crate::random::{Generator, default_generator};
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
    g.with(|rng| {
        use rand::Rng;
        for row in probs.chunks(cats).take(rows) {
            if replacement {
                let total: f64 = row.iter().sum();
                let mut acc = 0.0;
                let mut cdf: Vec<f64> = row
                    .iter()
                    .map(|v| {
                        acc += v / total;
                        acc
                    })
                    .collect();
                // The last category closes the distribution exactly.
                if let Some(last) = cdf.last_mut() {
                    *last = 1.0;
                }
                for _ in 0..n {
                    let u: f64 = rng.r#gen::<f64>();
                    let idx = cdf.partition_point(|&c| c < u).min(cats - 1);
                    // A zero-weight category shares its cumulative value with the one before it;
                    // `partition_point` already returns the first index reaching `u`.
                    out.push(idx as i64);
                }
            } else {
                let mut keys: Vec<(f64, usize)> = row
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| {
                        let u: f64 = rng.r#gen::<f64>();
                        let q = -(1.0 - u).ln();
                        // A zero weight is never drawn before a positive one (0 / 0 would be NaN).
                        (if v == 0.0 { 0.0 } else { v / q }, i)
                    })
                    .collect();
                // Largest key first; equal keys keep the lower index first (stable).
                keys.sort_by(|a, b| b.0.total_cmp(&a.0));
                out.extend(keys.iter().take(n).map(|&(_, i)| i as i64));
            }
        }
    });
    Tensor::from_vec(out, &meta.shape)
}
