//! `torch.linalg`'s factorizations and solvers over batches of matrices, through faer: `inv`,
//! `solve`, `det`/`slogdet` (LU with partial pivoting), `cholesky` (LLᵀ), `qr` (Householder,
//! LAPACK's sign convention: faer's reflectors map a column onto `-sign(head) * norm`, as
//! `dlarfg` does), `svd` and `eigh`.
//!
//! Every factorization runs in f64 (float32 inputs are widened and the results rounded back), so
//! float32 results are at least as accurate as LAPACK's single-precision routines. Inputs are
//! `[..., m, n]`; batch dims are looped over. Errors use PyTorch's texts.

use faer::linalg::solvers::DenseSolveCore;
use faer::{Mat, MatRef, Side};

use crate::error::bail;
use crate::layout::Shaped;
use crate::{DType, Result, Tensor, TensorMeta};

/// The QR output mode (`linalg.qr(A, mode=)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QrMode {
    /// `Q` is `m × k`, `R` is `k × n` (`k = min(m, n)`).
    Reduced,
    /// `Q` is `m × m`, `R` is `m × n`.
    Complete,
    /// Only `R` (`k × n`); `Q` is empty.
    R,
}

impl QrMode {
    /// Parses `mode=`.
    pub fn parse(s: &str) -> Result<QrMode> {
        match s {
            "reduced" => Ok(QrMode::Reduced),
            "complete" => Ok(QrMode::Complete),
            "r" => Ok(QrMode::R),
            _ => bail!(
                Runtime,
                "qr received unrecognized mode '{s}' but expected one of 'reduced' (default), 'r', or 'complete'"
            ),
        }
    }
}

/// Checks a float matrix batch: at least 2 dims, float32/float64. Returns `(batch, m, n)`.
pub fn check_matrix(
    name: &str,
    a: &impl Shaped,
    square: bool,
) -> Result<(Vec<usize>, usize, usize)> {
    let s = a.shape();
    if s.len() < 2 {
        bail!(
            Runtime,
            "{name}: The input tensor A must have at least 2 dimensions."
        );
    }
    match a.dtype() {
        DType::Float32 | DType::Float64 => {}
        DType::Float16 | DType::BFloat16 => bail!(
            Runtime,
            "{name}: Low precision dtypes not supported. Got {}",
            a.dtype().aten_name()
        ),
        d => bail!(
            NotImplemented,
            "{name}: Expected a floating point or complex tensor as input. Got {}",
            d.aten_name()
        ),
    }
    let (m, n) = (s[s.len() - 2], s[s.len() - 1]);
    if square && m != n {
        bail!(
            Runtime,
            "{name}: A must be batches of square matrices, but they are {m} by {n} matrices"
        );
    }
    Ok((s[..s.len() - 2].to_vec(), m, n))
}

fn with_tail(batch: &[usize], tail: &[usize]) -> Vec<usize> {
    let mut v = batch.to_vec();
    v.extend_from_slice(tail);
    v
}

/// The matrices of a batch, widened to f64.
fn matrices(a: &Tensor, m: usize, n: usize) -> Vec<Mat<f64>> {
    let data: Vec<f64> = a.to_dtype(DType::Float64).contiguous().to_vec();
    let size = m * n;
    let count = data
        .len()
        .checked_div(size)
        .unwrap_or_else(|| a.shape()[..a.ndim() - 2].iter().product());
    (0..count)
        .map(|b| Mat::from_fn(m, n, |i, j| data[b * size + i * n + j]))
        .collect()
}

/// Stacks matrices back into a `[batch..., rows, cols]` tensor of `dtype`.
fn stack(
    mats: &[Mat<f64>],
    batch: &[usize],
    rows: usize,
    cols: usize,
    dtype: DType,
) -> Result<Tensor> {
    let mut out = Vec::with_capacity(mats.len() * rows * cols);
    for m in mats {
        for i in 0..rows {
            for j in 0..cols {
                out.push(m[(i, j)]);
            }
        }
    }
    Ok(Tensor::from_vec(out, &with_tail(batch, &[rows, cols]))?.to_dtype(dtype))
}

fn vectors(vs: Vec<f64>, batch: &[usize], len: usize, dtype: DType) -> Result<Tensor> {
    Ok(Tensor::from_vec(vs, &with_tail(batch, &[len]))?.to_dtype(dtype))
}

/// LU with partial pivoting: `(U's diagonal, the permutation's sign, the factorization)`.
fn lu_diag(a: MatRef<'_, f64>) -> (Vec<f64>, f64, faer::linalg::solvers::PartialPivLu<f64>) {
    let lu = a.partial_piv_lu();
    let n = a.nrows();
    let diag: Vec<f64> = (0..n).map(|i| lu.U()[(i, i)]).collect();
    let (fwd, _) = lu.P().arrays();
    // Parity of the permutation: n minus the number of cycles.
    let mut seen = vec![false; n];
    let mut swaps = 0;
    for start in 0..n {
        let mut i = start;
        let mut len = 0;
        while !seen[i] {
            seen[i] = true;
            i = fwd[i];
            len += 1;
        }
        if len > 0 {
            swaps += len - 1;
        }
    }
    let sign = if swaps % 2 == 0 { 1.0 } else { -1.0 };
    (diag, sign, lu)
}

/// Meta of an op returning one matrix batch of `x`'s shape.
pub fn same_meta(name: &str, a: &impl Shaped) -> Result<TensorMeta> {
    check_matrix(name, a, true)?;
    Ok(TensorMeta::contiguous(a.dtype(), a.shape()))
}

/// `linalg.inv(A)`.
pub fn inv(a: &Tensor) -> Result<Tensor> {
    let _clean = crate::kernels::simd::CleanUpperOnDrop;
    let (batch, n, _) = check_matrix("linalg.inv", a, true)?;
    let mut out = Vec::new();
    for (b, m) in matrices(a, n, n).iter().enumerate() {
        let (diag, _, lu) = lu_diag(m.as_ref());
        if let Some(i) = diag.iter().position(|&d| d == 0.0) {
            let at = if batch.is_empty() {
                String::new()
            } else {
                format!("(Batch element {b}): ")
            };
            bail!(
                Runtime,
                "linalg.inv: {at}The diagonal element {} is zero, the inversion could not be completed because the input matrix is singular.",
                i + 1
            );
        }
        out.push(lu.inverse());
    }
    stack(&out, &batch, n, n, a.dtype())
}

/// `linalg.solve(A, B)` for `A` `[..., n, n]` and `B` `[..., n, k]` with equal batch dims
/// (the Python wrapper broadcasts and handles vectors and `left=False`).
pub fn solve(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let _clean = crate::kernels::simd::CleanUpperOnDrop;
    let (batch, n, _) = check_matrix("torch.linalg.solve", a, true)?;
    let (bbatch, bn, k) = check_matrix("torch.linalg.solve", b, false)?;
    if bbatch != batch || bn != n {
        bail!(
            Runtime,
            "linalg.solve: Incompatible shapes of A and B for the equation AX = B ({}x{} and {}x{})",
            n,
            n,
            bn,
            k
        );
    }
    if a.dtype() != b.dtype() {
        bail!(
            Runtime,
            "linalg.solve: Expected A and B to have the same dtype, but found A of type {} and B of type {} instead",
            a.dtype().aten_name(),
            b.dtype().aten_name()
        );
    }
    let rhs = matrices(b, n, k);
    let mut out = Vec::new();
    for (m, r) in matrices(a, n, n).iter().zip(rhs) {
        let (diag, _, lu) = lu_diag(m.as_ref());
        if diag.contains(&0.0) {
            bail!(
                Runtime,
                "torch.linalg.solve: The solver failed because the input matrix is singular."
            );
        }
        let mut x = r;
        faer::linalg::solvers::SolveCore::solve_in_place_with_conj(&lu, faer::Conj::No, x.as_mut());
        out.push(x);
    }
    stack(&out, &batch, n, k, a.dtype())
}

/// Meta of `det`: the batch dims.
pub fn det_meta(name: &str, a: &impl Shaped) -> Result<TensorMeta> {
    let (batch, _, _) = check_matrix(name, a, true)?;
    Ok(TensorMeta::contiguous(a.dtype(), &batch))
}

/// `linalg.det(A)`: the product of U's diagonal times the permutation's sign.
pub fn det(a: &Tensor) -> Result<Tensor> {
    let _clean = crate::kernels::simd::CleanUpperOnDrop;
    let (batch, n, _) = check_matrix("linalg.det", a, true)?;
    let out: Vec<f64> = matrices(a, n, n)
        .iter()
        .map(|m| {
            let (diag, sign, _) = lu_diag(m.as_ref());
            diag.iter().product::<f64>() * sign
        })
        .collect();
    Ok(Tensor::from_vec(out, &batch)?.to_dtype(a.dtype()))
}

/// `linalg.slogdet(A)`: `(sign, log|det|)`.
pub fn slogdet(a: &Tensor) -> Result<(Tensor, Tensor)> {
    let _clean = crate::kernels::simd::CleanUpperOnDrop;
    let (batch, n, _) = check_matrix("linalg.slogdet", a, true)?;
    let (mut signs, mut logs) = (Vec::new(), Vec::new());
    for m in matrices(a, n, n) {
        let (diag, sign, _) = lu_diag(m.as_ref());
        let s = diag.iter().fold(sign, |acc, d| acc * d.signum());
        let zero = diag.contains(&0.0);
        signs.push(if zero { 0.0 } else { s });
        logs.push(if zero {
            f64::NEG_INFINITY
        } else {
            diag.iter().map(|d| d.abs().ln()).sum()
        });
    }
    Ok((
        Tensor::from_vec(signs, &batch)?.to_dtype(a.dtype()),
        Tensor::from_vec(logs, &batch)?.to_dtype(a.dtype()),
    ))
}

/// `linalg.cholesky(A, upper=)`: reads the lower triangle (the upper one with `upper`).
pub fn cholesky(a: &Tensor, upper: bool) -> Result<Tensor> {
    let _clean = crate::kernels::simd::CleanUpperOnDrop;
    let (batch, n, _) = check_matrix("linalg.cholesky", a, true)?;
    let mut out = Vec::new();
    for (b, m) in matrices(a, n, n).iter().enumerate() {
        // The lower triangle of A (of Aᵀ for `upper`), symmetrized, as LAPACK reads one triangle.
        let sym = Mat::from_fn(n, n, |i, j| {
            let (r, c) = if i >= j { (i, j) } else { (j, i) };
            if upper { m[(c, r)] } else { m[(r, c)] }
        });
        match sym.llt(Side::Lower) {
            Ok(llt) => {
                let l = llt.L().to_owned();
                out.push(if upper { l.transpose().to_owned() } else { l });
            }
            Err(faer::linalg::cholesky::llt::factor::LltError::NonPositivePivot { index }) => {
                let at = if batch.is_empty() {
                    String::new()
                } else {
                    format!("(Batch element {b}): ")
                };
                bail!(
                    Runtime,
                    "linalg.cholesky: {at}The factorization could not be completed because the input is not positive-definite (the leading minor of order {} is not positive-definite).",
                    index + 1
                );
            }
        }
    }
    stack(&out, &batch, n, n, a.dtype())
}

/// Metas of `qr(A, mode)`: `(Q, R)`.
pub fn qr_meta(a: &impl Shaped, mode: QrMode) -> Result<(TensorMeta, TensorMeta)> {
    let (batch, m, n) = check_matrix("linalg.qr", a, false)?;
    let k = m.min(n);
    let (q, r) = match mode {
        QrMode::Reduced => (with_tail(&batch, &[m, k]), with_tail(&batch, &[k, n])),
        QrMode::Complete => (with_tail(&batch, &[m, m]), with_tail(&batch, &[m, n])),
        QrMode::R => (vec![0], with_tail(&batch, &[k, n])),
    };
    Ok((
        TensorMeta::contiguous(a.dtype(), &q),
        TensorMeta::contiguous(a.dtype(), &r),
    ))
}

/// `linalg.qr(A, mode)`.
pub fn qr(a: &Tensor, mode: QrMode) -> Result<(Tensor, Tensor)> {
    let _clean = crate::kernels::simd::CleanUpperOnDrop;
    let (batch, m, n) = check_matrix("linalg.qr", a, false)?;
    let (qm, rm) = qr_meta(a, mode)?;
    let (mut qs, mut rs) = (Vec::new(), Vec::new());
    let (qr_rows, qr_cols) = (rm.shape[rm.shape.len() - 2], rm.shape[rm.shape.len() - 1]);
    for mat in matrices(a, m, n) {
        let f = mat.qr();
        let q = if mode == QrMode::Complete {
            f.compute_Q()
        } else {
            f.compute_thin_Q()
        };
        let r_full = f.R();
        // R is upper triangular: zero below the diagonal, rows beyond min(m, n) zero.
        rs.push(Mat::from_fn(qr_rows, qr_cols, |i, j| {
            if i <= j && i < r_full.nrows() {
                r_full[(i, j)]
            } else {
                0.0
            }
        }));
        qs.push(q);
    }
    let r = stack(&rs, &batch, qr_rows, qr_cols, a.dtype())?;
    let q = if mode == QrMode::R {
        Tensor::zeros(&[0], a.dtype())
    } else {
        stack(
            &qs,
            &batch,
            qm.shape[qm.shape.len() - 2],
            qm.shape[qm.shape.len() - 1],
            a.dtype(),
        )?
    };
    Ok((q, r))
}

/// Metas of `svd(A, full_matrices)`: `(U, S, Vh)`.
pub fn svd_meta(a: &impl Shaped, full: bool) -> Result<[TensorMeta; 3]> {
    let (batch, m, n) = check_matrix("linalg.svd", a, false)?;
    let k = m.min(n);
    let (u, vh) = if full {
        ([m, m], [n, n])
    } else {
        ([m, k], [k, n])
    };
    Ok([
        TensorMeta::contiguous(a.dtype(), &with_tail(&batch, &u)),
        TensorMeta::contiguous(a.dtype(), &with_tail(&batch, &[k])),
        TensorMeta::contiguous(a.dtype(), &with_tail(&batch, &vh)),
    ])
}

/// `linalg.svd(A, full_matrices)`: singular values in decreasing order.
pub fn svd(a: &Tensor, full: bool) -> Result<(Tensor, Tensor, Tensor)> {
    let _clean = crate::kernels::simd::CleanUpperOnDrop;
    let (batch, m, n) = check_matrix("linalg.svd", a, false)?;
    let [um, _, vm] = svd_meta(a, full)?;
    let k = m.min(n);
    let (mut us, mut ss, mut vhs) = (Vec::new(), Vec::new(), Vec::new());
    for mat in matrices(a, m, n) {
        let f = if full { mat.svd() } else { mat.thin_svd() };
        let Ok(f) = f else {
            bail!(
                Runtime,
                "linalg.svd: The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated singular values"
            );
        };
        us.push(f.U().to_owned());
        let s = f.S().column_vector();
        ss.extend((0..k).map(|i| s[i]));
        vhs.push(f.V().transpose().to_owned());
    }
    let (ur, uc) = (um.shape[um.shape.len() - 2], um.shape[um.shape.len() - 1]);
    let (vr, vc) = (vm.shape[vm.shape.len() - 2], vm.shape[vm.shape.len() - 1]);
    Ok((
        stack(&us, &batch, ur, uc, a.dtype())?,
        vectors(ss, &batch, k, a.dtype())?,
        stack(&vhs, &batch, vr, vc, a.dtype())?,
    ))
}

/// Metas of `eigh(A, UPLO)`: `(eigenvalues, eigenvectors)`.
pub fn eigh_meta(a: &impl Shaped) -> Result<(TensorMeta, TensorMeta)> {
    let (batch, n, _) = check_matrix("linalg.eigh", a, true)?;
    Ok((
        TensorMeta::contiguous(a.dtype(), &with_tail(&batch, &[n])),
        TensorMeta::contiguous(a.dtype(), a.shape()),
    ))
}

/// `linalg.eigh(A, UPLO)`: eigenvalues in ascending order; reads the `UPLO` triangle.
pub fn eigh(a: &Tensor, upper: bool) -> Result<(Tensor, Tensor)> {
    let _clean = crate::kernels::simd::CleanUpperOnDrop;
    let (batch, n, _) = check_matrix("linalg.eigh", a, true)?;
    let (mut ls, mut qs) = (Vec::new(), Vec::new());
    for m in matrices(a, n, n) {
        let sym = Mat::from_fn(n, n, |i, j| {
            let (r, c) = if i >= j { (i, j) } else { (j, i) };
            if upper { m[(c, r)] } else { m[(r, c)] }
        });
        let Ok(f) = sym.self_adjoint_eigen(Side::Lower) else {
            bail!(
                Runtime,
                "linalg.eigh: The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated eigenvalues"
            );
        };
        let s = f.S().column_vector();
        ls.extend((0..n).map(|i| s[i]));
        qs.push(f.U().to_owned());
    }
    Ok((
        vectors(ls, &batch, n, a.dtype())?,
        stack(&qs, &batch, n, n, a.dtype())?,
    ))
}
