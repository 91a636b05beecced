//! Eager kernels of floating-point pointwise ops given by their scalar expression
//! (`crate::expr`), instantiated for `f32` and `f64` by the caller: the op's definition passes
//! the same generic expression twice (`rynamo-graph`'s `float_fns!`), so no kernel-level enum
//! names the op. The dtype rule is float promotion: floating inputs keep their dtype, integer
//! and bool inputs compute in the default float dtype; halves compute in f32 (operands rounded
//! to the half type first, as PyTorch's opmath does) and round back.

use crate::error::bail;
use crate::kernels::copy::through_dtype;
use crate::kernels::map::{map1, map2};
use crate::ops::pointwise::{TensorOrScalar, check_writable, operand_via};
use crate::{
    DEFAULT_FLOAT, DType, Error, Result, Shaped, Tensor, TensorMeta, broadcast_shapes, can_cast,
    result_type,
};

/// The expression in both compute precisions.
pub type FloatFns1<A, B> = (A, B);

/// The float result dtype of `dtype`.
pub fn float_dtype(dtype: DType) -> DType {
    if dtype.is_floating_point() {
        dtype
    } else {
        DEFAULT_FLOAT
    }
}

/// Shape/dtype rule of a float unary op.
pub fn unary_meta(x: &impl Shaped) -> TensorMeta {
    TensorMeta::pointwise(
        float_dtype(x.dtype()),
        x.shape(),
        &[(x.shape(), x.strides())],
    )
}

/// `out = f(x)` elementwise, `out` of `x`'s shape and the float dtype of `x`.
fn unary_into<A, B>(x: &Tensor, out: &Tensor, f: (A, B))
where
    A: Fn(f32) -> f32 + Sync,
    B: Fn(f64) -> f64 + Sync,
{
    let c = out.dtype().compute_dtype();
    let src = x.to_dtype(c);
    let run = |target: &Tensor| {
        match c {
            DType::Float64 => map1::<f64, f64>(target, &src, &f.1),
            _ => map1::<f32, f32>(target, &src, &f.0),
        }
        Ok(())
    };
    through_dtype(out, c, run).expect("invariant: the kernel cannot fail");
}

/// `f(x)` into a new tensor.
pub fn unary<A, B>(x: &Tensor, f: (A, B)) -> Result<Tensor>
where
    A: Fn(f32) -> f32 + Sync,
    B: Fn(f64) -> f64 + Sync,
{
    let out = Tensor::empty_meta(&unary_meta(x));
    unary_into(x, &out, f);
    Ok(out)
}

/// `x = f(x)` in place: the float result must cast back into `x`'s dtype.
pub fn unary_<A, B>(x: &Tensor, f: (A, B)) -> Result<()>
where
    A: Fn(f32) -> f32 + Sync,
    B: Fn(f64) -> f64 + Sync,
{
    let dt = float_dtype(x.dtype());
    if !can_cast(dt, x.dtype()) {
        return Err(Error::CannotCast {
            from: dt,
            to: x.dtype(),
        });
    }
    unary_into(x, x, f);
    x.storage().bump_version();
    Ok(())
}

/// Shape/dtype rule of a float binary op (`name` for the error when both operands are numbers).
pub fn binary_meta<S: Shaped>(
    name: &str,
    a: TensorOrScalar<&S>,
    b: TensorOrScalar<&S>,
) -> Result<TensorMeta> {
    if matches!(
        (&a, &b),
        (TensorOrScalar::Scalar(_), TensorOrScalar::Scalar(_))
    ) {
        bail!(Type, "{name}(): at least one argument must be a Tensor");
    }
    let shape = broadcast_shapes(a.shape(), b.shape())?;
    let common = result_type(&[a.operand(), b.operand()]);
    let inputs = [
        crate::memory_format::operand_of(&a),
        crate::memory_format::operand_of(&b),
    ];
    Ok(TensorMeta::pointwise(float_dtype(common), &shape, &inputs))
}

/// `f(a, b)` elementwise with broadcasting into a new tensor.
pub fn binary<A, B>(
    name: &str,
    a: TensorOrScalar<&Tensor>,
    b: TensorOrScalar<&Tensor>,
    f: (A, B),
) -> Result<Tensor>
where
    A: Fn(f32, f32) -> f32 + Sync,
    B: Fn(f64, f64) -> f64 + Sync,
{
    let meta = binary_meta(name, a, b)?;
    let c = meta.dtype.compute_dtype();
    let (ac, bc) = (
        operand_via(a, meta.dtype, c, &meta.shape)?,
        operand_via(b, meta.dtype, c, &meta.shape)?,
    );
    let out = Tensor::empty_meta(&meta);
    through_dtype(&out, c, |target| {
        match c {
            DType::Float64 => map2::<f64, f64, f64>(target, &ac, &bc, &f.1),
            _ => map2::<f32, f32, f32>(target, &ac, &bc, &f.0),
        }
        Ok(())
    })?;
    Ok(out)
}

/// `this = f(this, other)` in place: the broadcast shape must be `this`'s and the float result
/// must cast into its dtype.
pub fn binary_<A, B>(
    name: &str,
    this: &Tensor,
    other: TensorOrScalar<&Tensor>,
    f: (A, B),
) -> Result<()>
where
    A: Fn(f32, f32) -> f32 + Sync,
    B: Fn(f64, f64) -> f64 + Sync,
{
    let meta = binary_meta(name, TensorOrScalar::Tensor(this), other)?;
    check_writable(this, &meta)?;
    let r = binary(name, TensorOrScalar::Tensor(this), other, f)?;
    this.copy_(&r)?;
    Ok(())
}
