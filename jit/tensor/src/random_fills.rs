//! The in-place random fills beyond `uniform_`/`normal_` (`exponential_`, `bernoulli_`) and
//! `torch.bernoulli`, each drawing as ATen's CPU kernel does: one draw per element in the order of
//! the tensor's memory, through PyTorch's stream ([`crate::random`]).

use crate::error::bail;
use crate::random::{Generator, gen_or_default, in_memory_order, round_to};
use crate::unwind::try_vec;
use crate::{DType, Result, Shaped, Tensor};

/// Checks of `x.exponential_(lambd)`.
pub fn exponential_check(x: &impl Shaped, lambd: f64) -> Result<()> {
    if !x.dtype().is_floating_point() {
        bail!(
            Runtime,
            "Exponential distribution is a continuous probability distribution. dtype must be a floating point but you specified {}",
            x.dtype().aten_name()
        );
    }
    // NaN is refused as well.
    if lambd.is_nan() || lambd <= 0.0 {
        bail!(
            Runtime,
            "exponential_ expects lambda > 0.0, but found lambda={}",
            lambd
        );
    }
    Ok(())
}

/// `x.exponential_(lambd)`: `-log1p(-u) / lambd` per element, `u` a double uniform, rounded to
/// `x`'s dtype.
pub fn exponential_(x: &Tensor, lambd: f64, g: Option<&Generator>) -> Result<()> {
    exponential_check(x, lambd)?;
    let (n, dt) = (x.numel(), x.dtype());
    let mut v = try_vec::<f64>(n)?;
    gen_or_default(g).with(|e| {
        v.extend((0..n).map(|_| round_to(dt, -1.0 / lambd * (-e.uniform_f64()).ln_1p())))
    });
    x.copy_(&Tensor::from_vec::<f64>(in_memory_order(x, v), x.shape())?)
}

/// Checks of `x.bernoulli_(p)`.
pub fn bernoulli_check(p: f64) -> Result<()> {
    if !(0.0..=1.0).contains(&p) {
        bail!(
            Runtime,
            "bernoulli_ expects p to be in [0, 1], but got p={}",
            p
        );
    }
    Ok(())
}

/// `x.bernoulli_(p)`: 1 where a double uniform falls below `p`, else 0, in `x`'s dtype (any).
pub fn bernoulli_(x: &Tensor, p: f64, g: Option<&Generator>) -> Result<()> {
    bernoulli_check(p)?;
    let n = x.numel();
    let mut v = try_vec::<f64>(n)?;
    gen_or_default(g).with(|e| v.extend((0..n).map(|_| f64::from(u8::from(e.uniform_f64() < p)))));
    x.copy_(&Tensor::from_vec::<f64>(in_memory_order(x, v), x.shape())?)
}

/// Checks of `torch.bernoulli(p)`: float probabilities.
pub fn bernoulli_meta_check(p: &impl Shaped) -> Result<()> {
    if !p.dtype().is_floating_point() {
        return Err(crate::Error::NotImplementedFor {
            op: "bernoulli_tensor_cpu_p_",
            dtype: p.dtype().aten_name(),
        });
    }
    Ok(())
}

/// `torch.bernoulli(p)`: a contiguous tensor like `p`, 1 where a uniform falls below the
/// element's probability. Double probabilities compare a double uniform, the others an `f32` one.
pub fn bernoulli(p: &Tensor, g: Option<&Generator>) -> Result<Tensor> {
    bernoulli_meta_check(p)?;
    let probs: Vec<f64> = p.to_dtype(DType::Float64).contiguous().to_vec();
    if probs.iter().any(|q| !(0.0..=1.0).contains(q)) {
        bail!(
            Runtime,
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false."
        );
    }
    let wide = p.dtype() == DType::Float64;
    let mut v = try_vec::<f64>(probs.len())?;
    gen_or_default(g).with(|e| {
        v.extend(probs.iter().map(|&q| {
            let hit = if wide {
                e.uniform_f64() < q
            } else {
                e.uniform_f32() < q as f32
            };
            f64::from(u8::from(hit))
        }))
    });
    Ok(Tensor::from_vec::<f64>(v, p.shape())?.to_dtype(p.dtype()))
}
