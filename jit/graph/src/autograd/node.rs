//! Backward nodes and the edges between them (PyTorch's `torch::autograd::Node` and `Edge`).
//!
//! A node is made when a differentiable op runs with grad mode on and an input that needs grad.
//! Its inputs at backward time are the gradients of the forward op's outputs; its outputs are
//! the gradients of the forward op's tensor arguments, sent along `next` edges to the nodes
//! that produced those arguments (or to a leaf's [`super::leaf::AccumulateGrad`]).
//!
//! **Invariant:** edges point from later nodes to earlier ones (a node's `seq` is larger than
//! every node it reaches), so the graph is acyclic and tensors hold nodes, never the reverse:
//! a saved output is stored without its `grad_fn` (see [`super::saved`]).

use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rynamo_tensor::{Tensor, TensorMeta};

use crate::Result;

/// Where a gradient goes: input `input_nr` of `node` (the forward op's output `input_nr`).
#[derive(Clone)]
pub struct Edge {
    /// The node that receives the gradient.
    pub node: Arc<Node>,
    /// Which of its inputs (its forward op's outputs).
    pub input_nr: u32,
}

impl std::fmt::Debug for Edge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {})", self.node.name(), self.input_nr)
    }
}

/// A hook on a tensor's gradient (`Tensor.register_hook`): may return a replacement.
pub type TensorHook = Arc<dyn Fn(&Tensor) -> Result<Option<Tensor>> + Send + Sync>;
/// A node pre-hook (`Node.register_prehook`): sees the incoming grads, may replace them.
pub type PreHook =
    Arc<dyn Fn(&[Option<Tensor>]) -> Result<Option<Vec<Option<Tensor>>>> + Send + Sync>;
/// A node post-hook (`Node.register_hook`): sees (grad_inputs, grad_outputs), may replace
/// grad_inputs.
pub type PostHook = Arc<
    dyn Fn(&[Option<Tensor>], &[Option<Tensor>]) -> Result<Option<Vec<Option<Tensor>>>>
        + Send
        + Sync,
>;

/// What a node does at backward time.
pub trait Backward: Send + Sync {
    /// The gradients of the forward op's tensor arguments (one per `next` edge, `None` where no
    /// gradient flows), given the gradients of its outputs (`None`: zero).
    fn apply(&self, node: &Arc<Node>, grads: Vec<Option<Tensor>>) -> Result<Vec<Option<Tensor>>>;
    /// Frees saved tensors (after a backward pass without `retain_graph`).
    fn release(&self) {}
    /// The leaf a gradient accumulator writes to, if this is one.
    fn accumulate_target(&self) -> Option<&super::leaf::AccumulateGrad> {
        None
    }
}

static SEQUENCE: AtomicU64 = AtomicU64::new(0);

/// Hooks registered on a node, each under an id for removal.
#[derive(Default)]
pub(crate) struct NodeHooks {
    pub(crate) tensor_pre: Vec<(u64, u32, TensorHook)>,
    pub(crate) retains_grad: Vec<(u32, std::sync::Weak<rynamo_tensor::AutogradMeta>)>,
    pub(crate) pre: Vec<(u64, PreHook)>,
    pub(crate) post: Vec<(u64, PostHook)>,
}

/// A node of the backward graph.
pub struct Node {
    name: Cow<'static, str>,
    seq: u64,
    next: Vec<Option<Edge>>,
    input_metas: Vec<TensorMeta>,
    output_metas: Vec<TensorMeta>,
    backward: Box<dyn Backward>,
    pub(crate) hooks: Mutex<NodeHooks>,
    /// The forward call's user stack, recorded under anomaly mode.
    pub(crate) forward_trace: Option<String>,
}

/// What a node's `backward` becomes while it is being dropped (a placeholder; never applied).
struct Dropped;

impl Backward for Dropped {
    fn apply(&self, _: &Arc<Node>, _: Vec<Option<Tensor>>) -> Result<Vec<Option<Tensor>>> {
        Err(crate::Error::Graph(
            "a dropped autograd node was applied".into(),
        ))
    }
}

/// What a dropped node still owns: its edges, its backward (saved tensors, whose `grad_fn`s are
/// earlier nodes) and its hooks.
type NodeParts = (Vec<Option<Edge>>, Box<dyn Backward>, NodeHooks);

thread_local! {
    /// Whether a node drop is running on this thread (then nested drops are queued).
    static DROPPING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Parts of nodes dropped inside another node's drop, freed by the outermost one.
    static PENDING: std::cell::RefCell<Vec<NodeParts>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Dropping a node drops the nodes only it reaches, and they theirs: recursively, a history of
/// 20,000 ops overflowed the stack when its last tensor went away (issue 30). As PyTorch's
/// `deleteNode`, the drop is iterative: a node dropped while another is being dropped hands its
/// parts to the outermost drop, which frees them one after another.
impl Drop for Node {
    fn drop(&mut self) {
        let parts: NodeParts = (
            std::mem::take(&mut self.next),
            std::mem::replace(&mut self.backward, Box::new(Dropped)),
            std::mem::take(&mut *self.hooks.get_mut().unwrap_or_else(|e| e.into_inner())),
        );
        let nested = DROPPING.try_with(|d| d.replace(true)).unwrap_or(false);
        if nested {
            // Once thread-local storage is gone (thread exit), `parts` drops in place with the
            // closure that could not run.
            let _ = PENDING.try_with(|p| p.borrow_mut().push(parts));
            return;
        }
        drop(parts);
        while let Some(p) = PENDING.try_with(|p| p.borrow_mut().pop()).ok().flatten() {
            drop(p);
        }
        let _ = DROPPING.try_with(|d| d.set(false));
    }
}

static HOOK_IDS: AtomicU64 = AtomicU64::new(1);

/// A fresh id for a hook handle.
pub(crate) fn next_hook_id() -> u64 {
    HOOK_IDS.fetch_add(1, Ordering::Relaxed)
}

impl Node {
    /// A node named `name` (PyTorch's class name: `MulBackward0`). `next` and `input_metas`
    /// have one entry per tensor argument of the forward op; `output_metas` one per output.
    pub fn new(
        name: impl Into<Cow<'static, str>>,
        next: Vec<Option<Edge>>,
        input_metas: Vec<TensorMeta>,
        output_metas: Vec<TensorMeta>,
        backward: Box<dyn Backward>,
    ) -> Arc<Node> {
        Arc::new(Node {
            name: name.into(),
            seq: SEQUENCE.fetch_add(1, Ordering::Relaxed),
            next,
            input_metas,
            output_metas,
            backward,
            hooks: Mutex::new(NodeHooks::default()),
            forward_trace: super::anomaly::forward_trace(),
        })
    }

    /// What PyTorch's `Node.name()` returns: the class name (`MulBackward0`), or the C++ name
    /// of nodes written in C++ there (`torch::autograd::AccumulateGrad`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The Python class name (`AccumulateGrad`, `MulBackward0`): reprs show it.
    pub fn class_name(&self) -> &str {
        self.name
            .strip_prefix("torch::autograd::")
            .unwrap_or(&self.name)
    }

    /// Creation order: the engine runs later nodes first.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// `next_functions`: one edge per tensor argument of the forward op.
    pub fn next_edges(&self) -> &[Option<Edge>] {
        &self.next
    }

    /// Shape and dtype of each forward tensor argument (the engine reduces and casts gradients
    /// to them).
    pub fn input_metas(&self) -> &[TensorMeta] {
        &self.input_metas
    }

    /// Metas of the forward op's outputs (one gradient input each).
    pub fn output_metas(&self) -> &[TensorMeta] {
        &self.output_metas
    }

    /// How many gradients this node receives.
    pub fn num_inputs(&self) -> usize {
        self.output_metas.len()
    }

    /// The behaviour.
    pub fn backward(&self) -> &dyn Backward {
        &*self.backward
    }

    pub(crate) fn lock_hooks(&self) -> std::sync::MutexGuard<'_, NodeHooks> {
        self.hooks.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a hook on the gradient of output `output_nr` (`Tensor.register_hook` on a
    /// non-leaf); returns its id.
    pub fn add_tensor_pre_hook(&self, output_nr: u32, hook: TensorHook) -> u64 {
        let id = next_hook_id();
        self.lock_hooks().tensor_pre.push((id, output_nr, hook));
        id
    }

    /// `Node.register_prehook`; returns its id.
    pub fn add_pre_hook(&self, hook: PreHook) -> u64 {
        let id = next_hook_id();
        self.lock_hooks().pre.push((id, hook));
        id
    }

    /// `Node.register_hook`; returns its id.
    pub fn add_post_hook(&self, hook: PostHook) -> u64 {
        let id = next_hook_id();
        self.lock_hooks().post.push((id, hook));
        id
    }

    /// Removes the hook with this id (any kind); whether it was there.
    pub fn remove_hook(&self, id: u64) -> bool {
        let mut h = self.lock_hooks();
        let before = h.tensor_pre.len() + h.pre.len() + h.post.len();
        h.tensor_pre.retain(|(i, _, _)| *i != id);
        h.pre.retain(|(i, _)| *i != id);
        h.post.retain(|(i, _)| *i != id);
        before != h.tensor_pre.len() + h.pre.len() + h.post.len()
    }

    /// Makes the engine store output `output_nr`'s gradient in `meta.grad` (`retain_grad()`).
    pub(crate) fn retain_grad(&self, output_nr: u32, meta: &Arc<rynamo_tensor::AutogradMeta>) {
        let mut h = self.lock_hooks();
        if !h
            .retains_grad
            .iter()
            .any(|(n, m)| *n == output_nr && m.as_ptr() == Arc::as_ptr(meta))
        {
            h.retains_grad.push((output_nr, Arc::downgrade(meta)));
        }
    }
}

impl std::fmt::Debug for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<{}>", self.name)
    }
}

/// The node behind a tensor's opaque `grad_fn` handle.
pub fn grad_fn_of(t: &Tensor) -> Option<(Arc<Node>, u32)> {
    let meta = t.autograd()?;
    let s = meta.lock();
    let (f, nr) = s.grad_fn.as_ref()?;
    Some((f.clone().downcast::<Node>().ok()?, *nr))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Holds an earlier node the way a saved tensor holds its `grad_fn`.
    struct Holds(#[allow(dead_code)] Arc<Node>);

    impl Backward for Holds {
        fn apply(&self, _: &Arc<Node>, g: Vec<Option<Tensor>>) -> Result<Vec<Option<Tensor>>> {
            Ok(g)
        }
    }

    /// A history of a million nodes (alternately linked by edges and by what a backward holds)
    /// is freed on a 256 KiB stack: the drop is iterative, not one frame per node.
    #[test]
    fn a_million_node_history_drops_on_a_small_stack() {
        let dropper = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(|| {
                let mut last = Node::new("Leaf", vec![], vec![], vec![], Box::new(Dropped));
                for i in 0..1_000_000u32 {
                    last = if i % 2 == 0 {
                        let edge = Edge {
                            node: last,
                            input_nr: 0,
                        };
                        Node::new(
                            "MulBackward0",
                            vec![Some(edge)],
                            vec![],
                            vec![],
                            Box::new(Dropped),
                        )
                    } else {
                        Node::new(
                            "SinBackward0",
                            vec![],
                            vec![],
                            vec![],
                            Box::new(Holds(last)),
                        )
                    };
                }
                drop(last);
                PENDING.with(|p| p.borrow().len())
            })
            .unwrap();
        assert_eq!(dropper.join().unwrap(), 0);
    }
}
