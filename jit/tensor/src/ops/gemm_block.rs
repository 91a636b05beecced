//! One single-threaded GEMM on strided matrices, `dst = alpha_dst * dst + beta * (a @ b)`, the
//! unit that `matmul` and `gemm_raw` run once per thread block.
//!
//! Two kernel libraries are linked, and each wins on different layouts (measured by
//! `benches/examples/gemm_layouts.rs` on the W10 MLP's eight products):
//! - the `gemm` crate, on products whose right operand is row-major (`b` with unit column
//!   stride: the backward `g @ W` and `g.T @ x` of `linear`);
//! - faer's matmul (private-gemm-x86 on x86-64), on products whose right operand is stored
//!   transposed, `x @ W.T`, the forward of every `linear`: there `gemm` does not pack `W.T`,
//!   and ran 20-25% slower than faer in that bench (101-106 against 131-134 GFLOP/s on two
//!   threads), while on the row-major layouts faer was the slower one.
//!
//! faer's kernels leave the AVX upper state dirty: every faer call holds a
//! [`crate::kernels::simd::CleanUpperOnDrop`].

use crate::{DType, Element};

/// Strides of one matrix, in elements: (row stride, column stride).
pub type Strides = (isize, isize);

/// Whether `b` (`k x n`) is laid out as the transpose of a row-major matrix (unit row stride),
/// as `W.T` in the forward of `linear`, in a product that is not a matrix-vector one (those
/// take `gemm`'s own gemv paths).
fn rhs_transposed(b: Strides, (m, n): (usize, usize)) -> bool {
    b.0 == 1 && m > 1 && n > 1
}

/// `dst = alpha_dst * dst + beta * (a @ b)` for an `m x n` `dst`, `m x k` `a` and `k x n` `b`,
/// reading `dst` only when `read`. `k > 0`. `T` must be f32 or f64.
///
/// # Safety
/// Every pointer must address an in-bounds matrix of its shape and strides; `dst` must not
/// overlap `a` or `b`, and nothing else may access `dst` meanwhile.
#[allow(clippy::too_many_arguments, reason = "a raw GEMM signature")]
pub(crate) unsafe fn gemm_block<T: Element>(
    (m, n, k): (usize, usize, usize),
    dst: *mut T,
    sd: Strides,
    read: bool,
    alpha_dst: T,
    a: *const T,
    sa: Strides,
    b: *const T,
    sb: Strides,
    beta: T,
) {
    debug_assert!(k > 0);
    // faer accumulates only as `dst += beta * a @ b`: a scaled `dst` stays with `gemm`.
    let faer_fits = !read || alpha_dst.to_f64() == 1.0;
    if faer_fits && rhs_transposed(sb, (m, n)) {
        // One faer call per float type; the pointers are cast to the type `T::DTYPE` names.
        macro_rules! faer_as {
            ($t:ty) => {
                // SAFETY: forwarded from the caller; T is the dtype the pointers are cast to.
                unsafe {
                    return faer_gemm::<$t>(
                        (m, n, k),
                        dst.cast(),
                        sd,
                        read,
                        a.cast(),
                        sa,
                        b.cast(),
                        sb,
                        beta.to_f64() as $t,
                    );
                }
            };
        }
        match T::DTYPE {
            DType::Float32 => faer_as!(f32),
            DType::Float64 => faer_as!(f64),
            _ => {}
        }
    }
    // SAFETY: forwarded from the caller; `gemm` takes (column stride, row stride) pairs.
    unsafe {
        gemm::gemm::<T>(
            m,
            n,
            k,
            dst,
            sd.1,
            sd.0,
            read,
            a,
            sa.1,
            sa.0,
            b,
            sb.1,
            sb.0,
            alpha_dst,
            beta,
            false,
            false,
            false,
            gemm::Parallelism::None,
        )
    }
}

/// The faer half of [`gemm_block`], with `alpha_dst == 1` when `read`.
///
/// # Safety
/// As [`gemm_block`].
#[allow(clippy::too_many_arguments, reason = "a raw GEMM signature")]
unsafe fn faer_gemm<T: faer::traits::ComplexField + Copy>(
    (m, n, k): (usize, usize, usize),
    dst: *mut T,
    sd: Strides,
    read: bool,
    a: *const T,
    sa: Strides,
    b: *const T,
    sb: Strides,
    beta: T,
) {
    // SAFETY: the caller guarantees the three matrices are in bounds with these strides and
    // that `dst` is exclusively ours.
    let (a, b, d) = unsafe {
        (
            faer::MatRef::from_raw_parts(a, m, k, sa.0, sa.1),
            faer::MatRef::from_raw_parts(b, k, n, sb.0, sb.1),
            faer::MatMut::from_raw_parts_mut(dst, m, n, sd.0, sd.1),
        )
    };
    let acc = if read {
        faer::Accum::Add
    } else {
        faer::Accum::Replace
    };
    let _clean = crate::kernels::simd::CleanUpperOnDrop;
    faer::linalg::matmul::matmul(d, acc, a, b, beta, faer::Par::Seq);
}
