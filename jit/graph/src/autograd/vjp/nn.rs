//! Backward formulas of the neural-network functions `layer_norm`, `group_norm`, `embedding`,
//! `dropout` and `pad`, the `dropout` decomposition, and [`Facts`] (what a formula may ask of
//! a tensor stand-in besides its meta).

use rynamo_tensor::{Scalar, Tensor};

use super::pointwise::{grad_or_return, unary};
use super::{Composite, Grads, Saves, VjpCtx, VjpRule, args, composite_rule, put, vjp_rule};
use crate::autograd::emit::{Emit, f, t};
use crate::{Op, Result, Value, ValueId};

/// Facts about a tensor stand-in that its meta does not carry: known for real tensors, unknown
/// (or vacuous) for graph values.
pub(super) trait Facts: Sized {
    /// The storage offset in elements, when known.
    fn storage_offset(&self) -> Option<usize>;
    /// Whether it requires grad (graph values: never, the graph is built without history).
    fn needs_grad(&self) -> bool;
    /// Runs `op`'s argument checks (its meta rule) so a decomposition fails with the op's own
    /// error before running any part.
    fn check(op: Op, args: &[Value<Self>]) -> Result<()>;
}

impl Facts for Tensor {
    fn storage_offset(&self) -> Option<usize> {
        Some(self.offset())
    }
    fn needs_grad(&self) -> bool {
        Tensor::needs_grad(self)
    }
    fn check(op: Op, args: &[Value<Self>]) -> Result<()> {
        (op.def().meta.tensors)(op, args).map(|_| ())
    }
}

impl Facts for ValueId {
    fn storage_offset(&self) -> Option<usize> {
        None
    }
    fn needs_grad(&self) -> bool {
        false
    }
    fn check(_: Op, _: &[Value<Self>]) -> Result<()> {
        // GraphBuilder runs every part's meta rule as it adds the node.
        Ok(())
    }
}

/// Normalizes `x` over `dims` (biased variance): `(x_hat, rstd)`, both keeping `dims`.
pub(super) fn normalize<E: Emit>(
    e: &mut E,
    x: &E::T,
    dims: &[i64],
    eps: f64,
) -> Result<(E::T, E::T)> {
    let mean = e.op(
        Op::Mean,
        vec![t(x), Value::IntList(dims.to_vec()), Value::Bool(true)],
    )?;
    let centered = e.sub(x, &mean)?;
    let sq = e.mul(&centered, &centered)?;
    let var = e.op(
        Op::Mean,
        vec![t(&sq), Value::IntList(dims.to_vec()), Value::Bool(true)],
    )?;
    let var = e.add_s(&var, eps)?;
    let rstd = e.unary(Op::Rsqrt, &var)?;
    let xhat = e.mul(&centered, &rstd)?;
    Ok((xhat, rstd))
}

/// The input gradient of a normalization over `dims`, given `gw` (the output gradient times
/// the scale): `rstd * (gw - mean(gw) - x_hat * mean(gw * x_hat))`.
pub(super) fn normalized_input_grad<E: Emit>(
    e: &mut E,
    gw: &E::T,
    xhat: &E::T,
    rstd: &E::T,
    dims: &[i64],
) -> Result<E::T> {
    let mean = |e: &mut E, v: &E::T| {
        e.op(
            Op::Mean,
            vec![t(v), Value::IntList(dims.to_vec()), Value::Bool(true)],
        )
    };
    let m1 = mean(e, gw)?;
    let gx = e.mul(gw, xhat)?;
    let m2 = mean(e, &gx)?;
    let d = e.sub(gw, &m1)?;
    let p = e.mul(xhat, &m2)?;
    let d = e.sub(&d, &p)?;
    e.mul(&d, rstd)
}

/// layer_norm(input, normalized_shape, weight, bias, eps): the `layer_norm_backward` kernel;
/// under `create_graph` the same gradients as ops, so they can be differentiated again.
fn layer_norm<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, LayerNorm => nn::layer_norm);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let x = c.saved(a.input)?;
    let n = c.meta(a.input)?.shape.len() as i64;
    let ns = a.normalized_shape.to_vec();
    let dims: Vec<i64> = (n - ns.len() as i64..n).collect();
    let w = c.saved_opt(a.weight)?;
    let eps = a.eps;
    if !crate::autograd::is_grad_enabled() {
        let wv = w.as_ref().map_or(Value::None, t);
        let mut r = e.call(
            Op::LayerNormBackward,
            vec![t(&g), t(&x), Value::IntList(ns), wv, Value::Float(eps)],
        )?;
        for (k, x) in [(2, a.bias), (1, a.weight), (0, Some(a.input))] {
            let d = r.remove(k);
            if c.wants(x) {
                put(&mut out, x, d)?;
            }
        }
        return Ok(out);
    }
    let (xhat, rstd) = normalize(e, &x, &dims, eps)?;
    if c.wants(a.input) {
        let gw = match &w {
            Some(w) => e.mul(&g, w)?,
            None => g.clone(),
        };
        let d = normalized_input_grad(e, &gw, &xhat, &rstd, &dims)?;
        put(&mut out, a.input, d)?;
    }
    if c.wants(a.weight) {
        // summed over the leading dims by the engine
        let d = e.mul(&g, &xhat)?;
        put(&mut out, a.weight, d)?;
    }
    if c.wants(a.bias) {
        put(&mut out, a.bias, g)?;
    }
    Ok(out)
}

/// group_norm(input, num_groups, weight, bias, eps): a layer norm of each `[N, G, C/G * S]`
/// group, with a per-channel scale.
fn group_norm<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, GroupNorm => nn::group_norm);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let x = c.saved(a.input)?;
    let shape = c.meta(a.input)?.shape.clone();
    let (n, ch) = (shape[0], shape[1]);
    let groups = a.num_groups as usize;
    let per = shape.iter().product::<usize>() / (n * groups).max(1);
    let grouped = [n, groups, per];
    let w = c.saved_opt(a.weight)?;
    let xr = e.reshape(&x, &grouped)?;
    let (xhat, rstd) = normalize(e, &xr, &[2], a.eps)?;
    // dims other than the channel dim, for the per-channel sums
    let others: Vec<i64> = (0..shape.len() as i64).filter(|&d| d != 1).collect();
    let mut chan = vec![1usize; shape.len()];
    chan[1] = ch;
    if c.wants(a.input) {
        let gw = match &w {
            Some(w) => {
                let wv = e.reshape(w, &chan)?;
                e.mul(&g, &wv)?
            }
            None => g.clone(),
        };
        let gw = e.reshape(&gw, &grouped)?;
        let d = normalized_input_grad(e, &gw, &xhat, &rstd, &[2])?;
        let d = e.reshape(&d, &shape)?;
        put(&mut out, a.input, d)?;
    }
    if c.wants(a.weight) {
        let xh = e.reshape(&xhat, &shape)?;
        let d = e.mul(&g, &xh)?;
        let d = e.sum_dims(&d, &others, false)?;
        put(&mut out, a.weight, d)?;
    }
    if c.wants(a.bias) {
        let d = e.sum_dims(&g, &others, false)?;
        put(&mut out, a.bias, d)?;
    }
    Ok(out)
}

/// embedding(input, weight, padding_idx): each row's gradient summed into the rows it was read
/// from; rows read at `padding_idx` get none (`embedding_dense_backward`).
fn embedding<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Embedding => nn::embedding);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if !c.wants(a.weight) {
        return Ok(out);
    }
    let wshape = c.meta(a.weight)?.shape.clone();
    let (rows, dim) = (wshape[0], wshape[1]);
    let idx = c.saved(a.input)?;
    let m: usize = c.meta(a.input)?.shape.iter().product();
    // int32 indices are allowed; scatter_add takes int64
    let idx = e.to_dtype(&idx, rynamo_tensor::DType::Int64)?;
    let flat = e.reshape(&idx, &[m, 1])?;
    let mut g2 = e.reshape(&g, &[m, dim])?;
    if let Some(p) = a.padding_idx {
        let p = if p < 0 { p + rows as i64 } else { p };
        let hit = e.cmp_s(Op::Eq, &flat, p as f64)?;
        g2 = e.where_(&hit, f(0.0), t(&g2))?;
    }
    let at = e.expand(&flat, &[m, dim])?;
    let z = e.zeros(&wshape, e.dtype(&g))?;
    let d = e.op(Op::ScatterAdd, vec![t(&z), Value::Int(0), t(&at), t(&g2)])?;
    put(&mut out, a.weight, d)?;
    Ok(out)
}

/// dropout when it is the identity (not training, or `p == 0`); training goes through
/// [`dropout_parts`], which saves the mask.
fn dropout<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Dropout => nn::dropout);
    if a.training && a.p > 0.0 {
        return Err(crate::Error::Graph(
            "internal: training dropout is differentiated through its decomposition".into(),
        ));
    }
    unary(e, c, a.input, |_, _, g| Ok(g))
}

/// dropout(x, p, training) in training: `x * noise`, `noise` the kernel's scaled keep mask
/// (`dropout` of ones, the same draws as `dropout(x)`), so the product node saves the mask and
/// backward never redraws it (PyTorch's CPU `_dropout`: `MulBackward0`).
fn dropout_parts<E: Emit>(e: &mut E, args: &[Value<E::T>]) -> Result<Option<Vec<E::T>>>
where
    E::T: Facts,
{
    E::T::check(Op::Dropout, args)?;
    let a = crate::rules::nn::dropout::Args::read(args)?;
    let p = a.p;
    if !a.training || p == 0.0 {
        return Ok(None);
    }
    let x = a.input.clone();
    let ones = e.op(Op::OnesLike, vec![t(&x)])?;
    let noise = e.op(
        Op::Dropout,
        vec![t(&ones), Value::Float(p), Value::Bool(true)],
    )?;
    Ok(Some(vec![e.mul(&x, &noise)?]))
}

/// The index map of a non-constant pad along one dim: for each output position, the input
/// position it copies (as the kernel: reflect, replicate, wrap around).
fn pad_index<E: Emit>(e: &mut E, mode: &str, n: i64, a: i64, b: i64) -> Result<E::T> {
    let int = |v: i64| Value::Scalar(Scalar::Int(v));
    let j = e.op_kw(
        Op::Arange,
        vec![int(-a), int(n + b)],
        vec![("dtype", Value::DType(rynamo_tensor::DType::Int64))],
    )?;
    match mode {
        // (n-1) - |(n-1) - |j||
        "reflect" => {
            let aj = e.unary(Op::Abs, &j)?;
            let r = e.op(Op::Sub, vec![int(n - 1), t(&aj)])?;
            let r = e.unary(Op::Abs, &r)?;
            e.op(Op::Sub, vec![int(n - 1), t(&r)])
        }
        "replicate" => e.op(Op::Clamp, vec![t(&j), int(0), int(n - 1)]),
        _ => e.op(Op::Remainder, vec![t(&j), int(n)]),
    }
}

/// pad(input, pad, mode, value): constant padding crops the gradient (a negative pad); the
/// other modes copy each output position from an input position per dim, so the gradient is
/// summed back one padded dim at a time.
fn pad<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Pad => nn::pad);
    let shape = c.meta(a.input)?.shape.clone();
    let pads = a.pad.to_vec();
    let mode = a.mode.to_string();
    unary(e, c, a.input, |e, _, g| {
        if mode == "constant" {
            let neg: Vec<i64> = pads.iter().map(|p| -p).collect();
            return e.op(Op::Pad, vec![t(&g), Value::IntList(neg)]);
        }
        let mut cur = g;
        for (i, p) in pads.chunks(2).enumerate() {
            let d = shape.len() - 1 - i;
            let n = shape[d] as i64;
            let idx = pad_index(e, &mode, n, p[0], p[1])?;
            let cs = e.shape(&cur);
            let mut view = vec![1usize; cs.len()];
            view[d] = cs[d];
            let idx = e.reshape(&idx, &view)?;
            let idx = e.expand(&idx, &cs)?;
            let mut to = cs.clone();
            to[d] = n as usize;
            let z = e.zeros(&to, e.dtype(&cur))?;
            cur = e.op(
                Op::ScatterAdd,
                vec![t(&z), Value::Int(d as i64), t(&idx), t(&cur)],
            )?;
        }
        Ok(cur)
    })
}

pub(crate) static LAYER_NORM: VjpRule = vjp_rule!(
    "NativeLayerNormBackward0",
    Saves::args(&["input", "weight"]),
    layer_norm
);
pub(crate) static GROUP_NORM: VjpRule = vjp_rule!(
    "NativeGroupNormBackward0",
    Saves::args(&["input", "weight"]),
    group_norm
);
pub(crate) static EMBEDDING: VjpRule =
    vjp_rule!("EmbeddingBackward0", Saves::args(&["input"]), embedding);
pub(crate) static DROPOUT: VjpRule = vjp_rule!("CloneBackward0", Saves::NONE, dropout);
pub(crate) static PAD: VjpRule = vjp_rule!("ConstantPadNdBackward0", Saves::NONE, pad);

pub(crate) static DROPOUT_PARTS: Composite = composite_rule!(dropout_parts);
