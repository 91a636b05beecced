//! Constant folding: a pointwise node whose tensor operands are all constant-filled creations
//! (`Op::fill_value`, `empty`s excepted) is evaluated once, here, with its eager kernel on one
//! element, and becomes a `full` of the result (which kernels then inline as a constant).

use std::collections::HashMap;

use rynamo_graph::{Graph, IValue, Lowering, Op, Value, ValueId, registry};
use rynamo_tensor::{Scalar, Tensor};

use crate::PassCx;

/// The fill of a constant creation op; `empty`s are left alone (their contents are unspecified,
/// so a value computed from them is not a constant).
fn const_value(op: Op, args: &[rynamo_graph::Arg]) -> Option<Scalar> {
    if matches!(op, Op::Empty | Op::EmptyLike | Op::NewEmpty) {
        return None;
    }
    op.fill_value(args)
}

/// The pass.
pub fn fold_constants(g: &mut Graph, _cx: &PassCx) {
    let mut consts: HashMap<ValueId, Tensor> = HashMap::new();
    for i in 0..g.nodes().len() {
        let n = g.nodes()[i].clone();
        // An op with no outputs (a multi-tensor optimizer update) folds into nothing.
        let Some(&out) = n.outputs.first() else {
            continue;
        };
        let meta = g.value(out).meta.clone();
        if let Some(s) = const_value(n.op, &n.args) {
            consts.insert(out, Tensor::from_scalar(s, meta.dtype));
            continue;
        }
        let tensors: Vec<ValueId> = n.inputs().collect();
        if n.op.lowering() != Lowering::Pointwise
            || n.op.flags().is_impure()
            || tensors.is_empty()
            || n.outputs.len() != 1
            || !tensors.iter().all(|v| consts.contains_key(v))
        {
            continue;
        }
        let args: Option<Vec<IValue>> = n
            .args
            .iter()
            .map(|a| a.try_map(|v| consts.get(v).cloned().ok_or(())).ok())
            .collect();
        let Some(Ok(r)) = args.map(|a| registry::call_uncounted(n.op, &a)) else {
            continue;
        };
        let Some(Ok(s)) = r.first().map(Tensor::item) else {
            continue;
        };
        if r[0].dtype() != meta.dtype {
            continue;
        }
        consts.insert(out, r[0].clone());
        let size = meta.shape.iter().map(|&d| d as i64).collect();
        let node = &mut g.nodes_mut()[i];
        node.op = Op::Full;
        node.args = vec![
            Value::IntList(size),
            Value::Scalar(s),
            Value::DType(meta.dtype),
        ];
    }
}
