//! Functionalization of graph inputs (what AOTAutograd does before handing a graph to a
//! compiler): an in-place op on a graph input becomes its out-of-place op, later reads read the
//! new value, and a `copy_(input, final value)` write-back at the end of the graph puts the
//! result where the caller sees it. Graph outputs naming the input return the write-back's
//! output, which is the input tensor itself, so aliasing is as eager's.
//!
//! The rewritten graph is pure up to its trailing write-backs, so a backend that computes into
//! fresh buffers (a plugin) can run everything before them: an optimizer's `p.add_(g, alpha=-lr)`
//! becomes `add` on the plugin and one `copy_` on the host. It assumes the inputs do not alias
//! each other; a backend must check that at run time ([`write_backs`] names the written inputs)
//! and run the original graph when they do.
//!
//! Inputs read by an op that may return an alias (a view, `contiguous`, ...) keep their in-place
//! nodes, as in [`crate::functionalize`]; so do writes whose out-of-place form would change the
//! tensor's dtype or layout.

use rynamo_graph::{Graph, Op, OpFlags, Value, ValueId};

use crate::PassCx;
use crate::functionalize::{chain, rewrite};

/// The pass. Run it after [`crate::functionalize`].
pub fn functionalize_inputs(g: &mut Graph, _cx: &PassCx) {
    let inputs: Vec<ValueId> = g.inputs().to_vec();
    for root in inputs {
        let written = g.nodes().iter().any(|n| {
            n.op.flags().contains(OpFlags::INPLACE)
                && matches!(n.args.first(), Some(Value::Tensor(v)) if *v == root)
        });
        // Already written back: the pass ran before.
        if !written || writes_back(g, root) {
            continue;
        }
        let Some((writes, names)) = chain(g, 0, root) else {
            continue;
        };
        if writes.is_empty() {
            continue;
        }
        let Some(last) = rewrite(g, 0, &writes, &names) else {
            continue;
        };
        let meta = g.value(root).meta.clone();
        let name = fresh_name(g, &format!("{}_written", g.value(root).name));
        let out = g.add_value(name, meta);
        g.push_node(
            Op::Copy_,
            vec![Value::Tensor(root), Value::Tensor(last)],
            vec![out],
        );
        let outs = g
            .outputs()
            .iter()
            .map(|&o| if o == last { out } else { o })
            .collect();
        g.set_outputs(outs);
    }
}

/// Whether `g` already writes `input` back (in its trailing write-backs: a user's own
/// `x.copy_(y)` in the middle of the graph is an in-place op like any other, which later reads
/// must see).
fn writes_back(g: &Graph, input: ValueId) -> bool {
    let nodes = g.nodes();
    nodes[nodes.len() - trailing_write_backs(g)..]
        .iter()
        .any(|n| n.args.first() == Some(&Value::Tensor(input)))
}

/// Whether `n` has the form of a write-back: `copy_(graph input, value)`. Only those in the
/// graph's trailing run ([`trailing_write_backs`]) are write-backs.
pub fn is_write_back(g: &Graph, n: &rynamo_graph::Node) -> bool {
    n.op == Op::Copy_ && matches!(n.args.first(), Some(Value::Tensor(v)) if g.inputs().contains(v))
}

/// How many nodes at the end of `g` are write-backs: the graph's trailing run of
/// `copy_(graph input, value)` nodes, which run after everything before them.
pub fn trailing_write_backs(g: &Graph) -> usize {
    g.nodes()
        .iter()
        .rev()
        .take_while(|n| is_write_back(g, n))
        .count()
}

/// The inputs the graph's trailing write-backs write, when every mutating node of `g` is one of
/// them (so everything before them is pure); `None` when some other node mutates.
pub fn write_backs(g: &Graph) -> Option<Vec<ValueId>> {
    let nodes = g.nodes();
    let tail = trailing_write_backs(g);
    let body = &nodes[..nodes.len() - tail];
    let mutates = |n: &&rynamo_graph::Node| {
        let f = n.op.flags();
        f.contains(OpFlags::INPLACE) || f.contains(OpFlags::MUTATES_ARGS)
    };
    if body.iter().any(|n| mutates(&n)) {
        return None;
    }
    Some(
        nodes[nodes.len() - tail..]
            .iter()
            .filter_map(|n| match n.args.first() {
                Some(Value::Tensor(v)) => Some(*v),
                _ => None,
            })
            .collect(),
    )
}

/// `base`, or `base_1`, `base_2`, ... the first name no value of `g` has.
fn fresh_name(g: &Graph, base: &str) -> String {
    let taken = |n: &str| g.values().iter().any(|v| v.name == n);
    if !taken(base) {
        return base.to_string();
    }
    (1..)
        .map(|i| format!("{base}_{i}"))
        .find(|n| !taken(n))
        .expect("invariant: some suffix is free")
}
