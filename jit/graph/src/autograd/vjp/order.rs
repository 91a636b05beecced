//! Backward formulas of the scans and sorts: `cumsum`, `cumprod` (exact where the input has
//! zeros), `logcumsumexp`, the values of `cummax`/`cummin`, `sort` and `topk`.

use rynamo_tensor::layout::wrap_dim;

use super::pointwise::{grad_or_return, unary};
use super::reduce::scatter_back;
use super::{Grads, Saves, VjpCtx, VjpRule, args, put, vjp_rule};
use crate::autograd::emit::{Emit, f, t};
use crate::{Op, Result, Value};

fn flip_dim<E: Emit>(e: &mut E, x: &E::T, d: i64) -> Result<E::T> {
    e.op(Op::Flip, vec![t(x), Value::IntList(vec![d])])
}

/// `x` summed from each position to the end along `d`.
fn reverse_cumsum<E: Emit>(e: &mut E, x: &E::T, d: i64) -> Result<E::T> {
    let r = flip_dim(e, x, d)?;
    let r = e.op(Op::Cumsum, vec![t(&r), Value::Int(d)])?;
    flip_dim(e, &r, d)
}

/// `dim` of tensor argument `x` wrapped, or `None` for a 0-d `x`.
fn dim_of<T: Clone>(c: &VjpCtx<'_, T>, x: &usize, dim: i64) -> Result<Option<i64>> {
    let n = c.meta(x)?.shape.len();
    if n == 0 {
        return Ok(None);
    }
    Ok(Some(wrap_dim(dim, n)? as i64))
}

fn cumsum<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Cumsum => order::cumsum);
    let d = dim_of(c, a.self_, a.dim)?;
    unary(e, c, a.self_, |e, _, g| match d {
        None => Ok(g),
        Some(d) => reverse_cumsum(e, &g, d),
    })
}

/// cumprod. Before the first zero along the dim, `d out_j / d x_k = out_j / x_k`, so the
/// gradient is `reverse_cumsum(g * out) / x`. At the first zero `z` it is
/// `prod(x[:z]) * sum_{j >= z} g_j * prod(x[z+1..=j])`; after it, every term holds that zero.
/// Written with `where`s (no data-dependent branch). The masks drop the dependence of the
/// zero gradients after the first zero on that zero, so under `create_graph` the O(n^2) form
/// (`cumprod_differentiable`) runs instead.
fn cumprod<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Cumprod => order::cumprod);
    let d = dim_of(c, a.self_, a.dim)?;
    let shape = c.meta(a.self_)?.shape.clone();
    unary(e, c, a.self_, |e, c, g| {
        let Some(d) = d else { return Ok(g) };
        let n = shape[d as usize];
        if n <= 1 {
            return Ok(g);
        }
        // Complex inputs (PyTorch's convention): the same formula over `conj(x)` and
        // `conj(out) = cumprod(conj(x))`, so each product term is conjugated.
        let x = conj_if_complex(e, &c.saved(a.self_)?)?;
        if crate::autograd::is_grad_enabled() {
            return cumprod_differentiable(e, &x, &g, d, n);
        }
        let out = conj_if_complex(e, &c.output(0)?)?;
        let zero = e.cmp_s(Op::Eq, &x, 0.0)?;
        let zeros_so_far = e.op(Op::Cumsum, vec![t(&zero), Value::Int(d)])?;
        let before = e.cmp_s(Op::Eq, &zeros_so_far, 0.0)?;
        let one_zero = e.cmp_s(Op::Eq, &zeros_so_far, 1.0)?;
        let first = e.op(Op::LogicalAnd, vec![t(&zero), t(&one_zero)])?;
        // positions before the first zero
        let go = e.mul(&g, &out)?;
        let rc = reverse_cumsum(e, &go, d)?;
        let safe_x = e.where_(&before, t(&x), f(1.0))?;
        let q = e.div(&rc, &safe_x)?;
        let term1 = e.where_(&before, t(&q), f(0.0))?;
        // the first zero
        let head = e.op(Op::Prod, vec![t(&safe_x), Value::Int(d), Value::Bool(true)])?;
        let upto = e.op(Op::LogicalOr, vec![t(&before), t(&first)])?;
        let tail = e.where_(&upto, f(1.0), t(&x))?;
        let tail = e.op(Op::Cumprod, vec![t(&tail), Value::Int(d)])?;
        let gt = e.mul(&g, &tail)?;
        let gt = e.where_(&before, f(0.0), t(&gt))?;
        let s = e.sum_dims(&gt, &[d], true)?;
        let hs = e.mul(&head, &s)?;
        let term2 = e.where_(&first, t(&hs), f(0.0))?;
        e.add(&term1, &term2)
    })
}

/// `conj(x)` for a complex `x`, else `x`.
pub(super) fn conj_if_complex<E: Emit>(e: &mut E, x: &E::T) -> Result<E::T> {
    if e.dtype(x).is_complex() {
        e.unary(Op::Conj, x)
    } else {
        Ok(x.clone())
    }
}

/// cumprod's gradient as ops that differentiate again, exact at zeros (as PyTorch's
/// `cumprod_backward` under grad mode, O(n^2)): `d_k = sum_{j >= k} g_j prod_{i <= j, i != k}
/// x_i`. Row `k` of an `[n, n]` matrix holds `x` with `x_k` replaced by 1; its cumprod along the
/// row holds every such product, and the upper triangle (`j >= k`) weighted by `g` sums to `d_k`.
fn cumprod_differentiable<E: Emit>(
    e: &mut E,
    x: &E::T,
    g: &E::T,
    d: i64,
    n: usize,
) -> Result<E::T> {
    let last = e.shape(x).len() as i64 - 1;
    let xt = e.transpose(x, d, last)?;
    let gt = e.transpose(g, d, last)?;
    let mut rows = e.shape(&xt);
    rows.insert(rows.len() - 1, n);
    let m = e.unsqueeze(&xt, -2)?;
    let m = e.expand(&m, &rows)?;
    let eye = e.op(Op::Eye, vec![Value::Int(n as i64)])?;
    let eye = e.cmp_s(Op::Eq, &eye, 1.0)?;
    let m = e.where_(&eye, f(1.0), t(&m))?;
    let p = e.op(Op::Cumprod, vec![t(&m), Value::Int(-1)])?;
    let gw = e.unsqueeze(&gt, -2)?;
    let p = e.mul(&p, &gw)?;
    let p = e.op(Op::Triu, vec![t(&p), Value::Int(0)])?;
    let s = e.sum_dims(&p, &[-1], false)?;
    e.transpose(&s, d, last)
}

/// logcumsumexp: `d_k = sum_{j >= k} g_j exp(x_k - out_j)`, summed in log space separately
/// for the positive and negative parts of `g` so nothing overflows.
fn logcumsumexp<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Logcumsumexp => order::logcumsumexp);
    let d = dim_of(c, a.self_, a.dim)?;
    unary(e, c, a.self_, |e, c, g| {
        let Some(d) = d else { return Ok(g) };
        let x = c.saved(a.self_)?;
        let out = c.output(0)?;
        let mut parts = Vec::with_capacity(2);
        for sign in [1.0, -1.0] {
            let gs = e.mul_s(&g, sign)?;
            let gs = e.unary(Op::Relu, &gs)?;
            let lg = e.unary(Op::Log, &gs)?;
            let a = e.sub(&lg, &out)?;
            let a = flip_dim(e, &a, d)?;
            let a = e.op(Op::Logcumsumexp, vec![t(&a), Value::Int(d)])?;
            let a = flip_dim(e, &a, d)?;
            let a = e.add(&a, &x)?;
            parts.push(e.unary(Op::Exp, &a)?);
        }
        e.sub(&parts[0], &parts[1])
    })
}

/// sort / topk values: the gradient goes back to the positions the values came from.
fn select_values<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let (x, dim) = args!(c, |a| (a.self_, a.dim), Sort => order::sort, Topk => order::topk);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.wants(x) {
        let shape = c.meta(x)?.shape.clone();
        let d = scatter_back(e, &g, &c.output(1)?, &shape, dim, true)?;
        put(&mut out, x, d)?;
    }
    Ok(out)
}

/// cummax / cummin values: each output's gradient goes to the element it copied (several
/// outputs may copy the same one, so they are summed).
fn cum_extremum<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let (self_, dim) =
        args!(c, |a| (a.self_, a.dim), Cummax => order::cummax, Cummin => order::cummin);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if c.wants(self_) {
        let shape = c.meta(self_)?.shape.clone();
        let d = if shape.is_empty() {
            g
        } else {
            let z = e.zeros(&shape, e.dtype(&g))?;
            e.op(
                Op::ScatterAdd,
                vec![t(&z), Value::Int(dim), t(&c.output(1)?), t(&g)],
            )?
        };
        put(&mut out, self_, d)?;
    }
    Ok(out)
}

pub(crate) static CUMSUM: VjpRule = vjp_rule!("CumsumBackward0", Saves::NONE, cumsum);
pub(crate) static CUMPROD: VjpRule = vjp_rule!(
    "CumprodBackward0",
    Saves::args_and_output(&["self"]),
    cumprod
);
pub(crate) static LCSE: VjpRule = vjp_rule!(
    "LogcumsumexpBackward0",
    Saves::args_and_output(&["self"]),
    logcumsumexp
);
pub(crate) static SORT: VjpRule = vjp_rule!("SortBackward0", Saves::OUTPUT, select_values);
pub(crate) static TOPK: VjpRule = vjp_rule!("TopkBackward0", Saves::OUTPUT, select_values);
pub(crate) static CUMMAX: VjpRule = vjp_rule!("CummaxBackward0", Saves::OUTPUT, cum_extremum);
pub(crate) static CUMMIN: VjpRule = vjp_rule!("CumminBackward0", Saves::OUTPUT, cum_extremum);
