//! Builder, text format (round trips, including a proptest over random graphs) and verifier.

use proptest::prelude::*;
use rynamo_tensor::{DType, IndexItem, Scalar, TensorMeta};

use crate::{Arg, Graph, GraphBuilder, Op, Value, ValueId, parse, verify};

fn meta(shape: &[usize]) -> TensorMeta {
    TensorMeta::contiguous(DType::Float32, shape)
}

const EXAMPLE: &str = "\
graph(%x: f32[4, 8], %w: f32[8, 8]):
  %0: f32[4, 8] = matmul(%x, %w)
  %1: f32[4, 8] = add(%0, 1.0, alpha=1)
  %2: f32[8, 4]{1, 8} = t(%1)
  %3: f32[4], %4: i64[4] = max.dim(%1, 1, False)
  %5: f32[2, 4]{2, 8} = __getitem__(%2, [1:5:2, ...])
  %6: f32[] = sum(%5, None, False, dtype=None)
  %7: f16[2, 4]{1, 2} = to(%5, torch.float16, copy=False)
  %8: f32[4, 8] = gelu(%1, approximate='tanh')
  return (%2, %3, %6, %7, %8)
";

#[test]
fn example_parses_verifies_and_round_trips() {
    let g = parse(EXAMPLE).unwrap();
    verify(&g).unwrap();
    assert_eq!(g.to_string(), EXAMPLE);
    assert_eq!(g.nodes().len(), 8);
    assert_eq!(g.nodes()[3].outputs.len(), 2);
}

#[test]
fn parser_fills_defaults_and_reports_errors() {
    let g = parse("graph(%x: f32[2]):\n  %y: f32[] = sum(%x)\n  return (%y)\n").unwrap();
    verify(&g).unwrap();
    assert_eq!(g.nodes()[0].args[2], Value::Bool(false));
    let bad = [
        (
            "graph(%x: f32[2]):\n  %y: f32[2] = nope(%x)\n  return (%y)\n",
            "unknown op",
        ),
        (
            "graph(%x: f32[2]):\n  %y: f32[2] = neg(%z)\n  return (%y)\n",
            "undefined value",
        ),
        (
            "graph(%x: f32[2]):\n  %x: f32[2] = neg(%x)\n  return (%x)\n",
            "defined twice",
        ),
        ("graph(%x: q9[2]):\n  return (%x)\n", "unknown dtype"),
        (
            "graph(%x: f32[2]):\n  %y: f32[2] = neg(%x)\n",
            "missing `return`",
        ),
        (
            "graph(%x: f32[2]):\n  %y: f32[2] = add(%x)\n  return (%y)\n",
            "missing argument `other`",
        ),
    ];
    for (text, want) in bad {
        let e = parse(text).unwrap_err().to_string();
        assert!(e.contains(want), "{e} should mention {want}");
    }
}

#[test]
fn builder_runs_meta_rules() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", meta(&[2, 3]));
    let t = b
        .call_py(
            Op::Transpose,
            vec![Value::Tensor(x), Value::Int(0), Value::Int(1)],
            vec![],
        )
        .unwrap();
    assert_eq!(b.meta(t[0]).strides, vec![1, 3]);
    let e = b
        .call_py(Op::Matmul, vec![Value::Tensor(x), Value::Tensor(x)], vec![])
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"
    );
    let mask = b
        .call_py(Op::Gt, vec![Value::Tensor(x), Value::Float(0.0)], vec![])
        .unwrap();
    let e = b
        .call(
            Op::GetItem,
            vec![
                Value::Tensor(x),
                Value::Index(vec![IndexItem::Tensor(mask[0])]),
            ],
        )
        .unwrap_err();
    assert!(e.to_string().contains("data-dependent") && e.is_data_dependent());
    // Failed calls leave no node behind.
    assert_eq!(b.graph().nodes().len(), 2);
    let g = b.finish(vec![t[0]]);
    verify(&g).unwrap();
}

#[test]
fn verifier_rejects_broken_graphs() {
    let check = |g: &Graph, want: &str| {
        let errs = verify(g).unwrap_err();
        assert!(
            errs.iter().any(|e| e.to_string().contains(want)),
            "{errs:?} should mention {want}"
        );
    };
    // Use before definition.
    let mut g = Graph::new();
    let x = g.add_input("x", meta(&[2]));
    let a = g.add_value("a", meta(&[2]));
    let b = g.add_value("b", meta(&[2]));
    g.push_node(Op::Neg, vec![Value::Tensor(b)], vec![a]);
    g.push_node(Op::Neg, vec![Value::Tensor(x)], vec![b]);
    g.set_outputs(vec![a]);
    check(&g, "before it is defined");
    // Redefinition and undefined output.
    let mut g = Graph::new();
    let x = g.add_input("x", meta(&[2]));
    let c = g.add_value("c", meta(&[2]));
    g.push_node(Op::Neg, vec![Value::Tensor(x)], vec![x]);
    g.set_outputs(vec![c]);
    check(&g, "redefines");
    check(&g, "graph output");
    // Wrong argument kind and wrong meta.
    let mut g = Graph::new();
    let x = g.add_input("x", meta(&[2]));
    let y = g.add_value("y", meta(&[2]));
    g.push_node(
        Op::Sum,
        vec![
            Value::Tensor(x),
            Value::Str("0".into()),
            Value::Bool(false),
            Value::None,
        ],
        vec![y],
    );
    g.set_outputs(vec![y]);
    check(&g, "argument `dim` of `sum` cannot be str");
    let mut g = Graph::new();
    let x = g.add_input("x", meta(&[2]));
    let y = g.add_value("y", TensorMeta::contiguous(DType::Int64, &[2]));
    g.push_node(Op::Neg, vec![Value::Tensor(x)], vec![y]);
    g.set_outputs(vec![y]);
    check(&g, "the meta rule says");
    // Meta rule failure.
    let mut g = Graph::new();
    let x = g.add_input("x", meta(&[2, 3]));
    let y = g.add_value("y", meta(&[2, 3]));
    g.push_node(Op::Mm, vec![Value::Tensor(x), Value::Tensor(x)], vec![y]);
    g.set_outputs(vec![y]);
    check(&g, "meta rule fails");
}

/// A random well-formed graph: a chain of ops drawn from a menu over existing values.
fn random_graph(choices: &[(u8, u8, i8, f64)]) -> Graph {
    let mut b = GraphBuilder::new();
    let mut vals: Vec<ValueId> = vec![b.input("x", meta(&[3, 4])), b.input("y", meta(&[4]))];
    for &(kind, pick, k, f) in choices {
        let a = vals[pick as usize % vals.len()];
        let c = vals[(pick as usize / 3) % vals.len()];
        let t = |v: ValueId| -> Arg { Value::Tensor(v) };
        let r = match kind % 9 {
            0 => b.call_py(
                Op::Add,
                vec![t(a), t(c)],
                vec![("alpha".into(), Value::Int(k as i64))],
            ),
            1 => b.call_py(Op::Mul, vec![t(a), Value::Float(f)], vec![]),
            2 => b.call_py(
                Op::Sum,
                vec![t(a), Value::Int(k as i64 % 2)],
                vec![("keepdim".into(), Value::Bool(k > 0))],
            ),
            3 => b.call_py(
                Op::Transpose,
                vec![t(a), Value::Int(0), Value::Int(-1)],
                vec![],
            ),
            4 => b.call_py(Op::Softmax, vec![t(a), Value::Int(-1)], vec![]),
            5 => b.call_py(Op::Clamp, vec![t(a), Value::Float(f)], vec![]),
            6 => b.call_py(
                Op::Gelu,
                vec![t(a)],
                vec![(
                    "approximate".into(),
                    Value::Str(if k > 0 { "tanh" } else { "none" }.into()),
                )],
            ),
            7 => b.call(
                Op::GetItem,
                vec![
                    t(a),
                    Value::Index(vec![
                        IndexItem::Slice {
                            start: Some(k as i64 % 3),
                            stop: None,
                            step: Some(2),
                        },
                        IndexItem::None,
                    ]),
                ],
            ),
            _ => b.call_py(Op::Lt, vec![t(a), Value::Scalar(Scalar::Float(f))], vec![]),
        };
        if let Ok(outs) = r {
            vals.extend(outs);
        }
    }
    let n = vals.len();
    b.finish(vec![vals[n - 1], vals[n / 2]])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn text_round_trips_random_graphs(
        choices in proptest::collection::vec((any::<u8>(), any::<u8>(), -3i8..4, prop_oneof![Just(0.5), Just(-2.0), Just(1e-7), Just(3.0e20), -1e3f64..1e3]), 1..24)
    ) {
        let g = random_graph(&choices);
        prop_assert!(verify(&g).is_ok());
        let text = g.to_string();
        let back = parse(&text).unwrap();
        prop_assert_eq!(&back, &g);
        prop_assert_eq!(back.to_string(), text);
    }
}
