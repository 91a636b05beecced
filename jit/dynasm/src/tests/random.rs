//! Random fused graphs (proptest, fixed seed budget): chains of pointwise ops with broadcasting
//! and views, divisions (by row values too), and reductions with prologues and epilogues, JIT
//! against eager.

use proptest::prelude::*;
use rynamo_graph::{GraphBuilder, Op, Value, ValueId};
use rynamo_tensor::Tensor;

use super::common::*;

#[derive(Clone, Debug)]
enum Step {
    Unary(usize),
    Binary(usize, usize),
    Scalar(usize, f64),
    Reduce(usize, usize, bool),
    /// `cur / (1.5 + |vals[p]|)`: a divisor bounded away from 0 (so later periodic ops stay
    /// well-conditioned), hoisted when `vals[p]` is a row value.
    Divide(usize),
    Transpose,
}

const UNARY: [Op; 8] = [
    Op::Exp,
    Op::Tanh,
    Op::Sin,
    Op::Relu,
    Op::Sigmoid,
    Op::Abs,
    Op::Neg,
    Op::Cos,
];
const BINARY: [Op; 5] = [Op::Add, Op::Sub, Op::Mul, Op::Maximum, Op::Minimum];
const REDUCE: [Op; 4] = [Op::Sum, Op::Mean, Op::Amax, Op::Amin];

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0..UNARY.len()).prop_map(Step::Unary),
        (0..BINARY.len(), 0..64usize).prop_map(|(o, p)| Step::Binary(o, p)),
        (0..BINARY.len(), -2.0f64..2.0).prop_map(|(o, c)| Step::Scalar(o, c)),
        (0..REDUCE.len(), 0..2usize, any::<bool>()).prop_map(|(o, d, k)| Step::Reduce(o, d, k)),
        (0..64usize).prop_map(Step::Divide),
        Just(Step::Transpose),
    ]
}

fn build(rows: usize, cols: usize, steps: &[Step]) -> rynamo_graph::Graph {
    let mut b = GraphBuilder::new();
    let x = b.input(
        "x",
        Tensor::empty(&[rows, cols], rynamo_tensor::DType::Float32).meta(),
    );
    let y = b.input(
        "y",
        Tensor::empty(&[1, cols], rynamo_tensor::DType::Float32).meta(),
    );
    let mut vals: Vec<ValueId> = vec![x, y];
    let t = Value::Tensor;
    for s in steps {
        let cur = *vals.last().expect("invariant: inputs exist");
        let r = match *s {
            // exp only of a tanh: unbounded growth would make any later periodic op
            // ill-conditioned, and the comparison meaningless.
            Step::Unary(0) => b
                .call_py(Op::Tanh, vec![t(cur)], vec![])
                .and_then(|v| b.call_py(Op::Exp, vec![t(v[0])], vec![])),
            Step::Unary(o) => b.call_py(UNARY[o], vec![t(cur)], vec![]),
            Step::Binary(o, p) => {
                let other = vals[p % vals.len()];
                b.call_py(BINARY[o], vec![t(cur), t(other)], vec![])
            }
            Step::Scalar(o, c) => b.call_py(BINARY[o], vec![t(cur), Value::Float(c)], vec![]),
            Step::Reduce(o, d, k) => {
                let nd = b.meta(cur).shape.len() as i64;
                if nd == 0 {
                    continue;
                }
                let dim = (d as i64).min(nd - 1);
                let mut args = vec![t(cur), Value::IntList(vec![dim]), Value::Bool(k)];
                if matches!(REDUCE[o], Op::Sum | Op::Mean) {
                    args.push(Value::None);
                }
                b.call(REDUCE[o], args)
            }
            Step::Divide(p) => {
                let other = vals[p % vals.len()];
                b.call_py(Op::Abs, vec![t(other)], vec![])
                    .and_then(|v| b.call_py(Op::Add, vec![t(v[0]), Value::Float(1.5)], vec![]))
                    .and_then(|v| b.call_py(Op::Div, vec![t(cur), t(v[0])], vec![]))
            }
            Step::Transpose => {
                if b.meta(cur).shape.len() != 2 {
                    continue;
                }
                b.call_py(Op::T, vec![t(cur)], vec![])
            }
        };
        if let Ok(out) = r {
            vals.push(out[0]);
        }
    }
    let n = vals.len();
    let outs = if n > 3 {
        vec![vals[n - 1], vals[n / 2 + 1]]
    } else {
        vec![vals[n - 1]]
    };
    b.finish(outs)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, rng_seed: proptest::test_runner::RngSeed::Fixed(7), ..ProptestConfig::default() })]

    #[test]
    fn random_fused_graphs_match_eager(rows in 1usize..12, cols in 1usize..40, steps in proptest::collection::vec(step(), 1..10)) {
        let g = build(rows, cols, &steps);
        let x = randn(&[rows, cols], 1);
        let y = randn(&[1, cols], 2);
        // Chains of up to ten ops, each within a few ulp; sums accumulate in f64 on both sides.
        // Values reach |x| ~ 50 (one ulp: 4e-6) before sin/cos, whose slope is up to 1, hence
        // the absolute part.
        check_graph(&g, &[x, y], 5e-6, 1e-5);
    }
}
