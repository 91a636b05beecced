//! The optimizers' multi-tensor updates (PyTorch's `_fused_adam_`, `_fused_adamw_`, `_fused_sgd_`,
//! `_fused_adagrad_`): every parameter of a group updated in one call, in one pass over memory per
//! chunk of a parameter, the chunks of all parameters shared out over the kernel threads.
//!
//! Each element goes through exactly the arithmetic of the single-tensor (`foreach=False`) path
//! of `torch.optim`, op for op: the same operations in the same order, each op's result rounded to
//! the parameter's dtype where that op writes a tensor, and each Python number converted the way
//! that op converts it (a binary op rounds its scalar through the tensor's dtype, `lerp`'s weight
//! and `addcmul`/`addcdiv`'s `value` and `add`'s `alpha` go straight to the compute dtype). The
//! per-step numbers (bias corrections, step sizes) are computed in f64 as Python computes them.
//! So both paths give bitwise equal parameters and state; `tests/python/train/foreach_equal.py`
//! checks it for every hyper-parameter combination.

use crate::error::bail;
use crate::kernels::math::{Flt, max_nan};
use crate::parallel::parallel_for;
use crate::preserve::is_non_overlapping_and_dense;
use crate::{DType, Element, Result, Shaped, Tensor};
use half::{bf16, f16};
use std::sync::Arc;

/// Elements per task: large enough to amortise a task, small enough to balance across threads.
const CHUNK: usize = 1 << 15;

/// Adam's hyper-parameters (`_fused_adam_` / `_fused_adamw_`; `decoupled` picks AdamW).
#[derive(Clone, Copy, Debug)]
pub struct AdamHyper {
    /// Learning rate.
    pub lr: f64,
    /// First-moment decay.
    pub beta1: f64,
    /// Second-moment decay.
    pub beta2: f64,
    /// Weight decay (L2 for Adam, decoupled for AdamW).
    pub weight_decay: f64,
    /// Denominator epsilon.
    pub eps: f64,
    /// Keep the running maximum of the second moment.
    pub amsgrad: bool,
    /// Ascend instead of descend.
    pub maximize: bool,
    /// AdamW's decoupled weight decay.
    pub decoupled: bool,
}

/// SGD's hyper-parameters (`_fused_sgd_`).
#[derive(Clone, Copy, Debug)]
pub struct SgdHyper {
    /// Weight decay.
    pub weight_decay: f64,
    /// Momentum factor (0: no buffers).
    pub momentum: f64,
    /// Learning rate.
    pub lr: f64,
    /// Momentum dampening.
    pub dampening: f64,
    /// Nesterov momentum.
    pub nesterov: bool,
    /// Ascend instead of descend.
    pub maximize: bool,
    /// The buffers are fresh: they start as the (decayed) gradient.
    pub is_first_step: bool,
}

/// Adagrad's hyper-parameters (`_fused_adagrad_`).
#[derive(Clone, Copy, Debug)]
pub struct AdagradHyper {
    /// Learning rate.
    pub lr: f64,
    /// Learning-rate decay per step.
    pub lr_decay: f64,
    /// Weight decay.
    pub weight_decay: f64,
    /// Denominator epsilon.
    pub eps: f64,
    /// Ascend instead of descend.
    pub maximize: bool,
}

/// The AMP hooks every fused op takes: `grad_scale` divides the gradients (which are written back
/// unscaled) and a `found_inf` of 1 skips the whole update.
#[derive(Clone, Copy, Debug, Default)]
pub struct AmpHooks<'a, T> {
    /// Gradient scale (one element).
    pub grad_scale: Option<&'a T>,
    /// Non-finite-gradient flag (one element).
    pub found_inf: Option<&'a T>,
}

fn float_dtype(d: DType) -> bool {
    matches!(
        d,
        DType::Float32 | DType::Float64 | DType::Float16 | DType::BFloat16
    )
}

/// Checks one list against the parameters: same length, and each tensor of the parameter's
/// dtype, shape and strides (the kernel walks all of them with one flat index).
fn check_list<T: Shaped>(op: &str, what: &str, params: &[&T], list: &[&T]) -> Result<()> {
    if list.len() != params.len() {
        bail!(
            Runtime,
            "{op}: Tensor lists must have the same number of tensors, got {} and {} ({what})",
            params.len(),
            list.len()
        );
    }
    for (i, (p, t)) in params.iter().zip(list).enumerate() {
        if t.dtype() != p.dtype() || t.shape() != p.shape() {
            bail!(
                Runtime,
                "{op}: {what}[{i}] must have the parameter's dtype and shape: expected {} {:?}, got {} {:?}",
                p.dtype().aten_name(),
                p.shape(),
                t.dtype().aten_name(),
                t.shape()
            );
        }
        if t.strides() != p.strides() {
            bail!(
                Runtime,
                "{op}: {what}[{i}] must have the parameter's strides: expected {:?}, got {:?}",
                p.strides(),
                t.strides()
            );
        }
    }
    Ok(())
}

fn check_params<T: Shaped>(op: &str, params: &[&T]) -> Result<()> {
    for (i, p) in params.iter().enumerate() {
        if !float_dtype(p.dtype()) {
            bail!(
                Runtime,
                "{op}: params[{i}] must be a floating point tensor, got {}",
                p.dtype().aten_name()
            );
        }
        if !is_non_overlapping_and_dense(p.shape(), p.strides()) {
            bail!(
                Runtime,
                "{op}: params[{i}] must be non-overlapping and dense (strides {:?} for shape {:?})",
                p.strides(),
                p.shape()
            );
        }
    }
    Ok(())
}

fn check_steps<T: Shaped>(op: &str, params: &[&T], steps: &[&T]) -> Result<()> {
    if steps.len() != params.len() {
        bail!(
            Runtime,
            "{op}: Tensor lists must have the same number of tensors, got {} and {} (state_steps)",
            params.len(),
            steps.len()
        );
    }
    if let Some(s) = steps.iter().find(|s| s.numel() != 1) {
        bail!(
            Runtime,
            "{op}: each state_step must hold one element, got shape {:?}",
            s.shape()
        );
    }
    Ok(())
}

fn check_amp<T: Shaped>(op: &str, amp: &AmpHooks<'_, T>) -> Result<()> {
    for (name, t) in [("grad_scale", amp.grad_scale), ("found_inf", amp.found_inf)] {
        if let Some(t) = t
            && (t.numel() != 1 || !t.dtype().is_floating_point())
        {
            bail!(
                Runtime,
                "{op}: {name} must be a one-element floating point tensor"
            );
        }
    }
    Ok(())
}

/// Shape/dtype rule of `_fused_adam_` / `_fused_adamw_` (no outputs; every list is checked).
pub fn adam_meta<T: Shaped>(
    op: &str,
    lists: [&[&T]; 6],
    amsgrad: bool,
    amp: &AmpHooks<'_, T>,
) -> Result<()> {
    let [params, grads, exp_avgs, exp_avg_sqs, max_sqs, steps] = lists;
    check_params(op, params)?;
    check_list(op, "grads", params, grads)?;
    check_list(op, "exp_avgs", params, exp_avgs)?;
    check_list(op, "exp_avg_sqs", params, exp_avg_sqs)?;
    if amsgrad || !max_sqs.is_empty() {
        check_list(op, "max_exp_avg_sqs", params, max_sqs)?;
    }
    check_steps(op, params, steps)?;
    check_amp(op, amp)
}

/// Shape/dtype rule of `_fused_sgd_`.
pub fn sgd_meta<T: Shaped>(
    op: &str,
    lists: [&[&T]; 3],
    momentum: f64,
    amp: &AmpHooks<'_, T>,
) -> Result<()> {
    let [params, grads, bufs] = lists;
    check_params(op, params)?;
    check_list(op, "grads", params, grads)?;
    if momentum != 0.0 || !bufs.is_empty() {
        check_list(op, "momentum_buffer_list", params, bufs)?;
    }
    check_amp(op, amp)
}

/// Shape/dtype rule of `_fused_adagrad_`.
pub fn adagrad_meta<T: Shaped>(op: &str, lists: [&[&T]; 4], amp: &AmpHooks<'_, T>) -> Result<()> {
    let [params, grads, sums, steps] = lists;
    check_params(op, params)?;
    check_list(op, "grads", params, grads)?;
    check_list(op, "state_sums", params, sums)?;
    check_steps(op, params, steps)?;
    check_amp(op, amp)
}

/// One parameter's tensors as raw pointers (all of one dtype and strides, so one flat index
/// walks them together).
#[derive(Clone, Copy)]
struct Slots {
    p: *mut u8,
    g: *mut u8,
    a: *mut u8,
    b: *mut u8,
    c: *mut u8,
}

// SAFETY: the pointers are only dereferenced by `run`, whose tasks write disjoint element ranges,
// while the caller holds the tensors.
unsafe impl Send for Slots {}
// SAFETY: as above.
unsafe impl Sync for Slots {}

/// The address of element `[0, ..., 0]`: a dense tensor's lowest, as strides are never negative.
fn raw(t: &Tensor) -> *mut u8 {
    // SAFETY: the offset is within the storage (checked at construction or by a view rule).
    unsafe { t.storage().as_ptr().add(t.offset() * t.dtype().itemsize()) }
}

/// Splits every parameter into chunks and runs `f(param index, element range)` over all of them
/// on the kernel threads.
fn run(numels: &[usize], f: impl Fn(usize, std::ops::Range<usize>) + Sync + Send) {
    let mut tasks = Vec::new();
    for (i, &n) in numels.iter().enumerate() {
        let mut s = 0;
        while s < n {
            let e = (s + CHUNK).min(n);
            tasks.push((i, s..e));
            s = e;
        }
    }
    parallel_for(tasks.len(), |k| {
        let (i, r) = tasks[k].clone();
        f(i, r);
    });
}

/// The storage element type `T` with its compute type `F` (f32 for the halves): loads, stores
/// and the rounding a tensor write applies.
trait Io<F: Flt>: Element {
    #[inline(always)]
    fn load(self) -> F {
        F::from_f64(self.to_f64())
    }
    /// A computed value rounded to `Self` (exact for `Self == F`).
    #[inline(always)]
    fn round(x: F) -> F {
        if Self::DTYPE == F::DTYPE {
            x
        } else {
            F::from_f64(Self::from_f64(x.to_f64()).to_f64())
        }
    }
    #[inline(always)]
    fn store(x: F) -> Self {
        Self::from_f64(x.to_f64())
    }
    /// A Python number as a binary op's scalar operand: rounded through `Self`, then widened.
    #[inline(always)]
    fn scalar(v: f64) -> F {
        F::from_f64(Self::from_f64(v).to_f64())
    }
}

impl Io<f32> for f32 {
    #[inline(always)]
    fn load(self) -> f32 {
        self
    }
    #[inline(always)]
    fn store(x: f32) -> f32 {
        x
    }
}
impl Io<f64> for f64 {
    #[inline(always)]
    fn load(self) -> f64 {
        self
    }
    #[inline(always)]
    fn store(x: f64) -> f64 {
        x
    }
}
impl Io<f32> for f16 {}
impl Io<f32> for bf16 {}

/// A one-element tensor's value as f64 (`.item()`).
fn value(t: &Tensor) -> Result<f64> {
    Ok(t.item()?.to_f64())
}

/// The AMP scale and whether the update is skipped.
fn amp_state(amp: &AmpHooks<'_, Tensor>) -> Result<(Option<f64>, bool)> {
    let skip = match amp.found_inf {
        Some(t) => value(t)? == 1.0,
        None => false,
    };
    let scale = amp.grad_scale.map(value).transpose()?;
    Ok((scale, skip))
}

/// The kernel hands out one mutable slice per tensor to the threads: no two tensors of the lists
/// may share memory (a parameter listed twice, a gradient that is its parameter).
fn check_disjoint(op: &str, lists: &[&[&Tensor]]) -> Result<()> {
    let mut spans: Vec<(usize, usize, usize)> = lists
        .iter()
        .flat_map(|l| l.iter())
        .filter(|t| t.numel() > 0)
        .map(|t| {
            let start = raw(t) as usize;
            (
                Arc::as_ptr(t.storage()) as usize,
                start,
                start + t.numel() * t.dtype().itemsize(),
            )
        })
        .collect();
    spans.sort_unstable();
    if spans
        .windows(2)
        .any(|w| w[0].0 == w[1].0 && w[1].1 < w[0].2)
    {
        bail!(
            Runtime,
            "{op}: the tensors of the lists must not share memory (a parameter listed twice?)"
        );
    }
    Ok(())
}

fn bump(lists: &[&[&Tensor]]) {
    for l in lists {
        for t in l.iter() {
            t.storage().bump_version();
        }
    }
}

/// Dispatches a per-element kernel on the parameter's dtype.
macro_rules! by_dtype {
    ($dt:expr, $f:ident :: <_>($($arg:expr),*)) => {
        match $dt {
            DType::Float32 => $f::<f32, f32>($($arg),*),
            DType::Float64 => $f::<f64, f64>($($arg),*),
            DType::Float16 => $f::<f16, f32>($($arg),*),
            DType::BFloat16 => $f::<bf16, f32>($($arg),*),
            _ => unreachable!("invariant: the meta rule admits floats only"),
        }
    };
}

/// The elements `r` of one list as a slice (null: the list is absent, an empty slice).
///
/// # Safety
/// `ptr` is a tensor of `T`s covering `r` (or null), no other live slice overlaps it, and the
/// tensor outlives the slice.
#[inline(always)]
unsafe fn part<'a, T>(ptr: *mut u8, r: &std::ops::Range<usize>) -> &'a mut [T] {
    if ptr.is_null() {
        return &mut [];
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts_mut(ptr.cast::<T>().add(r.start), r.len()) }
}

/// AMP: divides the gradients by `scale`, written back (PyTorch's fused kernels leave the
/// gradients unscaled), before the update reads them.
fn unscale<T: Io<F>, F: Flt>(g: &mut [T], scale: Option<f64>) {
    if let Some(s) = scale {
        let s = F::from_f64(s);
        for x in g.iter_mut() {
            *x = T::store(T::round(x.load() / s));
        }
    }
}

/// The gradient as the update reads it (negated when maximizing; negation is exact).
#[inline(always)]
fn signed<F: Flt>(x: F, maximize: bool) -> F {
    if maximize { -x } else { x }
}

/// Adam's per-parameter numbers, computed as the single-tensor path's Python does.
#[derive(Clone, Copy)]
struct AdamStep {
    step_size: f64,
    bias_correction2_sqrt: f64,
}

fn adam_step(h: &AdamHyper, step: f64) -> AdamStep {
    let bias_correction1 = 1.0 - h.beta1.powf(step);
    let bias_correction2 = 1.0 - h.beta2.powf(step);
    AdamStep {
        step_size: h.lr / bias_correction1,
        bias_correction2_sqrt: bias_correction2.powf(0.5),
    }
}

/// Weight decay of an Adam step: none, L2 (added to the gradient) or decoupled (AdamW).
const WD_NONE: u8 = 0;
const WD_L2: u8 = 1;
const WD_DECOUPLED: u8 = 2;

fn adam_range<T: Io<F>, F: Flt>(
    s: Slots,
    r: std::ops::Range<usize>,
    h: &AdamHyper,
    st: AdamStep,
    scale: Option<f64>,
) {
    let wd = match (h.weight_decay != 0.0, h.decoupled) {
        (false, _) => WD_NONE,
        (true, false) => WD_L2,
        (true, true) => WD_DECOUPLED,
    };
    // One loop per (weight decay, amsgrad) so that each is a straight-line body the compiler
    // vectorises; the arithmetic is the same in all.
    match (wd, h.amsgrad) {
        (WD_NONE, false) => adam_loop::<T, F, WD_NONE, false>(s, r, h, st, scale),
        (WD_NONE, true) => adam_loop::<T, F, WD_NONE, true>(s, r, h, st, scale),
        (WD_L2, false) => adam_loop::<T, F, WD_L2, false>(s, r, h, st, scale),
        (WD_L2, true) => adam_loop::<T, F, WD_L2, true>(s, r, h, st, scale),
        (_, false) => adam_loop::<T, F, WD_DECOUPLED, false>(s, r, h, st, scale),
        (_, true) => adam_loop::<T, F, WD_DECOUPLED, true>(s, r, h, st, scale),
    }
}

fn adam_loop<T: Io<F>, F: Flt, const WD: u8, const AMSGRAD: bool>(
    s: Slots,
    r: std::ops::Range<usize>,
    h: &AdamHyper,
    st: AdamStep,
    scale: Option<f64>,
) {
    // SAFETY: every list has the parameter's dtype and layout (the meta rule), `r` is within the
    // parameter, tasks own disjoint ranges, and the lists are distinct tensors.
    let (p, g, m, v, mx) = unsafe {
        (
            part::<T>(s.p, &r),
            part::<T>(s.g, &r),
            part::<T>(s.a, &r),
            part::<T>(s.b, &r),
            part::<T>(s.c, &r),
        )
    };
    unscale::<T, F>(g, scale);
    let decay = T::scalar(1.0 - h.lr * h.weight_decay);
    let wd = F::from_f64(h.weight_decay);
    let w1 = F::from_f64(1.0 - h.beta1);
    let beta2 = T::scalar(h.beta2);
    let one_minus_beta2 = F::from_f64(1.0 - h.beta2);
    let bc2 = T::scalar(st.bias_correction2_sqrt);
    let eps = T::scalar(h.eps);
    let neg_step = F::from_f64(-st.step_size);
    let maximize = h.maximize;
    for j in 0..p.len() {
        let mut grad = signed(g[j].load(), maximize);
        let mut pj = p[j].load();
        if WD == WD_DECOUPLED {
            pj = T::round(pj * decay);
        } else if WD == WD_L2 {
            grad = T::round(grad + wd * pj);
        }
        // exp_avg.lerp_(grad, 1 - beta1)
        let mj = T::round(lerp(m[j].load(), grad, w1));
        // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        let mut vj = T::round(v[j].load() * beta2);
        vj = T::round(vj + one_minus_beta2 * grad * grad);
        let second = if AMSGRAD {
            // max_exp_avg_sq.copy_(torch.maximum(max_exp_avg_sq, exp_avg_sq))
            let x = max_nan(mx[j].load(), vj);
            mx[j] = T::store(x);
            x
        } else {
            vj
        };
        // (second.sqrt() / bias_correction2_sqrt).add_(eps)
        let denom = T::round(T::round(T::round(second.sqrt()) / bc2) + eps);
        // p.addcdiv_(exp_avg, denom, value=-step_size)
        pj = T::round(pj + neg_step * mj / denom);
        m[j] = T::store(mj);
        v[j] = T::store(vj);
        p[j] = T::store(pj);
    }
}

/// `lerp`'s two-sided formula (`ops::ternary`), exact at both ends.
#[inline(always)]
fn lerp<F: Flt>(a: F, b: F, w: F) -> F {
    if w.abs() < F::c(0.5) {
        a + w * (b - a)
    } else {
        b - (b - a) * (F::one() - w)
    }
}

fn slots(ts: [Option<&&Tensor>; 5]) -> Slots {
    let r = |t: Option<&&Tensor>| t.map_or(std::ptr::null_mut(), |t| raw(t));
    Slots {
        p: r(ts[0]),
        g: r(ts[1]),
        a: r(ts[2]),
        b: r(ts[3]),
        c: r(ts[4]),
    }
}

/// `_fused_adam_` / `_fused_adamw_`: one Adam step of every parameter (the step counters are
/// already incremented, as PyTorch's optimizer does before calling the fused op).
pub fn adam_(
    op: &str,
    lists: [&[&Tensor]; 6],
    h: &AdamHyper,
    amp: &AmpHooks<'_, Tensor>,
) -> Result<()> {
    adam_meta(op, lists, h.amsgrad, amp)?;
    let [params, grads, exp_avgs, exp_avg_sqs, max_sqs, steps] = lists;
    let max_used: &[&Tensor] = if h.amsgrad { max_sqs } else { &[] };
    check_disjoint(op, &[params, grads, exp_avgs, exp_avg_sqs, max_used])?;
    let (scale, skip) = amp_state(amp)?;
    if skip {
        return Ok(());
    }
    let per: Vec<(Slots, AdamStep)> = (0..params.len())
        .map(|i| {
            let mx = if h.amsgrad { max_sqs.get(i) } else { None };
            let s = slots([
                params.get(i),
                grads.get(i),
                exp_avgs.get(i),
                exp_avg_sqs.get(i),
                mx,
            ]);
            Ok((s, adam_step(h, value(steps[i])?)))
        })
        .collect::<Result<_>>()?;
    let numels: Vec<usize> = params.iter().map(|p| p.numel()).collect();
    run(&numels, |i, r| {
        let (s, st) = per[i];
        by_dtype!(params[i].dtype(), adam_range::<_>(s, r, h, st, scale));
    });
    bump(&[params, exp_avgs, exp_avg_sqs]);
    if h.amsgrad {
        bump(&[max_sqs]);
    }
    if scale.is_some() {
        bump(&[grads]);
    }
    Ok(())
}

fn sgd_range<T: Io<F>, F: Flt>(
    s: Slots,
    r: std::ops::Range<usize>,
    h: &SgdHyper,
    scale: Option<f64>,
) {
    // SAFETY: as `adam_loop`'s.
    let (p, g, buf) = unsafe { (part::<T>(s.p, &r), part::<T>(s.g, &r), part::<T>(s.a, &r)) };
    unscale::<T, F>(g, scale);
    let wd = F::from_f64(h.weight_decay);
    let momentum = T::scalar(h.momentum);
    let alpha_buf = F::from_f64(1.0 - h.dampening);
    let alpha_nesterov = F::from_f64(h.momentum);
    let neg_lr = F::from_f64(-h.lr);
    for j in 0..p.len() {
        let mut grad = signed(g[j].load(), h.maximize);
        let pj = p[j].load();
        if h.weight_decay != 0.0 {
            // grad = grad.add(p, alpha=weight_decay)
            grad = T::round(grad + wd * pj);
        }
        if h.momentum != 0.0 {
            let bj = if h.is_first_step {
                // buf = grad.clone()
                grad
            } else {
                // buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                let b = T::round(buf[j].load() * momentum);
                T::round(b + alpha_buf * grad)
            };
            buf[j] = T::store(bj);
            grad = if h.nesterov {
                T::round(grad + alpha_nesterov * bj)
            } else {
                bj
            };
        }
        // p.add_(grad, alpha=-lr)
        p[j] = T::store(T::round(pj + neg_lr * grad));
    }
}

/// `_fused_sgd_`: one SGD step of every parameter.
pub fn sgd_(
    op: &str,
    lists: [&[&Tensor]; 3],
    h: &SgdHyper,
    amp: &AmpHooks<'_, Tensor>,
) -> Result<()> {
    sgd_meta(op, lists, h.momentum, amp)?;
    let [params, grads, bufs] = lists;
    let bufs_used: &[&Tensor] = if h.momentum != 0.0 { bufs } else { &[] };
    check_disjoint(op, &[params, grads, bufs_used])?;
    let (scale, skip) = amp_state(amp)?;
    if skip {
        return Ok(());
    }
    let momentum = h.momentum != 0.0;
    let per: Vec<Slots> = (0..params.len())
        .map(|i| {
            let b = if momentum { bufs.get(i) } else { None };
            slots([params.get(i), grads.get(i), b, None, None])
        })
        .collect();
    let numels: Vec<usize> = params.iter().map(|p| p.numel()).collect();
    run(&numels, |i, r| {
        by_dtype!(params[i].dtype(), sgd_range::<_>(per[i], r, h, scale));
    });
    bump(&[params]);
    if momentum {
        bump(&[bufs]);
    }
    if scale.is_some() {
        bump(&[grads]);
    }
    Ok(())
}

fn adagrad_range<T: Io<F>, F: Flt>(
    s: Slots,
    r: std::ops::Range<usize>,
    h: &AdagradHyper,
    clr: f64,
    scale: Option<f64>,
) {
    // SAFETY: as `adam_loop`'s.
    let (p, g, sum) = unsafe { (part::<T>(s.p, &r), part::<T>(s.g, &r), part::<T>(s.a, &r)) };
    unscale::<T, F>(g, scale);
    let wd = F::from_f64(h.weight_decay);
    let eps = T::scalar(h.eps);
    let neg_clr = F::from_f64(-clr);
    for j in 0..p.len() {
        let mut grad = signed(g[j].load(), h.maximize);
        let pj = p[j].load();
        if h.weight_decay != 0.0 {
            grad = T::round(grad + wd * pj);
        }
        // state_sum.addcmul_(grad, grad, value=1): `1 * grad` is exact.
        let sj = T::round(sum[j].load() + grad * grad);
        // state_sum.sqrt().add_(eps)
        let std = T::round(T::round(sj.sqrt()) + eps);
        sum[j] = T::store(sj);
        // p.addcdiv_(grad, std, value=-clr)
        p[j] = T::store(T::round(pj + neg_clr * grad / std));
    }
}

/// `_fused_adagrad_`: one Adagrad step of every parameter (step counters already incremented).
pub fn adagrad_(
    op: &str,
    lists: [&[&Tensor]; 4],
    h: &AdagradHyper,
    amp: &AmpHooks<'_, Tensor>,
) -> Result<()> {
    adagrad_meta(op, lists, amp)?;
    let [params, grads, sums, steps] = lists;
    check_disjoint(op, &[params, grads, sums])?;
    let (scale, skip) = amp_state(amp)?;
    if skip {
        return Ok(());
    }
    let per: Vec<(Slots, f64)> = (0..params.len())
        .map(|i| {
            let step = value(steps[i])?;
            let clr = h.lr / (1.0 + (step - 1.0) * h.lr_decay);
            Ok((
                slots([params.get(i), grads.get(i), sums.get(i), None, None]),
                clr,
            ))
        })
        .collect::<Result<_>>()?;
    let numels: Vec<usize> = params.iter().map(|p| p.numel()).collect();
    run(&numels, |i, r| {
        let (s, clr) = per[i];
        by_dtype!(params[i].dtype(), adagrad_range::<_>(s, r, h, clr, scale));
    });
    bump(&[params, sums]);
    if scale.is_some() {
        bump(&[grads]);
    }
    Ok(())
}
