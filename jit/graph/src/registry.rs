//! Calling ops: binding, overload resolution, eager calls, meta calls, and the dispatch counters.

use std::sync::atomic::{AtomicU64, Ordering};

use rynamo_tensor::{Tensor, TensorMeta};

use crate::{Error, IValue, MetaValue, Op, Result};

static DISPATCH: AtomicU64 = AtomicU64::new(0);
static IN_GRAPH: AtomicU64 = AtomicU64::new(0);

/// Global op counters for the capture-coverage table: `dispatch` counts eager [`call`]s; graph
/// executors add the nodes they ran to `in_graph`. Total tensor ops = dispatch + in_graph.
pub mod counters {
    use super::*;

    /// Eager op calls so far.
    pub fn dispatch() -> u64 {
        DISPATCH.load(Ordering::Relaxed)
    }
    /// Ops run inside compiled graphs so far.
    pub fn in_graph() -> u64 {
        IN_GRAPH.load(Ordering::Relaxed)
    }
    /// Records `n` ops run inside a graph.
    pub fn add_in_graph(n: u64) {
        IN_GRAPH.fetch_add(n, Ordering::Relaxed);
    }
    /// Resets both counters to zero.
    pub fn reset() {
        DISPATCH.store(0, Ordering::Relaxed);
        IN_GRAPH.store(0, Ordering::Relaxed);
    }
}

/// Sees every eager [`call`] on its thread: non-strict tracing (`nonstrict_trace`) records the
/// ops a Python function runs on example tensors this way, the coverage table counts them.
pub type Observer = Box<dyn FnMut(Op, &[IValue], &[Tensor])>;

thread_local! {
    static OBSERVERS: std::cell::RefCell<Vec<(u64, Observer)>> =
        const { std::cell::RefCell::new(Vec::new()) };
    static NEXT_OBSERVER: std::cell::Cell<u64> = const { std::cell::Cell::new(1) };
}

/// Adds an observer on this thread (after the ones already there); its id removes it.
pub fn push_observer(o: Observer) -> u64 {
    let id = NEXT_OBSERVER.with(|n| {
        let id = n.get();
        n.set(id + 1);
        id
    });
    OBSERVERS.with(|cur| cur.borrow_mut().push((id, o)));
    id
}

/// Removes the observer `id` (from [`push_observer`]); whether it was there.
pub fn remove_observer(id: u64) -> bool {
    OBSERVERS.with(|cur| {
        let mut v = cur.borrow_mut();
        let n = v.len();
        v.retain(|(i, _)| *i != id);
        v.len() != n
    })
}

/// Runs an op eagerly on bound arguments (schema order) and counts one dispatch. The dispatch
/// stack, in order:
/// 1. autograd: with grad mode on and an argument that needs grad, the op is recorded
///    ([`crate::autograd`]; in-place ops on leaves are refused there);
/// 2. the observers ([`push_observer`]), in the order they were added;
/// 3. the kernel.
pub fn call(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    DISPATCH.fetch_add(1, Ordering::Relaxed);
    dispatch(op, args)
}

/// [`call`] without the dispatch counter: the whole stack, for graph interpreters that record
/// autograd history (they count their nodes in bulk).
pub fn dispatch(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    if crate::autograd::mode::is_inference_mode_enabled() {
        return crate::autograd::record::call_inference(op, args, call_observed);
    }
    crate::autograd::record::check_inference_inplace(op, args)?;
    if crate::autograd::is_grad_enabled() && crate::autograd::record::any_needs_grad(args) {
        // Most backward formulas are written for reals: a complex argument would get a wrong
        // gradient (no conjugates), so only ops whose formulas hold for complex tensors
        // (`OpDef::complex_grad`, views) are recorded with complex arguments or results.
        let complex_ok =
            crate::autograd::vjp::non_differentiable(op) || crate::rules::complex::grad_ok(op);
        if !complex_ok && crate::rules::complex::complex_dtype(args).is_some() {
            return Err(crate::Error::Tensor(rynamo_tensor::Error::NotImplemented(
                format!(
                    "the derivative for '{}' is not implemented for complex tensors",
                    op.py_name()
                ),
            )));
        }
        let out = crate::autograd::record::call_recorded(op, args, call_observed)?;
        // A real input reaching a complex result (`view_as_complex`, `polar`, a cast) would need
        // the complex formulas too.
        if !complex_ok && out.iter().any(|t| t.dtype().is_complex()) {
            return Err(crate::Error::Tensor(rynamo_tensor::Error::NotImplemented(
                format!(
                    "the derivative for '{}' is not implemented for complex tensors",
                    op.py_name()
                ),
            )));
        }
        return Ok(out);
    }
    let mut out = call_observed(op, args)?;
    crate::autograd::record::note_views(op, args, &mut out);
    Ok(out)
}

/// Layers 2 and 3 of [`call`]: the kernel, then every observer.
fn call_observed(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    let out = call_uncounted(op, args)?;
    OBSERVERS.with(|cur| {
        // Taken out while they run, so an observer that calls ops does not observe itself.
        let mut taken = std::mem::take(&mut *cur.borrow_mut());
        if taken.is_empty() {
            return;
        }
        for (_, f) in taken.iter_mut() {
            f(op, args, &out);
        }
        let mut now = cur.borrow_mut();
        // Observers added while these ran go after them.
        taken.append(&mut now);
        *now = taken;
    });
    Ok(out)
}

/// Runs an op eagerly without counting (graph executors count nodes in bulk).
///
/// The kernel runs under [`rynamo_tensor::unwind::catch`]: an allocation failure raised inside
/// it comes back as PyTorch's error, and a panic as a `RuntimeError` naming the op, so nothing
/// unwinds into the caller (issue 30).
pub fn call_uncounted(op: Op, args: &[IValue]) -> Result<Vec<Tensor>> {
    let out = rynamo_tensor::unwind::catch(
        || format!("the kernel of {op}"),
        || {
            rynamo_tensor::unwind::fault::check("kernel", op.name());
            crate::rules::complex::check(op, args)?;
            op.eager_kernel(args)
        },
    )?;
    #[cfg(debug_assertions)]
    check_against_meta(op, args, &out);
    Ok(out)
}

/// The meta rule: output metas for argument metas, touching no data.
///
/// Every output's element count is checked (PyTorch's `numel: integer multiplication overflow`),
/// so a traced shape never wraps around; a panic in a rule is an error naming the op.
pub fn meta(op: Op, args: &[MetaValue]) -> Result<Vec<TensorMeta>> {
    let metas = rynamo_tensor::unwind::catch(
        || format!("the meta rule of {op}"),
        || {
            crate::rules::complex::check(op, args)?;
            op.meta_rule(args)
        },
    )?;
    for m in &metas {
        rynamo_tensor::layout::checked_numel(&m.shape)?;
    }
    Ok(metas)
}

/// Binds Python-style arguments to `op`'s schema.
pub fn bind(op: Op, positional: Vec<IValue>, kwargs: Vec<(String, IValue)>) -> Result<Vec<IValue>> {
    op.schema().bind(positional, kwargs)
}

/// Picks the first overload of `py_name` whose schema binds the arguments (PyTorch's overload
/// resolution) and returns it with the bound arguments.
pub fn resolve(
    py_name: &str,
    positional: Vec<IValue>,
    kwargs: Vec<(String, IValue)>,
) -> Result<(Op, Vec<IValue>)> {
    let ops = Op::overloads(py_name);
    match ops {
        [] => Err(Error::UnknownOp(py_name.to_string())),
        [op] => Ok((*op, bind(*op, positional, kwargs)?)),
        _ => {
            for &op in ops {
                if let Ok(args) = bind(op, positional.clone(), kwargs.clone()) {
                    return Ok((op, args));
                }
            }
            let mut got: Vec<String> = positional
                .iter()
                .map(|v| v.type_name().to_string())
                .collect();
            got.extend(kwargs.iter().map(|(k, v)| format!("{k}={}", v.type_name())));
            let sigs: Vec<String> = ops
                .iter()
                .map(|op| {
                    let s = op.schema_src();
                    let inner = &s[s.find('(').unwrap_or(0)..s.rfind(" ->").unwrap_or(s.len())];
                    format!(" * {inner}")
                })
                .collect();
            Err(Error::Bind(format!(
                "{py_name}() received an invalid combination of arguments - got ({}), but expected one of:\n{}",
                got.join(", "),
                sigs.join("\n")
            )))
        }
    }
}

/// Debug builds check every eager result against the meta rule, so the two cannot drift apart.
#[cfg(debug_assertions)]
fn check_against_meta(op: Op, args: &[IValue], out: &[Tensor]) {
    let metas = match op.meta_rule_on_tensors(args) {
        Ok(m) => m,
        Err(Error::Tensor(rynamo_tensor::Error::DataDependent(_))) => return,
        Err(e) => panic!("meta rule of `{op}` rejected arguments its kernel accepted: {e}"),
    };
    assert_eq!(
        metas.len(),
        out.len(),
        "`{op}`: output count differs from meta"
    );
    for (m, t) in metas.iter().zip(out) {
        assert_eq!(
            (m.dtype, m.shape.as_slice()),
            (t.dtype(), t.shape()),
            "`{op}`: meta differs from eager"
        );
        // Strides of size-1 dims (and of empty tensors) carry no information; compare the rest.
        if t.numel() == 0 {
            continue;
        }
        for d in 0..m.shape.len() {
            if m.shape[d] > 1 {
                assert_eq!(
                    m.strides[d],
                    t.strides()[d],
                    "`{op}`: stride of dim {d} differs from meta"
                );
            }
        }
    }
}
