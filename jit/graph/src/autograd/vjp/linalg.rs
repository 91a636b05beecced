//! Backward formulas of the matrix products. Batch-broadcast gradients come back in the
//! broadcast shape; the engine sums them to each argument's shape.

use super::pointwise::grad_or_return;
use super::{Grads, Saves, VjpCtx, VjpRule, put, put_at, vjp_rule};
use crate::autograd::emit::{Emit, t};
use crate::{Op, Result};

/// `x` with its last two dims swapped.
fn mt<E: Emit>(e: &mut E, x: &E::T) -> Result<E::T> {
    e.transpose(x, -2, -1)
}

/// mm, bmm and matmul of operands with 2+ dims: `da = g @ b^T`, `db = a^T @ g`.
fn mm<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.needs(0) {
        let bt = mt(e, &c.input(1)?)?;
        let d = e.matmul(&g, &bt)?;
        put_at(&mut out, c, 0, d)?;
    }
    if c.needs(1) {
        let at = mt(e, &c.input(0)?)?;
        let d = e.matmul(&at, &g)?;
        put_at(&mut out, c, 1, d)?;
    }
    Ok(out)
}

/// matmul with PyTorch's 1-D promotion rules: a 1-D operand is a row (left) or a column
/// (right) that the result drops; the gradients undo that.
fn matmul<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let ra = c.input_meta(0)?.shape.len();
    let rb = c.input_meta(1)?.shape.len();
    if ra >= 2 && rb >= 2 {
        return mm(e, c);
    }
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    // Promote to matrices; the result's dropped dims come back as size 1.
    let mut g2 = g;
    if ra == 1 {
        g2 = e.unsqueeze(&g2, -2)?;
    }
    if rb == 1 {
        g2 = e.unsqueeze(&g2, -1)?;
    }
    if c.needs(0) {
        let b = c.input(1)?;
        let b2 = if rb == 1 { e.unsqueeze(&b, -1)? } else { b };
        let bt = mt(e, &b2)?;
        let d = e.matmul(&g2, &bt)?;
        let d = if ra == 1 {
            drop_batch(e, d, &c.input_meta(0)?.shape)?
        } else {
            d
        };
        put_at(&mut out, c, 0, d)?;
    }
    if c.needs(1) {
        let a = c.input(0)?;
        let a2 = if ra == 1 { e.unsqueeze(&a, 0)? } else { a };
        let at = mt(e, &a2)?;
        let d = e.matmul(&at, &g2)?;
        let d = if rb == 1 {
            drop_batch(e, d, &c.input_meta(1)?.shape)?
        } else {
            d
        };
        put_at(&mut out, c, 1, d)?;
    }
    Ok(out)
}

/// A promoted vector's gradient: batch dims summed, back to the vector's shape.
fn drop_batch<E: Emit>(e: &mut E, d: E::T, shape: &[usize]) -> Result<E::T> {
    let n = e.shape(&d).len() as i64;
    let batch: Vec<i64> = (0..n - 2).collect();
    let d = if batch.is_empty() {
        d
    } else {
        e.sum_dims(&d, &batch, false)?
    };
    e.reshape(&d, shape)
}

/// addmm / baddbmm: `beta * self + alpha * (m1 @ m2)`.
fn addmm<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let beta = c.a().scalar(3)?.to_f64();
    let alpha = c.a().scalar(4)?.to_f64();
    if c.needs(0) {
        let d = if beta == 1.0 {
            g.clone()
        } else {
            e.mul_s(&g, beta)?
        };
        put_at(&mut out, c, 0, d)?;
    }
    let ga = if alpha == 1.0 { g } else { e.mul_s(&g, alpha)? };
    if c.needs(1) {
        let bt = mt(e, &c.input(2)?)?;
        let d = e.matmul(&ga, &bt)?;
        put_at(&mut out, c, 1, d)?;
    }
    if c.needs(2) {
        let at = mt(e, &c.input(1)?)?;
        let d = e.matmul(&at, &ga)?;
        put_at(&mut out, c, 2, d)?;
    }
    Ok(out)
}

/// linear: `input @ weight^T + bias`, any number of leading dims.
fn linear<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let in_shape = c.input_meta(0)?.shape.clone();
    let w_shape = c.input_meta(1)?.shape.clone();
    if c.needs(0) {
        let w = c.input(1)?;
        let d = if w_shape.len() == 1 {
            // weight [in]: out = input @ w, shape input[:-1]
            let gu = e.unsqueeze(&g, -1)?;
            e.mul(&gu, &w)?
        } else {
            e.matmul(&g, &w)?
        };
        put_at(&mut out, c, 0, d)?;
    }
    if c.needs(1) {
        let x = c.input(0)?;
        let k = *in_shape.last().unwrap_or(&1);
        let rows: usize = in_shape.iter().rev().skip(1).product();
        let x2 = e.reshape(&x, &[rows, k])?;
        let d = if w_shape.len() == 1 {
            let g1 = e.reshape(&g, &[rows])?;
            let xt = mt(e, &x2)?;
            e.op(Op::Mv, vec![t(&xt), t(&g1)])?
        } else {
            let o = w_shape[0];
            let g2 = e.reshape(&g, &[rows, o])?;
            let gt = mt(e, &g2)?;
            e.mm(&gt, &x2)?
        };
        put_at(&mut out, c, 1, d)?;
    }
    if c.needs(2) {
        // summed over every leading dim by the engine's sum_to
        put_at(&mut out, c, 2, g)?;
    }
    Ok(out)
}

fn dot<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    for (i, other) in [(0, 1), (1, 0)] {
        if c.needs(i) {
            let d = e.mul(&g, &c.input(other)?)?;
            put_at(&mut out, c, i, d)?;
        }
    }
    Ok(out)
}

/// mv(m, v): `dm = g ⊗ v`, `dv = m^T g`.
fn mv<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.needs(0) {
        let gu = e.unsqueeze(&g, 1)?;
        let d = e.mul(&gu, &c.input(1)?)?;
        put_at(&mut out, c, 0, d)?;
    }
    if c.needs(1) {
        let m = c.input(0)?;
        let mtr = mt(e, &m)?;
        let d = e.op(Op::Mv, vec![t(&mtr), t(&g)])?;
        put_at(&mut out, c, 1, d)?;
    }
    Ok(out)
}

/// outer(a, b) = `a[:, None] * b[None, :]` (with dtype promotion): `da = (g * b).sum(1)`,
/// `db = (g * a[:, None]).sum(0)`.
fn outer<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.needs(0) {
        let d = e.mul(&g, &c.input(1)?)?;
        let d = e.sum_dims(&d, &[1], false)?;
        put_at(&mut out, c, 0, d)?;
    }
    if c.needs(1) {
        let a = e.unsqueeze(&c.input(0)?, 1)?;
        let d = e.mul(&g, &a)?;
        let d = e.sum_dims(&d, &[0], false)?;
        put_at(&mut out, c, 1, d)?;
    }
    Ok(out)
}

pub(crate) static MM: VjpRule = vjp_rule!("MmBackward0", Saves::cross(&[0, 1]), mm);
pub(crate) static BMM: VjpRule = vjp_rule!("BmmBackward0", Saves::cross(&[0, 1]), mm);
pub(crate) static MATMUL: VjpRule = vjp_rule!("MmBackward0", Saves::cross(&[0, 1]), matmul);
pub(crate) static ADDMM: VjpRule = vjp_rule!("AddmmBackward0", Saves::cross(&[1, 2]), addmm);
pub(crate) static BADDBMM: VjpRule = vjp_rule!("BaddbmmBackward0", Saves::cross(&[1, 2]), addmm);
pub(crate) static LINEAR: VjpRule = vjp_rule!("AddmmBackward0", Saves::cross(&[0, 1]), linear);
pub(crate) static DOT: VjpRule = vjp_rule!("DotBackward0", Saves::cross(&[0, 1]), dot);
pub(crate) static MV: VjpRule = vjp_rule!("MvBackward0", Saves::cross(&[0, 1]), mv);
pub(crate) static OUTER: VjpRule = vjp_rule!("MulBackward0", Saves::cross(&[0, 1]), outer);
