//! Backward formulas of the losses (`mse_loss`, `nll_loss`) and the decompositions PyTorch
//! records its composite losses and attention as: `cross_entropy` (`log_softmax` +
//! `nll_loss`, plus the label-smoothing term), `l1_loss` (`abs(input - target)` reduced) and
//! `scaled_dot_product_attention` (its math formulation, dropout included).

use rynamo_tensor::layout::broadcast_shapes;
use rynamo_tensor::ops::loss::Reduction;
use rynamo_tensor::{DType, Scalar};

use super::nn::Facts;
use super::pointwise::grad_or_return;
use super::{Composite, Grads, Saves, VjpCtx, VjpRule, args, composite_rule, put, vjp_rule};
use crate::autograd::emit::{Emit, f, t};
use crate::{Error, Op, Result, Value};

/// The reduction of a loss call (its `Args`): `reduction=` or the legacy `size_average`/`reduce`
/// pair.
macro_rules! reduction_of {
    ($a:expr) => {
        Reduction::parse($a.reduction, $a.size_average, $a.reduce)
    };
}

fn reduction_name(r: Reduction) -> &'static str {
    match r {
        Reduction::None => "none",
        Reduction::Mean => "mean",
        Reduction::Sum => "sum",
    }
}

fn runtime(msg: &str) -> Error {
    Error::Tensor(rynamo_tensor::Error::Runtime(msg.into()))
}

/// mse_loss: `2 (input - target) * grad`, divided by the element count for `mean`.
fn mse_loss<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, MseLoss => loss::mse_loss);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let red = reduction_of!(a)?;
    let diff = e.sub(&c.saved(a.input)?, &c.saved(a.target)?)?;
    let mut k = 2.0;
    if red == Reduction::Mean {
        let shape = broadcast_shapes(&c.meta(a.input)?.shape, &c.meta(a.target)?.shape)?;
        k /= shape.iter().product::<usize>() as f64;
    }
    let d = e.mul_s(&diff, k)?;
    let d = e.mul(&d, &g)?;
    if c.wants(a.target) {
        let n = e.neg(&d)?;
        put(&mut out, a.target, n)?;
    }
    if c.wants(a.input) {
        put(&mut out, a.input, d)?;
    }
    Ok(out)
}

/// The class dim of a class-score input.
fn class_dim(ndim: usize) -> i64 {
    i64::from(ndim >= 2)
}

/// nll_loss(input, target, weight, ..., ignore_index, ..., reduction): `-weight[t] * grad`
/// written at each target class (over the total weight for `mean`), zero where the target is
/// `ignore_index` (`nll_loss_backward`).
fn nll_loss<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, NllLoss => loss::nll_loss);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    if !c.wants(a.input) {
        return Ok(out);
    }
    let xs = c.meta(a.input)?.shape.clone();
    let ts = c.meta(a.target)?.shape.clone();
    let cd = class_dim(xs.len());
    let target = c.saved(a.target)?;
    let red = reduction_of!(a)?;
    let dt = e.dtype(&g);
    let hit = e.cmp_s(Op::Eq, &target, a.ignore_index as f64)?;
    let safe = e.where_(&hit, Value::Scalar(Scalar::Int(0)), t(&target))?;
    let keep = e.unary(Op::LogicalNot, &hit)?;
    let keep = e.to_dtype(&keep, dt)?;
    let wt = match c.saved_opt(a.weight)? {
        Some(w) => {
            let m: usize = ts.iter().product();
            let flat = e.reshape(&safe, &[m])?;
            let sel = e.op(Op::IndexSelect, vec![t(&w), Value::Int(0), t(&flat)])?;
            let sel = e.reshape(&sel, &ts)?;
            e.mul(&keep, &sel)?
        }
        None => keep,
    };
    let mut coef = e.neg(&wt)?;
    if red == Reduction::Mean {
        let total = e.sum_all(&wt)?;
        coef = e.div(&coef, &total)?;
    }
    let val = e.mul(&coef, &g)?;
    let idx = e.unsqueeze(&safe, cd)?;
    let val = e.unsqueeze(&val, cd)?;
    let z = e.zeros(&xs, dt)?;
    let d = e.op(Op::Scatter, vec![t(&z), Value::Int(cd), t(&idx), t(&val)])?;
    put(&mut out, a.input, d)?;
    Ok(out)
}

/// PyTorch refuses a class weight that requires grad when the loss is recorded.
fn refuse_weight_grad<T: Facts>(w: Option<&T>) -> Result<()> {
    if w.is_some_and(|w| w.needs_grad()) {
        return Err(runtime(
            "The function 'nll_loss_forward' is not differentiable with respect to argument 'weight'. This input cannot have requires_grad True.",
        ));
    }
    Ok(())
}

/// nll_loss is recorded as itself, after PyTorch's check of the weight.
fn nll_loss_check<E: Emit>(_: &mut E, args: &[Value<E::T>]) -> Result<Option<Vec<E::T>>>
where
    E::T: Facts,
{
    refuse_weight_grad(crate::rules::loss::nll_loss::Args::read(args)?.weight)?;
    Ok(None)
}

/// `weight` shaped to broadcast along the class dim of a rank-`n` input.
fn class_view<E: Emit>(e: &mut E, w: &E::T, n: usize, classes: usize) -> Result<E::T> {
    let mut view = vec![1usize; n];
    view[class_dim(n) as usize] = classes;
    e.reshape(w, &view)
}

/// cross_entropy as PyTorch records it: `nll_loss(log_softmax(input))`, mixed with the
/// label-smoothing term; probability targets: `-(log_softmax(input) * target * weight)` reduced.
fn cross_entropy_parts<E: Emit>(e: &mut E, args: &[Value<E::T>]) -> Result<Option<Vec<E::T>>>
where
    E::T: Facts,
{
    E::T::check(Op::CrossEntropy, args)?;
    let a = crate::rules::loss::cross_entropy::Args::read(args)?;
    refuse_weight_grad(a.weight)?;
    let x = a.input.clone();
    let target = a.target.clone();
    let weight = a.weight.cloned();
    let ignore = a.ignore_index;
    let red = reduction_of!(a)?;
    let ls = a.label_smoothing;
    let xs = e.shape(&x);
    let n = xs.len();
    let cd = class_dim(n);
    let classes = xs[cd as usize];
    let logp = e.op(Op::LogSoftmax, vec![t(&x), Value::Int(cd)])?;
    if e.shape(&target) == xs {
        if ignore >= 0 {
            return Err(runtime(
                "ignore_index is not supported for floating point target",
            ));
        }
        let tt = if ls > 0.0 {
            let s = e.mul_s(&target, 1.0 - ls)?;
            e.add_s(&s, ls / classes as f64)?
        } else {
            target
        };
        let mut p = e.mul(&logp, &tt)?;
        if let Some(w) = &weight {
            let wv = class_view(e, w, n, classes)?;
            p = e.mul(&p, &wv)?;
        }
        let r = match red {
            Reduction::None => {
                let s = e.sum_dims(&p, &[cd], false)?;
                e.neg(&s)?
            }
            Reduction::Sum => {
                let s = e.sum_all(&p)?;
                e.neg(&s)?
            }
            Reduction::Mean => {
                let s = e.sum_all(&p)?;
                let s = e.neg(&s)?;
                let count = xs.iter().product::<usize>() / classes.max(1);
                e.div_s(&s, count as f64)?
            }
        };
        return Ok(Some(vec![r]));
    }
    let wv = weight.as_ref().map_or(Value::None, t);
    let nll = e.op(
        Op::NllLoss,
        vec![
            t(&logp),
            t(&target),
            wv,
            Value::None,
            Value::Int(ignore),
            Value::None,
            Value::Str(reduction_name(red).into()),
        ],
    )?;
    if ls <= 0.0 {
        return Ok(Some(vec![nll]));
    }
    // Label smoothing: the (weighted) mean over classes of -log p, masked where ignored.
    let hit = e.cmp_s(Op::Eq, &target, ignore as f64)?;
    let lw = match &weight {
        Some(w) => {
            let wv = class_view(e, w, n, classes)?;
            e.mul(&logp, &wv)?
        }
        None => logp.clone(),
    };
    let smooth = e.sum_dims(&lw, &[cd], false)?;
    let smooth = e.neg(&smooth)?;
    let smooth = e.where_(&hit, f(0.0), t(&smooth))?;
    let ret = match red {
        Reduction::None => smooth,
        Reduction::Sum => e.sum_all(&smooth)?,
        Reduction::Mean => {
            let keep = e.unary(Op::LogicalNot, &hit)?;
            let denom = match &weight {
                Some(w) => {
                    let safe = e.where_(&hit, Value::Scalar(Scalar::Int(0)), t(&target))?;
                    let m: usize = e.shape(&target).iter().product();
                    let flat = e.reshape(&safe, &[m])?;
                    let sel = e.op(Op::IndexSelect, vec![t(w), Value::Int(0), t(&flat)])?;
                    let keep = e.reshape(&keep, &[m])?;
                    let sel = e.where_(&keep, t(&sel), f(0.0))?;
                    e.sum_all(&sel)?
                }
                None => {
                    let k = e.to_dtype(&keep, e.dtype(&smooth))?;
                    e.sum_all(&k)?
                }
            };
            let s = e.sum_all(&smooth)?;
            e.div(&s, &denom)?
        }
    };
    let a = e.mul_s(&nll, 1.0 - ls)?;
    let b = e.mul_s(&ret, ls / classes as f64)?;
    Ok(Some(vec![e.add(&a, &b)?]))
}

/// l1_loss as PyTorch records it: `abs(input - target)`, then `mean`/`sum`.
fn l1_parts<E: Emit>(e: &mut E, args: &[Value<E::T>]) -> Result<Option<Vec<E::T>>>
where
    E::T: Facts,
{
    E::T::check(Op::L1Loss, args)?;
    let a = crate::rules::loss::l1_loss::Args::read(args)?;
    let d = e.sub(a.input, a.target)?;
    let d = e.unary(Op::Abs, &d)?;
    let r = match reduction_of!(a)? {
        Reduction::None => d,
        Reduction::Mean => e.op(Op::Mean, vec![t(&d)])?,
        Reduction::Sum => e.sum_all(&d)?,
    };
    Ok(Some(vec![r]))
}

/// scaled_dot_product_attention recorded as its math formulation (the forward kernel's steps,
/// in its compute dtype): `softmax(q k^T * scale + mask) @ v`, fully masked rows zeroed, and
/// dropout on the weights recorded with its mask.
fn sdpa_parts<E: Emit>(e: &mut E, args: &[Value<E::T>]) -> Result<Option<Vec<E::T>>>
where
    E::T: Facts,
{
    E::T::check(Op::ScaledDotProductAttention, args)?;
    let a = crate::rules::loss::scaled_dot_product_attention::Args::read(args)?;
    let (q, k, v) = (a.query, a.key, a.value);
    let mask = a.attn_mask.cloned();
    let (p, causal, scale, gqa) = (a.dropout_p, a.is_causal, a.scale, a.enable_gqa);
    let dt = e.dtype(q);
    let cdt = dt.compute_dtype();
    let qs = e.shape(q);
    let (mut qc, mut kc, mut vc) = (
        e.to_dtype(q, cdt)?,
        e.to_dtype(k, cdt)?,
        e.to_dtype(v, cdt)?,
    );
    if gqa && qs.len() >= 3 && e.shape(k).len() >= 3 && e.shape(v).len() >= 3 {
        let hq = qs[qs.len() - 3];
        kc = repeat_heads(e, &kc, hq)?;
        vc = repeat_heads(e, &vc, hq)?;
    }
    qc = e.op(Op::Contiguous, vec![t(&qc)])?;
    let scale = scale.unwrap_or(1.0 / (qs[qs.len() - 1] as f64).sqrt());
    let kt = e.transpose(&kc, -2, -1)?;
    let s = e.matmul(&qc, &kt)?;
    let mut scores = e.mul_s(&s, scale)?;
    let ss = e.shape(&scores);
    let (l, sl) = (ss[ss.len() - 2], ss[ss.len() - 1]);
    let neg_inf = f(f64::NEG_INFINITY);
    if causal {
        let ones = e.op_kw(
            Op::Ones,
            vec![Value::IntList(vec![l as i64, sl as i64])],
            vec![("dtype", Value::DType(DType::Bool))],
        )?;
        let keep = e.op(Op::Tril, vec![t(&ones)])?;
        scores = e.where_(&keep, t(&scores), neg_inf.clone())?;
    }
    if let Some(m) = &mask {
        scores = if e.dtype(m) == DType::Bool {
            e.where_(m, t(&scores), neg_inf.clone())?
        } else {
            let mc = e.to_dtype(m, cdt)?;
            e.add(&scores, &mc)?
        };
    }
    let mut attn = e.op(Op::Softmax, vec![t(&scores), Value::Int(-1)])?;
    if causal || mask.is_some() {
        let masked = e.op(Op::Eq, vec![t(&scores), neg_inf])?;
        let dead = e.op(Op::All, vec![t(&masked), Value::Int(-1), Value::Bool(true)])?;
        attn = e.where_(&dead, f(0.0), t(&attn))?;
    }
    if p > 0.0 {
        attn = e.op(
            Op::Dropout,
            vec![t(&attn), Value::Float(p), Value::Bool(true)],
        )?;
    }
    // matmul broadcasts the batch dims of q, k and v: the kernel's output shape
    let out = e.matmul(&attn, &vc)?;
    Ok(Some(vec![e.to_dtype(&out, dt)?]))
}

/// Repeats heads (dim -3) so there are `hq` of them, each `hq / h` times in a row.
fn repeat_heads<E: Emit>(e: &mut E, x: &E::T, hq: usize) -> Result<E::T> {
    let s = e.shape(x);
    let h = s[s.len() - 3];
    if h == hq {
        return Ok(x.clone());
    }
    let idx = e.op_kw(
        Op::Arange,
        vec![Value::Scalar(Scalar::Int(hq as i64))],
        vec![("dtype", Value::DType(DType::Int64))],
    )?;
    let idx = e.op_kw(
        Op::Div,
        vec![t(&idx), Value::Scalar(Scalar::Int((hq / h) as i64))],
        vec![("rounding_mode", Value::Str("floor".into()))],
    )?;
    e.op(
        Op::IndexSelect,
        vec![t(x), Value::Int(s.len() as i64 - 3), t(&idx)],
    )
}

pub(crate) static MSE: VjpRule = vjp_rule!(
    "MseLossBackward0",
    Saves::args(&["input", "target"]),
    mse_loss
);
pub(crate) static NLL: VjpRule = vjp_rule!(
    "NllLossBackward0",
    Saves::args(&["target", "weight"]),
    nll_loss
);

pub(crate) static NLL_CHECK: Composite = composite_rule!(nll_loss_check);
pub(crate) static CROSS_ENTROPY_PARTS: Composite = composite_rule!(cross_entropy_parts);
pub(crate) static L1_PARTS: Composite = composite_rule!(l1_parts);
pub(crate) static SDPA_PARTS: Composite = composite_rule!(sdpa_parts);
