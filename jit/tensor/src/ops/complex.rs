//! Complex64/Complex128 tensors: the component views (`view_as_real`, `view_as_complex`, `.real`,
//! `.imag`), conversions to and from real dtypes, `where`'s selection; the complex kernels
//! (arithmetic, `abs`, `angle`, `conj`, `exp`, `sum`/`mean`, `polar`, `complex`) are in `math`,
//! matrix products in `matmul`, `cumsum`/`cumprod`/`prod` in `scan`.
//!
//! A complex element is two interleaved components, real part first, so a complex tensor's real
//! view is the same storage read as the component dtype ([`DType::to_real`]) with every stride and
//! the offset doubled and a trailing dimension of 2 with stride 1. Reductions and additive ops run
//! the real kernels on that view; products, quotients and transcendental functions compute on
//! `num_complex::Complex` values. Each entry point checks its op: an op without a complex meaning
//! here raises PyTorch's error for complex inputs ([`refuse`]), never reads the bytes as reals.

mod math;
mod matmul;
mod scan;

pub use math::{
    angle, angle_dtype, binary, binary_refusal, conj, from_pair, pair_dtype, reduce,
    reduce_refusal, unary, unary_out_dtype,
};
pub(crate) use matmul::batched_gemm;
pub use scan::scan;

use crate::layout::{Dims, Strides};
use crate::{DType, Error, Layout, Result, Scalar, Shaped, Tensor};

/// PyTorch's error for an op that has no kernel for complex `dtype`: `"<kernel>" not implemented
/// for 'ComplexFloat'`, raised as `NotImplementedError` as PyTorch 2 does.
pub fn refuse(kernel: &str, dtype: DType) -> Error {
    Error::NotImplemented(format!(
        "\"{kernel}\" not implemented for '{}'",
        dtype.aten_name()
    ))
}

// === Views ===

/// The layout of the real view of a complex layout: components as elements, a trailing 2.
pub fn real_layout(x: &impl Shaped) -> Layout {
    let mut shape: Dims = x.shape().iter().copied().collect();
    shape.push(2);
    let mut strides: Strides = x.strides().iter().map(|s| s * 2).collect();
    strides.push(1);
    Layout {
        shape,
        strides,
        offset: x.offset() * 2,
    }
}

/// The real view of complex `x` (no checks: `x` must be complex).
pub(crate) fn as_real(x: &Tensor) -> Tensor {
    x.with_dtype_layout(x.dtype().to_real(), real_layout(x))
}

/// One component (0: real, 1: imaginary) of complex `x` as a real view of `x`'s shape.
fn component(x: &Tensor, k: usize) -> Tensor {
    x.with_dtype_layout(x.dtype().to_real(), component_layout(x, k))
}

fn component_layout(x: &impl Shaped, k: usize) -> Layout {
    Layout {
        shape: x.shape().iter().copied().collect(),
        strides: x.strides().iter().map(|s| s * 2).collect(),
        offset: x.offset() * 2 + k,
    }
}

/// `torch.view_as_real`'s layout (component dtype, trailing dimension 2) or PyTorch's error.
pub fn view_as_real_meta(x: &impl Shaped) -> Result<(DType, Layout)> {
    if !x.dtype().is_complex() {
        return Err(Error::Type(
            "view_as_real is only supported for complex tensors".into(),
        ));
    }
    Ok((x.dtype().to_real(), real_layout(x)))
}

/// `torch.view_as_real(x)`: a view of complex `x`'s storage as its components.
pub fn view_as_real(x: &Tensor) -> Result<Tensor> {
    let (d, l) = view_as_real_meta(x)?;
    Ok(x.with_dtype_layout(d, l))
}

/// `torch.view_as_complex`'s layout, with PyTorch's checks and messages.
pub fn view_as_complex_meta(x: &impl Shaped) -> Result<(DType, Layout)> {
    let Some(c) = x
        .dtype()
        .to_complex()
        .filter(|_| x.dtype().is_floating_point())
    else {
        return Err(Error::NotImplemented(format!(
            "view_as_complex is only supported for half, float and double tensors, but got a \
             tensor of scalar type: {}",
            x.dtype().aten_name()
        )));
    };
    let n = x.ndim();
    if n == 0 {
        return Err(Error::Runtime(
            "Input tensor must have one or more dimensions".into(),
        ));
    }
    if x.shape()[n - 1] != 2 {
        return Err(Error::Runtime(
            "Tensor must have a last dimension of size 2".into(),
        ));
    }
    if x.strides()[n - 1] != 1 {
        return Err(Error::Runtime(
            "Tensor must have a last dimension with stride 1".into(),
        ));
    }
    if x.strides()[..n - 1].iter().any(|s| s % 2 != 0) {
        return Err(Error::Runtime(
            "Tensor must have a stride divisible by 2 for all but last dimension".into(),
        ));
    }
    if !x.offset().is_multiple_of(2) {
        return Err(Error::Runtime(
            "Tensor must have a storage_offset divisible by 2".into(),
        ));
    }
    Ok((
        c,
        Layout {
            shape: x.shape()[..n - 1].iter().copied().collect(),
            strides: x.strides()[..n - 1].iter().map(|s| s / 2).collect(),
            offset: x.offset() / 2,
        },
    ))
}

/// `torch.view_as_complex(x)`: float pairs in the last dimension read as complex elements.
pub fn view_as_complex(x: &Tensor) -> Result<Tensor> {
    let (d, l) = view_as_complex_meta(x)?;
    Ok(x.with_dtype_layout(d, l))
}

/// `x.real` / `x.imag` (component 0 or 1): a view for a complex `x`; `x.real` of a real tensor is
/// `x` itself and `x.imag` an error, as PyTorch.
pub fn component_meta(x: &impl Shaped, k: usize) -> Result<(DType, Layout)> {
    if x.dtype().is_complex() {
        return Ok((x.dtype().to_real(), component_layout(x, k)));
    }
    if k == 1 {
        return Err(Error::Type(
            "imag is not implemented for tensors with non-complex dtypes.".into(),
        ));
    }
    Ok((
        x.dtype(),
        Layout {
            shape: x.shape().iter().copied().collect(),
            strides: x.strides().iter().copied().collect(),
            offset: x.offset(),
        },
    ))
}

/// `x.real` (k = 0) / `x.imag` (k = 1).
pub fn component_view(x: &Tensor, k: usize) -> Result<Tensor> {
    let (d, l) = component_meta(x, k)?;
    Ok(x.with_dtype_layout(d, l))
}

// === Conversions ===

/// `out[i] = cast(src[i])` where either side is complex: complex to complex casts both
/// components, real to complex writes a zero imaginary part, complex to real keeps the real part
/// (PyTorch warns there; the caller decides). Shapes are equal.
pub(crate) fn copy_cast(out: &Tensor, src: &Tensor) {
    use crate::kernels::copy::copy_cast as real_copy;
    match (out.dtype().is_complex(), src.dtype().is_complex()) {
        (true, true) => real_copy(&as_real(out), &as_real(src)),
        (true, false) => {
            // A bool source is 0/1 in the real part (PyTorch's cast), like any real source.
            real_copy(&component(out, 0), src);
            component(out, 1).fill_(Scalar::Int(0));
        }
        (false, true) => {
            if out.dtype() == DType::Bool {
                // `bool(z)` is true when either component is non-zero.
                let nz = |k| {
                    let c = component(src, k);
                    c.to_dtype(DType::Bool)
                };
                let (re, im) = (nz(0), nz(1));
                let v: Vec<bool> = re
                    .to_vec::<bool>()
                    .into_iter()
                    .zip(im.to_vec::<bool>())
                    .map(|(a, b)| a || b)
                    .collect();
                let t = Tensor::from_vec(v, out.shape()).expect("invariant: same element count");
                real_copy(out, &t);
            } else {
                real_copy(out, &component(src, 0));
            }
        }
        (false, false) => real_copy(out, src),
    }
}

/// Fills complex `out` with `re + im*j`.
pub fn fill(out: &Tensor, re: f64, im: f64) {
    component(out, 0).fill_(Scalar::Float(re));
    component(out, 1).fill_(Scalar::Float(im));
}

/// PyTorch's error for writing a complex value with a non-zero imaginary part into a real
/// tensor of dtype `d` with `numel` elements (`torch.full((2,), 1+2j, dtype=torch.float32)`):
/// it names the C++ type the value is checked against. Measured on PyTorch 2.15: a tensor of at
/// most one element is filled through a `double`, so the half types name `double` there.
pub fn narrowing_error(d: DType, numel: usize) -> Error {
    let ty = match d {
        DType::Float16 | DType::BFloat16 if numel <= 1 => "double",
        DType::Float16 => "c10::Half",
        DType::BFloat16 => "c10::BFloat16",
        DType::Float32 => "float",
        DType::Float64 => "double",
        DType::Int8 => "int8_t",
        DType::UInt8 => "uint8_t",
        DType::Int16 => "int16_t",
        DType::Int32 => "int",
        DType::Int64 => "int64_t",
        other => other.aten_name(),
    };
    Error::Runtime(format!(
        "value cannot be converted to type {ty} without overflow"
    ))
}

/// Fills `out` of any dtype with the complex value `re + im*j`, as `fill_`/`full` do: a complex
/// tensor gets both components, a bool tensor whether either is non-zero, any other real tensor
/// the real part when the imaginary part is zero, else PyTorch's [`narrowing_error`].
pub fn fill_any(out: &Tensor, re: f64, im: f64) -> Result<()> {
    let d = out.dtype();
    if d.is_complex() {
        fill(out, re, im);
    } else if d == DType::Bool {
        out.fill_(Scalar::Bool(re != 0.0 || im != 0.0));
    } else if im != 0.0 {
        return Err(narrowing_error(d, out.numel()));
    } else {
        out.fill_(Scalar::Float(re));
    }
    Ok(())
}

/// A 0-dim complex tensor holding `re + im*j`.
pub fn scalar(re: f64, im: f64, dtype: DType) -> Tensor {
    let t = Tensor::empty(&[], dtype);
    fill(&t, re, im);
    t
}

/// The single element of complex `x` as `(re, im)` (`.item()` of a complex tensor).
pub fn item(x: &Tensor) -> Result<(f64, f64)> {
    if x.numel() != 1 {
        return Err(Error::Runtime(format!(
            "a Tensor with {} elements cannot be converted to Scalar",
            x.numel()
        )));
    }
    let v = component_pairs(x);
    Ok((v[0], v[1]))
}

/// All elements of complex `x` in row-major order as interleaved `re, im` f64 pairs (printing,
/// `tolist`, `item`).
pub fn component_pairs(x: &Tensor) -> Vec<f64> {
    as_real(x).to_vec::<f64>()
}

/// `out = cond ? x : y` for complex `out`, `x`, `y` of `cond`'s shape (broadcast views): both
/// components of an element are picked together, the condition read through a trailing stride-0
/// dimension over the component views.
pub(crate) fn select(out: &Tensor, cond: &Tensor, x: &Tensor, y: &Tensor) {
    let mut shape: Dims = cond.shape().iter().copied().collect();
    shape.push(2);
    let mut strides: Strides = cond.strides().iter().copied().collect();
    strides.push(0);
    let c = cond.with_layout(Layout {
        shape,
        strides,
        offset: cond.offset(),
    });
    let (o, a, b) = (as_real(out), as_real(x), as_real(y));
    crate::dispatch_all!(out.dtype().to_real(), T => {
        crate::kernels::map::map3::<bool, T, T, T>(&o, &c, &a, &b, |m, a, b| if m { a } else { b })
    });
}
