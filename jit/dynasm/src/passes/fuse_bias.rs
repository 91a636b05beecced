//! `add(matmul(a, b), bias)` becomes `addmm(bias, a, b)`: the GEMM accumulates onto the bias,
//! so the bias costs no extra pass over the output (the runtime's GEMM epilogue).

use rynamo_graph::{Graph, Op, Value, ValueId, registry};
use rynamo_passes::PassCx;
use rynamo_tensor::Scalar;

fn uses(g: &Graph, v: ValueId) -> usize {
    let n: usize = g
        .nodes()
        .iter()
        .map(|n| n.inputs().filter(|&u| u == v).count())
        .sum();
    n + g.outputs().iter().filter(|&&o| o == v).count()
}

/// The pass.
pub fn fuse_bias(g: &mut Graph, _cx: &PassCx) {
    for i in 0..g.nodes().len() {
        let n = &g.nodes()[i];
        if n.op != Op::Add || n.args.get(2) != Some(&Value::Scalar(Scalar::Int(1))) {
            continue;
        }
        let (Value::Tensor(x), Value::Tensor(y)) = (&n.args[0], &n.args[1]) else {
            continue;
        };
        let out_meta = g.value(n.outputs[0]).meta.clone();
        for (mm, bias) in [(*x, *y), (*y, *x)] {
            let Some(p) = g
                .nodes()
                .iter()
                .position(|m| m.outputs.first() == Some(&mm))
            else {
                continue;
            };
            let m = &g.nodes()[p];
            if !matches!(m.op, Op::Matmul | Op::Mm) || uses(g, mm) != 1 {
                continue;
            }
            let (Value::Tensor(a), Value::Tensor(b)) = (&m.args[0], &m.args[1]) else {
                continue;
            };
            let (a, b) = (*a, *b);
            if g.value(a).meta.shape.len() != 2 || g.value(b).meta.shape.len() != 2 {
                continue;
            }
            let one = Value::Scalar(Scalar::Int(1));
            let args = vec![
                Value::Tensor(bias),
                Value::Tensor(a),
                Value::Tensor(b),
                one.clone(),
                one,
            ];
            let Ok(metas) = g
                .arg_metas(&args)
                .and_then(|ms| registry::meta(Op::Addmm, &ms))
            else {
                continue;
            };
            if metas.len() != 1 || metas[0] != out_meta {
                continue;
            }
            let node = &mut g.nodes_mut()[i];
            node.op = Op::Addmm;
            node.args = args;
            break;
        }
    }
}
