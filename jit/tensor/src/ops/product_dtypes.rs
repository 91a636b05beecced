//! The dtype checks of the matrix products, each with the message PyTorch's kernel for that
//! product raises: the products fold into different ATen kernels (`mm`, `bmm`, `addmv`, `addmm`,
//! `dot`, `baddbmm`), and each words a mismatch its own way. Which kernel a `matmul` or a `linear`
//! reaches depends on the operands' dims, as in `at::matmul` and `at::linear`.

use crate::error::bail;
use crate::{DType, Error, Result};

/// `mm` and every product folded into one (`matmul` with a 1-D or 2-D right operand and a left
/// one of any rank, `linear` without bias): PyTorch names the C++ element types.
pub(crate) fn mm(a: DType, b: DType) -> Result<()> {
    if a != b {
        bail!(
            Runtime,
            "expected m1 and m2 to have the same dtype, but got: {} != {}",
            a.cpp_name(),
            b.cpp_name()
        );
    }
    no_bool("addmm_impl_cpu_", a)
}

/// `bmm`, and `matmul` with a right operand of 3 or more dims; `einsum`'s batched products.
pub(crate) fn bmm(a: DType, b: DType) -> Result<()> {
    // ATen's bmm dispatches on the first operand's dtype before comparing the second.
    no_bool("bmm", a)?;
    if a != b {
        bail!(
            Runtime,
            "expected scalar type {} but found {}",
            a.aten_name(),
            b.aten_name()
        );
    }
    Ok(())
}

/// `addmv(self, mat, vec)`, and `mv`/`matmul` of a matrix (or a batch folded into one) and a
/// vector, whose `self` is a result of the vector's dtype.
pub(crate) fn addmv(this: DType, mat: DType, vec: DType) -> Result<()> {
    if this != mat || mat != vec {
        bail!(
            Runtime,
            "addmv input tensors must have the same dtype, but got {}, {}, and {}",
            this.aten_name(),
            mat.aten_name(),
            vec.aten_name()
        );
    }
    no_bool("addmv_impl_cpu", mat)
}

/// `addmm(self, mat1, mat2)`, and `linear` with a bias (`self`): `self` is checked against
/// `mat2` first, then `mat1`.
pub(crate) fn addmm(this: DType, m1: DType, m2: DType) -> Result<()> {
    for (name, d) in [("self", this), ("mat1", m1)] {
        if d != m2 {
            bail!(
                Runtime,
                "{name} and mat2 must have the same dtype, but got {} and {}",
                d.aten_name(),
                m2.aten_name()
            );
        }
    }
    no_bool("addmm_impl_cpu_", m2)
}

/// `dot`, and `matmul` of two vectors.
pub(crate) fn dot(a: DType, b: DType) -> Result<()> {
    if a != b {
        bail!(
            Runtime,
            "dot : expected both vectors to have same dtype, but found {} and {}",
            a.aten_name(),
            b.aten_name()
        );
    }
    no_bool("dot", a)
}

/// `baddbmm(self, batch1, batch2)`: `self` against `batch1` first (C++ type names), then the
/// batches as in `bmm`.
pub(crate) fn baddbmm(this: DType, b1: DType, b2: DType) -> Result<()> {
    if this != b1 {
        bail!(
            Runtime,
            "Input dtypes must be the same, got: input {}, batch1: {}, batch2: {}",
            this.cpp_name(),
            b1.cpp_name(),
            b2.cpp_name()
        );
    }
    bmm(b1, b2)
}

/// The product kernels have no bool instantiation; the error names the ATen kernel.
fn no_bool(kernel: &'static str, d: DType) -> Result<()> {
    if d == DType::Bool {
        return Err(Error::NotImplementedFor {
            op: kernel,
            dtype: "Bool",
        });
    }
    Ok(())
}
