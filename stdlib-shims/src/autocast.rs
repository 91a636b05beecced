//! CPU autocast (`torch.autocast("cpu", dtype=...)`): PyTorch's per-thread autocast state and its
//! per-op cast policies for the CPU (`aten/src/ATen/autocast_mode.cpp`, `AutocastCPU`), applied
//! to registry ops before they run.
//!
//! PyTorch casts in a dispatch key that sits above autograd, so the casts are recorded in the
//! graph and an op's own kernel (and everything it calls) runs with autocast excluded. Here the
//! same happens at the one door of eager ops ([`crate::call`]'s `call_op` calls [`apply_eager`]
//! after binding) and, while Dynamo traces, at the tracer's op door (which calls [`plan`] and adds
//! `to` nodes): kernels never see autocast, and the casts are ordinary differentiable `to` calls.
//! `torch` functions written in Python that PyTorch lists as one op (`conv_transpose2d`,
//! `smooth_l1_loss`, ...) get the same policy from a Python decorator (`torch/_autocast_policy.py`)
//! that casts the inputs and runs the body with autocast off.
//!
//! The state is per thread, as PyTorch's: enabled flag, lower-precision dtype, the cache flag,
//! and the nesting depth of `autocast` blocks. The cache keeps the lower-precision cast of each
//! fp32 leaf that requires grad (model weights), so one region casts a weight once; it is
//! cleared when the outermost block exits (`clear_autocast_cache`).

use std::cell::RefCell;

use rynamo_graph::{Op, Value};
use rynamo_tensor::{DType, Tensor};

/// Which of PyTorch's CPU cast policies an op has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// `lower_precision_fp`: eligible float inputs are cast to the autocast dtype.
    LowerPrecision,
    /// `fp32`: eligible float inputs are cast to float32.
    Fp32,
    /// `promote`: eligible float inputs are cast to the widest of them and the autocast dtype.
    Promote,
    /// A call whose autocast dtype Rynamo does not know (see `einsum_policy`): an error.
    Unsupported,
}

/// The per-thread autocast state (PyTorch's thread-locals in `autocast_mode.cpp`).
#[derive(Clone, Debug)]
pub struct State {
    /// `torch.is_autocast_enabled("cpu")`.
    pub enabled: bool,
    /// `torch.get_autocast_dtype("cpu")` (bfloat16 by default).
    pub dtype: DType,
    /// `torch.is_autocast_cache_enabled()`.
    pub cache_enabled: bool,
    /// Depth of entered `autocast` blocks (`autocast_increment_nesting`).
    pub nesting: i64,
}

impl Default for State {
    fn default() -> Self {
        State {
            enabled: false,
            dtype: DType::BFloat16,
            cache_enabled: true,
            nesting: 0,
        }
    }
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
    /// (fp32 leaf, its cast) pairs; the source is held so its identity cannot be reused.
    static CACHE: RefCell<Vec<(Tensor, Tensor)>> = const { RefCell::new(Vec::new()) };
}

/// The current thread's autocast state.
pub fn state() -> State {
    STATE.with(|s| s.borrow().clone())
}

/// Changes the current thread's autocast state.
pub fn update<R>(f: impl FnOnce(&mut State) -> R) -> R {
    STATE.with(|s| f(&mut s.borrow_mut()))
}

/// `torch.clear_autocast_cache()`.
pub fn clear_cache() {
    CACHE.with(|c| c.borrow_mut().clear());
}

/// The CPU policy of a registry op, given its bound arguments (`F.pad` is reflection or
/// replication padding, both fp32 on the CPU, only in those modes and ranks).
pub fn policy<T>(op: Op, bound: &[Value<T>]) -> Option<Policy> {
    use Policy::*;
    Some(match op {
        Op::Conv1d
        | Op::Conv1dPadding
        | Op::Conv2d
        | Op::Conv2dPadding
        | Op::Bmm
        | Op::Mm
        | Op::Baddbmm
        | Op::Addmm
        | Op::Linear
        | Op::Matmul
        | Op::ScaledDotProductAttention => LowerPrecision,
        Op::Polar
        | Op::Prod
        | Op::ViewAsComplex
        | Op::MseLoss
        | Op::NllLoss
        | Op::CrossEntropy
        | Op::L1Loss
        | Op::LinalgSolve
        | Op::LinalgCholesky
        | Op::LinalgInv
        | Op::LinalgQr
        | Op::LinalgSvd
        | Op::LinalgEigh => Fp32,
        Op::Cat | Op::Stack => Promote,
        Op::Pad => return pad_policy(bound),
        Op::Einsum => return einsum_policy(bound),
        _ => return None,
    })
}

/// `reflection_pad1d/2d` and `replication_pad1d/2d/3d` are fp32 ops on the CPU.
fn pad_policy<T>(bound: &[Value<T>]) -> Option<Policy> {
    let (Some(Value::IntList(pad)), Some(Value::Str(mode))) = (bound.get(1), bound.get(2)) else {
        return None;
    };
    let fp32 = match mode.as_str() {
        "reflect" => matches!(pad.len(), 2 | 4),
        "replicate" => matches!(pad.len(), 2 | 4 | 6),
        _ => false,
    };
    fp32.then_some(Policy::Fp32)
}

/// PyTorch's `einsum` is not an autocast op: it decomposes, and a pair of operands with a
/// contracted label (in both, not in the output) is reduced by `bmm`, a lower-precision op,
/// while a pair without one is multiplied (`mul`, no policy). Two operands follow that rule.
/// With three or more, the result dtype depends on PyTorch's contraction order: `torch.einsum`
/// (`python/torch/_einsum_autocast.py`) contracts them in pairs as ATen does, so the registry op
/// sees two at a time; a call that reaches it with more under autocast is refused rather than
/// given a guessed dtype (`plan` reports it as [`Policy::Unsupported`]).
fn einsum_policy<T>(bound: &[Value<T>]) -> Option<Policy> {
    let (Some(Value::Str(eq)), Some(Value::TensorList(ts))) = (bound.first(), bound.get(1)) else {
        return None;
    };
    match ts.len() {
        0 | 1 => None,
        2 => {
            let (inputs, output) = match eq.split_once("->") {
                Some((i, o)) => (i, Some(o)),
                None => (eq.as_str(), None),
            };
            let mut ops = inputs.split(',');
            let (a, b) = (ops.next().unwrap_or(""), ops.next().unwrap_or(""));
            let labels = |s: &str| {
                s.chars()
                    .filter(|c| c.is_ascii_alphabetic())
                    .collect::<Vec<_>>()
            };
            let (la, lb) = (labels(a), labels(b));
            // Implicit output: the labels that appear once in the inputs.
            let in_output = |c: char| match output {
                Some(o) => o.contains(c),
                None => la.iter().chain(&lb).filter(|&&x| x == c).count() == 1,
            };
            la.iter()
                .any(|&c| lb.contains(&c) && !in_output(c))
                .then_some(Policy::LowerPrecision)
        }
        _ => Some(Policy::Unsupported),
    }
}

/// Whether autocast may cast a tensor of this dtype (PyTorch's `is_eligible`: floating, not
/// double).
pub fn eligible(d: DType) -> bool {
    d.is_floating_point() && d != DType::Float64
}

/// The dtype each eligible tensor of the call is cast to under `policy`, or `None` when no cast
/// is needed. `dtypes` are the dtypes of the call's tensors, in argument order.
pub fn target(policy: Policy, lower: DType, dtypes: &[DType]) -> DType {
    match policy {
        Policy::LowerPrecision => lower,
        Policy::Fp32 | Policy::Unsupported => DType::Float32,
        Policy::Promote => dtypes
            .iter()
            .filter(|d| eligible(**d))
            .fold(lower, |acc, d| rynamo_tensor::promote_types(acc, *d)),
    }
}

/// The autocast plan of one call: the target dtype for its eligible tensors, when autocast is on
/// and the op has a policy. Generic over the tensor stand-in, so Dynamo plans its casts with it.
pub fn plan<T>(
    op: Op,
    bound: &[Value<T>],
    dtype_of: impl Fn(&T) -> DType,
) -> Result<Option<DType>, String> {
    let s = state();
    if !s.enabled {
        return Ok(None);
    }
    let Some(p) = policy(op, bound) else {
        return Ok(None);
    };
    if p == Policy::Unsupported {
        return Err(format!(
            "{}() of three or more operands under torch.autocast is not supported by Rynamo: its \
             result dtype depends on PyTorch's contraction order; contract the operands in pairs",
            op.py_name()
        ));
    }
    let mut dtypes = Vec::new();
    for v in bound {
        match v {
            Value::Tensor(t) => dtypes.push(dtype_of(t)),
            Value::TensorList(ts) => dtypes.extend(ts.iter().map(&dtype_of)),
            _ => {}
        }
    }
    Ok(Some(target(p, s.dtype, &dtypes)))
}

/// Whether a tensor of dtype `from` is cast to `to` by a plan.
pub fn casts(from: DType, to: DType) -> bool {
    eligible(from) && from != to
}

/// Casts the bound arguments of an eager call as autocast would, through the registry's
/// differentiable `to` (so the casts are recorded by autograd, as PyTorch's `ToCopyBackward0`).
pub fn apply_eager(op: Op, bound: &mut [Value<Tensor>]) -> Result<(), rynamo_graph::Error> {
    let Some(to) = plan(op, bound, Tensor::dtype)
        .map_err(|m| rynamo_graph::Error::Tensor(rynamo_tensor::Error::NotImplemented(m)))?
    else {
        return Ok(());
    };
    let lower = state().dtype;
    let cast = |t: &Tensor| -> Result<Tensor, rynamo_graph::Error> {
        if !casts(t.dtype(), to) {
            return Ok(t.clone());
        }
        cached_cast(t, to, lower)
    };
    for v in bound.iter_mut() {
        *v = v.try_map(cast)?;
    }
    Ok(())
}

/// One cast; the lower-precision cast of an fp32 leaf weight is cached for the region (PyTorch's
/// `cached_cast` heuristic).
fn cached_cast(t: &Tensor, to: DType, lower: DType) -> Result<Tensor, rynamo_graph::Error> {
    let cacheable = to == lower
        && t.dtype() == DType::Float32
        && state().cache_enabled
        && t.autograd().is_some_and(|m| {
            let s = m.lock();
            s.requires_grad && s.grad_fn.is_none() && s.view_base.is_none()
        });
    if cacheable
        && let Some(hit) = CACHE.with(|c| {
            c.borrow()
                .iter()
                .find(|(src, _)| src.same_identity(t))
                .map(|(_, cast)| cast.clone())
        })
    {
        return Ok(hit);
    }
    let out = rynamo_graph::registry::call(
        Op::To,
        &[
            Value::Tensor(t.clone()),
            Value::DType(to),
            Value::Bool(false),
        ],
    )?
    .into_iter()
    .next()
    .expect("invariant: to returns one tensor");
    if cacheable {
        CACHE.with(|c| c.borrow_mut().push((t.clone(), out.clone())));
    }
    Ok(out)
}
