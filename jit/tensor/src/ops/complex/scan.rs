//! Running and whole products and sums of complex tensors: `cumsum`, `cumprod` and `prod`.
//!
//! PyTorch's CPU scans accumulate complex64 in `c10::complex<double>` (`at::acc_type`), so these
//! compute on `Complex<f64>` for both complex dtypes and round once at the end.

use num_complex::Complex;

use super::math::{from_values, values};
use crate::ops::pointwise::TensorOrScalar;
use crate::ops::scan::ScanOp;
use crate::{DType, Result, Tensor};

type C64 = Complex<f64>;

/// The elements of `x` (any dtype) as `Complex<f64>` in row-major order.
fn wide(x: &Tensor) -> Result<Vec<C64>> {
    values::<f64>(TensorOrScalar::Tensor(x), DType::Complex128, x.shape())
}

/// `cumsum`/`cumprod` of `src` viewed as `[outer, n, inner]` around the scanned dim, as complex
/// dtype `out`.
pub fn scan(
    op: ScanOp,
    src: &Tensor,
    (outer, n, inner): (usize, usize, usize),
    out: DType,
) -> Result<Tensor> {
    let mut v = wide(src)?;
    let (init, step): (C64, fn(C64, C64) -> C64) = match op {
        ScanOp::Sum => (C64::new(0.0, 0.0), |a, z| a + z),
        ScanOp::Prod => (C64::new(1.0, 0.0), |a, z| a * z),
    };
    for o in 0..outer {
        for j in 0..inner {
            let mut acc = init;
            for i in 0..n {
                let k = (o * n + i) * inner + j;
                acc = step(acc, v[k]);
                v[k] = acc;
            }
        }
    }
    Ok(from_values(v, src.shape(), DType::Complex128).to_dtype(out))
}

/// `prod` of complex `src` over `dims` (wrapped, at least one), as complex dtype `out`.
pub fn prod(src: &Tensor, dims: &[usize], keepdim: bool, out: DType) -> Result<Tensor> {
    let nd = src.ndim();
    let kept: Vec<usize> = (0..nd).filter(|d| !dims.contains(d)).collect();
    let perm: Vec<i64> = kept.iter().chain(dims).map(|&d| d as i64).collect();
    let v = wide(&src.permute(&perm)?)?;
    let group: usize = dims.iter().map(|&d| src.shape()[d]).product();
    let count: usize = kept.iter().map(|&d| src.shape()[d]).product();
    let one = C64::new(1.0, 0.0);
    let r: Vec<C64> = (0..count)
        .map(|i| {
            v[i * group..(i + 1) * group]
                .iter()
                .fold(one, |a, &z| a * z)
        })
        .collect();
    let shape: Vec<usize> = if keepdim {
        (0..nd)
            .map(|d| if dims.contains(&d) { 1 } else { src.shape()[d] })
            .collect()
    } else {
        kept.iter().map(|&d| src.shape()[d]).collect()
    };
    Ok(from_values(r, &shape, DType::Complex128).to_dtype(out))
}
