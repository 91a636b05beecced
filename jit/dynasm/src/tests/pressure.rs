//! Register pressure and argument-block edge cases, on every target: more accesses than base
//! registers (strided ones among them), more live values than vector registers (spills in the
//! vector loop and its tail), many run-time constants, and library calls with many live values.

use rynamo_graph::{GraphBuilder, Op, Value, ValueId};
use rynamo_tensor::{DType, Tensor};

use super::common::*;

const N: usize = 12;

fn t(v: ValueId) -> Value<ValueId> {
    Value::Tensor(v)
}

fn call(b: &mut GraphBuilder, op: Op, args: Vec<Value<ValueId>>) -> ValueId {
    b.call_py(op, args, vec![]).unwrap()[0]
}

/// Twelve `[rows, cols]` inputs; the last four are transposed views (column stride `rows`).
fn inputs(rows: usize, cols: usize, dtype: DType, seed: u64) -> Vec<Tensor> {
    (0..N)
        .map(|i| {
            let x = if i >= N - 4 {
                randn(&[cols, rows], seed + i as u64).t().unwrap()
            } else {
                randn(&[rows, cols], seed + i as u64)
            };
            x.to_dtype(dtype)
        })
        .collect()
}

/// `t_i = x_i * a_i + b_i` (24 distinct constants, all hoisted and live through the loop), then
/// `sum_i t_i * t_{11-i}` with every `t_i` live until the end, plus `exp` of one product.
fn wide_graph(xs: &[Tensor], calls: bool) -> rynamo_graph::Graph {
    let mut b = GraphBuilder::new();
    let ins: Vec<ValueId> = xs
        .iter()
        .enumerate()
        .map(|(i, x)| b.input(&format!("x{i}"), x.meta()))
        .collect();
    let ts: Vec<ValueId> = ins
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let m = call(
                &mut b,
                Op::Mul,
                vec![t(x), Value::Float(0.5 + i as f64 / 8.0)],
            );
            call(
                &mut b,
                Op::Add,
                vec![t(m), Value::Float(i as f64 / 16.0 - 0.3)],
            )
        })
        .collect();
    let mut acc = None;
    for i in 0..N / 2 {
        let op = if calls && i % 2 == 1 {
            Op::Atan2
        } else {
            Op::Mul
        };
        let u = call(&mut b, op, vec![t(ts[i]), t(ts[N - 1 - i])]);
        acc = Some(match acc {
            None => u,
            Some(a) => call(&mut b, Op::Add, vec![t(a), t(u)]),
        });
    }
    let acc = acc.expect("invariant: N > 0");
    let e = call(&mut b, Op::Exp, vec![t(ts[3])]);
    let mut outs = vec![acc, e];
    if calls {
        let p = call(&mut b, Op::Pow, vec![t(ts[1]), t(ts[2])]);
        outs.push(p);
    }
    b.finish(outs)
}

#[test]
fn more_accesses_and_live_values_than_registers() {
    for (rows, cols) in [(1, 1), (3, 7), (5, 37), (2, 1031)] {
        let xs = inputs(rows, cols, DType::Float32, 40);
        let exe = check_graph(&wide_graph(&xs, false), &xs, 5e-7, 1e-37);
        assert_eq!(exe.step_counts().1, 0, "{}", exe.dump());
    }
}

#[test]
fn library_calls_with_many_live_values() {
    for dtype in [DType::Float32, DType::Float64] {
        for (rows, cols) in [(1, 5), (4, 19)] {
            let xs = inputs(rows, cols, dtype, 60);
            let tol = if dtype == DType::Float64 { 1e-15 } else { 5e-7 };
            check_graph(&wide_graph(&xs, true), &xs, tol, 1e-37);
        }
    }
}

#[test]
fn integer_and_bool_kernels_with_many_accesses() {
    let xs: Vec<Tensor> = inputs(3, 29, DType::Float32, 80)
        .into_iter()
        .map(|x| {
            let v: Vec<i64> = x
                .to_vec::<f32>()
                .iter()
                .map(|&f| (f * 50.0) as i64)
                .collect();
            // Same strides as `x`: the transposed ones stay strided.
            let c = Tensor::from_vec(v, x.shape()).unwrap();
            if x.strides()[1] == 1 {
                c
            } else {
                let s = x.shape();
                let v2 = c.to_vec::<i64>();
                let mut tv = vec![0i64; v2.len()];
                for r in 0..s[0] {
                    for k in 0..s[1] {
                        tv[k * s[0] + r] = v2[r * s[1] + k];
                    }
                }
                Tensor::from_vec(tv, &[s[1], s[0]]).unwrap().t().unwrap()
            }
        })
        .collect();
    let mut b = GraphBuilder::new();
    let ins: Vec<ValueId> = xs
        .iter()
        .enumerate()
        .map(|(i, x)| b.input(&format!("x{i}"), x.meta()))
        .collect();
    let mut acc = ins[0];
    let mut flags = None;
    for i in 1..N {
        let op = [Op::Add, Op::Sub, Op::Mul, Op::Maximum, Op::Minimum][i % 5];
        acc = call(&mut b, op, vec![t(acc), t(ins[i])]);
        let f = call(&mut b, Op::Gt, vec![t(ins[i]), t(ins[i - 1])]);
        flags = Some(match flags {
            None => f,
            Some(g) => call(&mut b, Op::LogicalXor, vec![t(g), t(f)]),
        });
    }
    let flags = flags.expect("invariant: N > 1");
    let sel = call(&mut b, Op::Where, vec![t(flags), t(acc), t(ins[5])]);
    let half = call(&mut b, Op::Mul, vec![t(sel), Value::Float(0.5)]);
    let g = b.finish(vec![acc, flags, sel, half]);
    let exe = check_graph(&g, &xs, 0.0, 0.0);
    assert_eq!(exe.step_counts().1, 0, "{}", exe.dump());
}
