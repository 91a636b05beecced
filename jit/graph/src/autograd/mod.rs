//! Reverse-mode automatic differentiation (PyTorch's eager autograd), with no Python in the
//! loop.
//!
//! ```text
//!   registry::call ─ grad mode on and an argument needs grad? ── record.rs: run the op, make a
//!                                                                 Node (vjp rule + saved tensors),
//!                                                                 set the outputs' grad_fn
//!   Tensor.backward / autograd.grad ── engine.rs: discover, order by sequence number, run each
//!                                      node's rule, reduce/cast (validate), accumulate into .grad
//! ```
//!
//! - `mode.rs`: grad mode and inference mode (thread-local).
//! - `node.rs`: [`Node`], [`Edge`], the [`Backward`] trait and hooks; `leaf.rs`: gradient
//!   accumulators; `saved.rs`: saved tensors with version checks.
//! - `vjp/`: the backward formulas, written once against [`Emit`] (`emit.rs`) so they run on
//!   real tensors or build graph nodes.
//! - `copy_slices.rs`: in-place writes through views; `anomaly.rs`: anomaly mode.
//!
//! The metadata itself (`requires_grad`, `grad`, `grad_fn`, version counter) lives on the
//! runtime tensor (`rynamo_tensor::autograd_meta`).

pub mod anomaly;
mod copy_slices;
pub mod emit;
pub mod engine;
pub mod joint;
pub mod leaf;
pub mod mode;
pub mod node;
pub mod partition;
pub(crate) mod record;
pub mod saved;
pub mod vjp;

use std::sync::Arc;

use rynamo_tensor::Tensor;

pub use emit::{Eager, Emit};
pub use engine::{BackwardOptions, backward, grad};
pub use mode::{GradModeGuard, NoGradGuard, is_grad_enabled, set_grad_enabled};
pub use node::{Backward, Edge, Node, grad_fn_of};

/// Where the gradient of `t` goes (its `grad_fn` output or its leaf accumulator); `None` when
/// no gradient flows into it.
pub fn gradient_edge(t: &Tensor) -> Option<Edge> {
    record::gradient_edge(t)
}

/// Makes `node` the `grad_fn` of `t` (output `output_nr`): custom `autograd.Function`s and
/// compiled graphs attach their nodes this way. `t` must not share its identity with a tensor
/// whose history must be kept.
pub fn set_grad_fn(t: &mut Tensor, node: &Arc<Node>, output_nr: u32) {
    let handle: rynamo_tensor::autograd_meta::GradFn = node.clone();
    t.ensure_autograd()
        .update(|s| s.grad_fn = Some((handle, output_nr)));
}

/// `retain_grad()` on a non-leaf: its gradient is stored in `.grad` during backward.
pub fn retain_grad(t: &Tensor) -> crate::Result<()> {
    if let Some((node, nr)) = grad_fn_of(t)
        && let Some(meta) = t.autograd()
    {
        node.retain_grad(nr, meta);
        meta.update(|s| s.retains_grad = true);
    }
    Ok(())
}
