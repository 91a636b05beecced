//! Backward formulas of the FFT primitives, PyTorch's `fft_c2c_backward`, `fft_r2c_backward`
//! and `fft_c2r_backward` in its complex convention (the gradient w.r.t. `z` is `dL/dx + i dL/dy`):
//! the adjoint of an unnormalised DFT is the unnormalised DFT in the other direction, with the
//! same scale.

use super::pointwise::unary;
use super::{Grads, Saves, VjpCtx, VjpRule, args, vjp_rule};
use crate::autograd::emit::{Emit, t};
use crate::{Op, Result, Value};

fn c2c<E: Emit>(e: &mut E, g: &E::T, dim: &[i64], norm: i64, forward: bool) -> Result<E::T> {
    let dims = Value::IntList(dim.to_vec());
    e.op(
        Op::FftC2c,
        vec![t(g), dims, Value::Int(norm), Value::Bool(forward)],
    )
}

/// The real part of complex `z` as a fresh tensor (`real` is a view).
fn real<E: Emit>(e: &mut E, z: &E::T) -> Result<E::T> {
    let r = e.op(Op::Real, vec![t(z)])?;
    e.op(Op::Clone, vec![t(&r)])
}

fn wrap(d: i64, ndim: usize) -> usize {
    if d < 0 {
        (d + ndim as i64) as usize
    } else {
        d as usize
    }
}

fn narrow<E: Emit>(e: &mut E, x: &E::T, dim: usize, start: usize, len: usize) -> Result<E::T> {
    e.op(
        Op::Narrow,
        vec![
            t(x),
            Value::Int(dim as i64),
            Value::Int(start as i64),
            Value::Int(len as i64),
        ],
    )
}

fn cat<E: Emit>(e: &mut E, parts: &[E::T], dim: usize) -> Result<E::T> {
    e.op(
        Op::Cat,
        vec![Value::TensorList(parts.to_vec()), Value::Int(dim as i64)],
    )
}

fn fft_c2c<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, FftC2c => fft::fft_c2c);
    unary(e, c, a.self_, |e, _, g| {
        c2c(e, &g, a.dim, a.normalization, !a.forward)
    })
}

/// A one-sided r2c is a full c2c of the real input with the upper half dropped: its adjoint pads
/// the gradient back with zeros, runs the inverse c2c and keeps the real part.
fn fft_r2c<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, FftR2c => fft::fft_r2c);
    let full = c.meta(a.self_)?.shape.clone();
    unary(e, c, a.self_, |e, _, g| {
        let mut g = g;
        if a.onesided
            && let Some(&d) = a.dim.last()
        {
            let gs = e.shape(&g);
            let last = wrap(d, gs.len());
            let missing = full[last] - gs[last];
            if missing > 0 {
                let mut zshape = gs.clone();
                zshape[last] = missing;
                let dt = e.dtype(&g);
                let z = e.zeros(&zshape, dt)?;
                g = cat(e, &[g, z], last)?;
            }
        }
        let z = c2c(e, &g, a.dim, a.normalization, false)?;
        real(e, &z)
    })
}

/// A c2r is a Hermitian extension then an inverse c2c: its adjoint is a one-sided r2c with the
/// entries whose mirror images the extension copied counted twice (indices `1 ..= n - h`, `h` the
/// one-sided length).
fn fft_c2r<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, FftC2r => fft::fft_c2r);
    unary(e, c, a.self_, |e, _, g| {
        let dims = Value::IntList(a.dim.to_vec());
        let gi = e.op(
            Op::FftR2c,
            vec![t(&g), dims, Value::Int(a.normalization), Value::Bool(true)],
        )?;
        let Some(&d) = a.dim.last() else {
            return Ok(gi);
        };
        let gs = e.shape(&gi);
        let last = wrap(d, gs.len());
        let h = gs[last];
        let n = a.last_dim_size as usize;
        let double = n.saturating_sub(h);
        if double == 0 {
            return Ok(gi);
        }
        let head = narrow(e, &gi, last, 0, 1)?;
        let mid = narrow(e, &gi, last, 1, double)?;
        let mid = e.mul_s(&mid, 2.0)?;
        let mut parts = vec![head, mid];
        if 1 + double < h {
            parts.push(narrow(e, &gi, last, 1 + double, h - 1 - double)?);
        }
        cat(e, &parts, last)
    })
}

pub(crate) static C2C: VjpRule = vjp_rule!("FftC2CBackward0", Saves::args(&[]), fft_c2c);
pub(crate) static R2C: VjpRule = vjp_rule!("FftR2CBackward0", Saves::args(&[]), fft_r2c);
pub(crate) static C2R: VjpRule = vjp_rule!("FftC2RBackward0", Saves::args(&[]), fft_c2r);
