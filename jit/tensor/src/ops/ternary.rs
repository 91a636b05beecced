//! Ternary pointwise ops: `lerp`, `addcmul`, `addcdiv`.

use crate::dtype::{Operand, result_type};
use crate::error::bail;
use crate::kernels::copy::copy_cast;
use crate::kernels::map::{map2, map3};
use crate::kernels::math::{Flt, Int};
use crate::layout::{Shaped, broadcast_all};
use crate::ops::pointwise::{TensorOrScalar, broadcast_to, operand_as, operand_via};
use crate::{DType, Error, Result, Scalar, Tensor, TensorMeta, scalar_to};

/// Shape/dtype rule of `lerp(self, end, weight)`: all float tensors of one dtype.
pub fn lerp_meta<S: Shaped>(x: &S, end: &S, weight: TensorOrScalar<&S>) -> Result<TensorMeta> {
    let kernel = match weight {
        TensorOrScalar::Tensor(_) => "lerp_kernel_tensor",
        TensorOrScalar::Scalar(_) => "lerp_kernel_scalar",
    };
    if end.dtype() != x.dtype() {
        bail!(
            Runtime,
            "expected dtype {} for `end` but got dtype {}",
            x.dtype().aten_name().to_lowercase(),
            end.dtype().aten_name().to_lowercase()
        );
    }
    if let TensorOrScalar::Tensor(w) = weight
        && w.dtype() != x.dtype()
    {
        bail!(
            Runtime,
            "expected dtype {} for `weight` but got dtype {}",
            x.dtype().aten_name().to_lowercase(),
            w.dtype().aten_name().to_lowercase()
        );
    }
    if !x.dtype().is_floating_point() {
        return Err(Error::NotImplementedFor {
            op: kernel,
            dtype: x.dtype().aten_name(),
        });
    }
    let shape = broadcast_all(&[x.shape(), end.shape(), weight.shape()])?;
    let inputs = [
        (x.shape(), x.strides()),
        (end.shape(), end.strides()),
        crate::memory_format::operand_of(&weight),
    ];
    Ok(TensorMeta::pointwise(x.dtype(), &shape, &inputs))
}

/// ATen's two-sided formula: exact at both ends (`w == 0` gives `self`, `w == 1` gives `end`).
#[inline(always)]
fn lerp_f<F: Flt>(a: F, b: F, w: F) -> F {
    if w.abs() < F::c(0.5) {
        a + w * (b - a)
    } else {
        b - (b - a) * (F::one() - w)
    }
}

/// `lerp(self, end, weight)`.
pub fn lerp(x: &Tensor, end: &Tensor, weight: TensorOrScalar<&Tensor>) -> Result<Tensor> {
    let meta = lerp_meta(x, end, weight)?;
    let out = Tensor::empty_meta(&meta);
    lerp_into(&out, x, end, weight)?;
    Ok(out)
}

/// `lerp` into `out` (which may be `x` for `lerp_`).
pub(crate) fn lerp_into(
    out: &Tensor,
    x: &Tensor,
    end: &Tensor,
    weight: TensorOrScalar<&Tensor>,
) -> Result<()> {
    let c = out.dtype().compute_dtype();
    let shape = out.shape().to_vec();
    let (a, b) = (
        broadcast_to(&x.to_dtype(c), &shape)?,
        broadcast_to(&end.to_dtype(c), &shape)?,
    );
    let target = compute_target(out, c);
    match (c, weight) {
        (DType::Float32, TensorOrScalar::Scalar(w)) => {
            let w = w.to_f64() as f32;
            map2::<f32, f32, f32>(&target, &a, &b, move |a, b| lerp_f(a, b, w))
        }
        (DType::Float64, TensorOrScalar::Scalar(w)) => {
            let w = w.to_f64();
            map2::<f64, f64, f64>(&target, &a, &b, move |a, b| lerp_f(a, b, w))
        }
        (DType::Float32, w) => {
            let w = operand_as(w, c, &shape)?;
            map3::<f32, f32, f32, f32>(&target, &a, &b, &w, lerp_f)
        }
        (DType::Float64, w) => {
            let w = operand_as(w, c, &shape)?;
            map3::<f64, f64, f64, f64>(&target, &a, &b, &w, lerp_f)
        }
        _ => unreachable!("invariant: lerp_meta admits floats only"),
    }
    finish(out, &target);
    Ok(())
}

/// Which of `addcmul` / `addcdiv`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddcOp {
    /// `self + value * t1 * t2`.
    Mul,
    /// `self + value * t1 / t2`.
    Div,
}

impl AddcOp {
    fn name(self) -> &'static str {
        match self {
            AddcOp::Mul => "addcmul",
            AddcOp::Div => "addcdiv",
        }
    }
}

/// Shape/dtype rule of `addcmul`/`addcdiv(self, tensor1, tensor2, value)`.
pub fn addc_meta<S: Shaped>(op: AddcOp, x: &S, t1: &S, t2: &S) -> Result<TensorMeta> {
    if op == AddcOp::Div && t1.dtype().is_integral(true) && t2.dtype().is_integral(true) {
        bail!(
            Runtime,
            "Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all dtypes."
        );
    }
    let operand = |t: &S| {
        if t.ndim() == 0 {
            Operand::ZeroDim(t.dtype())
        } else {
            Operand::Dimensioned(t.dtype())
        }
    };
    let dt = result_type(&[operand(x), operand(t1), operand(t2)]);
    if dt == DType::Bool {
        return Err(Error::NotImplementedFor {
            op: if op == AddcOp::Mul {
                "addcmul_cpu_out"
            } else {
                "addcdiv_cpu_out"
            },
            dtype: "Bool",
        });
    }
    let shape = broadcast_all(&[x.shape(), t1.shape(), t2.shape()])?;
    let inputs = [
        (x.shape(), x.strides()),
        (t1.shape(), t1.strides()),
        (t2.shape(), t2.strides()),
    ];
    Ok(TensorMeta::pointwise(dt, &shape, &inputs))
}

/// `addcmul`/`addcdiv(self, tensor1, tensor2, value=value)`.
pub fn addc(op: AddcOp, x: &Tensor, t1: &Tensor, t2: &Tensor, value: Scalar) -> Result<Tensor> {
    let meta = addc_meta(op, x, t1, t2)?;
    let out = Tensor::empty_meta(&meta);
    addc_into(op, &out, x, t1, t2, value, meta.dtype)?;
    Ok(out)
}

/// `addc*` computed in `dt` and written into `out` (which may be `x` for the in-place forms).
pub(crate) fn addc_into(
    op: AddcOp,
    out: &Tensor,
    x: &Tensor,
    t1: &Tensor,
    t2: &Tensor,
    value: Scalar,
    dt: DType,
) -> Result<()> {
    let c = dt.compute_dtype();
    let shape = out.shape().to_vec();
    let conv = |t: &Tensor| operand_via(TensorOrScalar::Tensor(t), dt, c, &shape);
    let (a, b, d) = (conv(x)?, conv(t1)?, conv(t2)?);
    let target = compute_target(out, c);
    macro_rules! float {
        ($F:ty) => {{
            let v: $F = scalar_to::<$F>(value);
            match op {
                AddcOp::Mul => {
                    map3::<$F, $F, $F, $F>(&target, &a, &b, &d, move |a, b, d| a + v * b * d)
                }
                AddcOp::Div => {
                    map3::<$F, $F, $F, $F>(&target, &a, &b, &d, move |a, b, d| a + v * b / d)
                }
            }
        }};
    }
    match c {
        DType::Float32 => float!(f32),
        DType::Float64 => float!(f64),
        DType::UInt8 => addc_int::<u8>(op, &target, &a, &b, &d, value)?,
        DType::Int8 => addc_int::<i8>(op, &target, &a, &b, &d, value)?,
        DType::Int16 => addc_int::<i16>(op, &target, &a, &b, &d, value)?,
        DType::Int32 => addc_int::<i32>(op, &target, &a, &b, &d, value)?,
        DType::Int64 => addc_int::<i64>(op, &target, &a, &b, &d, value)?,
        _ => bail!(
            Runtime,
            "\"{}\" not implemented for '{}'",
            op.name(),
            c.aten_name()
        ),
    }
    finish(out, &target);
    Ok(())
}

fn addc_int<T: Int>(
    op: AddcOp,
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    d: &Tensor,
    value: Scalar,
) -> Result<()> {
    // Integer addcdiv is rejected by the meta rule unless one factor is a float, so integers
    // only reach here for addcmul.
    if op == AddcOp::Div {
        bail!(Runtime, "addcdiv: integer result type");
    }
    let v: T = scalar_to::<T>(value);
    map3::<T, T, T, T>(out, a, b, d, move |a, b, d| {
        a.wrapping_add(&v.wrapping_mul(&b).wrapping_mul(&d))
    });
    Ok(())
}

/// `out` itself when it has the compute dtype, else a fresh compute-dtype buffer.
fn compute_target(out: &Tensor, c: DType) -> Tensor {
    if out.dtype() == c {
        out.clone()
    } else {
        Tensor::empty(out.shape(), c)
    }
}

fn finish(out: &Tensor, target: &Tensor) {
    if !target.shares_storage(out) {
        copy_cast(out, target);
    }
}

/// In-place `x.lerp_(end, weight)`.
pub fn lerp_(x: &Tensor, end: &Tensor, weight: TensorOrScalar<&Tensor>) -> Result<()> {
    let meta = lerp_meta(x, end, weight)?;
    crate::ops::pointwise::check_inplace(x, &meta)?;
    lerp_into(x, x, end, weight)?;
    x.storage().bump_version();
    Ok(())
}

/// In-place `x.addcmul_(t1, t2, value=value)` / `x.addcdiv_(...)`.
pub fn addc_(op: AddcOp, x: &Tensor, t1: &Tensor, t2: &Tensor, value: Scalar) -> Result<()> {
    let meta = addc_meta(op, x, t1, t2)?;
    crate::ops::pointwise::check_inplace(x, &meta)?;
    addc_into(op, x, x, t1, t2, value, meta.dtype)?;
    x.storage().bump_version();
    Ok(())
}
