//! Pointwise ops at the tensor level: shape/dtype rules (`*_meta`, shared with the graph's meta
//! rules) and the eager entry points that allocate from them.

use crate::dtype::{Operand, result_type};
use crate::error::bail;
use crate::kernels::binary::{BinaryOp, binary_into};
use crate::kernels::copy::copy_cast;
use crate::kernels::map::{map2, map3};
use crate::kernels::math::{clamp_hi, clamp_lo};
use crate::kernels::unary::{UnaryOp, unary_into};
use crate::layout::{Shaped, broadcast_all, broadcast_shapes, broadcast_strides};
use crate::memory_format::operand_of;
use crate::{DType, Error, Result, Scalar, Tensor, TensorMeta, can_cast, dispatch_all};

/// A tensor argument that may also be a Python number (a "wrapped number" in PyTorch).
#[derive(Clone, Copy, Debug)]
pub enum TensorOrScalar<T> {
    /// A tensor (or its meta).
    Tensor(T),
    /// A Python number.
    Scalar(Scalar),
}

impl<T> TensorOrScalar<T> {
    /// The tensor, if this is one.
    pub fn tensor(self) -> Option<T> {
        match self {
            TensorOrScalar::Tensor(t) => Some(t),
            TensorOrScalar::Scalar(_) => None,
        }
    }
}

impl<T: Shaped> TensorOrScalar<&T> {
    /// How this operand takes part in type promotion.
    pub fn operand(&self) -> Operand {
        match self {
            TensorOrScalar::Tensor(t) if t.ndim() == 0 => Operand::ZeroDim(t.dtype()),
            TensorOrScalar::Tensor(t) => Operand::Dimensioned(t.dtype()),
            TensorOrScalar::Scalar(s) => Operand::Scalar(s.category()),
        }
    }
    /// The shape (`[]` for a scalar).
    pub fn shape(&self) -> &[usize] {
        match self {
            TensorOrScalar::Tensor(t) => t.shape(),
            TensorOrScalar::Scalar(_) => &[],
        }
    }
}

/// Converts an operand to a tensor of `dtype` viewed with `shape` (stride 0 where broadcast).
pub fn operand_as(x: TensorOrScalar<&Tensor>, dtype: DType, shape: &[usize]) -> Result<Tensor> {
    let t = match x {
        TensorOrScalar::Tensor(t) => t.to_dtype(dtype),
        TensorOrScalar::Scalar(s) => Tensor::from_scalar(s, dtype),
    };
    broadcast_to(&t, shape)
}

/// Like [`operand_as`], but rounding through `via` first when `via` is a half type: PyTorch casts
/// operands to the result dtype before computing in float32, so a float scalar or an int tensor
/// meeting a float16 tensor is rounded to float16 first.
pub fn operand_via(
    x: TensorOrScalar<&Tensor>,
    via: DType,
    dtype: DType,
    shape: &[usize],
) -> Result<Tensor> {
    if via == dtype || !matches!(via, DType::Float16 | DType::BFloat16) {
        return operand_as(x, dtype, shape);
    }
    let t = match x {
        TensorOrScalar::Tensor(t) => t.to_dtype(via).to_dtype(dtype),
        TensorOrScalar::Scalar(s) => Tensor::from_scalar(s, via).to_dtype(dtype),
    };
    broadcast_to(&t, shape)
}

/// A stride-0 view of `t` with `shape`.
pub fn broadcast_to(t: &Tensor, shape: &[usize]) -> Result<Tensor> {
    if t.shape() == shape {
        return Ok(t.clone());
    }
    let strides = broadcast_strides(t.shape(), t.strides(), shape)?;
    Ok(t.with_layout(crate::Layout {
        shape: shape.iter().copied().collect(),
        strides,
        offset: t.offset(),
    }))
}

/// Shape/dtype rule of a unary op.
pub fn unary_meta(op: UnaryOp, x: &impl Shaped) -> Result<TensorMeta> {
    if x.dtype().is_complex() {
        let d = super::complex::unary_out_dtype(op, x.dtype())?;
        return Ok(TensorMeta::pointwise(
            d,
            x.shape(),
            &[(x.shape(), x.strides())],
        ));
    }
    let d = op.out_dtype(x.dtype())?;
    Ok(TensorMeta::pointwise(
        d,
        x.shape(),
        &[(x.shape(), x.strides())],
    ))
}

/// `op(x)`.
pub fn unary(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    if x.dtype().is_complex() {
        let meta = unary_meta(op, x)?;
        return Ok(super::complex::unary(op, x)?.laid_out_as(&meta));
    }
    crate::kernels::unary::unary(op, x)
}

/// In-place `op(x)` (e.g. `relu_`): the result must cast back into `x`'s dtype.
pub fn unary_(op: UnaryOp, x: &Tensor) -> Result<()> {
    if x.dtype().is_complex() {
        let r = super::complex::unary(op, x)?;
        if r.dtype() != x.dtype() {
            return Err(Error::CannotCast {
                from: r.dtype(),
                to: x.dtype(),
            });
        }
        x.copy_(&r)?;
        return Ok(());
    }
    let dt = op.out_dtype(x.dtype())?;
    if !can_cast(dt, x.dtype()) {
        return Err(Error::CannotCast {
            from: dt,
            to: x.dtype(),
        });
    }
    unary_into(op, x, x)?;
    x.storage().bump_version();
    Ok(())
}

fn need_tensor<T>(op: &str, a: &TensorOrScalar<T>, b: &TensorOrScalar<T>) -> Result<()> {
    if matches!(
        (a, b),
        (TensorOrScalar::Scalar(_), TensorOrScalar::Scalar(_))
    ) {
        bail!(Type, "{op}(): at least one argument must be a Tensor");
    }
    Ok(())
}

/// Shape/dtype rule of a binary op.
pub fn binary_meta<S: Shaped>(
    op: BinaryOp,
    a: TensorOrScalar<&S>,
    b: TensorOrScalar<&S>,
) -> Result<TensorMeta> {
    need_tensor(op.name(), &a, &b)?;
    check_int_pow(op, &a, &b)?;
    let shape = broadcast_shapes(a.shape(), b.shape())?;
    let common = result_type(&[a.operand(), b.operand()]);
    let inputs = [operand_of(&a), operand_of(&b)];
    if common.is_complex() {
        if let Some(e) = super::complex::binary_refusal(op, common) {
            return Err(e);
        }
        let out = if op.is_predicate() {
            DType::Bool
        } else {
            common
        };
        return Ok(TensorMeta::pointwise(out, &shape, &inputs));
    }
    Ok(TensorMeta::pointwise(
        op.out_dtype(common)?,
        &shape,
        &inputs,
    ))
}

/// `int_tensor ** -1` with a Python int exponent is an error in PyTorch (`pow.Tensor_Scalar`'s
/// meta); a negative exponent inside a tensor is not (the kernel truncates toward zero).
fn check_int_pow<S: Shaped>(
    op: BinaryOp,
    a: &TensorOrScalar<&S>,
    b: &TensorOrScalar<&S>,
) -> Result<()> {
    if op == BinaryOp::Pow
        && let (TensorOrScalar::Tensor(x), TensorOrScalar::Scalar(Scalar::Int(e))) = (a, b)
        && *e < 0
        && x.dtype().is_integral(true)
    {
        bail!(
            Runtime,
            "Integers to negative integer powers are not allowed."
        );
    }
    Ok(())
}

fn check_alpha(out: DType, alpha: Scalar) -> Result<()> {
    if out.is_integral(true) && matches!(alpha, Scalar::Float(_)) {
        bail!(
            Runtime,
            "For integral input tensors, argument alpha must not be a floating point number."
        );
    }
    if out != DType::Bool && matches!(alpha, Scalar::Bool(_)) && !out.is_integral(true) {
        bail!(Runtime, "Boolean alpha only supported for Boolean results.");
    }
    Ok(())
}

/// `a op b` (with `alpha` scaling `b` for add/sub; pass `Scalar::Int(1)` otherwise).
pub fn binary(
    op: BinaryOp,
    a: TensorOrScalar<&Tensor>,
    b: TensorOrScalar<&Tensor>,
    alpha: Scalar,
) -> Result<Tensor> {
    let meta = binary_meta(op, a, b)?;
    check_alpha(meta.dtype, alpha)?;
    if let Some(t) = pow_fast_path(op, a, b, &meta)? {
        return Ok(t.laid_out_as(&meta));
    }
    let common = result_type(&[a.operand(), b.operand()]);
    if common.is_complex() {
        return Ok(super::complex::binary(op, a, b, alpha, common, &meta)?.laid_out_as(&meta));
    }
    let c = op.compute_dtype(common)?;
    let via = if op.is_predicate() {
        common
    } else {
        meta.dtype
    };
    let (ac, bc) = (
        operand_via(a, via, c, &meta.shape)?,
        operand_via(b, via, c, &meta.shape)?,
    );
    let out = Tensor::empty_meta(&meta);
    let kernel_out = if op.is_predicate() { DType::Bool } else { c };
    if kernel_out == meta.dtype {
        binary_into(op, &out, &ac, &bc, alpha)?;
    } else {
        let tmp = Tensor::empty_meta(&TensorMeta {
            dtype: kernel_out,
            ..meta.clone()
        });
        binary_into(op, &tmp, &ac, &bc, alpha)?;
        copy_cast(&out, &tmp);
    }
    Ok(out)
}

/// `x ** k` for a few scalar `k` as cheaper unary ops (same results: exact for 1 and 2, and
/// correctly rounded sqrt/reciprocal, which `powf` is not guaranteed to match).
fn pow_fast_path(
    op: BinaryOp,
    a: TensorOrScalar<&Tensor>,
    b: TensorOrScalar<&Tensor>,
    meta: &TensorMeta,
) -> Result<Option<Tensor>> {
    let (TensorOrScalar::Tensor(x), TensorOrScalar::Scalar(e)) = (a, b) else {
        return Ok(None);
    };
    if op != BinaryOp::Pow || meta.dtype != x.dtype() || x.dtype() == DType::Bool {
        return Ok(None);
    }
    let e = e.to_f64();
    let float = x.dtype().is_floating_point();
    let u = match e {
        1.0 => return Ok(Some(x.deep_clone())),
        2.0 => UnaryOp::Square,
        0.5 if float => UnaryOp::Sqrt,
        -1.0 if float => UnaryOp::Reciprocal,
        _ => return Ok(None),
    };
    crate::kernels::unary::unary(u, x).map(Some)
}

/// Whether an in-place op's result (`meta`) can be written into `this`: the broadcast shape must be
/// `this`'s and the result dtype must cast into `this`'s (PyTorch's messages otherwise).
pub fn check_writable(this: &Tensor, meta: &TensorMeta) -> Result<()> {
    if meta.shape != this.shape() {
        bail!(
            Runtime,
            "output with shape {:?} doesn't match the broadcast shape {:?}",
            this.shape(),
            meta.shape
        );
    }
    if !can_cast(meta.dtype, this.dtype()) {
        return Err(Error::CannotCast {
            from: meta.dtype,
            to: this.dtype(),
        });
    }
    Ok(())
}

/// In-place `self op= other`; the result dtype must cast into `self`'s and the broadcast shape must
/// be `self`'s.
pub fn binary_(
    op: BinaryOp,
    this: &Tensor,
    other: TensorOrScalar<&Tensor>,
    alpha: Scalar,
) -> Result<()> {
    let a = TensorOrScalar::Tensor(this);
    let meta = binary_meta(op, a, other)?;
    check_writable(this, &meta)?;
    check_alpha(meta.dtype, alpha)?;
    let common = result_type(&[a.operand(), other.operand()]);
    if common.is_complex() {
        // Computed out of place, then written back (`copy_` bumps the version).
        let r = super::complex::binary(op, a, other, alpha, common, &meta)?;
        return this.copy_(&r);
    }
    let c = op.compute_dtype(common)?;
    let via = if op.is_predicate() {
        common
    } else {
        meta.dtype
    };
    let ac = operand_via(a, via, c, this.shape())?;
    let bc = operand_via(other, via, c, this.shape())?;
    let kernel_out = if op.is_predicate() { DType::Bool } else { c };
    if kernel_out == this.dtype() {
        binary_into(op, this, &ac, &bc, alpha)?;
    } else {
        let tmp = Tensor::empty(this.shape(), kernel_out);
        binary_into(op, &tmp, &ac, &bc, alpha)?;
        copy_cast(this, &tmp);
    }
    this.storage().bump_version();
    Ok(())
}

/// Shape/dtype rule of `torch.where(cond, a, b)`.
pub fn where_meta<S: Shaped>(
    cond: &S,
    a: TensorOrScalar<&S>,
    b: TensorOrScalar<&S>,
) -> Result<TensorMeta> {
    if cond.dtype() != DType::Bool {
        bail!(
            Runtime,
            "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
            cond.dtype().aten_name()
        );
    }
    let shape = broadcast_all(&[cond.shape(), a.shape(), b.shape()])?;
    let dt = result_type(&[a.operand(), b.operand()]);
    let inputs = [
        (cond.shape(), cond.strides()),
        operand_of(&a),
        operand_of(&b),
    ];
    Ok(TensorMeta::pointwise(dt, &shape, &inputs))
}

/// `torch.where(cond, a, b)`.
pub fn where_(
    cond: &Tensor,
    a: TensorOrScalar<&Tensor>,
    b: TensorOrScalar<&Tensor>,
) -> Result<Tensor> {
    let meta = where_meta(cond, a, b)?;
    let c = broadcast_to(cond, &meta.shape)?;
    let (x, y) = (
        operand_as(a, meta.dtype, &meta.shape)?,
        operand_as(b, meta.dtype, &meta.shape)?,
    );
    let out = Tensor::empty_meta(&meta);
    if meta.dtype.is_complex() {
        super::complex::select(&out, &c, &x, &y);
        return Ok(out);
    }
    dispatch_all!(meta.dtype, T => map3::<bool, T, T, T>(&out, &c, &x, &y, |m, x, y| if m { x } else { y }));
    Ok(out)
}

/// Shape/dtype rule of `clamp(x, min, max)`: promotes with the bounds (as PyTorch >= 2.0).
pub fn clamp_meta<S: Shaped>(
    x: &S,
    min: Option<TensorOrScalar<&S>>,
    max: Option<TensorOrScalar<&S>>,
) -> Result<TensorMeta> {
    if min.is_none() && max.is_none() {
        bail!(
            Runtime,
            "torch.clamp: At least one of 'min' or 'max' must not be None"
        );
    }
    let mut ops = vec![TensorOrScalar::Tensor(x).operand()];
    let mut shapes: Vec<&[usize]> = vec![x.shape()];
    let mut inputs = vec![(x.shape(), x.strides())];
    for b in [&min, &max].into_iter().flatten() {
        ops.push(b.operand());
        shapes.push(b.shape());
        inputs.push(operand_of(b));
    }
    let shape = broadcast_all(&shapes)?;
    let dt = result_type(&ops);
    if dt == DType::Bool {
        return Err(Error::NotImplementedFor {
            op: "clamp_cpu",
            dtype: "Bool",
        });
    }
    Ok(TensorMeta::pointwise(dt, &shape, &inputs))
}

/// `clamp(x, min, max)` into `out` (which may be `x` itself for `clamp_`).
fn clamp_into(
    out: &Tensor,
    x: &Tensor,
    min: Option<TensorOrScalar<&Tensor>>,
    max: Option<TensorOrScalar<&Tensor>>,
    dt: DType,
) -> Result<()> {
    let c = dt.compute_dtype();
    let shape = out.shape().to_vec();
    let xc = operand_via(TensorOrScalar::Tensor(x), dt, c, &shape)?;
    let lo = min.map(|m| operand_via(m, dt, c, &shape)).transpose()?;
    let hi = max.map(|m| operand_via(m, dt, c, &shape)).transpose()?;
    let target = if out.dtype() == c {
        out.clone()
    } else {
        Tensor::empty(&shape, c).with_dense_strides(&crate::preserve::preserved_strides(
            out.shape(),
            out.strides(),
        ))
    };
    dispatch_all!(c, T => {
        match (&lo, &hi) {
            (Some(l), Some(h)) => map3::<T, T, T, T>(&target, &xc, l, h, |v, l, h| clamp_hi(clamp_lo(v, l), h)),
            (Some(l), None) => map2::<T, T, T>(&target, &xc, l, clamp_lo),
            (None, Some(h)) => map2::<T, T, T>(&target, &xc, h, clamp_hi),
            (None, None) => unreachable!("invariant: clamp_meta requires a bound"),
        }
    });
    if out.dtype() != c {
        copy_cast(out, &target);
    }
    Ok(())
}

/// `clamp(x, min, max)`.
pub fn clamp(
    x: &Tensor,
    min: Option<TensorOrScalar<&Tensor>>,
    max: Option<TensorOrScalar<&Tensor>>,
) -> Result<Tensor> {
    let meta = clamp_meta(x, min, max)?;
    let out = Tensor::empty_meta(&meta);
    clamp_into(&out, x, min, max, meta.dtype)?;
    Ok(out)
}

/// `x.clamp_(min, max)`.
pub fn clamp_(
    x: &Tensor,
    min: Option<TensorOrScalar<&Tensor>>,
    max: Option<TensorOrScalar<&Tensor>>,
) -> Result<()> {
    let meta = clamp_meta(x, min, max)?;
    if meta.shape != x.shape() {
        bail!(
            Runtime,
            "output with shape {:?} doesn't match the broadcast shape {:?}",
            x.shape(),
            meta.shape
        );
    }
    if !can_cast(meta.dtype, x.dtype()) {
        return Err(Error::CannotCast {
            from: meta.dtype,
            to: x.dtype(),
        });
    }
    clamp_into(x, x, min, max, meta.dtype)?;
    x.storage().bump_version();
    Ok(())
}

/// Shape/dtype rule of `masked_fill(x, mask, value)`.
pub fn masked_fill_meta<S: Shaped>(
    x: &S,
    mask: &S,
    value: TensorOrScalar<&S>,
) -> Result<TensorMeta> {
    if mask.dtype() != DType::Bool {
        bail!(
            Runtime,
            "masked_fill_ only supports boolean masks, but got mask with dtype {}",
            mask.dtype().name()
        );
    }
    if let TensorOrScalar::Tensor(v) = value
        && v.ndim() != 0
    {
        bail!(
            Runtime,
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
            v.ndim()
        );
    }
    let shape = broadcast_shapes(x.shape(), mask.shape())?;
    Ok(TensorMeta::contiguous(x.dtype(), &shape))
}

/// `masked_fill(x, mask, value)`.
pub fn masked_fill(x: &Tensor, mask: &Tensor, value: TensorOrScalar<&Tensor>) -> Result<Tensor> {
    let meta = masked_fill_meta(x, mask, value)?;
    let dt = meta.dtype;
    let v = operand_as(value, dt, &[])?;
    let xs = broadcast_to(x, &meta.shape)?;
    let ms = broadcast_to(mask, &meta.shape)?;
    let out = Tensor::empty(&meta.shape, dt);
    if dt.is_complex() {
        super::complex::select(&out, &ms, &broadcast_to(&v, &meta.shape)?, &xs);
        return Ok(out);
    }
    dispatch_all!(dt, T => {
        // SAFETY: `v` is a fresh zero-dim tensor of dtype T.
        let fill: T = unsafe { *v.data_ptr::<T>() };
        map2::<T, bool, T>(&out, &xs, &ms, move |x, m| if m { fill } else { x });
    });
    Ok(out)
}

/// Checks that an out-of-place result `result` could be written back into `this` (in-place
/// forms): same shape, and a dtype that casts without losing its category.
pub fn check_inplace(this: &impl Shaped, result: &TensorMeta) -> Result<()> {
    if result.shape != this.shape() {
        bail!(
            Runtime,
            "output with shape {:?} doesn't match the broadcast shape {:?}",
            this.shape(),
            result.shape
        );
    }
    if !can_cast(result.dtype, this.dtype()) {
        return Err(Error::CannotCast {
            from: result.dtype,
            to: this.dtype(),
        });
    }
    Ok(())
}
