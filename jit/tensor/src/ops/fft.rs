//! Discrete Fourier transforms: ATen's three primitives behind `torch.fft`, `_fft_c2c`
//! (complex to complex), `_fft_r2c` (real to complex, optionally one-sided) and `_fft_c2r`
//! (one-sided Hermitian complex to real). `torch.fft`'s Python layer resolves `n`/`s`/`dim`/`norm`,
//! pads or trims the input and picks the normalisation, as ATen's composites do; these kernels
//! transform along the given dims and scale.
//!
//! One-dimensional transforms come from `rustfft` (any length: mixed radix, Rader, Bluestein), in
//! the dtype's precision (complex64 computes in f32, as PyTorch's pocketfft does). Plans are cached
//! per thread by an `FftPlanner` per precision, which memoises each (length, direction), so a
//! repeated call does not plan again.

use std::cell::RefCell;
use std::sync::Arc;

use num_complex::Complex;
use rustfft::{Fft, FftDirection, FftNum, FftPlanner};

use super::complex::as_real;
use crate::layout::contiguous_strides;
use crate::{DType, Element, Error, Layout, Result, Shaped, Tensor, TensorMeta};

/// PyTorch's `fft_norm_mode`: the scale applied after the unnormalised transform. The Python
/// layer maps `norm=` and the direction to one of these (`"backward"` forward is `None`, inverse
/// `ByN`), as ATen's `norm_from_string`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FftNorm {
    /// No scaling (code 0).
    None,
    /// `1 / sqrt(n)` (code 1, `"ortho"`).
    ByRootN,
    /// `1 / n` (code 2).
    ByN,
}

impl FftNorm {
    /// The mode of ATen's integer code.
    pub fn from_code(code: i64) -> Result<FftNorm> {
        match code {
            0 => Ok(FftNorm::None),
            1 => Ok(FftNorm::ByRootN),
            2 => Ok(FftNorm::ByN),
            _ => Err(Error::Runtime(format!(
                "Invalid normalization mode: {code}"
            ))),
        }
    }

    /// The scale for a transform over `n` points in all.
    fn scale(self, n: usize) -> f64 {
        match self {
            FftNorm::None => 1.0,
            FftNorm::ByRootN => 1.0 / (n as f64).sqrt(),
            FftNorm::ByN => 1.0 / n as f64,
        }
    }
}

/// A precision `rustfft` computes in, with this thread's planner for it.
trait Precision: FftNum + Element + num_traits::Float {
    fn plan(n: usize, direction: FftDirection) -> Arc<dyn Fft<Self>>;
}

thread_local! {
    static PLANNER_F32: RefCell<FftPlanner<f32>> = RefCell::new(FftPlanner::new());
    static PLANNER_F64: RefCell<FftPlanner<f64>> = RefCell::new(FftPlanner::new());
}

impl Precision for f32 {
    fn plan(n: usize, direction: FftDirection) -> Arc<dyn Fft<f32>> {
        PLANNER_F32.with(|p| p.borrow_mut().plan_fft(n, direction))
    }
}

impl Precision for f64 {
    fn plan(n: usize, direction: FftDirection) -> Arc<dyn Fft<f64>> {
        PLANNER_F64.with(|p| p.borrow_mut().plan_fft(n, direction))
    }
}

fn direction(forward: bool) -> FftDirection {
    if forward {
        FftDirection::Forward
    } else {
        FftDirection::Inverse
    }
}

// === Checks and metas (shared by the kernels and the registry's meta rules) ===

/// PyTorch's `"Only supports complex dtypes, but found: Float"`.
fn require_complex(d: DType) -> Result<()> {
    if d.is_complex() {
        return Ok(());
    }
    Err(Error::Runtime(format!(
        "Only supports complex dtypes, but found: {}",
        d.aten_name()
    )))
}

/// Wrapped, distinct transform dims of a tensor of `ndim` dims (the Python layer has already
/// checked them with PyTorch's messages; this guards direct `torch._fft_*` calls).
fn dims_of(dims: &[i64], ndim: usize) -> Result<Vec<usize>> {
    if ndim == 0 && !dims.is_empty() {
        return Err(Error::Index(format!(
            "Dimension specified as {} but tensor has no dimensions",
            dims[0]
        )));
    }
    let w = crate::layout::wrap_dims(dims, ndim)?;
    Ok(w.to_vec())
}

/// `_fft_c2c`'s result: the input's dtype and shape.
pub fn c2c_meta(x: &impl Shaped, dims: &[i64]) -> Result<TensorMeta> {
    require_complex(x.dtype())?;
    dims_of(dims, x.ndim())?;
    Ok(TensorMeta::contiguous(x.dtype(), x.shape()))
}

/// `_fft_r2c`'s result: the complex dtype of the input's, the last transform dim halved
/// (`n / 2 + 1`) when one-sided.
pub fn r2c_meta(x: &impl Shaped, dims: &[i64], onesided: bool) -> Result<TensorMeta> {
    let d = x.dtype();
    let c = d
        .to_complex()
        .filter(|_| matches!(d, DType::Float32 | DType::Float64));
    let Some(c) = c else {
        return Err(Error::Type(format!(
            "Only supports floating-point dtypes, but found: {}",
            d.aten_name()
        )));
    };
    let w = dims_of(dims, x.ndim())?;
    let mut shape = x.shape().to_vec();
    if onesided && let Some(&last) = w.last() {
        shape[last] = shape[last] / 2 + 1;
    }
    Ok(TensorMeta::contiguous(c, &shape))
}

/// `_fft_c2r`'s result: the real dtype, the last transform dim `last_dim_size`, whose one-sided
/// input must have `last_dim_size / 2 + 1` entries there.
pub fn c2r_meta(x: &impl Shaped, dims: &[i64], last_dim_size: i64) -> Result<TensorMeta> {
    require_complex(x.dtype())?;
    let w = dims_of(dims, x.ndim())?;
    let Some(&last) = w.last() else {
        return Err(Error::Runtime(
            "_fft_c2r must transform at least one axis".into(),
        ));
    };
    if last_dim_size < 1 {
        return Err(Error::Runtime(format!(
            "Invalid number of data points ({last_dim_size}) specified"
        )));
    }
    let n = last_dim_size as usize;
    if x.shape()[last] != n / 2 + 1 {
        return Err(Error::Runtime(format!(
            "_fft_c2r: expected {} entries along dim {last} for an output of size {n}, got {}",
            n / 2 + 1,
            x.shape()[last]
        )));
    }
    let mut shape = x.shape().to_vec();
    shape[last] = n;
    Ok(TensorMeta::contiguous(x.dtype().to_real(), &shape))
}

// === Buffers ===

/// The elements of complex `x` in row-major order.
fn complex_values<T: Precision>(x: &Tensor) -> Vec<Complex<T>> {
    as_real(x)
        .to_vec::<T>()
        .chunks_exact(2)
        .map(|p| Complex::new(p[0], p[1]))
        .collect()
}

/// A contiguous complex tensor of `shape` and dtype `c` from its elements.
fn complex_tensor<T: Precision>(v: Vec<Complex<T>>, shape: &[usize], c: DType) -> Tensor {
    let flat: Vec<T> = v.into_iter().flat_map(|z| [z.re, z.im]).collect();
    let mut rshape = shape.to_vec();
    rshape.push(2);
    let r = Tensor::from_vec(flat, &rshape).expect("invariant: two components per element");
    let l = Layout {
        shape: shape.iter().copied().collect(),
        strides: contiguous_strides(shape),
        offset: 0,
    };
    r.with_dtype_layout(c, l)
}

/// Transforms every line of contiguous `data` (of `shape`) along `dim` in place, unscaled.
fn along<T: Precision>(data: &mut [Complex<T>], shape: &[usize], dim: usize, forward: bool) {
    let n = shape[dim];
    if n <= 1 || data.is_empty() {
        return; // a one-point DFT is the identity
    }
    let fft = T::plan(n, direction(forward));
    let mut scratch = vec![Complex::new(T::zero(), T::zero()); fft.get_inplace_scratch_len()];
    let inner: usize = shape[dim + 1..].iter().product();
    if inner == 1 {
        // The lines are the consecutive chunks: one call transforms them all.
        fft.process_with_scratch(data, &mut scratch);
        return;
    }
    // Lines are strided by `inner`: gather each block of `inner` lines as rows, transform, put back.
    let block = n * inner;
    let mut rows = vec![Complex::new(T::zero(), T::zero()); block];
    for chunk in data.chunks_exact_mut(block) {
        for k in 0..n {
            for j in 0..inner {
                rows[j * n + k] = chunk[k * inner + j];
            }
        }
        fft.process_with_scratch(&mut rows, &mut scratch);
        for k in 0..n {
            for j in 0..inner {
                chunk[k * inner + j] = rows[j * n + k];
            }
        }
    }
}

fn scale_all<T: Precision>(data: &mut [Complex<T>], s: f64) {
    if s != 1.0 {
        let s = T::from(s).expect("invariant: a finite scale");
        data.iter_mut().for_each(|z| *z = *z * s);
    }
}

// === Kernels ===

fn c2c_typed<T: Precision>(x: &Tensor, dims: &[usize], norm: FftNorm, forward: bool) -> Tensor {
    let shape = x.shape().to_vec();
    let mut v = complex_values::<T>(x);
    for &d in dims {
        along(&mut v, &shape, d, forward);
    }
    let points = dims.iter().map(|&d| shape[d]).product();
    scale_all(&mut v, norm.scale(points));
    complex_tensor(v, &shape, x.dtype())
}

/// `torch._fft_c2c(x, dim, normalization, forward)`.
pub fn fft_c2c(x: &Tensor, dims: &[i64], norm: FftNorm, forward: bool) -> Result<Tensor> {
    c2c_meta(x, dims)?;
    let w = dims_of(dims, x.ndim())?;
    Ok(match x.dtype() {
        DType::Complex64 => c2c_typed::<f32>(x, &w, norm, forward),
        _ => c2c_typed::<f64>(x, &w, norm, forward),
    })
}

/// The first `keep` entries along `dim` of contiguous `data` of `shape`.
fn truncate<T: Copy>(data: &[T], shape: &[usize], dim: usize, keep: usize) -> Vec<T> {
    let n = shape[dim];
    let inner: usize = shape[dim + 1..].iter().product();
    let mut out = Vec::with_capacity(data.len() / n.max(1) * keep);
    for chunk in data.chunks_exact(n * inner) {
        out.extend_from_slice(&chunk[..keep * inner]);
    }
    out
}

fn r2c_typed<T: Precision>(x: &Tensor, dims: &[usize], norm: FftNorm, onesided: bool) -> Tensor {
    let c = x.dtype().to_complex().expect("invariant: f32 or f64");
    let shape = x.shape().to_vec();
    let mut v: Vec<Complex<T>> = x
        .to_vec::<T>()
        .into_iter()
        .map(|r| Complex::new(r, T::zero()))
        .collect();
    // The full transform of the real input, then the non-redundant half of the last dim: the
    // half is exactly what a dedicated real transform would compute.
    for &d in dims {
        along(&mut v, &shape, d, true);
    }
    let points = dims.iter().map(|&d| shape[d]).product();
    scale_all(&mut v, norm.scale(points));
    match dims.last() {
        Some(&last) if onesided => {
            let keep = shape[last] / 2 + 1;
            let v = truncate(&v, &shape, last, keep);
            let mut out_shape = shape.clone();
            out_shape[last] = keep;
            complex_tensor(v, &out_shape, c)
        }
        _ => complex_tensor(v, &shape, c),
    }
}

/// `torch._fft_r2c(x, dim, normalization, onesided)`: the forward transform of real `x`.
pub fn fft_r2c(x: &Tensor, dims: &[i64], norm: FftNorm, onesided: bool) -> Result<Tensor> {
    r2c_meta(x, dims, onesided)?;
    let w = dims_of(dims, x.ndim())?;
    Ok(match x.dtype() {
        DType::Float32 => r2c_typed::<f32>(x, &w, norm, onesided),
        _ => r2c_typed::<f64>(x, &w, norm, onesided),
    })
}

/// Extends each one-sided line along `dim` (`n / 2 + 1` entries) to its full Hermitian spectrum
/// of `n` entries: `X[k] = conj(X[n - k])` for `k > n / 2`.
fn hermitian_extend<T: Precision>(
    half: &[Complex<T>],
    shape: &[usize],
    dim: usize,
    n: usize,
) -> Vec<Complex<T>> {
    let h = shape[dim];
    let inner: usize = shape[dim + 1..].iter().product();
    let outer = half.len() / (h * inner).max(1);
    let mut out = vec![Complex::new(T::zero(), T::zero()); outer * n * inner];
    for (o, src) in half.chunks_exact(h * inner).enumerate() {
        let dst = &mut out[o * n * inner..(o + 1) * n * inner];
        dst[..h * inner].copy_from_slice(src);
        for k in h..n {
            for j in 0..inner {
                dst[k * inner + j] = src[(n - k) * inner + j].conj();
            }
        }
    }
    out
}

fn c2r_typed<T: Precision>(x: &Tensor, dims: &[usize], norm: FftNorm, n: usize) -> Tensor {
    let (&last, rest) = dims.split_last().expect("invariant: checked by c2r_meta");
    let shape = x.shape().to_vec();
    let mut v = complex_values::<T>(x);
    for &d in rest {
        along(&mut v, &shape, d, false);
    }
    // The imaginary parts of the DC and Nyquist entries contribute only imaginary output, which
    // the real part drops: the result is what a c2r transform computes from the half spectrum.
    let mut full = hermitian_extend(&v, &shape, last, n);
    let mut out_shape = shape.clone();
    out_shape[last] = n;
    along(&mut full, &out_shape, last, false);
    let points: usize = dims.iter().map(|&d| out_shape[d]).product();
    let s = T::from(norm.scale(points)).expect("invariant: a finite scale");
    let reals: Vec<T> = full.into_iter().map(|z| z.re * s).collect();
    Tensor::from_vec(reals, &out_shape).expect("invariant: one value per element")
}

/// `torch._fft_c2r(x, dim, normalization, last_dim_size)`: the inverse transform of a one-sided
/// Hermitian spectrum, real output of `last_dim_size` along the last transform dim.
pub fn fft_c2r(x: &Tensor, dims: &[i64], norm: FftNorm, last_dim_size: i64) -> Result<Tensor> {
    c2r_meta(x, dims, last_dim_size)?;
    let w = dims_of(dims, x.ndim())?;
    let n = last_dim_size as usize;
    Ok(match x.dtype() {
        DType::Complex64 => c2r_typed::<f32>(x, &w, norm, n),
        _ => c2r_typed::<f64>(x, &w, norm, n),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The DFT by its definition, in f64, for one line.
    fn naive(x: &[Complex<f64>], forward: bool) -> Vec<Complex<f64>> {
        let n = x.len();
        let sign = if forward { -1.0 } else { 1.0 };
        (0..n)
            .map(|k| {
                x.iter()
                    .enumerate()
                    .fold(Complex::new(0.0, 0.0), |acc, (j, &v)| {
                        let th = sign * 2.0 * std::f64::consts::PI * (j * k) as f64 / n as f64;
                        acc + v * Complex::new(th.cos(), th.sin())
                    })
            })
            .collect()
    }

    fn ramp(n: usize) -> Vec<Complex<f64>> {
        (0..n)
            .map(|i| Complex::new((i as f64 * 0.37).sin(), (i as f64 * 1.3).cos()))
            .collect()
    }

    #[test]
    fn c2c_matches_the_definition_on_odd_and_prime_lengths() {
        for n in [1, 2, 7, 12, 30, 97] {
            let x = ramp(n);
            let t = complex_tensor(x.clone(), &[n], DType::Complex128);
            let got = complex_values::<f64>(&fft_c2c(&t, &[0], FftNorm::None, true).unwrap());
            for (g, w) in got.iter().zip(naive(&x, true)) {
                assert!((g - w).norm() < 1e-10 * n as f64, "n={n}: {g} vs {w}");
            }
        }
    }

    #[test]
    fn c2c_along_a_strided_dim_and_inverse_round_trip() {
        let x = ramp(3 * 5);
        let t = complex_tensor(x.clone(), &[3, 5], DType::Complex128);
        let f = fft_c2c(&t, &[0], FftNorm::None, true).unwrap();
        let v = complex_values::<f64>(&f);
        for j in 0..5 {
            let col: Vec<_> = (0..3).map(|i| x[i * 5 + j]).collect();
            for (i, w) in naive(&col, true).into_iter().enumerate() {
                assert!((v[i * 5 + j] - w).norm() < 1e-12);
            }
        }
        let back = fft_c2c(&f, &[0], FftNorm::ByN, false).unwrap();
        for (g, w) in complex_values::<f64>(&back).iter().zip(&x) {
            assert!((g - w).norm() < 1e-12);
        }
    }

    #[test]
    fn r2c_then_c2r_round_trips_even_and_odd_lengths() {
        for n in [5usize, 6] {
            let x: Vec<f64> = (0..2 * n).map(|i| (i as f64 * 0.7).sin()).collect();
            let t = Tensor::from_vec(x.clone(), &[2, n]).unwrap();
            let h = fft_r2c(&t, &[1], FftNorm::None, true).unwrap();
            assert_eq!(h.shape(), &[2, n / 2 + 1]);
            let back = fft_c2r(&h, &[1], FftNorm::ByN, n as i64).unwrap();
            for (g, w) in back.to_vec::<f64>().iter().zip(&x) {
                assert!((g - w).abs() < 1e-12, "n={n}");
            }
        }
    }

    #[test]
    fn dtype_errors_are_pytorchs() {
        let r = Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
        let e = fft_c2c(&r, &[0], FftNorm::None, true).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Only supports complex dtypes, but found: Float"
        );
        assert!(FftNorm::from_code(3).is_err());
    }
}
