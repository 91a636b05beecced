//! Leaves: the gradient accumulator of a tensor that requires grad (PyTorch's
//! `AccumulateGrad`), and the per-leaf hooks it runs.
//!
//! A leaf owns at most one live accumulator (a weak reference in its metadata), so every use of
//! the leaf in one graph sends its gradient to the same node, where the engine sums them before
//! `.grad` is written once.

use std::sync::{Arc, Weak};

use rynamo_tensor::{AutogradMeta, Tensor, TensorMeta};

use super::node::{Backward, Node, TensorHook, next_hook_id};
use crate::Result;

/// A hook run after `.grad` is updated (`register_post_accumulate_grad_hook`).
pub type PostAccumulateHook = Arc<dyn Fn() -> Result<()> + Send + Sync>;

/// Engine data stored in a leaf's [`AutogradMeta`] (its `extra` slot).
#[derive(Default)]
pub(crate) struct LeafExtra {
    accumulator: Option<Weak<Node>>,
    pub(crate) hooks: Vec<(u64, TensorHook)>,
    pub(crate) post_accumulate: Vec<(u64, PostAccumulateHook)>,
}

fn with_extra<R>(meta: &AutogradMeta, f: impl FnOnce(&mut LeafExtra) -> R) -> R {
    let mut s = meta.lock();
    let extra = s
        .extra
        .get_or_insert_with(|| Box::new(LeafExtra::default()));
    let e = extra
        .downcast_mut::<LeafExtra>()
        .expect("invariant: only the engine writes the extra slot");
    f(e)
}

/// The gradient sink of one leaf.
pub struct AccumulateGrad {
    meta: Arc<AutogradMeta>,
    layout: TensorMeta,
}

impl AccumulateGrad {
    /// The leaf's metadata (its `.grad` lives there).
    pub fn meta(&self) -> &Arc<AutogradMeta> {
        &self.meta
    }

    /// The leaf's dtype, shape and strides (a new `.grad` follows its layout).
    pub fn layout(&self) -> &TensorMeta {
        &self.layout
    }
}

impl Backward for AccumulateGrad {
    fn apply(&self, _node: &Arc<Node>, _grads: Vec<Option<Tensor>>) -> Result<Vec<Option<Tensor>>> {
        // The engine accumulates (it knows create_graph); reaching here is a bug.
        Err(crate::Error::Graph(
            "internal: AccumulateGrad is run by the engine".into(),
        ))
    }

    fn accumulate_target(&self) -> Option<&AccumulateGrad> {
        Some(self)
    }
}

/// The accumulator node of leaf `t` (made on first use; shared while any graph holds it).
pub(crate) fn accumulator(t: &Tensor) -> Arc<Node> {
    let meta = t
        .autograd()
        .expect("invariant: a leaf requiring grad has metadata");
    if let Some(n) = with_extra(meta, |e| e.accumulator.as_ref().and_then(Weak::upgrade)) {
        return n;
    }
    let node = Node::new(
        "torch::autograd::AccumulateGrad",
        vec![],
        vec![],
        vec![t.meta()],
        Box::new(AccumulateGrad {
            meta: meta.clone(),
            layout: t.meta(),
        }),
    );
    with_extra(meta, |e| e.accumulator = Some(Arc::downgrade(&node)));
    node
}

/// `Tensor.register_hook` on a leaf: runs on the gradient before it is accumulated (and on
/// gradients `autograd.grad` returns for it).
pub fn add_leaf_hook(meta: &AutogradMeta, hook: TensorHook) -> u64 {
    let id = next_hook_id();
    with_extra(meta, |e| e.hooks.push((id, hook)));
    id
}

/// `Tensor.register_post_accumulate_grad_hook`.
pub fn add_post_accumulate_hook(meta: &AutogradMeta, hook: PostAccumulateHook) -> u64 {
    let id = next_hook_id();
    with_extra(meta, |e| e.post_accumulate.push((id, hook)));
    id
}

/// Removes a leaf hook by id; whether it was there.
pub fn remove_leaf_hook(meta: &AutogradMeta, id: u64) -> bool {
    with_extra(meta, |e| {
        let n = e.hooks.len() + e.post_accumulate.len();
        e.hooks.retain(|(i, _)| *i != id);
        e.post_accumulate.retain(|(i, _)| *i != id);
        n != e.hooks.len() + e.post_accumulate.len()
    })
}

pub(crate) fn leaf_hooks(meta: &AutogradMeta) -> Vec<TensorHook> {
    with_extra(meta, |e| e.hooks.iter().map(|(_, h)| h.clone()).collect())
}

pub(crate) fn post_accumulate_hooks(meta: &AutogradMeta) -> Vec<PostAccumulateHook> {
    with_extra(meta, |e| {
        e.post_accumulate.iter().map(|(_, h)| h.clone()).collect()
    })
}
