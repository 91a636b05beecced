//! The complex kernels: element-wise arithmetic (Smith's quotient, `std::pow`'s power), unary
//! functions on `num_complex::Complex<T>` in the dtype's precision (f32 for complex64), `angle`,
//! `conj`, `polar`/`complex`, and `sum`/`mean` through the component view (`prod` in `scan`). Each entry point
//! checks its op and raises PyTorch's error for the ones without a complex meaning here.

use num_complex::Complex;
use num_traits::Float;

use super::{as_real, component, refuse, view_as_complex};
use crate::kernels::binary::BinaryOp;
use crate::kernels::unary::UnaryOp;
use crate::layout::contiguous_strides;
use crate::ops::pointwise::{TensorOrScalar, broadcast_to};
use crate::ops::reduce::ReduceOp;
use crate::{DType, Element, Error, Layout, Result, Scalar, Tensor, TensorMeta};

// === Element-wise kernels ===

/// Interleaved components of `x` (cast to complex `c`) broadcast to `shape`, as `Complex<T>`.
pub(super) fn values<T: Float + Element>(
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
pub(super) fn from_values<T: Float + Element>(
    v: Vec<Complex<T>>,
    shape: &[usize],
    c: DType,
) -> Tensor {
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
            crate::ops::pointwise::binary(
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
        ReduceOp::Sum | ReduceOp::Mean | ReduceOp::Prod => return None,
        ReduceOp::Amax => refuse("max_values_cpu", d),
        ReduceOp::Amin => refuse("min_values_cpu", d),
        ReduceOp::Argmax | ReduceOp::Argmin => {
            Error::Type(format!("{}(): does not support complex input", op.name()))
        }
        _ => refuse(&format!("{}_cpu", op.name()), d),
    })
}

/// `sum`/`mean` of complex `x` over `dims`: the real reduction of its component view, whose
/// trailing dimension of 2 is not reduced, read back as complex; `prod` multiplies complex
/// values (`scan::prod`).
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
    let wrapped = crate::ops::reduce::reduce_dims(x.ndim(), dims)?;
    if op == ReduceOp::Prod {
        return super::scan::prod(&src, &wrapped, keepdim, out);
    }
    let ds: Vec<i64> = wrapped.into_iter().map(|d| d as i64).collect();
    let r = crate::ops::reduce::reduce(op, &as_real(&src), Some(&ds), keepdim, None)?;
    // The real reduction is contiguous with a trailing 2: always a valid complex view.
    view_as_complex(&r.contiguous())
}
