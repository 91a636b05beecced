//! The eager interpreter against direct registry calls, input checks, and the registry.

use std::sync::Arc;

use rynamo_graph::{GraphBuilder, IValue, Op, Value, ValueId, parse, registry};
use rynamo_tensor::{DType, Tensor, TensorMeta, random};

use crate::{Backend, BackendRegistry, EagerBackend, Error, Executable, Support};

fn randn(shape: &[usize], seed: u64) -> Tensor {
    random::randn(shape, None, Some(&random::Generator::new(seed))).unwrap()
}

fn call(op: Op, p: Vec<IValue>, k: Vec<(&str, IValue)>) -> Vec<Tensor> {
    let k = k.into_iter().map(|(a, b)| (a.to_string(), b)).collect();
    registry::call(op, &op.schema().bind(p, k).unwrap()).unwrap()
}

#[test]
fn eager_graph_matches_direct_calls() {
    // relu(x @ w1 + b1) @ w2, softmax over the last dim, plus a layer norm branch.
    let mut b = GraphBuilder::new();
    let m = |s: &[usize]| TensorMeta::contiguous(DType::Float32, s);
    let (x, w1, b1, w2) = (
        b.input("x", m(&[5, 8])),
        b.input("w1", m(&[8, 16])),
        b.input("b1", m(&[16])),
        b.input("w2", m(&[16, 4])),
    );
    let t = |v: ValueId| Value::Tensor(v);
    let h = b.call_py(Op::Matmul, vec![t(x), t(w1)], vec![]).unwrap()[0];
    let h = b.call_py(Op::Add, vec![t(h), t(b1)], vec![]).unwrap()[0];
    let h = b.call_py(Op::Relu, vec![t(h)], vec![]).unwrap()[0];
    let o = b.call_py(Op::Matmul, vec![t(h), t(w2)], vec![]).unwrap()[0];
    let s = b
        .call_py(Op::Softmax, vec![t(o), Value::Int(-1)], vec![])
        .unwrap()[0];
    let ln = b
        .call_py(Op::LayerNorm, vec![t(x), Value::IntList(vec![8])], vec![])
        .unwrap()[0];
    let (mx, idx) = {
        let r = b
            .call_py(Op::MaxDim, vec![t(s), Value::Int(1)], vec![])
            .unwrap();
        (r[0], r[1])
    };
    let g = b.finish(vec![s, ln, mx, idx]);
    let inputs = [
        randn(&[5, 8], 1),
        randn(&[8, 16], 2),
        randn(&[16], 3),
        randn(&[16, 4], 4),
    ];
    let exe = EagerBackend.compile(&g).unwrap();
    let before = registry::counters::in_graph();
    let got = exe.run(&inputs).unwrap();
    assert!(registry::counters::in_graph() >= before + g.nodes().len() as u64);

    let v = |t: &Tensor| Value::Tensor(t.clone());
    let h = call(Op::Matmul, vec![v(&inputs[0]), v(&inputs[1])], vec![]);
    let h = call(Op::Add, vec![v(&h[0]), v(&inputs[2])], vec![]);
    let h = call(Op::Relu, vec![v(&h[0])], vec![]);
    let o = call(Op::Matmul, vec![v(&h[0]), v(&inputs[3])], vec![]);
    let s = call(Op::Softmax, vec![v(&o[0]), Value::Int(-1)], vec![]);
    let ln = call(
        Op::LayerNorm,
        vec![v(&inputs[0]), Value::IntList(vec![8])],
        vec![],
    );
    let mx = call(Op::MaxDim, vec![v(&s[0]), Value::Int(1)], vec![]);
    let want = [&s[0], &ln[0], &mx[0], &mx[1]];
    assert_eq!(got.len(), 4);
    for (g, w) in got.iter().zip(want) {
        assert_eq!((g.dtype(), g.shape()), (w.dtype(), w.shape()));
        assert_eq!(g.to_vec::<f64>(), w.to_vec::<f64>());
    }
}

#[test]
fn eager_runs_views_and_in_place_ops() {
    let g = parse(
        "graph(%x: f32[2, 3]):
  %t: f32[3, 2]{1, 3} = t(%x)
  %c: f32[3, 2] = contiguous(%t)
  %m: f32[3, 2] = mul_(%c, 10.0)
  %g: f32[2] = __getitem__(%m, [1, ...])
  return (%t, %m, %g)
",
    )
    .unwrap();
    let exe = EagerBackend.compile(&g).unwrap();
    let x = Tensor::from_vec(vec![1.0f32, 2., 3., 4., 5., 6.], &[2, 3]).unwrap();
    let out = exe.run(std::slice::from_ref(&x)).unwrap();
    assert!(out[0].shares_storage(&x));
    assert_eq!(out[1].to_vec::<f32>(), vec![10., 40., 20., 50., 30., 60.]);
    assert_eq!(out[2].to_vec::<f32>(), vec![20., 50.]);
    // The input itself is untouched: contiguous copied it before the in-place op.
    assert_eq!(x.to_vec::<f32>(), vec![1., 2., 3., 4., 5., 6.]);
}

#[test]
fn eager_checks_inputs_and_graphs() {
    let g = parse("graph(%x: f32[3]):\n  %0: f32[3] = neg(%x)\n  return (%0)\n").unwrap();
    let exe = EagerBackend.compile(&g).unwrap();
    let e = exe.run(&[]).unwrap_err();
    assert_eq!(e.to_string(), "graph takes 1 inputs, got 0");
    let e = exe.run(&[Tensor::zeros(&[4], DType::Float32)]).unwrap_err();
    assert!(matches!(e, Error::Inputs(_)), "{e}");
    let e = exe.run(&[Tensor::zeros(&[3], DType::Int64)]).unwrap_err();
    assert!(
        e.to_string().contains("expected float32[3], got int64[3]"),
        "{e}"
    );
    // Kernel errors surface with their kind.
    let g =
        parse("graph(%x: i64[2]):\n  %0: i64[2] = floor_divide(%x, 0)\n  return (%0)\n").unwrap();
    let e = EagerBackend
        .compile(&g)
        .unwrap()
        .run(&[Tensor::zeros(&[2], DType::Int64)])
        .unwrap_err();
    assert_eq!(e.to_string(), "ZeroDivisionError");
    // Invalid graphs are rejected at compile time.
    let bad = parse("graph(%x: f32[3]):\n  %0: i64[3] = neg(%x)\n  return (%0)\n").unwrap();
    assert!(matches!(
        EagerBackend.compile(&bad),
        Err(Error::InvalidGraph(_))
    ));
    assert_eq!(EagerBackend.supports(&g), Support::Full);
}

struct Named(&'static str);

impl Backend for Named {
    fn name(&self) -> &str {
        self.0
    }
    fn supports(&self, _: &rynamo_graph::Graph) -> Support {
        Support::Unsupported("test double".into())
    }
    fn compile(&self, g: &rynamo_graph::Graph) -> crate::Result<Arc<dyn Executable>> {
        EagerBackend.compile(g)
    }
}

#[test]
fn registry_register_lookup_list() {
    let r = BackendRegistry::with_defaults();
    assert_eq!(r.list(), vec!["eager".to_string()]);
    r.register(Arc::new(Named("custom"))).unwrap();
    assert!(matches!(
        r.register(Arc::new(Named("custom"))),
        Err(Error::Duplicate(_))
    ));
    assert_eq!(r.list(), vec!["custom".to_string(), "eager".to_string()]);
    assert_eq!(r.lookup("custom").unwrap().name(), "custom");
    let e = r.lookup("nope").err().unwrap();
    assert_eq!(
        e.to_string(),
        "unknown backend `nope`; registered: custom, eager"
    );
    assert_eq!(e.kind(), rynamo_tensor::ErrorKind::Value);
    assert!(crate::global().list().contains(&"eager".to_string()));
}
