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
//! - `qr` (`A = QR`, `m >= n`): `dA = [gQ + Q sym(M)] R⁻ᵀ` with `M = gR Rᵀ - Qᵀ gQ` and `sym` the
//!   upper triangle mirrored below the diagonal. Derived from `dQ = (I - QQᵀ) dA R⁻¹ + Q C`, `C`
//!   the skew matrix whose strict lower triangle is that of `Qᵀ dA R⁻¹`. For `m < n`, `A = [X | Y]`
//!   and `R = [R_X | QᵀY]`: `dY = Q gR_Y` and `dX` is the square case with `gQ + Y gR_Yᵀ`.
//! - `svd` (`A = U diag(S) Vᵀ`, `m >= n`, reduced): `dA = [U (F∘skew(UᵀgU) S + S F∘skew(VᵀgV) +
//!   diag(gS)) + (I - UUᵀ) gU S⁻¹] Vᵀ`, `F_ij = 1 / (S_j² - S_i²)` off the diagonal and
//!   `skew(X) = X - Xᵀ`; `m < n` is the transposed problem; `full_matrices=True` differentiates
//!   the first `k` columns (rows of `Vh`), as PyTorch does. Both assume distinct, non-zero
//!   singular values (repeated ones give infinities, as in PyTorch).

use super::pointwise::grad_or_return;
use super::{Grads, Saves, VjpCtx, VjpRule, args, put, vjp_rule};
use crate::autograd::emit::{Emit, t};
use crate::{Error, Op, Result, Value};

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
    let a = args!(c, LinalgInv => models::linalg_inv);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let xt = mt(e, &c.output(0)?)?;
    let d = e.matmul(&xt, &g)?;
    let d = e.matmul(&d, &xt)?;
    let d = e.neg(&d)?;
    put(&mut out, a.a, d)?;
    Ok(out)
}

fn solve<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, LinalgSolve => models::linalg_solve);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let at = mt(e, &c.saved(a.a)?)?;
    let gb = e.op(Op::LinalgSolve, vec![t(&at), t(&g)])?;
    if c.wants(a.a) {
        let xt = mt(e, &c.output(0)?)?;
        let d = e.matmul(&gb, &xt)?;
        let d = e.neg(&d)?;
        put(&mut out, a.a, d)?;
    }
    if c.wants(a.b) {
        put(&mut out, a.b, gb)?;
    }
    Ok(out)
}

fn det<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, LinalgDet => models::linalg_det);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let a_inv_t = {
        let ai = inv_of(e, &c.saved(a.a)?)?;
        mt(e, &ai)?
    };
    let gd = e.mul(&g, &c.output(0)?)?;
    let d = scale_mats(e, &a_inv_t, &gd)?;
    put(&mut out, a.a, d)?;
    Ok(out)
}

fn slogdet<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, LinalgSlogdet => models::linalg_slogdet);
    // Output 0 (the sign) is not differentiable; only log|det| carries a gradient.
    let Some(g) = c.grad(1) else {
        return Ok(c.no_grads());
    };
    let mut out = c.no_grads();
    let ai = inv_of(e, &c.saved(a.a)?)?;
    let a_inv_t = mt(e, &ai)?;
    let d = scale_mats(e, &a_inv_t, &g)?;
    put(&mut out, a.a, d)?;
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
    let a = args!(c, LinalgCholesky => models::linalg_cholesky);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let upper = a.upper;
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
    put(&mut out, a.a, d)?;
    Ok(out)
}

fn eigh<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, LinalgEigh => models::linalg_eigh);
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
    put(&mut out, a.a, d)?;
    Ok(out)
}

fn last2<E: Emit>(e: &E, x: &E::T) -> (usize, usize) {
    let s = e.shape(x);
    (s[s.len() - 2], s[s.len() - 1])
}

fn narrow<E: Emit>(e: &mut E, x: &E::T, dim: i64, start: usize, len: usize) -> Result<E::T> {
    let args = vec![
        t(x),
        Value::Int(dim),
        Value::Int(start as i64),
        Value::Int(len as i64),
    ];
    e.op(Op::Narrow, args)
}

fn runtime(msg: &str) -> Error {
    Error::Tensor(rynamo_tensor::Error::Runtime(msg.into()))
}

fn qr<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, LinalgQr => models::linalg_qr);
    let (gq, gr) = (c.grad(0), c.grad(1));
    if gq.is_none() && gr.is_none() {
        return Ok(c.no_grads());
    }
    let mode = a.mode;
    if mode == "r" {
        return Err(runtime(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.",
        ));
    }
    let mut out = c.no_grads();
    let (q, r) = (c.output(0)?, c.output(1)?);
    let (m, n) = (last2(e, &q).0, last2(e, &r).1);
    if mode == "complete" && m > n {
        return Err(runtime(
            "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.",
        ));
    }
    let d = if m >= n {
        qr_square_or_tall(e, gq, gr, &q, &r)?
    } else {
        // R = [R_X | QᵀY]: Y's block of gR flows into Y directly and into Q through QᵀY.
        let y = narrow(e, &c.saved(a.a)?, -1, m, n - m)?;
        let gr_x = gr.as_ref().map(|g| narrow(e, g, -1, 0, m)).transpose()?;
        let gr_y = gr
            .as_ref()
            .map(|g| narrow(e, g, -1, m, n - m))
            .transpose()?;
        let gq = match (&gq, &gr_y) {
            (_, None) => gq.clone(),
            (q_bar, Some(g)) => {
                let gt = mt(e, g)?;
                let via_y = e.matmul(&y, &gt)?;
                Some(match q_bar {
                    Some(q_bar) => e.add(q_bar, &via_y)?,
                    None => via_y,
                })
            }
        };
        let r_x = narrow(e, &r, -1, 0, m)?;
        let dx = qr_square_or_tall(e, gq, gr_x, &q, &r_x)?;
        let dy = match &gr_y {
            Some(g) => e.matmul(&q, g)?,
            None => e.zeros_like(&y)?,
        };
        e.op(
            Op::Cat,
            vec![Value::TensorList(vec![dx, dy]), Value::Int(-1)],
        )?
    };
    put(&mut out, a.a, d)?;
    Ok(out)
}

/// `[gQ + Q sym(gR Rᵀ - Qᵀ gQ)] R⁻ᵀ` for `Q` `m x n`, `R` `n x n`, `m >= n`.
fn qr_square_or_tall<E: Emit>(
    e: &mut E,
    gq: Option<E::T>,
    gr: Option<E::T>,
    q: &E::T,
    r: &E::T,
) -> Result<E::T> {
    let mut m = match &gr {
        Some(gr) => {
            let rt = mt(e, r)?;
            Some(e.matmul(gr, &rt)?)
        }
        None => None,
    };
    if let Some(gq) = &gq {
        let qt = mt(e, q)?;
        let qtgq = e.matmul(&qt, gq)?;
        m = Some(match m {
            Some(m) => e.sub(&m, &qtgq)?,
            None => e.neg(&qtgq)?,
        });
    }
    let m = m.expect("invariant: one of the gradients is present");
    let upper = e.op(Op::Triu, vec![t(&m), Value::Int(0)])?;
    let strict = e.op(Op::Triu, vec![t(&m), Value::Int(1)])?;
    let lower = mt(e, &strict)?;
    let sym = e.add(&upper, &lower)?;
    let mut b = e.matmul(q, &sym)?;
    if let Some(gq) = &gq {
        b = e.add(&b, gq)?;
    }
    // b R⁻ᵀ = (R⁻¹ bᵀ)ᵀ.
    let bt = mt(e, &b)?;
    let x = e.op(Op::LinalgSolve, vec![t(r), t(&bt)])?;
    mt(e, &x)
}

fn svd<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, LinalgSvd => models::linalg_svd);
    let (gu, gs, gvh) = (c.grad(0), c.grad(1), c.grad(2));
    if gu.is_none() && gs.is_none() && gvh.is_none() {
        return Ok(c.no_grads());
    }
    let mut out = c.no_grads();
    let (mut u, s, mut vh) = (c.output(0)?, c.output(1)?, c.output(2)?);
    let (mut gu, mut gvh) = (gu, gvh);
    if a.full_matrices {
        // full_matrices: only the first k columns of U (rows of Vh) depend on A smoothly.
        let k = *e.shape(&s).last().unwrap_or(&0);
        u = narrow(e, &u, -1, 0, k)?;
        vh = narrow(e, &vh, -2, 0, k)?;
        gu = gu.map(|g| narrow(e, &g, -1, 0, k)).transpose()?;
        gvh = gvh.map(|g| narrow(e, &g, -2, 0, k)).transpose()?;
    }
    let d = svd_reduced(e, gu, gs, gvh, &u, &s, &vh)?;
    put(&mut out, a.a, d)?;
    Ok(out)
}

/// The reduced SVD's input gradient (see the module docs).
fn svd_reduced<E: Emit>(
    e: &mut E,
    gu: Option<E::T>,
    gs: Option<E::T>,
    gvh: Option<E::T>,
    u: &E::T,
    s: &E::T,
    vh: &E::T,
) -> Result<E::T> {
    let (m, n) = (last2(e, u).0, last2(e, vh).1);
    if gu.is_none() && gvh.is_none() {
        // U diag(gS) Vh.
        let gs = gs.expect("invariant: one of the gradients is present");
        let col = e.unsqueeze(&gs, -1)?;
        let scaled = e.mul(&col, vh)?;
        return e.matmul(u, &scaled);
    }
    if m < n {
        // Aᵀ = V diag(S) Uᵀ.
        let (v, ut) = (mt(e, vh)?, mt(e, u)?);
        let gv = gvh.map(|g| mt(e, &g)).transpose()?;
        let gut = gu.map(|g| mt(e, &g)).transpose()?;
        let d = svd_reduced(e, gv, gs, gut, &v, s, &ut)?;
        return mt(e, &d);
    }
    let k = n;
    let s_row = e.unsqueeze(s, -2)?;
    let s_col = e.unsqueeze(s, -1)?;
    let skew = |e: &mut E, x: &E::T| -> Result<E::T> {
        let xt = mt(e, x)?;
        e.sub(x, &xt)
    };
    let mut core = None;
    if let Some(gu) = &gu {
        let ut = mt(e, u)?;
        let j = e.matmul(&ut, gu)?;
        let j = skew(e, &j)?;
        core = Some(e.mul(&j, &s_row)?);
    }
    if let Some(gvh) = &gvh {
        let gv = mt(e, gvh)?;
        let kk = e.matmul(vh, &gv)?;
        let kk = skew(e, &kk)?;
        let kk = e.mul(&s_col, &kk)?;
        core = Some(match core {
            Some(x) => e.add(&x, &kk)?,
            None => kk,
        });
    }
    let core = core.expect("invariant: gU or gVh is present");
    // E_ij = S_j² - S_i², ones on the diagonal (where the skew parts are zero).
    let s2 = e.mul(s, s)?;
    let (s2_row, s2_col) = (e.unsqueeze(&s2, -2)?, e.unsqueeze(&s2, -1)?);
    let diff = e.sub(&s2_row, &s2_col)?;
    let dtype = e.dtype(s);
    let eye_k = eye(e, k, dtype)?;
    let denom = e.add(&diff, &eye_k)?;
    let mut core = e.div(&core, &denom)?;
    if let Some(gs) = &gs {
        let col = e.unsqueeze(gs, -1)?;
        let diag = e.mul(&col, &eye_k)?;
        core = e.add(&core, &diag)?;
    }
    let mut ga = e.matmul(u, &core)?;
    if m > k
        && let Some(gu) = &gu
    {
        // (I - UUᵀ) gU S⁻¹.
        let gus = e.div(gu, &s_row)?;
        let ut = mt(e, u)?;
        let proj = e.matmul(&ut, &gus)?;
        let proj = e.matmul(u, &proj)?;
        let extra = e.sub(&gus, &proj)?;
        ga = e.add(&ga, &extra)?;
    }
    e.matmul(&ga, vh)
}

pub(crate) static QR: VjpRule = vjp_rule!("LinalgQrBackward0", Saves::args_and_output(&["a"]), qr);
pub(crate) static SVD: VjpRule = vjp_rule!("LinalgSvdBackward0", Saves::OUTPUT, svd);
pub(crate) static INV: VjpRule = vjp_rule!("LinalgInvExBackward0", Saves::OUTPUT, inv);
pub(crate) static SOLVE: VjpRule = vjp_rule!(
    "LinalgSolveExBackward0",
    Saves::args_and_output(&["a"]),
    solve
);
pub(crate) static DET: VjpRule =
    vjp_rule!("LinalgDetBackward0", Saves::args_and_output(&["a"]), det);
pub(crate) static SLOGDET: VjpRule =
    vjp_rule!("LinalgSlogdetBackward0", Saves::args(&["a"]), slogdet);
pub(crate) static CHOLESKY: VjpRule =
    vjp_rule!("LinalgCholeskyExBackward0", Saves::OUTPUT, cholesky);
pub(crate) static EIGH: VjpRule = vjp_rule!("LinalgEighBackward0", Saves::OUTPUT, eigh);
