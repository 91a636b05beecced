//! Backward formulas of the matrix products. Batch-broadcast gradients come back in the
//! broadcast shape; the engine sums them to each argument's shape. Complex operands get the
//! adjoint (conjugate transpose) where real ones get the transpose: `da = g @ b^H`.

use super::pointwise::grad_or_return;
use super::{Grads, Saves, VjpCtx, VjpRule, args, put, vjp_rule};
use crate::autograd::emit::{Emit, t};
use crate::{Op, Result};

/// `x` with its last two dims swapped.
fn mt<E: Emit>(e: &mut E, x: &E::T) -> Result<E::T> {
    e.transpose(x, -2, -1)
}

/// The conjugate of a complex `x` (PyTorch's convention: `d(a b)/da` passes `grad * conj(b)`);
/// a real `x` itself.
fn cj<E: Emit>(e: &mut E, x: &E::T) -> Result<E::T> {
    if e.dtype(x).is_complex() {
        e.unary(Op::Conj, x)
    } else {
        Ok(x.clone())
    }
}

/// The adjoint of `x` over its last two dims: transposed, and conjugated when complex.
fn adj<E: Emit>(e: &mut E, x: &E::T) -> Result<E::T> {
    let xt = mt(e, x)?;
    cj(e, &xt)
}

/// mm, bmm and matmul of operands with 2+ dims: `da = g @ b^T`, `db = a^T @ g`.
fn mm<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let (x, y) = args!(c, |a| (a.self_, a.mat2), Mm => linalg::mm, Bmm => linalg::bmm);
    matrix_product(e, c, x, y)
}

/// The gradients of `x @ y` (tensor arguments `x`, `y` of 2+ dims).
fn matrix_product<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>, x: &usize, y: &usize) -> Grads<E> {
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.wants(x) {
        let bt = adj(e, &c.saved(y)?)?;
        let d = e.matmul(&g, &bt)?;
        put(&mut out, x, d)?;
    }
    if c.wants(y) {
        let at = adj(e, &c.saved(x)?)?;
        let d = e.matmul(&at, &g)?;
        put(&mut out, y, d)?;
    }
    Ok(out)
}

/// matmul with PyTorch's 1-D promotion rules: a 1-D operand is a row (left) or a column
/// (right) that the result drops; the gradients undo that.
fn matmul<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Matmul => linalg::matmul);
    let ra = c.meta(a.self_)?.shape.len();
    let rb = c.meta(a.other)?.shape.len();
    if ra >= 2 && rb >= 2 {
        return matrix_product(e, c, a.self_, a.other);
    }
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if ra == 1 && rb == 1 {
        // A dot product (0-d result): `d self = g * conj(other)`, `d other = g * conj(self)`.
        for (x, y) in [(a.self_, a.other), (a.other, a.self_)] {
            if c.wants(x) {
                let o = cj(e, &c.saved(y)?)?;
                let d = e.mul(&g, &o)?;
                put(&mut out, x, d)?;
            }
        }
        return Ok(out);
    }
    // Promote to matrices; the result's dropped dims come back as size 1.
    let mut g2 = g;
    if ra == 1 {
        g2 = e.unsqueeze(&g2, -2)?;
    }
    if rb == 1 {
        g2 = e.unsqueeze(&g2, -1)?;
    }
    if c.wants(a.self_) {
        let b = c.saved(a.other)?;
        let b2 = if rb == 1 { e.unsqueeze(&b, -1)? } else { b };
        let bt = adj(e, &b2)?;
        let d = e.matmul(&g2, &bt)?;
        let d = if ra == 1 {
            drop_batch(e, d, &c.meta(a.self_)?.shape)?
        } else {
            d
        };
        put(&mut out, a.self_, d)?;
    }
    if c.wants(a.other) {
        let x = c.saved(a.self_)?;
        let a2 = if ra == 1 { e.unsqueeze(&x, 0)? } else { x };
        let at = adj(e, &a2)?;
        let d = e.matmul(&at, &g2)?;
        let d = if rb == 1 {
            drop_batch(e, d, &c.meta(a.other)?.shape)?
        } else {
            d
        };
        put(&mut out, a.other, d)?;
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
    let (x, m1, m2, beta, alpha) = match c.op {
        Op::Baddbmm => args!(c, |a| (a.self_, a.batch1, a.batch2, a.beta, a.alpha),
            Baddbmm => linalg::baddbmm),
        _ => args!(c, |a| (a.self_, a.mat1, a.mat2, a.beta, a.alpha), Addmm => linalg::addmm),
    };
    let (beta, alpha) = (beta.to_f64(), alpha.to_f64());
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.wants(x) {
        let d = if beta == 1.0 {
            g.clone()
        } else {
            e.mul_s(&g, beta)?
        };
        put(&mut out, x, d)?;
    }
    let ga = if alpha == 1.0 { g } else { e.mul_s(&g, alpha)? };
    if c.wants(m1) {
        let bt = adj(e, &c.saved(m2)?)?;
        let d = e.matmul(&ga, &bt)?;
        put(&mut out, m1, d)?;
    }
    if c.wants(m2) {
        let at = adj(e, &c.saved(m1)?)?;
        let d = e.matmul(&at, &ga)?;
        put(&mut out, m2, d)?;
    }
    Ok(out)
}

/// linear: `input @ weight^T + bias`, any number of leading dims; the saved operands are
/// conjugated for complex inputs (PyTorch's convention; no-ops for real ones).
fn linear<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Linear => linalg::linear);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let in_shape = c.meta(a.input)?.shape.clone();
    let w_shape = c.meta(a.weight)?.shape.clone();
    if c.wants(a.input) {
        let w = cj(e, &c.saved(a.weight)?)?;
        let d = if w_shape.len() == 1 {
            // weight [in]: out = input @ w, shape input[:-1]
            let gu = e.unsqueeze(&g, -1)?;
            e.mul(&gu, &w)?
        } else {
            e.matmul(&g, &w)?
        };
        put(&mut out, a.input, d)?;
    }
    if c.wants(a.weight) {
        let x = cj(e, &c.saved(a.input)?)?;
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
        put(&mut out, a.weight, d)?;
    }
    if c.wants(a.bias) {
        // summed over every leading dim by the engine's sum_to
        put(&mut out, a.bias, g)?;
    }
    Ok(out)
}

fn dot<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Dot => linalg::dot);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    for (x, other) in [(a.self_, a.tensor), (a.tensor, a.self_)] {
        if c.wants(x) {
            let o = cj(e, &c.saved(other)?)?;
            let d = e.mul(&g, &o)?;
            put(&mut out, x, d)?;
        }
    }
    Ok(out)
}

/// mv(m, v): `dm = g ⊗ conj(v)`, `dv = m^H g`.
fn mv<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Mv => linalg::mv);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.wants(a.self_) {
        let gu = e.unsqueeze(&g, 1)?;
        let v = cj(e, &c.saved(a.vec)?)?;
        let d = e.mul(&gu, &v)?;
        put(&mut out, a.self_, d)?;
    }
    if c.wants(a.vec) {
        let m = c.saved(a.self_)?;
        let mtr = adj(e, &m)?;
        let d = e.op(Op::Mv, vec![t(&mtr), t(&g)])?;
        put(&mut out, a.vec, d)?;
    }
    Ok(out)
}

/// outer(a, b) = `a[:, None] * b[None, :]` (with dtype promotion): `da = (g * conj(b)).sum(1)`,
/// `db = (g * conj(a)[:, None]).sum(0)` (the conjugates are PyTorch's convention for complex
/// inputs, and no-ops for real ones).
fn outer<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Outer => linalg::outer);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.wants(a.self_) {
        let b = cj(e, &c.saved(a.vec2)?)?;
        let d = e.mul(&g, &b)?;
        let d = e.sum_dims(&d, &[1], false)?;
        put(&mut out, a.self_, d)?;
    }
    if c.wants(a.vec2) {
        let x = cj(e, &c.saved(a.self_)?)?;
        let x = e.unsqueeze(&x, 1)?;
        let d = e.mul(&g, &x)?;
        let d = e.sum_dims(&d, &[0], false)?;
        put(&mut out, a.vec2, d)?;
    }
    Ok(out)
}

pub(crate) static MM: VjpRule = vjp_rule!("MmBackward0", Saves::cross(&["self", "mat2"]), mm);
pub(crate) static BMM: VjpRule = vjp_rule!("BmmBackward0", Saves::cross(&["self", "mat2"]), mm);
pub(crate) static MATMUL: VjpRule =
    vjp_rule!("MmBackward0", Saves::cross(&["self", "other"]), matmul);
pub(crate) static ADDMM: VjpRule =
    vjp_rule!("AddmmBackward0", Saves::cross(&["mat1", "mat2"]), addmm);
pub(crate) static BADDBMM: VjpRule = vjp_rule!(
    "BaddbmmBackward0",
    Saves::cross(&["batch1", "batch2"]),
    addmm
);
pub(crate) static LINEAR: VjpRule =
    vjp_rule!("AddmmBackward0", Saves::cross(&["input", "weight"]), linear);
pub(crate) static DOT: VjpRule = vjp_rule!("DotBackward0", Saves::cross(&["self", "tensor"]), dot);
pub(crate) static MV: VjpRule = vjp_rule!("MvBackward0", Saves::cross(&["self", "vec"]), mv);
pub(crate) static OUTER: VjpRule =
    vjp_rule!("MulBackward0", Saves::cross(&["self", "vec2"]), outer);
