//! The backward engine (PyTorch's `Engine::execute`, single-threaded on the calling thread).
//!
//! 1. Discover the nodes reachable from the roots and count each node's incoming edges.
//! 2. With targets (`autograd.grad`, `backward(inputs=)`), mark the nodes that lead to one;
//!    only those run.
//! 3. Run nodes when every incoming gradient has arrived, latest-created first (a max-heap on
//!    the sequence number, as PyTorch), summing gradients per input slot. Each node's outputs are
//!    checked, summed to the argument's shape where broadcast and cast to its dtype
//!    (`validate_outputs`), then sent along its edges.
//! 4. Leaves accumulate into `.grad` ([`accumulate`]); targets capture their gradient instead.
//!
//! Grad mode during the pass is `create_graph`, so a recorded backward builds a graph of its
//! own. Without `retain_graph`, each node frees its saved tensors after running.

use std::collections::{BinaryHeap, HashMap, HashSet};
use std::sync::Arc;

use rynamo_tensor::{Tensor, TensorMeta};

use super::anomaly;
use super::emit::{Eager, Emit};
use super::leaf::{self, AccumulateGrad};
use super::mode::GradModeGuard;
use super::node::{Edge, Node};
use super::record::gradient_edge;
use crate::{Error, Op, Result, Value, registry};

/// Options of one backward pass.
#[derive(Clone, Copy, Debug)]
pub struct BackwardOptions {
    /// Keep saved tensors so the graph can be run again.
    pub retain_graph: bool,
    /// Record the backward pass itself (higher-order gradients).
    pub create_graph: bool,
}

fn runtime(msg: String) -> Error {
    Error::Tensor(rynamo_tensor::Error::Runtime(msg))
}

fn node_key(n: &Arc<Node>) -> usize {
    Arc::as_ptr(n) as usize
}

/// The root gradient for `out`: the given one, or ones for a one-element output.
fn root_grad(out: &Tensor, grad: Option<&Tensor>) -> Result<Tensor> {
    if let Some(g) = grad {
        if g.shape() != out.shape() {
            return Err(runtime(format!(
                "Mismatch in shape: grad_output[0] has a shape of {:?} and output[0] has a shape of {:?}.",
                g.shape(),
                out.shape()
            )));
        }
        return Ok(g.clone());
    }
    if out.numel() != 1 {
        return Err(runtime(
            "grad can be implicitly created only for scalar outputs".into(),
        ));
    }
    if !out.dtype().is_floating_point() {
        return Err(runtime(format!(
            "grad can be implicitly created only for real scalar outputs but got {}",
            out.dtype()
        )));
    }
    Ok(Tensor::ones(out.shape(), out.dtype()))
}

/// Root edges with their gradients; `what` names the argument in errors ("tensors",
/// "outputs").
fn roots(outputs: &[Tensor], grads: &[Option<Tensor>], what: &str) -> Result<Vec<(Edge, Tensor)>> {
    let mut r = Vec::with_capacity(outputs.len());
    for (i, out) in outputs.iter().enumerate() {
        let edge = if out.needs_grad() {
            gradient_edge(out)
        } else {
            None
        };
        let Some(edge) = edge else {
            return Err(runtime(format!(
                "element {i} of {what} does not require grad and does not have a grad_fn"
            )));
        };
        let g = root_grad(out, grads.get(i).and_then(Option::as_ref))?;
        r.push((edge, g));
    }
    Ok(r)
}

/// `tensor.backward()` / `torch.autograd.backward`: accumulates into the `.grad` of the leaves
/// (only of `inputs`, when given) and of tensors that `retain_grad()`.
pub fn backward(
    tensors: &[Tensor],
    grads: &[Option<Tensor>],
    inputs: Option<&[Tensor]>,
    opts: BackwardOptions,
) -> Result<()> {
    let roots = roots(tensors, grads, "tensors")?;
    let targets = match inputs {
        Some(ins) => {
            if ins.is_empty() {
                return Err(runtime(
                    "'inputs' argument to backward() cannot be empty.".into(),
                ));
            }
            Some(target_edges(ins)?)
        }
        None => None,
    };
    let captured = rynamo_tensor::unwind::catch(
        || "the autograd engine".to_string(),
        || execute(roots, targets.as_deref(), true, opts),
    )?;
    // Non-leaf inputs of backward(inputs=...) accumulate what reached them.
    if let (Some(ins), Some(tg)) = (inputs, targets) {
        for ((t, edge), g) in ins.iter().zip(&tg).zip(captured) {
            if let (Some(g), Some(e)) = (g, edge)
                && e.node.backward().accumulate_target().is_none()
                && let Some(meta) = t.autograd()
            {
                accumulate_into(meta, &t.meta(), g, opts.create_graph)?;
            }
        }
    }
    Ok(())
}

/// `torch.autograd.grad`: the gradients of `outputs` with respect to `inputs`, without touching
/// any `.grad`.
pub fn grad(
    outputs: &[Tensor],
    grad_outputs: &[Option<Tensor>],
    inputs: &[Tensor],
    opts: BackwardOptions,
    allow_unused: bool,
    materialize_grads: bool,
) -> Result<Vec<Option<Tensor>>> {
    let roots = roots(outputs, grad_outputs, "tensors")?;
    for (i, t) in inputs.iter().enumerate() {
        if !t.needs_grad() {
            return Err(runtime(format!(
                "One of the differentiated Tensors does not require grad (input {i})"
            )));
        }
    }
    let targets = target_edges(inputs)?;
    let captured = rynamo_tensor::unwind::catch(
        || "the autograd engine".to_string(),
        || execute(roots, Some(&targets), false, opts),
    )?;
    let mut out = Vec::with_capacity(inputs.len());
    for (i, (t, g)) in inputs.iter().zip(captured).enumerate() {
        match g {
            Some(g) => out.push(Some(g)),
            None if materialize_grads => out.push(Some(Tensor::zeros(t.shape(), t.dtype()))),
            None if allow_unused => out.push(None),
            None => {
                return Err(runtime(format!(
                    "The differentiated Tensor at index {i} appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior."
                )));
            }
        }
    }
    Ok(out)
}

fn target_edges(inputs: &[Tensor]) -> Result<Vec<Option<Edge>>> {
    Ok(inputs.iter().map(gradient_edge).collect())
}

struct NodeState {
    node: Arc<Node>,
    deps: usize,
    needed: bool,
    buffer: Vec<Option<Tensor>>,
}

/// Adds `g` into slot `i` of a node's input buffer.
fn add_to(buffer: &mut [Option<Tensor>], i: usize, g: Tensor) -> Result<()> {
    buffer[i] = Some(match buffer[i].take() {
        None => g,
        Some(prev) => Eager.add(&prev, &g)?,
    });
    Ok(())
}

/// Runs the graph from `roots`. With `targets`, only nodes leading to them run and the gradient
/// reaching each target edge is returned (in target order); `accumulate` says whether leaves'
/// accumulators run.
fn execute(
    roots: Vec<(Edge, Tensor)>,
    targets: Option<&[Option<Edge>]>,
    accumulate: bool,
    opts: BackwardOptions,
) -> Result<Vec<Option<Tensor>>> {
    let _mode = GradModeGuard::new(opts.create_graph);
    let retain = opts.retain_graph || opts.create_graph;
    let mut nodes: HashMap<usize, NodeState> = HashMap::new();
    // Discovery (iterative DFS), counting incoming edges.
    let mut stack: Vec<Arc<Node>> = Vec::new();
    let add_node =
        |n: &Arc<Node>, stack: &mut Vec<Arc<Node>>, nodes: &mut HashMap<usize, NodeState>| {
            let e = nodes.entry(node_key(n)).or_insert_with(|| {
                stack.push(n.clone());
                NodeState {
                    node: n.clone(),
                    deps: 0,
                    needed: targets.is_none(),
                    buffer: vec![None; n.num_inputs()],
                }
            });
            e.deps += 1;
        };
    for (e, _) in &roots {
        add_node(&e.node, &mut stack, &mut nodes);
    }
    let mut order: Vec<usize> = Vec::new();
    while let Some(n) = stack.pop() {
        order.push(node_key(&n));
        for e in n.next_edges().iter().flatten() {
            add_node(&e.node, &mut stack, &mut nodes);
        }
    }
    // Which nodes must run: with targets, those with an edge into a target or into a node that
    // must run (children have smaller sequence numbers, so one pass in seq order decides), and
    // under backward(inputs=) the accumulators of leaf targets.
    let mut captures: HashMap<(usize, u32), Vec<usize>> = HashMap::new();
    if let Some(tg) = targets {
        for (i, e) in tg.iter().enumerate() {
            if let Some(e) = e {
                captures
                    .entry((node_key(&e.node), e.input_nr))
                    .or_default()
                    .push(i);
            }
        }
        let capture_nodes: HashSet<usize> = captures.keys().map(|(n, _)| *n).collect();
        let mut by_seq: Vec<usize> = order.clone();
        by_seq.sort_by_key(|k| nodes[k].node.seq());
        for k in by_seq {
            let node = nodes[&k].node.clone();
            let own = accumulate
                && capture_nodes.contains(&k)
                && node.backward().accumulate_target().is_some();
            let leads = node.next_edges().iter().flatten().any(|e| {
                let c = node_key(&e.node);
                capture_nodes.contains(&c) || nodes.get(&c).is_some_and(|s| s.needed)
            });
            nodes.get_mut(&k).expect("invariant: discovered").needed = own || leads;
        }
    }
    let mut out: Vec<Option<Tensor>> = vec![None; targets.map_or(0, <[_]>::len)];
    let mut ready: BinaryHeap<(u64, usize)> = BinaryHeap::new();
    for (e, g) in roots {
        let k = node_key(&e.node);
        let s = nodes.get_mut(&k).expect("invariant: discovered");
        add_to(&mut s.buffer, e.input_nr as usize, g)?;
        s.deps -= 1;
        if s.deps == 0 {
            ready.push((s.node.seq(), k));
        }
    }
    while let Some((_, k)) = ready.pop() {
        let mut s = nodes
            .remove(&k)
            .expect("invariant: ready nodes are discovered");
        run_tensor_pre_hooks(&s.node, &mut s.buffer)?;
        for (slot, g) in s.buffer.iter().enumerate() {
            if let Some(idx) = captures.get(&(k, slot as u32)) {
                let g = match (g, s.node.backward().accumulate_target()) {
                    (Some(g), Some(acc)) => Some(run_leaf_hooks(acc, g.clone())?),
                    (g, _) => g.clone(),
                };
                for &i in idx {
                    out[i] = g.clone();
                }
            }
        }
        let grads_out = if !s.needed {
            vec![None; s.node.next_edges().len()]
        } else if let Some(acc) = s.node.backward().accumulate_target() {
            if accumulate && let Some(Some(g)) = s.buffer.into_iter().next() {
                accumulate_leaf(acc, g, opts.create_graph)?;
            }
            vec![]
        } else {
            let r = call_node(&s.node, s.buffer)?;
            if !retain {
                s.node.backward().release();
            }
            r
        };
        for (e, g) in s.node.next_edges().iter().zip(grads_out) {
            let Some(e) = e else { continue };
            let ck = node_key(&e.node);
            let Some(child) = nodes.get_mut(&ck) else {
                continue;
            };
            if let Some(g) = g {
                add_to(&mut child.buffer, e.input_nr as usize, g)?;
            }
            child.deps -= 1;
            if child.deps == 0 {
                ready.push((child.node.seq(), ck));
            }
        }
    }
    Ok(out)
}

fn run_tensor_pre_hooks(node: &Arc<Node>, buffer: &mut [Option<Tensor>]) -> Result<()> {
    let (hooks, retains) = {
        let h = node.lock_hooks();
        (h.tensor_pre.clone(), h.retains_grad.clone())
    };
    for (_, slot, hook) in hooks {
        if let Some(g) = &buffer[slot as usize]
            && let Some(new) = hook(g)?
        {
            buffer[slot as usize] = Some(new);
        }
    }
    for (slot, meta) in retains {
        if let (Some(g), Some(meta)) = (&buffer[slot as usize], meta.upgrade()) {
            let m = g.meta();
            accumulate_into(&meta, &m, g.clone(), super::mode::is_grad_enabled())?;
        }
    }
    Ok(())
}

/// Applies a node: pre-hooks, its backward, post-hooks, then PyTorch's output validation.
fn call_node(node: &Arc<Node>, mut grads: Vec<Option<Tensor>>) -> Result<Vec<Option<Tensor>>> {
    let (pre, post) = {
        let h = node.lock_hooks();
        (h.pre.clone(), h.post.clone())
    };
    for (_, hook) in &pre {
        if let Some(new) = hook(&grads)? {
            grads = new;
        }
    }
    // A panic in a backward formula or a compiled backward is an error naming the node, not an
    // unwind out of `backward()` (issue 30); raised allocation failures pass through as theirs.
    let applied = rynamo_tensor::unwind::catch(
        || format!("the backward of autograd node {}", node.name()),
        || {
            rynamo_tensor::unwind::fault::check("autograd", node.name());
            node.backward().apply(node, grads.clone())
        },
    );
    let mut out = match applied {
        Ok(o) => o,
        Err(e) => {
            if anomaly::is_enabled() {
                report_anomaly(node);
            }
            return Err(e);
        }
    };
    for (_, hook) in &post {
        if let Some(new) = hook(&out, &grads)? {
            out = new;
        }
    }
    validate(node, &mut out)?;
    Ok(out)
}

fn report_anomaly(node: &Arc<Node>) {
    let trace = node.forward_trace.clone().unwrap_or_else(|| {
        "No forward pass information available. Enable detect anomaly during forward pass for more information.".into()
    });
    anomaly::warn(&format!(
        "Error detected in {}. Traceback of forward call that caused the error:\n{trace}",
        node.name()
    ));
}

/// PyTorch's `validate_outputs`: one gradient per edge, reduced to the argument's shape when it
/// was broadcast, cast to the argument's dtype.
fn validate(node: &Arc<Node>, out: &mut [Option<Tensor>]) -> Result<()> {
    let name = node.name();
    let metas = node.input_metas();
    if out.len() != metas.len() {
        return Err(runtime(format!(
            "Function {name} returned an invalid number of gradients - expected {}, but got {}",
            metas.len(),
            out.len()
        )));
    }
    for (i, (g, m)) in out.iter_mut().zip(metas).enumerate() {
        let Some(t) = g.take() else { continue };
        let mut t = t;
        if t.shape() != m.shape.as_slice() {
            if !expandable_to(&m.shape, t.shape()) {
                return Err(runtime(format!(
                    "Function {name} returned an invalid gradient at index {i} - got {:?} but expected shape compatible with {:?}",
                    t.shape(),
                    m.shape
                )));
            }
            t = Eager.sum_to(&t, &m.shape)?;
        }
        // A complex gradient of a real input keeps its real part, a real one of a complex input
        // gets a zero imaginary part (PyTorch's `validate_outputs`).
        if t.dtype() != m.dtype && (m.dtype.is_floating_point() || m.dtype.is_complex()) {
            t = Eager.to_dtype(&t, m.dtype)?;
        }
        if anomaly::is_enabled() && anomaly::check_nan() && has_nan(&t)? {
            return Err(runtime(format!(
                "Function '{name}' returned nan values in its {i}th output."
            )));
        }
        *g = Some(t);
    }
    Ok(())
}

fn has_nan(t: &Tensor) -> Result<bool> {
    let _g = GradModeGuard::new(false);
    let n = registry::call(Op::IsNan, &[Value::Tensor(t.clone())])?;
    let any = registry::call(
        Op::Any,
        &[Value::Tensor(n[0].clone()), Value::None, Value::Bool(false)],
    )?;
    Ok(any[0].item()?.to_bool())
}

/// Whether `shape` broadcasts to `to` (so a gradient of shape `to` sums down to it).
fn expandable_to(shape: &[usize], to: &[usize]) -> bool {
    if shape.len() > to.len() {
        return false;
    }
    let lead = to.len() - shape.len();
    shape
        .iter()
        .zip(&to[lead..])
        .all(|(&s, &t)| s == t || s == 1)
}

fn run_leaf_hooks(acc: &AccumulateGrad, mut g: Tensor) -> Result<Tensor> {
    for h in leaf::leaf_hooks(acc.meta()) {
        if let Some(new) = h(&g)? {
            g = new;
        }
    }
    Ok(g)
}

/// AccumulateGrad: leaf hooks, then `.grad` updated, then post-accumulate hooks.
fn accumulate_leaf(acc: &AccumulateGrad, g: Tensor, create_graph: bool) -> Result<()> {
    let g = run_leaf_hooks(acc, g)?;
    accumulate_into(acc.meta(), acc.layout(), g, create_graph)?;
    for h in leaf::post_accumulate_hooks(acc.meta()) {
        let _no_grad = GradModeGuard::new(create_graph);
        h()?;
    }
    Ok(())
}

/// PyTorch's accumulation rules: a first gradient is stored (without history unless
/// `create_graph`, copied unless nothing else can see it), a later one is added in place, or
/// out of place under `create_graph`.
fn accumulate_into(
    meta: &Arc<rynamo_tensor::AutogradMeta>,
    layout: &TensorMeta,
    g: Tensor,
    create_graph: bool,
) -> Result<()> {
    let prev = meta.lock().grad.clone();
    let new = match prev {
        None if create_graph => g,
        None => {
            // PyTorch's gradient layout contract: `.grad` of a dense leaf has the leaf's strides.
            let unique = Arc::strong_count(g.storage()) == 1;
            let obeys = rynamo_tensor::memory_format::obeys_layout_contract(
                (g.shape(), g.strides()),
                (&layout.shape, &layout.strides),
            );
            if unique && obeys && g.autograd().is_none() {
                g
            } else {
                g.clone_obeying(layout)
            }
        }
        Some(prev) if !create_graph && !prev.needs_grad() => {
            let _no_grad = GradModeGuard::new(false);
            registry::call(
                Op::Add_,
                &[
                    Value::Tensor(prev.clone()),
                    Value::Tensor(g),
                    Value::Scalar(rynamo_tensor::Scalar::Int(1)),
                ],
            )?;
            prev
        }
        Some(prev) => Eager.add(&prev, &g)?,
    };
    meta.lock().grad = Some(new);
    Ok(())
}
