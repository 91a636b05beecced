//! CPU autocast while tracing (Dynamo's `AutocastModeVariable`, reduced to what the trace needs).
//!
//! An op traced while autocast is on gets PyTorch's casts as explicit `to` nodes before it, planned
//! by the same policy as eager calls (`rynamo_shims::autocast::plan`), so the graph computes in the
//! dtypes eager autocast would and every backend runs it unchanged (PyTorch's AOT graphs hold
//! the same `_to_copy` nodes).
//!
//! **Invariant:** the autocast state the trace reads is the thread's real state, which is the
//! state eager execution would have at that point: the state at frame entry is guarded
//! (`GLOBAL_STATE`, `guards.rs`), the getters (`torch.is_autocast_enabled`, ...) are trace-time
//! calls of that state, and the setters (`autocast.__enter__`/`__exit__`, the policy decorator
//! of Python-written ops) are native calls the tracer does not handle, so they break the graph
//! and run in Python before tracing resumes.

use rynamo_graph::{Arg, Op, Value, ValueId};

use super::exc::{GraphBreak, GraphBreakKind};
use super::output_graph::{FxTarget, OutputGraph};
use super::symbolic_convert::Tracer;

impl Tracer<'_> {
    /// The bound arguments of `op` with autocast's casts applied as graph nodes.
    pub(crate) fn autocast_args(
        &mut self,
        op: Op,
        mut bound: Vec<Arg>,
        requires_grad: bool,
    ) -> Result<Vec<Arg>, GraphBreak> {
        let graph = &self.out.graph;
        let plan = rynamo_shims::autocast::plan(op, &bound, |v| graph.meta(*v).dtype)
            .map_err(|e| GraphBreak::new(GraphBreakKind::UnsupportedCall, e))?;
        let Some(to) = plan else {
            return Ok(bound);
        };
        for v in &mut bound {
            *v = v.try_map(|id| self.autocast_cast(*id, to, requires_grad))?;
        }
        Ok(bound)
    }

    /// `x.to(to)` as a graph node when autocast casts `x`, else `x`.
    fn autocast_cast(
        &mut self,
        x: ValueId,
        to: rynamo_tensor::DType,
        requires_grad: bool,
    ) -> Result<ValueId, GraphBreak> {
        if !rynamo_shims::autocast::casts(self.out.graph.meta(x).dtype, to) {
            return Ok(x);
        }
        let outs = self.out.call_op(
            Op::To,
            vec![Value::Tensor(x), Value::DType(to), Value::Bool(false)],
            FxTarget::Method("to".into()),
            requires_grad,
        )?;
        Ok(outs
            .first()
            .and_then(|o| o.as_tensor())
            .map(|t| t.value)
            .expect("invariant: to returns one tensor"))
    }
}

/// The autocast state around one trace. The state setters (`autocast.__enter__`/`__exit__`) run
/// for real while tracing (`torch._autocast_state` marks them `_rynamo_call_at_trace_time`), so
/// the ops of a region see its state and the region is captured in the same graph, as
/// PyTorch's Dynamo does; this puts the thread's state back when the trace ends, however it ends.
/// A trace that leaves the state changed (it stopped at a graph break inside a region, or it is
/// a resume function that leaves one) records the state it left in
/// [`OutputGraph::autocast_after`], and the compiled code sets it after the graph
/// (`Replay::SetAutocast`), as PyTorch's resume functions re-enter and leave the region.
pub(crate) struct TraceScope {
    entry: rynamo_shims::autocast::State,
}

impl TraceScope {
    /// Records the state at the start of a trace.
    pub(crate) fn enter() -> Self {
        TraceScope {
            entry: rynamo_shims::autocast::state(),
        }
    }

    /// Restores the state, recording in `out` the state the trace left when it changed.
    pub(crate) fn finish<T>(
        self,
        out: &mut OutputGraph,
        r: Result<T, GraphBreak>,
    ) -> Result<T, GraphBreak> {
        let end = rynamo_shims::autocast::state();
        let changed = end.enabled != self.entry.enabled
            || end.dtype != self.entry.dtype
            || end.cache_enabled != self.entry.cache_enabled
            || end.nesting != self.entry.nesting;
        drop(self);
        out.autocast_after = changed.then_some(end);
        r
    }
}

/// Sets the thread's autocast state after a graph (`Replay::SetAutocast`); leaving the outermost
/// region drops the cached casts, as `autocast.__exit__` does.
pub(crate) fn set_state(s: &rynamo_shims::autocast::State) {
    rynamo_shims::autocast::update(|t| *t = s.clone());
    if s.nesting == 0 {
        rynamo_shims::autocast::clear_cache();
    }
}

/// Whether `v` is an autocast manager's bound `__exit__` (a `torch.autocast` region Dynamo can
/// resume in: the state it entered is set again after the graph, `Replay::SetAutocast`).
pub(crate) fn is_autocast_exit(v: &super::variables::Vt) -> bool {
    use super::variables::Kind;
    // `LOAD_SPECIAL __exit__` of a manager with Python methods pushes the bound method; the
    // block's position on the stack says it is the `__exit__` one.
    let Kind::BoundMethod(_, recv) = &v.kind else {
        return false;
    };
    let Kind::Object(o) = &recv.kind else {
        return false;
    };
    o.class()
        .mro_map_collect(|c| &*c.name() == "autocast")
        .contains(&true)
}

impl Drop for TraceScope {
    fn drop(&mut self) {
        let entry = self.entry.clone();
        rynamo_shims::autocast::update(|s| *s = entry);
    }
}
