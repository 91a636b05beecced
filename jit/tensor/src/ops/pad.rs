//! `pad` (`torch.nn.functional.pad`): constant (negative pads crop), reflect, replicate and
//! circular. Pads are given last dim first, as `(left, right, top, bottom, ...)`.

use crate::error::bail;
use crate::layout::Shaped;
use crate::ops::gather::index_select;
use crate::{Result, Scalar, Tensor, TensorMeta};

/// The padding mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadMode {
    /// Fill with a value.
    Constant,
    /// Mirror without repeating the edge.
    Reflect,
    /// Repeat the edge.
    Replicate,
    /// Wrap around.
    Circular,
}

impl PadMode {
    /// Parses the `mode=` argument.
    pub fn parse(s: &str) -> Result<PadMode> {
        match s {
            "constant" => Ok(PadMode::Constant),
            "reflect" => Ok(PadMode::Reflect),
            "replicate" => Ok(PadMode::Replicate),
            "circular" => Ok(PadMode::Circular),
            _ => bail!(NotImplemented, "Unrecognised padding mode {s}"),
        }
    }
}

/// `(dim, before, after)` for each padded dim.
fn pads(x: &impl Shaped, pad: &[i64]) -> Result<Vec<(usize, i64, i64)>> {
    if !pad.len().is_multiple_of(2) {
        bail!(Runtime, "Padding length must be divisible by 2");
    }
    if pad.len() / 2 > x.ndim() {
        bail!(
            Runtime,
            "Padding length should be less than or equal to two times the input dimension but got padding length {} and input of dimension {}",
            pad.len(),
            x.ndim()
        );
    }
    Ok(pad
        .chunks(2)
        .enumerate()
        .map(|(i, p)| (x.ndim() - 1 - i, p[0], p[1]))
        .collect())
}

/// Shape/dtype rule of `pad(x, pad, mode)`.
pub fn pad_meta(x: &impl Shaped, pad: &[i64], mode: PadMode) -> Result<TensorMeta> {
    let ps = pads(x, pad)?;
    let mut shape = x.shape().to_vec();
    if mode != PadMode::Constant {
        let k = ps.len();
        if k == 0 || k > 3 || !(x.ndim() == k + 1 || x.ndim() == k + 2) {
            bail!(
                NotImplemented,
                "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now"
            );
        }
    }
    for &(d, a, b) in &ps {
        let n = x.shape()[d] as i64;
        match mode {
            PadMode::Reflect if a >= n || b >= n => bail!(
                Runtime,
                "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding ({a}, {b}) at dimension {d} of input {:?}",
                x.shape()
            ),
            PadMode::Circular if a > n || b > n => bail!(
                Runtime,
                "Padding value causes wrapping around more than once."
            ),
            PadMode::Replicate | PadMode::Reflect | PadMode::Circular if n == 0 => bail!(
                Runtime,
                "input tensor must have a non-zero size in dimension {d} to pad with {mode:?}"
            ),
            _ => {}
        }
        if mode != PadMode::Constant && (a < 0 || b < 0) {
            bail!(
                Runtime,
                "negative padding is only supported for constant padding"
            );
        }
        let new = n + a + b;
        if new < 0 {
            bail!(
                Runtime,
                "The input size {n}, plus negative padding {a} and {b} resulted in a negative output size, which is invalid. Check dimension {d} of your input."
            );
        }
        shape[d] = new as usize;
    }
    Ok(TensorMeta::contiguous(x.dtype(), &shape))
}

/// `pad(x, pad, mode, value)`.
pub fn pad(x: &Tensor, pad: &[i64], mode: PadMode, value: Option<f64>) -> Result<Tensor> {
    let meta = pad_meta(x, pad, mode)?;
    let ps = pads(x, pad)?;
    if mode == PadMode::Constant {
        let v = value.map_or(Scalar::Int(0), Scalar::Float);
        let out = Tensor::full(&meta.shape, v, meta.dtype);
        // Negative pads crop the source; positive ones offset the destination.
        let (mut src, mut dst) = (x.clone(), out.clone());
        for &(d, a, b) in &ps {
            let n = x.shape()[d] as i64;
            let (d, s0) = (d as i64, (-a).max(0));
            let len = n - s0 - (-b).max(0);
            if len <= 0 {
                return Ok(out);
            }
            src = src.narrow(d, s0, len)?;
            dst = dst.narrow(d, a.max(0), len)?;
        }
        dst.copy_(&src)?;
        return Ok(out);
    }
    let mut cur = x.clone();
    for &(d, a, b) in &ps {
        let n = x.shape()[d] as i64;
        let idx: Vec<i64> = (-a..n + b)
            .map(|i| match mode {
                PadMode::Reflect => {
                    let period = 2 * (n - 1);
                    let m = if period == 0 { 0 } else { i.rem_euclid(period) };
                    if m >= n { period - m } else { m }
                }
                PadMode::Replicate => i.clamp(0, n - 1),
                _ => i.rem_euclid(n),
            })
            .collect();
        let len = idx.len();
        cur = index_select(&cur, d as i64, &Tensor::from_vec(idx, &[len])?)?;
    }
    // A fresh contiguous output even when empty (a zero-size result may keep odd strides).
    let out = Tensor::empty(&meta.shape, meta.dtype);
    out.copy_(&cur)?;
    Ok(out)
}
