//! Complex matrix products as four real ones over the component views: with `A = Ar + i Ai`
//! and `B = Br + i Bi`, `Re(AB) = Ar Br - Ai Bi` and `Im(AB) = Ar Bi + Ai Br`. Each real
//! product is the real GEMM (`ops::matmul::batched_gemm`, the `gemm` crate in the component
//! precision, f32 for complex64 as a BLAS `cgemm` computes), which reads and writes through the
//! components' doubled strides, so nothing is copied. The second product of each component
//! accumulates into the first (`beta = 1`).

use super::component;
use crate::ops::matmul::batched_gemm as real_gemm;
use crate::{Result, Tensor};

/// `out[i] = a[i] @ b[i]` for complex `out`, `a`, `b` of one dtype over the leading batch dims
/// (already shared, as `ops::matmul::batched_gemm` takes them); with `acc = Some((beta,
/// alpha))`, `out = beta * out + alpha * a @ b` (`out` is not read when `beta == 0`).
pub(crate) fn batched_gemm(
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    acc: Option<(f64, f64)>,
) -> Result<()> {
    let (ar, ai) = (component(a, 0), component(a, 1));
    let (br, bi) = (component(b, 0), component(b, 1));
    let (or, oi) = (component(out, 0), component(out, 1));
    let alpha = acc.map_or(1.0, |(_, alpha)| alpha);
    real_gemm(&or, &ar, &br, acc)?;
    real_gemm(&or, &ai, &bi, Some((1.0, -alpha)))?;
    real_gemm(&oi, &ar, &bi, acc)?;
    real_gemm(&oi, &ai, &br, Some((1.0, alpha)))?;
    Ok(())
}
