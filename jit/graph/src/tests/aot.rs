//! The joint graph and the min-cut partitioner against the eager engine: for forward graphs of
//! the shapes training produces, running the partitioned forward then backward graph gives the
//! gradients eager autograd gives, and the partition saves no more than saving every forward
//! value the backward reads.

use std::collections::HashMap;

use rynamo_tensor::{DType, Scalar, Tensor, TensorMeta};

use crate::autograd::joint::build_joint;
use crate::autograd::partition::partition;
use crate::autograd::{self, BackwardOptions};
use crate::{Arg, Graph, GraphBuilder, IValue, Op, Value, ValueId, registry};

/// Runs a graph on real tensors, node by node (kernels only, no autograd).
fn run(g: &Graph, inputs: &[Tensor]) -> Vec<Tensor> {
    let mut env: HashMap<ValueId, Tensor> = HashMap::new();
    for (v, t) in g.inputs().iter().zip(inputs) {
        env.insert(*v, t.clone());
    }
    for n in g.nodes() {
        let args: Vec<IValue> = n
            .args
            .iter()
            .map(|a| a.try_map(|v| Ok::<_, ()>(env[v].clone())).unwrap())
            .collect();
        let outs = registry::call_uncounted(n.op, &args).unwrap();
        for (o, t) in n.outputs.iter().zip(outs) {
            env.insert(*o, t);
        }
    }
    g.outputs().iter().map(|o| env[o].clone()).collect()
}

/// Runs a graph through the dispatcher (recording autograd).
fn run_recorded(g: &Graph, inputs: &[Tensor]) -> Vec<Tensor> {
    let mut env: HashMap<ValueId, Tensor> = HashMap::new();
    for (v, t) in g.inputs().iter().zip(inputs) {
        env.insert(*v, t.clone());
    }
    for n in g.nodes() {
        let args: Vec<IValue> = n
            .args
            .iter()
            .map(|a| a.try_map(|v| Ok::<_, ()>(env[v].clone())).unwrap())
            .collect();
        let outs = registry::call(n.op, &args).unwrap();
        for (o, t) in n.outputs.iter().zip(outs) {
            env.insert(*o, t);
        }
    }
    g.outputs().iter().map(|o| env[o].clone()).collect()
}

fn randn(shape: &[usize], seed: u64) -> Tensor {
    rynamo_tensor::random::randn(
        shape,
        Some(DType::Float64),
        Some(&rynamo_tensor::random::Generator::new(seed)),
    )
    .unwrap()
}

fn t(v: ValueId) -> Arg {
    Value::Tensor(v)
}

fn call(b: &mut GraphBuilder, op: Op, args: Vec<Arg>) -> ValueId {
    b.call_py(op, args, vec![]).unwrap()[0]
}

type Case = (&'static str, Graph, Vec<bool>);

fn cases() -> Vec<Case> {
    let f = |s: &[usize]| TensorMeta::contiguous(DType::Float64, s);
    let mut out = Vec::new();
    {
        // A 2-layer MLP with an MSE loss.
        let mut b = GraphBuilder::new();
        let x = b.input("x", f(&[8, 4]));
        let w1 = b.input("w1", f(&[6, 4]));
        let b1 = b.input("b1", f(&[6]));
        let w2 = b.input("w2", f(&[2, 6]));
        let y = b.input("y", f(&[8, 2]));
        let h = call(&mut b, Op::Linear, vec![t(x), t(w1), t(b1)]);
        let h = call(&mut b, Op::Tanh, vec![t(h)]);
        let p = call(&mut b, Op::Linear, vec![t(h), t(w2)]);
        let d = call(&mut b, Op::Sub, vec![t(p), t(y)]);
        let d2 = call(&mut b, Op::Mul, vec![t(d), t(d)]);
        let l = call(&mut b, Op::Mean, vec![t(d2)]);
        out.push((
            "mlp",
            b.finish(vec![l]),
            vec![false, true, true, true, false],
        ));
    }
    {
        // A pointwise chain (GELU-like) with softmax, two outputs, broadcasting.
        let mut b = GraphBuilder::new();
        let x = b.input("x", f(&[4, 5]));
        let s = b.input("s", f(&[5]));
        let a = call(&mut b, Op::Mul, vec![t(x), t(s)]);
        let e = call(&mut b, Op::Gelu, vec![t(a)]);
        let sm = call(&mut b, Op::Softmax, vec![t(e), Value::Int(-1)]);
        let r = call(&mut b, Op::Sigmoid, vec![t(e)]);
        let r = call(
            &mut b,
            Op::Mul,
            vec![t(r), Value::Scalar(Scalar::Float(3.0))],
        );
        out.push(("pointwise", b.finish(vec![sm, r]), vec![true, true]));
    }
    {
        // Views and a layer norm written out as users do.
        let mut b = GraphBuilder::new();
        let x = b.input("x", f(&[2, 3, 4]));
        let w = b.input("w", f(&[4]));
        let m = call(
            &mut b,
            Op::Mean,
            vec![t(x), Value::IntList(vec![-1]), Value::Bool(true)],
        );
        let c = call(&mut b, Op::Sub, vec![t(x), t(m)]);
        let c2 = call(&mut b, Op::Mul, vec![t(c), t(c)]);
        let v = call(
            &mut b,
            Op::Mean,
            vec![t(c2), Value::IntList(vec![-1]), Value::Bool(true)],
        );
        let v = call(
            &mut b,
            Op::Add,
            vec![t(v), Value::Scalar(Scalar::Float(1e-5))],
        );
        let r = call(&mut b, Op::Rsqrt, vec![t(v)]);
        let n = call(&mut b, Op::Mul, vec![t(c), t(r)]);
        let n = call(&mut b, Op::Mul, vec![t(n), t(w)]);
        let n = call(
            &mut b,
            Op::Transpose,
            vec![t(n), Value::Int(0), Value::Int(2)],
        );
        let n = call(&mut b, Op::Reshape, vec![t(n), Value::IntList(vec![4, 6])]);
        let l = call(&mut b, Op::Sum, vec![t(n)]);
        out.push(("layernorm", b.finish(vec![l, m]), vec![true, true]));
    }
    {
        // An input that reaches no output, and a reused input.
        let mut b = GraphBuilder::new();
        let x = b.input("x", f(&[3]));
        let unused = b.input("unused", f(&[3]));
        let y = call(&mut b, Op::Mul, vec![t(x), t(x)]);
        let y = call(&mut b, Op::Exp, vec![t(y)]);
        let _ = unused;
        out.push(("reuse", b.finish(vec![y]), vec![true, true]));
    }
    out
}

#[test]
fn partitioned_gradients_match_eager_autograd() {
    for (name, fw, rg) in cases() {
        let inputs: Vec<Tensor> = fw
            .inputs()
            .iter()
            .enumerate()
            .map(|(k, v)| randn(&fw.value(*v).meta.shape, 10 + k as u64))
            .collect();
        let no_grad = vec![false; fw.nodes().len()];
        let joint = build_joint(&fw, &rg, &no_grad).unwrap_or_else(|e| panic!("{name}: {e}"));
        let p = partition(&joint).unwrap_or_else(|e| panic!("{name}: {e}"));
        // Tangents: fixed values per differentiable output.
        let tangents: Vec<Tensor> = fw
            .outputs()
            .iter()
            .zip(&joint.tangent_of_output)
            .filter(|(_, t)| t.is_some())
            .enumerate()
            .map(|(i, (o, _))| randn(&fw.value(*o).meta.shape, 100 + i as u64))
            .collect();
        let fw_out = run(&p.fw, &inputs);
        let mut bw_in: Vec<Tensor> = fw_out[p.num_fw_outputs..].to_vec();
        bw_in.extend(tangents.iter().cloned());
        let grads = run(&p.bw, &bw_in);
        // Eager autograd on the same graph.
        let leaves: Vec<Tensor> = inputs
            .iter()
            .zip(&rg)
            .map(|(x, r)| {
                let mut l = x.with_autograd(None);
                l.ensure_autograd().update(|s| s.requires_grad = *r);
                l
            })
            .collect();
        let outs = run_recorded(&fw, &leaves);
        for (a, b) in outs.iter().zip(&fw_out[..p.num_fw_outputs]) {
            assert_eq!(
                a.to_vec::<f64>(),
                b.to_vec::<f64>(),
                "{name}: forward outputs"
            );
        }
        let diff_outs: Vec<Tensor> = outs
            .iter()
            .zip(&joint.tangent_of_output)
            .filter(|(_, t)| t.is_some())
            .map(|(o, _)| o.clone())
            .collect();
        let gts: Vec<Option<Tensor>> = tangents.iter().cloned().map(Some).collect();
        let wanted: Vec<Tensor> = joint
            .grad_primals
            .iter()
            .map(|&k| leaves[k].clone())
            .collect();
        let opts = BackwardOptions {
            retain_graph: false,
            create_graph: false,
        };
        let eager = autograd::grad(&diff_outs, &gts, &wanted, opts, true, false).unwrap();
        assert_eq!(eager.len(), grads.len(), "{name}: gradient count");
        for (k, (e, g)) in eager.iter().zip(&grads).enumerate() {
            let e = e.as_ref().expect("reached").to_vec::<f64>();
            let g = g.to_vec::<f64>();
            for (a, b) in e.iter().zip(&g) {
                assert!(
                    (a - b).abs() <= 1e-12 * (1.0 + a.abs()),
                    "{name}: grad {k}: {a} vs {b}"
                );
            }
        }
        // Never more than saving every forward value the backward reads.
        let needed = default_saved_bytes(&joint);
        assert!(
            p.saved_bytes() <= needed,
            "{name}: saves {} bytes, the default partition {needed}",
            p.saved_bytes()
        );
    }
}

/// What PyTorch's default partition saves: every forward-region value the backward reads.
fn default_saved_bytes(j: &crate::autograd::joint::Joint) -> usize {
    use std::collections::HashSet;
    let g = &j.graph;
    let mut on_t: HashSet<ValueId> = g.inputs()[j.num_primals..].iter().copied().collect();
    let mut saved: HashSet<ValueId> = HashSet::new();
    for n in g.nodes() {
        if n.inputs().any(|v| on_t.contains(&v)) {
            on_t.extend(n.outputs.iter().copied());
            saved.extend(n.inputs().filter(|v| !on_t.contains(v)));
        }
    }
    saved
        .iter()
        .map(|v| {
            let m = &g.value(*v).meta;
            m.shape.iter().product::<usize>() * m.dtype.itemsize()
        })
        .sum()
}

#[test]
fn pointwise_chains_are_recomputed_not_saved() {
    // y = sum(sin(x) * 2): the default partition saves x's cos input chain; the min cut saves
    // only x (a primal) and recomputes the pointwise ops.
    let mut b = GraphBuilder::new();
    let x = b.input("x", TensorMeta::contiguous(DType::Float32, &[64]));
    let s = call(&mut b, Op::Sin, vec![t(x)]);
    let s = call(&mut b, Op::Exp, vec![t(s)]);
    let m = call(
        &mut b,
        Op::Mul,
        vec![t(s), Value::Scalar(Scalar::Float(2.0))],
    );
    let l = call(&mut b, Op::Sum, vec![t(m)]);
    let fw = b.finish(vec![l]);
    let joint = build_joint(&fw, &[true], &[false; 4]).unwrap();
    let p = partition(&joint).unwrap();
    assert_eq!(p.num_saved, 1, "fw:\n{}\nbw:\n{}", p.fw, p.bw);
    assert_eq!(p.saved_bytes(), 64 * 4);
}
