//! Backward formulas of the `torch.linalg` factorizations (real inputs), as PyTorch's
//! `FunctionsManual.cpp` derives them. Batched: every product is a (broadcast) `matmul` over
//! the trailing two dims.
//!
//! - `inv`: `X = A⁻¹`, `dA = -Xᵀ g Xᵀ`.
//! - `solve`: `X = A⁻¹B`, `dB = A⁻ᵀ g` (a solve with `Aᵀ`), `dA = -dB Xᵀ`.
//! - `det`: `dA = g · det(A) · A⁻ᵀ`; `slogdet`: `dA = g_logabsdet · A⁻ᵀ` (the sign has none). Both
//!   need an invertible `A` (PyTorch switches to an SVD-based formula for singular ones; here the
//!   inverse's "singular" error is raised instead).
//! - `cholesky` (`A = LLᵀ`): `dA = sym(L⁻ᵀ Φ(Lᵀ gL) L⁻¹)` with `Φ` the lower triangle, diagonal
//!   halved, and `sym(X) = (X + Xᵀ) / 2`.
//! - `eigh` (`A = V diag(λ) Vᵀ`): `dA = V (diag(gλ) + (Vᵀ gV) / E) Vᵀ` with `E_ij = λ_j - λ_i` off the
//!   diagonal (and the diagonal of the quotient zero).

use super::pointwise::grad_or_return;
use super::{Grads, Saves, VjpCtx, VjpRule, put, vjp_rule};
use crate::autograd::emit::{Emit, t};
use crate::{Op, Result, Value};

fn mt<E: Emit>(e: &mut E, x: &E::T) -> Result<E::T> {
    e.transpose(x, -2, -1)
}

fn inv_of<E: Emit>(e: &mut E, x: &E::T) -> Result<E::T> {
    e.op(Op::LinalgInv, vec![t(x)])
}

/// `x` scaled per matrix by `s` (`[...]`, one value per matrix).
fn scale_mats<E: Emit>(e: &mut E, x: &E::T, s: &E::T) -> Result<E::T> {
    let s = e.unsqueeze(s, -1)?;
    let s = e.unsqueeze(&s, -1)?;
    e.mul(x, &s)
}

fn inv<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let xt = mt(e, &c.output(0)?)?;
    let d = e.matmul(&xt, &g)?;
    let d = e.matmul(&d, &xt)?;
    let d = e.neg(&d)?;
    put(&mut out, c, 0, d)?;
    Ok(out)
}

fn solve<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let at = mt(e, &c.input(0)?)?;
    let gb = e.op(Op::LinalgSolve, vec![t(&at), t(&g)])?;
    if c.needs(0) {
        let xt = mt(e, &c.output(0)?)?;
        let d = e.matmul(&gb, &xt)?;
        let d = e.neg(&d)?;
        put(&mut out, c, 0, d)?;
    }
    if c.needs(1) {
        put(&mut out, c, 1, gb)?;
    }
    Ok(out)
}

fn det<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let a_inv_t = {
        let ai = inv_of(e, &c.input(0)?)?;
        mt(e, &ai)?
    };
    let gd = e.mul(&g, &c.output(0)?)?;
    let d = scale_mats(e, &a_inv_t, &gd)?;
    put(&mut out, c, 0, d)?;
    Ok(out)
}

fn slogdet<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    // Output 0 (the sign) is not differentiable; only log|det| carries a gradient.
    let Some(g) = c.grad(1) else {
        return Ok(c.no_grads());
    };
    let mut out = c.no_grads();
    let ai = inv_of(e, &c.input(0)?)?;
    let a_inv_t = mt(e, &ai)?;
    let d = scale_mats(e, &a_inv_t, &g)?;
    put(&mut out, c, 0, d)?;
    Ok(out)
}

/// `ones - 0.5 * I` over the last two dims of `like`: multiplies a lower triangle into `Φ`.
fn half_diag_mask<E: Emit>(e: &mut E, n: usize, like: &E::T) -> Result<E::T> {
    let dtype = e.dtype(like);
    let eye = eye(e, n, dtype)?;
    let half = e.mul_s(&eye, 0.5)?;
    e.rsub_s(1.0, &half)
}

fn eye<E: Emit>(e: &mut E, n: usize, dtype: rynamo_tensor::DType) -> Result<E::T> {
    e.op_kw(
        Op::Eye,
        vec![Value::Int(n as i64)],
        vec![("dtype", Value::DType(dtype))],
    )
}

fn cholesky<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let upper = c.a().bool(1)?;
    let l_out = c.output(0)?;
    // Work with the lower factor: U = Lᵀ for `upper`.
    let (l, gl) = if upper {
        (mt(e, &l_out)?, mt(e, &g)?)
    } else {
        (l_out, g)
    };
    let lt = mt(e, &l)?;
    let p = e.matmul(&lt, &gl)?;
    let p = e.op(Op::Tril, vec![t(&p), Value::Int(0)])?;
    let n = *e.shape(&l).last().unwrap_or(&0);
    let mask = half_diag_mask(e, n, &p)?;
    let phi = e.mul(&p, &mask)?;
    let li = inv_of(e, &l)?;
    let lit = mt(e, &li)?;
    let s = e.matmul(&lit, &phi)?;
    let s = e.matmul(&s, &li)?;
    let st = mt(e, &s)?;
    let sum = e.add(&s, &st)?;
    let d = e.mul_s(&sum, 0.5)?;
    put(&mut out, c, 0, d)?;
    Ok(out)
}

fn eigh<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let (gl, gv) = (c.grad(0), c.grad(1));
    if gl.is_none() && gv.is_none() {
        return Ok(c.no_grads());
    }
    let mut out = c.no_grads();
    let lam = c.output(0)?;
    let v = c.output(1)?;
    let n = *e.shape(&lam).last().unwrap_or(&0);
    let vt = mt(e, &v)?;
    let mut inner = match &gv {
        Some(gv) => {
            let vtgv = e.matmul(&vt, gv)?;
            // E_ij = λ_j - λ_i, with ones on the diagonal so the division stays finite there.
            let lj = e.unsqueeze(&lam, -2)?;
            let li = e.unsqueeze(&lam, -1)?;
            let diff = e.sub(&lj, &li)?;
            let dtype = e.dtype(&lam);
            let eye = eye(e, n, dtype)?;
            let denom = e.add(&diff, &eye)?;
            let q = e.div(&vtgv, &denom)?;
            // Zero the quotient's diagonal.
            let off = e.rsub_s(1.0, &eye)?;
            Some(e.mul(&q, &off)?)
        }
        None => None,
    };
    if let Some(gl) = &gl {
        let dtype = e.dtype(gl);
        let eye = eye(e, n, dtype)?;
        let gcol = e.unsqueeze(gl, -1)?;
        let diag = e.mul(&gcol, &eye)?;
        inner = Some(match inner {
            Some(q) => e.add(&q, &diag)?,
            None => diag,
        });
    }
    let inner = inner.expect("invariant: one of the gradients is present");
    let d = e.matmul(&v, &inner)?;
    let d = e.matmul(&d, &vt)?;
    put(&mut out, c, 0, d)?;
    Ok(out)
}

pub(crate) static INV: VjpRule = vjp_rule!("LinalgInvExBackward0", Saves::OUTPUT, inv);
pub(crate) static SOLVE: VjpRule = vjp_rule!(
    "LinalgSolveExBackward0",
    Saves::args_and_output(&[0]),
    solve
);
pub(crate) static DET: VjpRule = vjp_rule!("LinalgDetBackward0", Saves::args_and_output(&[0]), det);
pub(crate) static SLOGDET: VjpRule =
    vjp_rule!("LinalgSlogdetBackward0", Saves::args(&[0]), slogdet);
pub(crate) static CHOLESKY: VjpRule =
    vjp_rule!("LinalgCholeskyExBackward0", Saves::OUTPUT, cholesky);
pub(crate) static EIGH: VjpRule = vjp_rule!("LinalgEighBackward0", Saves::OUTPUT, eigh);
