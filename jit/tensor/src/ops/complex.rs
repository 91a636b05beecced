//! Complex64/Complex128 tensors: the component views (`view_as_real`, `view_as_complex`, `.real`,
//! `.imag`), conversions to and from real dtypes, and the complex kernels (arithmetic, `abs`,
//! `angle`, `conj`, `exp`, `sum`/`mean`, `polar`, `complex`).
//!
//! A complex element is two interleaved components, real part first, so a complex tensor's real
//! view is the same storage read as the component dtype ([`DType::to_real`]) with every stride and
//! the offset doubled and a trailing dimension of 2 with stride 1. Reductions and additive ops run
//! the real kernels on that view; products, quotients and transcendental functions compute on
//! `num_complex::Complex` values. Each entry point checks its op: an op without a complex meaning
//! here raises PyTorch's error for complex inputs ([`refuse`]), never reads the bytes as reals.

use num_complex::Complex;
use num_traits::Float;

use super::pointwise::{TensorOrScalar, broadcast_to};
use super::reduce::ReduceOp;
use crate::kernels::binary::BinaryOp;
use crate::kernels::unary::UnaryOp;
use crate::layout::{Dims, Strides, contiguous_strides};
use crate::{DType, Element, Error, Layout, Result, Scalar, Shaped, Tensor, TensorMeta};

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

// === Element-wise kernels ===

/// Interleaved components of `x` (cast to complex `c`) broadcast to `shape`, as `Complex<T>`.
fn values<T: Float + Element>(
    x: TensorOrScalar<&Tensor>,
    c: DType,
    shape: &[usize],
) -> Result<Vec<Complex<T>>> {
    let t = match x {
        TensorOrScalar::Tensor(t) => t.to_dtype(c),
        TensorOrScalar::Scalar(s) => Tensor::from_scalar(s, c),
    };
    let t = broadcast_to(&t, shape)?;
    let flat = as_real(&t).to_vec::<T>();
    Ok(flat
        .chunks_exact(2)
        .map(|p| Complex::new(p[0], p[1]))
        .collect())
}

/// A complex tensor of `shape` and dtype `c` from its values.
fn from_values<T: Float + Element>(v: Vec<Complex<T>>, shape: &[usize], c: DType) -> Tensor {
    let flat: Vec<T> = v.into_iter().flat_map(|z| [z.re, z.im]).collect();
    let mut rshape: Vec<usize> = shape.to_vec();
    rshape.push(2);
    let r = Tensor::from_vec(flat, &rshape).expect("invariant: two components per element");
    debug_assert_eq!(r.dtype(), c.to_real());
    let l = Layout {
        shape: shape.iter().copied().collect(),
        strides: contiguous_strides(shape),
        offset: 0,
    };
    r.with_dtype_layout(c, l)
}

/// A real tensor of `shape` from its values.
fn from_reals<T: Float + Element>(v: Vec<T>, shape: &[usize]) -> Tensor {
    Tensor::from_vec(v, shape).expect("invariant: one value per element")
}

/// Smith's scaled quotient: no overflow for large divisors, inf/nan for a zero one (as C99 and
/// PyTorch's `c10::complex` give).
fn div<T: Float>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    let (c, d) = (b.re, b.im);
    if c.abs() >= d.abs() {
        if c == T::zero() && d == T::zero() {
            return Complex::new(a.re / c.abs(), a.im / d.abs());
        }
        let r = d / c;
        let s = T::one() / (c + d * r);
        Complex::new((a.re + a.im * r) * s, (a.im - a.re * r) * s)
    } else {
        let r = c / d;
        let s = T::one() / (d + c * r);
        Complex::new((a.re * r + a.im) * s, (a.im * r - a.re) * s)
    }
}

/// `z ** w` as C++'s `std::pow` on complex values: `exp(w * ln z)`, and 0 for a zero base.
fn pow<T: Float>(z: Complex<T>, w: Complex<T>) -> Complex<T> {
    if z.re == T::zero() && z.im == T::zero() {
        return Complex::new(T::zero(), T::zero());
    }
    (w * z.ln()).exp()
}

/// PyTorch's error for binary op `op` on a complex operand; `None` when the op has a complex
/// kernel here.
pub fn binary_refusal(op: BinaryOp, d: DType) -> Option<Error> {
    use BinaryOp as B;
    Some(match op {
        B::Add | B::Sub | B::Mul | B::Div | B::Pow | B::Eq | B::Ne => return None,
        B::Maximum | B::Minimum => Error::Type(format!(
            "{} not implemented for complex tensors.",
            op.name()
        )),
        B::DivFloor => refuse("div_floor_cpu", d),
        B::DivTrunc => refuse("div_trunc_cpu", d),
        _ => refuse(&format!("{}_cpu", op.name()), d),
    })
}

/// `a op b` where the common dtype is complex (`meta` from `binary_meta`, which refused the ops
/// without a complex kernel).
pub fn binary(
    op: BinaryOp,
    a: TensorOrScalar<&Tensor>,
    b: TensorOrScalar<&Tensor>,
    alpha: Scalar,
    c: DType,
    meta: &TensorMeta,
) -> Result<Tensor> {
    if let Some(e) = binary_refusal(op, c) {
        return Err(e);
    }
    match c {
        DType::Complex64 => binary_t::<f32>(op, a, b, alpha, c, meta),
        _ => binary_t::<f64>(op, a, b, alpha, c, meta),
    }
}

fn binary_t<T: Float + Element>(
    op: BinaryOp,
    a: TensorOrScalar<&Tensor>,
    b: TensorOrScalar<&Tensor>,
    alpha: Scalar,
    c: DType,
    meta: &TensorMeta,
) -> Result<Tensor> {
    use BinaryOp as B;
    let shape = &meta.shape;
    let (x, y) = (values::<T>(a, c, shape)?, values::<T>(b, c, shape)?);
    let al = T::from(alpha.to_f64()).unwrap_or_else(T::nan);
    let zip = |f: &dyn Fn(Complex<T>, Complex<T>) -> Complex<T>| {
        x.iter().zip(&y).map(|(&p, &q)| f(p, q)).collect::<Vec<_>>()
    };
    let out = match op {
        // `alpha == 1` skips the product so `inf` components stay exact (no `inf * 0`).
        B::Add if alpha.to_f64() == 1.0 => zip(&|p, q| p + q),
        B::Add => zip(&|p, q| p + q * al),
        B::Sub if alpha.to_f64() == 1.0 => zip(&|p, q| p - q),
        B::Sub => zip(&|p, q| p - q * al),
        B::Mul => zip(&|p, q| p * q),
        B::Div => zip(&div),
        B::Pow => match b {
            // PyTorch's `pow(tensor, scalar)` fast paths: products and quotients, not exp/log.
            TensorOrScalar::Scalar(e) if matches!(e.to_f64(), 2.0 | 3.0 | -1.0 | -2.0 | 0.5) => {
                let one = Complex::new(T::one(), T::zero());
                match e.to_f64() {
                    2.0 => x.iter().map(|&z| z * z).collect(),
                    3.0 => x.iter().map(|&z| z * z * z).collect(),
                    -1.0 => x.iter().map(|&z| div(one, z)).collect(),
                    -2.0 => x.iter().map(|&z| div(one, z * z)).collect(),
                    _ => x.iter().map(|&z| z.sqrt()).collect(),
                }
            }
            _ => zip(&pow),
        },
        B::Eq | B::Ne => {
            let eq = op == B::Eq;
            let v: Vec<bool> = x.iter().zip(&y).map(|(p, q)| (p == q) == eq).collect();
            return Ok(Tensor::from_vec(v, shape)?.to_dtype(meta.dtype));
        }
        _ => return Err(refuse(op.name(), c)),
    };
    Ok(from_values(out, shape, c).to_dtype(meta.dtype))
}

/// The output dtype of unary `op` on complex `x`, or PyTorch's error for it.
pub fn unary_out_dtype(op: UnaryOp, x: DType) -> Result<DType> {
    use UnaryOp as U;
    match op {
        U::Neg
        | U::Exp
        | U::Square
        | U::Reciprocal
        | U::Sqrt
        | U::Log
        | U::Sigmoid
        | U::Tanh
        | U::Sin
        | U::Cos => Ok(x),
        U::Abs => Ok(x.to_real()),
        U::IsNan | U::IsInf | U::IsFinite => Ok(DType::Bool),
        U::Relu | U::Relu6 => Err(Error::NotImplemented(
            "clamp is not supported for complex types".into(),
        )),
        U::Floor | U::Ceil | U::Trunc => Err(Error::NotImplemented(format!(
            "{} is not supported for complex inputs",
            op.name()
        ))),
        U::Sign => Err(Error::NotImplemented(
            "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use \
             torch.sgn instead."
                .into(),
        )),
        U::BitwiseNot | U::LogicalNot => Err(Error::Type(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors".into(),
        )),
        U::Gelu { .. } => Err(refuse("GeluKernelImpl", x)),
        U::Erf => Err(refuse("erf_vml_cpu", x)),
        U::Round { .. } => Err(refuse("round_vml_cpu", x)),
        _ => Err(refuse(&format!("{}_cpu", op.name()), x)),
    }
}

/// `op(x)` for complex `x`.
pub fn unary(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    let dt = unary_out_dtype(op, x.dtype())?;
    match x.dtype() {
        DType::Complex64 => unary_t::<f32>(op, x, dt),
        _ => unary_t::<f64>(op, x, dt),
    }
}

fn unary_t<T: Float + Element>(op: UnaryOp, x: &Tensor, dt: DType) -> Result<Tensor> {
    use UnaryOp as U;
    let c = x.dtype();
    let shape = x.shape();
    let v = values::<T>(TensorOrScalar::Tensor(x), c, shape)?;
    let map = |f: &dyn Fn(Complex<T>) -> Complex<T>| -> Tensor {
        from_values(v.iter().map(|&z| f(z)).collect(), shape, c)
    };
    let pred = |f: &dyn Fn(Complex<T>) -> bool| -> Result<Tensor> {
        Tensor::from_vec(v.iter().map(|&z| f(z)).collect::<Vec<bool>>(), shape)
    };
    Ok(match op {
        U::Neg => map(&|z| -z),
        U::Exp => map(&|z| z.exp()),
        U::Square => map(&|z| z * z),
        U::Reciprocal => map(&|z| div(Complex::new(T::one(), T::zero()), z)),
        U::Sqrt => map(&|z| z.sqrt()),
        U::Log => map(&|z| z.ln()),
        U::Sin => map(&|z| z.sin()),
        U::Cos => map(&|z| z.cos()),
        U::Tanh => map(&|z| z.tanh()),
        U::Sigmoid => map(&|z| {
            div(
                Complex::new(T::one(), T::zero()),
                Complex::new(T::one(), T::zero()) + (-z).exp(),
            )
        }),
        U::Abs => from_reals(v.iter().map(|z| z.re.hypot(z.im)).collect(), shape),
        U::IsNan => pred(&|z| z.re.is_nan() || z.im.is_nan())?,
        U::IsInf => pred(&|z| z.re.is_infinite() || z.im.is_infinite())?,
        U::IsFinite => pred(&|z| z.re.is_finite() && z.im.is_finite())?,
        _ => return Err(refuse(op.name(), c)),
    }
    .to_dtype(dt))
}

/// `torch.angle(x)`: the argument of each complex element (real dtype); for a real tensor 0 or
/// pi by sign (NaN kept), in the float type of its promotion.
pub fn angle(x: &Tensor) -> Result<Tensor> {
    let d = x.dtype();
    if d.is_complex() {
        return Ok(match d {
            DType::Complex64 => angle_t::<f32>(x),
            _ => angle_t::<f64>(x),
        });
    }
    let f = if d.is_floating_point() {
        d
    } else {
        crate::DEFAULT_FLOAT
    };
    let v: Vec<f64> = x
        .to_vec::<f64>()
        .into_iter()
        .map(|r| {
            if r.is_nan() {
                r
            } else if r < 0.0 {
                std::f64::consts::PI
            } else {
                0.0
            }
        })
        .collect();
    Ok(Tensor::from_vec(v, x.shape())?.to_dtype(f))
}

fn angle_t<T: Float + Element>(x: &Tensor) -> Tensor {
    let v = values::<T>(TensorOrScalar::Tensor(x), x.dtype(), x.shape())
        .expect("invariant: same shape");
    from_reals(v.iter().map(|z| z.im.atan2(z.re)).collect(), x.shape())
}

/// The output dtype of `angle`.
pub fn angle_dtype(x: DType) -> DType {
    if x.is_complex() {
        x.to_real()
    } else if x.is_floating_point() {
        x
    } else {
        crate::DEFAULT_FLOAT
    }
}

/// `torch.conj_physical(x)`: the conjugate as a new tensor (a real tensor is copied unchanged).
pub fn conj(x: &Tensor) -> Tensor {
    let out = x.deep_clone();
    if x.dtype().is_complex() {
        let im = component(&out, 1);
        let neg = crate::kernels::unary::unary(UnaryOp::Neg, &im)
            .expect("invariant: negation of a float tensor");
        im.copy_(&neg).expect("invariant: same shape");
    }
    out
}

/// The dtype checks of `torch.polar(abs, angle)` / `torch.complex(real, imag)` (PyTorch's
/// messages): both float32 or both float64; the complex result dtype.
pub fn pair_dtype(a: DType, b: DType) -> Result<DType> {
    let ok = |d: DType| matches!(d, DType::Float32 | DType::Float64);
    if !ok(a) || !ok(b) {
        return Err(Error::NotImplemented(format!(
            "Expected both inputs to be Half, Float or Double tensors but got {} and {}",
            a.aten_name(),
            b.aten_name()
        )));
    }
    if a != b {
        return Err(Error::Runtime(format!(
            "Expected object of scalar type {} but got scalar type {} for second argument",
            a.aten_name(),
            b.aten_name()
        )));
    }
    Ok(a.to_complex().expect("invariant: float32 or float64"))
}

/// `torch.complex(real, imag)` (`polar = false`) or `torch.polar(abs, angle)` (`polar = true`),
/// broadcasting the two.
pub fn from_pair(a: &Tensor, b: &Tensor, polar: bool) -> Result<Tensor> {
    let c = pair_dtype(a.dtype(), b.dtype())?;
    let shape = crate::layout::broadcast_shapes(a.shape(), b.shape())?;
    let out = Tensor::empty(&shape, c);
    let (re, im) = (component(&out, 0), component(&out, 1));
    if polar {
        let (x, y) = (broadcast_to(a, &shape)?, broadcast_to(b, &shape)?);
        let cos = crate::kernels::unary::unary(UnaryOp::Cos, &y)?;
        let sin = crate::kernels::unary::unary(UnaryOp::Sin, &y)?;
        let p = |t: &Tensor| {
            super::pointwise::binary(
                BinaryOp::Mul,
                TensorOrScalar::Tensor(&x),
                TensorOrScalar::Tensor(t),
                Scalar::Int(1),
            )
        };
        re.copy_(&p(&cos)?)?;
        im.copy_(&p(&sin)?)?;
    } else {
        re.copy_(a)?;
        im.copy_(b)?;
    }
    Ok(out)
}

// === Reductions ===

/// PyTorch's error for reduction `op` on complex `d`; `None` where it has a complex kernel here.
pub fn reduce_refusal(op: ReduceOp, d: DType) -> Option<Error> {
    Some(match op {
        ReduceOp::Sum | ReduceOp::Mean => return None,
        ReduceOp::Amax => refuse("max_values_cpu", d),
        ReduceOp::Amin => refuse("min_values_cpu", d),
        ReduceOp::Argmax | ReduceOp::Argmin => {
            Error::Type(format!("{}(): does not support complex input", op.name()))
        }
        _ => refuse(&format!("{}_cpu", op.name()), d),
    })
}

/// `sum`/`mean` of complex `x` over `dims`: the real reduction of its component view, whose
/// trailing dimension of 2 is not reduced, read back as complex.
pub fn reduce(
    op: ReduceOp,
    x: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
    out: DType,
) -> Result<Tensor> {
    if let Some(e) = reduce_refusal(op, x.dtype()) {
        return Err(e);
    }
    let src = x.to_dtype(out);
    if x.ndim() == 0 {
        // Sum and mean of one element are the element.
        return Ok(src.deep_clone());
    }
    let ds: Vec<i64> = super::reduce::reduce_dims(x.ndim(), dims)?
        .into_iter()
        .map(|d| d as i64)
        .collect();
    let r = super::reduce::reduce(op, &as_real(&src), Some(&ds), keepdim, None)?;
    // The real reduction is contiguous with a trailing 2: always a valid complex view.
    view_as_complex(&r.contiguous())
}
