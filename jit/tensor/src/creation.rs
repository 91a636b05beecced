//! Creation ops whose output does not come from an input tensor: `arange`, `linspace`, `eye`.

use crate::error::bail;
use crate::unwind::{check_alloc, try_vec};
use crate::{DEFAULT_FLOAT, DType, Element, Result, Scalar, Tensor, TensorMeta, dispatch_all};

fn arange_len(start: Scalar, end: Scalar, step: Scalar) -> Result<usize> {
    let (s, e, st) = (start.to_f64(), end.to_f64(), step.to_f64());
    if st == 0.0 {
        bail!(Runtime, "step must be nonzero");
    }
    if !s.is_finite() || !e.is_finite() {
        bail!(Runtime, "unsupported range: {s} -> {e}");
    }
    if (st > 0.0 && e < s) || (st < 0.0 && e > s) {
        bail!(
            Runtime,
            "upper bound and larger bound inconsistent with step sign"
        );
    }
    let n = if [start, end, step]
        .iter()
        .all(|v| !matches!(v, Scalar::Float(_)))
    {
        let (s, e, st) = (start.to_i64(), end.to_i64(), step.to_i64());
        let (span, st) = if st > 0 { (e - s, st) } else { (s - e, -st) };
        (span + st - 1) / st
    } else {
        ((e - s) / st).ceil() as i64
    };
    Ok(n.max(0) as usize)
}

/// The dtype `arange` infers: int64 unless any bound is a float.
fn arange_dtype(vals: &[Scalar], dtype: Option<DType>) -> DType {
    dtype.unwrap_or(if vals.iter().any(|v| matches!(v, Scalar::Float(_))) {
        DEFAULT_FLOAT
    } else {
        DType::Int64
    })
}

/// Shape/dtype rule of `arange(start, end, step)`; `end = None` means `arange(0, start)`.
pub fn arange_meta(
    start: Scalar,
    end: Option<Scalar>,
    step: Scalar,
    dtype: Option<DType>,
) -> Result<TensorMeta> {
    let (s, e) = match end {
        Some(e) => (start, e),
        None => (Scalar::Int(0), start),
    };
    let n = arange_len(s, e, step)?;
    Ok(TensorMeta::contiguous(
        arange_dtype(&[s, e, step], dtype),
        &[n],
    ))
}

/// `arange(start, end, step)`.
pub fn arange(
    start: Scalar,
    end: Option<Scalar>,
    step: Scalar,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let meta = arange_meta(start, end, step, dtype)?;
    let s = if end.is_some() { start } else { Scalar::Int(0) };
    let n = meta.shape[0];
    check_alloc(&meta.shape, meta.dtype)?;
    let out = if meta.dtype.is_floating_point() {
        let (s, st) = (s.to_f64(), step.to_f64());
        let mut vals = try_vec::<f64>(n)?;
        vals.extend((0..n).map(|i| s + i as f64 * st));
        Tensor::from_vec(vals, &[n])?
    } else {
        let (s, st) = (s.to_i64(), step.to_i64());
        let mut vals = try_vec::<i64>(n)?;
        vals.extend((0..n).map(|i| s + i as i64 * st));
        Tensor::from_vec(vals, &[n])?
    };
    Ok(out.to_dtype(meta.dtype))
}

/// Shape/dtype rule of `linspace(start, end, steps)`.
pub fn linspace_meta(steps: i64, dtype: Option<DType>) -> Result<TensorMeta> {
    if steps < 0 {
        bail!(Runtime, "number of steps must be non-negative");
    }
    Ok(TensorMeta::contiguous(
        dtype.unwrap_or(DEFAULT_FLOAT),
        &[steps as usize],
    ))
}

/// `linspace(start, end, steps)`: computed from both ends, as PyTorch, so the last value is `end`.
pub fn linspace(start: Scalar, end: Scalar, steps: i64, dtype: Option<DType>) -> Result<Tensor> {
    let meta = linspace_meta(steps, dtype)?;
    let n = steps as usize;
    let (a, b) = (start.to_f64(), end.to_f64());
    let step = if n > 1 { (b - a) / (n - 1) as f64 } else { 0.0 };
    // One step is `start` (PyTorch special-cases it; the two-sided formula would give `end`).
    let half = if n == 1 { 1 } else { n / 2 };
    check_alloc(&meta.shape, meta.dtype)?;
    let mut vals = try_vec::<f64>(n)?;
    vals.extend((0..n).map(|i| {
        if i < half {
            a + step * i as f64
        } else {
            b - step * (n - 1 - i) as f64
        }
    }));
    let t = Tensor::from_vec(vals, &[n])?;
    Ok(if meta.dtype.is_floating_point() {
        t.to_dtype(meta.dtype)
    } else {
        // Integer linspace truncates each value (as PyTorch).
        t.to_dtype(DType::Int64).to_dtype(meta.dtype)
    })
}

/// Shape/dtype rule of `eye(n, m)`.
pub fn eye_meta(n: i64, m: Option<i64>, dtype: Option<DType>) -> Result<TensorMeta> {
    let m = m.unwrap_or(n);
    if n < 0 {
        bail!(Runtime, "n must be greater or equal to 0, got {n}");
    }
    if m < 0 {
        bail!(Runtime, "m must be greater or equal to 0, got {m}");
    }
    Ok(TensorMeta::contiguous(
        dtype.unwrap_or(DEFAULT_FLOAT),
        &[n as usize, m as usize],
    ))
}

/// `eye(n, m)`.
pub fn eye(n: i64, m: Option<i64>, dtype: Option<DType>) -> Result<Tensor> {
    let meta = eye_meta(n, m, dtype)?;
    let out = Tensor::zeros(&meta.shape, meta.dtype);
    let (r, c) = (meta.shape[0], meta.shape[1]);
    dispatch_all!(meta.dtype, T => {
        let p = out.data_ptr::<T>();
        for i in 0..r.min(c) {
            // SAFETY: `out` is fresh and contiguous [r, c]; i < min(r, c).
            unsafe { *p.add(i * c + i) = T::ONE };
        }
    });
    Ok(out)
}

/// Shape/dtype rule of `full(size, value)`: the dtype follows the value (bool, int64, default
/// float) unless given.
pub fn full_meta(size: &[i64], value: Scalar, dtype: Option<DType>) -> Result<TensorMeta> {
    let shape = sizes(size)?;
    Ok(TensorMeta::contiguous(
        dtype.unwrap_or(value.dtype()),
        &shape,
    ))
}

/// Validates a size list.
pub fn sizes(size: &[i64]) -> Result<Vec<usize>> {
    size.iter()
        .map(|&s| {
            if s < 0 {
                bail!(
                    Runtime,
                    "Trying to create tensor with negative dimension {s}: {size:?}"
                );
            }
            Ok(s as usize)
        })
        .collect()
}
