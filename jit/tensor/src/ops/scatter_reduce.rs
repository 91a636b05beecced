//! `scatter_reduce(self, dim, index, src, reduce, include_self)`: every `src[p]` combined into
//! `out[p with p[dim] = index[p]]` by `sum`, `prod`, `mean`, `amax` or `amin`. With
//! `include_self=False` a position some index reaches starts from its first scattered value
//! (and its mean counts only those), as PyTorch's identity-initialised kernel; positions no
//! index reaches keep `self`.
//!
//! Values combine in the element type, one step at a time in index order, as PyTorch's CPU
//! kernel accumulates (a float32 sum rounds after every add); integer means floor.

use crate::error::bail;
use crate::layout::wrap_dim;
use crate::ops::gather::{as_1d, check_bounds, scatter_meta};
use crate::{DType, Element, Result, Tensor, TensorMeta, dispatch_all};

/// The `reduce=` of `scatter_reduce`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// `"sum"`.
    Sum,
    /// `"prod"`.
    Prod,
    /// `"mean"`.
    Mean,
    /// `"amax"` (NaN wins, as `torch.maximum`).
    Amax,
    /// `"amin"`.
    Amin,
}

impl Reduction {
    /// PyTorch's names; its error for any other.
    pub fn parse(s: &str) -> Result<Reduction> {
        Ok(match s {
            "sum" => Reduction::Sum,
            "prod" => Reduction::Prod,
            "mean" => Reduction::Mean,
            // PyTorch 2.15 takes `max`/`min` as aliases.
            "amax" | "max" => Reduction::Amax,
            "amin" | "min" => Reduction::Amin,
            other => bail!(
                Runtime,
                "reduce argument must be either sum, prod, mean, amax or amin, got {other}"
            ),
        })
    }

    /// `old (op) v` in the element type.
    fn combine<T: Element>(self, old: T, v: T) -> T {
        if T::DTYPE == DType::Bool {
            let (a, b) = (old.to_bool(), v.to_bool());
            let r = match self {
                Reduction::Sum | Reduction::Mean | Reduction::Amax => a || b,
                Reduction::Prod | Reduction::Amin => a && b,
            };
            return T::from_i64(i64::from(r));
        }
        if T::IS_FLOAT {
            let (a, b) = (old.to_f64(), v.to_f64());
            return match self {
                Reduction::Sum | Reduction::Mean => T::from_f64(a + b),
                Reduction::Prod => T::from_f64(a * b),
                _ if a.is_nan() || b.is_nan() => T::from_f64(f64::NAN),
                Reduction::Amax => T::from_f64(a.max(b)),
                Reduction::Amin => T::from_f64(a.min(b)),
            };
        }
        let (a, b) = (old.to_i64(), v.to_i64());
        T::from_i64(match self {
            Reduction::Sum | Reduction::Mean => a.wrapping_add(b),
            Reduction::Prod => a.wrapping_mul(b),
            Reduction::Amax => a.max(b),
            Reduction::Amin => a.min(b),
        })
    }
}

/// Shape/dtype rule: PyTorch runs the scatter checks (their texts name `scatter()`), with an
/// int32 or int64 index.
pub fn scatter_reduce_meta<S: crate::Shaped>(
    x: &S,
    dim: i64,
    index: &S,
    src: &S,
    reduce: &str,
) -> Result<TensorMeta> {
    let how = Reduction::parse(reduce)?;
    if !matches!(index.dtype(), DType::Int64 | DType::Int32) {
        bail!(Runtime, "scatter(): Expected dtype int32/int64 for index");
    }
    if how == Reduction::Mean && x.dtype() == DType::Bool {
        bail!(
            NotImplemented,
            "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'"
        );
    }
    let plain = |t: &S, dtype: DType| TensorMeta::contiguous(dtype, t.shape());
    scatter_meta(
        "scatter",
        &plain(x, x.dtype()),
        dim,
        &plain(index, DType::Int64),
        Some(&plain(src, src.dtype())),
    )
}

/// `x.scatter_reduce(dim, index, src, reduce, include_self=)` into a new tensor.
pub fn scatter_reduce(
    x: &Tensor,
    dim: i64,
    index: &Tensor,
    src: &Tensor,
    reduce: &str,
    include_self: bool,
) -> Result<Tensor> {
    let meta = scatter_reduce_meta(x, dim, index, src, reduce)?;
    let how = Reduction::parse(reduce)?;
    let out = x.contiguous().deep_clone();
    if index.numel() == 0 {
        return Ok(out);
    }
    let (x1, i1) = (as_1d(&out)?, as_1d(index)?);
    let d = wrap_dim(dim, x1.ndim())?;
    let idx = check_bounds(&i1, d, x1.shape()[d])?;
    // The part of `src` the index covers, in the index's row-major order.
    let mut s1 = as_1d(src)?;
    for (k, &n) in i1.shape().iter().enumerate() {
        s1 = s1.narrow(k as i64, 0, n as i64)?;
    }
    // Destination offsets in the contiguous output, in the index's row-major order.
    let xs = crate::layout::contiguous_strides(x1.shape());
    let mut dst = Vec::with_capacity(idx.len());
    let mut pos = vec![0usize; i1.ndim()];
    for &iv in &idx {
        let off: usize = pos
            .iter()
            .enumerate()
            .map(|(k, &p)| if k == d { iv as usize } else { p } * xs[k] as usize)
            .sum();
        dst.push(off);
        for k in (0..pos.len()).rev() {
            pos[k] += 1;
            if pos[k] < i1.shape()[k] {
                break;
            }
            pos[k] = 0;
        }
    }
    let numel = out.numel();
    dispatch_all!(meta.dtype, T => {
        let mut buf: Vec<T> = out.to_vec::<T>();
        let vals: Vec<T> = s1.to_vec::<T>();
        let base = usize::from(include_self);
        let mut count = vec![0usize; numel];
        for (&o, &v) in dst.iter().zip(&vals) {
            buf[o] = if count[o] == 0 && !include_self { v } else { how.combine(buf[o], v) };
            count[o] += 1;
        }
        if how == Reduction::Mean {
            for (o, &c) in count.iter().enumerate() {
                if c == 0 {
                    continue;
                }
                let n = c + base;
                buf[o] = if T::IS_FLOAT {
                    T::from_f64(buf[o].to_f64() / n as f64)
                } else {
                    T::from_i64(buf[o].to_i64().div_euclid(n as i64))
                };
            }
        }
        Tensor::from_vec(buf, x.shape())
    })
}
