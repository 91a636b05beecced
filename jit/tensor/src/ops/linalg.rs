//! Vector products and batched accumulation: `dot`, `mv`, `outer`, `baddbmm`.

use crate::error::bail;
use crate::layout::Shaped;
use crate::ops::matmul::{batched_gemm, matmul, matmul_meta};
use crate::ops::pointwise::{TensorOrScalar, binary};
use crate::ops::product_dtypes;
use crate::{BinaryOp, Result, Scalar, Tensor, TensorMeta};

/// Shape/dtype rule of `dot(a, b)`: two 1-D tensors of one size and dtype; a zero-dim result.
pub fn dot_meta(a: &impl Shaped, b: &impl Shaped) -> Result<TensorMeta> {
    if a.ndim() != 1 || b.ndim() != 1 {
        bail!(
            Runtime,
            "1D tensors expected, but got {}D and {}D tensors",
            a.ndim(),
            b.ndim()
        );
    }
    matmul_meta(a, b)
}

/// `dot(a, b)`.
pub fn dot(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    dot_meta(a, b)?;
    matmul(a, b)
}

/// Shape/dtype rule of `mv(m, v)`.
pub fn mv_meta(m: &impl Shaped, v: &impl Shaped) -> Result<TensorMeta> {
    if m.ndim() != 2 || v.ndim() != 1 {
        bail!(
            Runtime,
            "vector + matrix @ vector expected, got 1, {}, {}",
            m.ndim(),
            v.ndim()
        );
    }
    matmul_meta(m, v)
}

/// `mv(m, v)`.
pub fn mv(m: &Tensor, v: &Tensor) -> Result<Tensor> {
    mv_meta(m, v)?;
    matmul(m, v)
}

fn outer_args<S: Shaped>(a: &S, b: &S) -> Result<()> {
    for (name, t) in [("self", a), ("vec2", b)] {
        if t.ndim() != 1 {
            bail!(
                Runtime,
                "outer: Expected 1-D argument {name}, but got {}-D",
                t.ndim()
            );
        }
    }
    Ok(())
}

/// Shape/dtype rule of `outer(a, b)`: `a[:, None] * b` (so the dtypes promote).
pub fn outer_meta<S: Shaped>(a: &S, b: &S) -> Result<TensorMeta> {
    outer_args(a, b)?;
    let dt = crate::result_type(&[
        TensorOrScalar::Tensor(a).operand(),
        TensorOrScalar::Tensor(b).operand(),
    ]);
    BinaryOp::Mul.out_dtype(dt)?;
    Ok(TensorMeta::contiguous(dt, &[a.shape()[0], b.shape()[0]]))
}

/// `outer(a, b)`.
pub fn outer(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    outer_args(a, b)?;
    let col = a.unsqueeze(1)?;
    binary(
        BinaryOp::Mul,
        TensorOrScalar::Tensor(&col),
        TensorOrScalar::Tensor(b),
        Scalar::Int(1),
    )
}

/// Shape/dtype rule of `baddbmm(self, batch1, batch2)`.
pub fn baddbmm_meta<S: Shaped>(this: &S, b1: &S, b2: &S) -> Result<TensorMeta> {
    if b1.ndim() != 3 {
        bail!(Runtime, "batch1 must be a 3D tensor");
    }
    if b2.ndim() != 3 {
        bail!(Runtime, "batch2 must be a 3D tensor");
    }
    let (s1, s2) = (b1.shape(), b2.shape());
    if s1[0] != s2[0] {
        bail!(
            Runtime,
            "batch1 and batch2 must have same number of batches, got {} and {}",
            s1[0],
            s2[0]
        );
    }
    if s1[2] != s2[1] {
        bail!(
            Runtime,
            "Incompatible matrix sizes for bmm ({}x{} and {}x{})",
            s1[1],
            s1[2],
            s2[1],
            s2[2]
        );
    }
    product_dtypes::baddbmm(this.dtype(), b1.dtype(), b2.dtype())?;
    let shape = [s1[0], s1[1], s2[2]];
    crate::layout::broadcast_strides(this.shape(), this.strides(), &shape)?;
    Ok(TensorMeta::contiguous(b1.dtype(), &shape))
}

/// `baddbmm(self, b1, b2, beta, alpha) = beta * self + alpha * (b1 @ b2)`; `self` is ignored when
/// `beta == 0`.
pub fn baddbmm(
    this: &Tensor,
    b1: &Tensor,
    b2: &Tensor,
    beta: Scalar,
    alpha: Scalar,
) -> Result<Tensor> {
    let meta = baddbmm_meta(this, b1, b2)?;
    let out = Tensor::empty(&meta.shape, meta.dtype);
    let beta_f = beta.to_f64();
    if beta_f != 0.0 {
        out.copy_(this)?;
    }
    batched_gemm(&out, b1, b2, Some((beta_f, alpha.to_f64())))?;
    Ok(out)
}
