//! Schema parsing and argument binding.

use rynamo_tensor::{DType, Scalar, Tensor};

use crate::schema::ParamType;
use crate::{Error, IValue, Op, Value, registry};

fn x() -> Tensor {
    Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap()
}

fn mv(v: &IValue) -> crate::MetaValue {
    v.try_map(|t| Ok::<_, ()>(t.meta())).unwrap()
}

fn bind_err(op: Op, p: Vec<IValue>, k: Vec<(&str, IValue)>) -> String {
    let k = k.into_iter().map(|(a, b)| (a.to_string(), b)).collect();
    let e = op.schema().bind(p, k).unwrap_err();
    assert_eq!(e.kind(), rynamo_tensor::ErrorKind::Type, "{e}");
    e.to_string()
}

#[test]
fn every_schema_parses_and_names_are_unique() {
    let mut names = std::collections::HashSet::new();
    for &op in Op::ALL {
        let s = op.schema();
        assert!(
            names.insert(s.name.clone()),
            "duplicate schema name {}",
            s.name
        );
        assert_eq!(s.base_name(), op.py_name(), "{op}");
        assert_eq!(Op::from_name(&s.name), Some(op));
        assert_eq!(Op::from_id(op.id()), Some(op));
    }
    assert_eq!(Op::overloads("max"), &[Op::MaxOther, Op::Max, Op::MaxDim]);
    let s = Op::Var.schema();
    assert_eq!(s.params[1].ty, ParamType::IntList);
    assert!(s.params[1].optional && s.params[4].kw_only);
}

#[test]
fn binding_fills_defaults_and_converts() {
    let t = Value::Tensor(x());
    let a = Op::Add
        .schema()
        .bind(vec![t.clone(), Value::Float(1.5)], vec![])
        .unwrap();
    assert_eq!(mv(&a[1]), Value::Scalar(Scalar::Float(1.5)));
    assert_eq!(mv(&a[2]), Value::Scalar(Scalar::Int(1)));
    // x.view(2, 2) packs trailing ints; a single int fills int[].
    let v = Op::View
        .schema()
        .bind(vec![t.clone(), Value::Int(4), Value::Int(1)], vec![])
        .unwrap();
    assert_eq!(mv(&v[1]), Value::IntList(vec![4, 1]));
    let s = Op::Sum
        .schema()
        .bind(vec![t.clone(), Value::Int(1)], vec![])
        .unwrap();
    assert_eq!(
        (mv(&s[1]), mv(&s[2]), mv(&s[3])),
        (Value::IntList(vec![1]), Value::Bool(false), Value::None)
    );
    // A zero-dim tensor stands in for a Scalar; an int for a float.
    let zd = Value::Tensor(Tensor::scalar(2.0f64));
    let a = Op::Add_
        .schema()
        .bind(vec![t.clone(), Value::Int(1)], vec![("alpha".into(), zd)])
        .unwrap();
    assert_eq!(mv(&a[2]), Value::Scalar(Scalar::Float(2.0)));
    let d = Op::Dropout
        .schema()
        .bind(vec![t.clone(), Value::Int(0)], vec![])
        .unwrap();
    assert_eq!(mv(&d[1]), Value::Float(0.0));
    let z = Op::Zeros
        .schema()
        .bind(
            vec![Value::Int(2), Value::Int(3)],
            vec![("dtype".into(), Value::DType(DType::Int8))],
        )
        .unwrap();
    assert_eq!(mv(&z[0]), Value::IntList(vec![2, 3]));
}

/// PyTorch reads a zero-dim integral tensor as an `int[]` element: trailing varargs, a single
/// size, and a tuple of tensors; float tensors and value-less stand-ins stay errors.
#[test]
fn zero_dim_int_tensors_are_list_ints() {
    let t = Value::Tensor(x());
    let n = |v: i64| Value::Tensor(Tensor::scalar(v));
    let v = Op::View
        .schema()
        .bind(vec![t.clone(), n(2), Value::Int(-1)], vec![])
        .unwrap();
    assert_eq!(mv(&v[1]), Value::IntList(vec![2, -1]));
    let z = Op::Zeros.schema().bind(vec![n(3)], vec![]).unwrap();
    assert_eq!(mv(&z[0]), Value::IntList(vec![3]));
    let f = Op::Full
        .schema()
        .bind(
            vec![
                Value::TensorList(vec![Tensor::scalar(2i64), Tensor::scalar(true)]),
                Value::Float(1.0),
            ],
            vec![],
        )
        .unwrap();
    assert_eq!(mv(&f[0]), Value::IntList(vec![2, 1]));
    let fl = Value::Tensor(Tensor::scalar(2.0f32));
    assert_eq!(
        bind_err(Op::Zeros, vec![fl], vec![]),
        "zeros(): argument 'size' (position 1) must be tuple of ints, not Tensor"
    );
    let meta = Value::Tensor(x().meta());
    let e = Op::View
        .schema()
        .bind(vec![meta.clone(), meta, Value::Int(-1)], vec![])
        .unwrap_err();
    assert!(e.to_string().contains("positional argument"), "{e}");
}

#[test]
fn binding_errors_use_pytorch_wording() {
    let t = Value::Tensor(x());
    assert_eq!(
        bind_err(Op::Add, vec![t.clone()], vec![]),
        "add() missing 1 required positional argument: \"other\""
    );
    assert_eq!(
        bind_err(Op::Sum, vec![t.clone(), Value::Str("a".into())], vec![]),
        "sum(): argument 'dim' (position 2) must be tuple of ints, not str"
    );
    assert_eq!(
        bind_err(
            Op::Sum,
            vec![t.clone()],
            vec![("dim", Value::Str("a".into()))]
        ),
        "sum(): argument 'dim' must be tuple of ints, not str"
    );
    assert_eq!(
        bind_err(Op::Sum, vec![t.clone()], vec![("keepdim", Value::Int(1))]),
        "sum(): argument 'keepdim' must be bool, not int"
    );
    assert_eq!(
        bind_err(Op::Neg, vec![t.clone()], vec![("foo", Value::Int(1))]),
        "neg() got an unexpected keyword argument 'foo'"
    );
    assert_eq!(
        bind_err(Op::Neg, vec![t.clone(), t.clone()], vec![]),
        "neg() takes 1 positional argument but 2 were given"
    );
    assert_eq!(
        bind_err(
            Op::Transpose,
            vec![t.clone(), Value::Int(0), Value::Int(1)],
            vec![("dim0", Value::Int(1))]
        ),
        "transpose() got multiple values for argument 'dim0'"
    );
    assert_eq!(
        bind_err(Op::Matmul, vec![t.clone(), Value::Float(2.0)], vec![]),
        "matmul(): argument 'other' (position 2) must be Tensor, not float"
    );
    // A non-zero-dim tensor is not a Scalar.
    assert!(
        bind_err(
            Op::Add_,
            vec![t.clone(), Value::Int(1)],
            vec![("alpha", t.clone())]
        )
        .contains("must be Number, not Tensor")
    );
}

#[test]
fn overload_resolution() {
    let t = Value::Tensor(x());
    let (op, _) = registry::resolve("max", vec![t.clone()], vec![]).unwrap();
    assert_eq!(op, Op::Max);
    let (op, args) = registry::resolve("max", vec![t.clone(), Value::Int(1)], vec![]).unwrap();
    assert_eq!(op, Op::MaxDim);
    let out = registry::call(op, &args).unwrap();
    assert_eq!(out[0].to_vec::<f32>(), vec![2.0, 4.0]);
    assert_eq!(out[1].to_vec::<i64>(), vec![1, 1]);
    assert_eq!(
        registry::resolve("max", vec![t.clone(), t.clone()], vec![])
            .unwrap()
            .0,
        Op::MaxOther
    );
    assert_eq!(
        registry::resolve(
            "randint",
            vec![Value::Int(0), Value::Int(5), Value::IntList(vec![2])],
            vec![]
        )
        .unwrap()
        .0,
        Op::RandintLow
    );
    assert_eq!(
        registry::resolve("split", vec![t.clone(), Value::IntList(vec![1, 1])], vec![])
            .unwrap()
            .0,
        Op::SplitSizes
    );
    let e = registry::resolve("max", vec![t.clone(), Value::Str("x".into())], vec![]).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("max() received an invalid combination of arguments - got (Tensor, str)"),
        "{e}"
    );
    assert!(matches!(
        registry::resolve("nope", vec![], vec![]),
        Err(Error::UnknownOp(_))
    ));
}

#[test]
fn dispatch_counter_counts_eager_calls() {
    let t = Value::Tensor(x());
    let before = registry::counters::dispatch();
    registry::call(Op::Neg, std::slice::from_ref(&t)).unwrap();
    registry::call(Op::Neg, std::slice::from_ref(&t)).unwrap();
    // Other tests run concurrently, so only a lower bound is exact.
    assert!(registry::counters::dispatch() >= before + 2);
    let ig = registry::counters::in_graph();
    registry::counters::add_in_graph(5);
    assert!(registry::counters::in_graph() >= ig + 5);
}

#[test]
fn eager_errors_keep_kind_and_wording() {
    let t = Value::Tensor(x());
    let e = registry::call(Op::Transpose, &[t.clone(), Value::Int(0), Value::Int(2)]).unwrap_err();
    assert_eq!(e.kind(), rynamo_tensor::ErrorKind::Index);
    assert_eq!(
        e.to_string(),
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    );
    let e = registry::call(
        Op::Div,
        &[
            t.clone(),
            Value::Scalar(Scalar::Int(1)),
            Value::Str("round".into()),
        ],
    )
    .unwrap_err();
    assert_eq!(e.kind(), rynamo_tensor::ErrorKind::Value);
}
