//! Every registered op runs eagerly on its sample call (`crate::samples`), and its meta rule (on
//! metas only) agrees with the eager result.

use rynamo_tensor::{DType, IndexItem, Tensor};

use crate::samples::sample;
use crate::{IValue, MetaValue, Op, registry};

#[test]
fn every_op_runs_and_agrees_with_its_meta_rule() {
    for &op in Op::ALL {
        let (p, k) = sample(op);
        let args = op
            .schema()
            .bind(p, k)
            .unwrap_or_else(|e| panic!("{op}: sample does not bind: {e}"));
        let metas: Vec<MetaValue> = args
            .iter()
            .map(|a| a.try_map(|t| Ok::<_, ()>(t.meta())).unwrap())
            .collect();
        let out =
            registry::call(op, &args).unwrap_or_else(|e| panic!("{op}: eager call failed: {e}"));
        match registry::meta(op, &metas) {
            Ok(m) => {
                assert_eq!(m.len(), out.len(), "{op}");
                for (m, t) in m.iter().zip(&out) {
                    assert_eq!(
                        (m.dtype, m.shape.as_slice()),
                        (t.dtype(), t.shape()),
                        "{op}"
                    );
                }
            }
            Err(e)
                if e.is_data_dependent() && op.flags().contains(crate::OpFlags::DATA_DEPENDENT) => {
            }
            Err(e) => panic!("{op}: meta rule failed: {e}"),
        }
    }
}

#[test]
fn sample_values_match_pytorch_semantics() {
    let call = |op: Op| {
        let (p, k) = sample(op);
        registry::call(op, &op.schema().bind(p, k).unwrap()).unwrap()
    };
    assert_eq!(call(Op::Div)[0].to_vec::<i64>(), vec![1, -1, 2, 3, 0, 0]);
    assert_eq!(
        call(Op::Remainder)[0].to_vec::<i64>(),
        vec![0, -2, -1, -2, 0, -2]
    );
    assert_eq!(
        call(Op::Arange)[0].to_vec::<f32>(),
        vec![1.0, 1.25, 1.5, 1.75]
    );
    assert_eq!(call(Op::Eye)[0].dtype(), DType::Int32);
    assert_eq!(call(Op::Full)[0].to_vec::<i64>(), vec![7, 7]);
    assert_eq!(call(Op::FullLike)[0].to_vec::<f32>(), vec![1.0; 6]);
    let s = call(Op::SetItem)[0].to_vec::<f32>();
    assert_eq!((s[0], s[2], s[4], s[5]), (9.0, 9.0, 9.0, 9.0));
    assert_eq!(call(Op::Split).len(), 2);
    assert_eq!(call(Op::MaxDim).len(), 2);
}

/// The sample call with every tensor argument replaced by `f(tensor)`.
fn with_tensors(op: Op, f: &dyn Fn(&Tensor) -> Tensor) -> (Vec<IValue>, Vec<(String, IValue)>) {
    let (p, k) = sample(op);
    let map = |v: &IValue| v.try_map(|t| Ok::<_, ()>(f(t))).unwrap();
    (
        p.iter().map(map).collect(),
        k.iter().map(|(n, v)| (n.clone(), map(v))).collect(),
    )
}

#[test]
fn odd_layouts_error_or_agree_but_never_panic() {
    type Variant<'a> = (&'a str, &'a dyn Fn(&Tensor) -> Tensor);
    let variants: [Variant<'_>; 8] = [
        ("f16", &|t: &Tensor| t.to_dtype(DType::Float16)),
        ("bf16", &|t: &Tensor| t.to_dtype(DType::BFloat16)),
        ("i32", &|t: &Tensor| t.to_dtype(DType::Int32)),
        ("bool", &|t: &Tensor| t.to_dtype(DType::Bool)),
        ("zero-dim", &|t: &Tensor| {
            Tensor::from_scalar(
                t.to_vec::<f64>()
                    .first()
                    .map_or(rynamo_tensor::Scalar::Int(1), |v| {
                        rynamo_tensor::Scalar::Float(*v)
                    }),
                t.dtype(),
            )
        }),
        ("empty", &|t: &Tensor| {
            let mut s = t.shape().to_vec();
            if let Some(d) = s.first_mut() {
                *d = 0;
            }
            Tensor::zeros(&s, t.dtype())
        }),
        ("strided", &|t: &Tensor| {
            if t.ndim() == 0 {
                return t.clone();
            }
            // Same values, every dim strided by 2 in a larger buffer.
            let big: Vec<usize> = t.shape().iter().map(|&d| d * 2).collect();
            let b = Tensor::zeros(&big, t.dtype());
            let items: Vec<IndexItem<Tensor>> = (0..t.ndim())
                .map(|_| IndexItem::Slice {
                    start: None,
                    stop: None,
                    step: Some(2),
                })
                .collect();
            let v = rynamo_tensor::ops::index::getitem(&b, &items).unwrap();
            v.copy_(t).unwrap();
            v
        }),
        ("transposed", &|t: &Tensor| {
            if t.ndim() >= 2 {
                t.transpose(0, -1)
                    .unwrap()
                    .contiguous()
                    .transpose(0, -1)
                    .unwrap()
            } else {
                t.clone()
            }
        }),
    ];
    let mut failures = Vec::new();
    for &op in Op::ALL {
        for (name, f) in &variants {
            let (p, k) = with_tensors(op, *f);
            let Ok(args) = op.schema().bind(p, k) else {
                continue;
            };
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let metas: Vec<MetaValue> = args
                    .iter()
                    .map(|a| a.try_map(|t| Ok::<_, ()>(t.meta())).unwrap())
                    .collect();
                let eager = registry::call(op, &args);
                let meta = registry::meta(op, &metas);
                if let (Ok(out), Ok(m)) = (&eager, &meta) {
                    for (m, t) in m.iter().zip(out) {
                        assert_eq!((m.dtype, m.shape.as_slice()), (t.dtype(), t.shape()));
                    }
                }
                // An eager success with a (non data-dependent) meta failure would be a drift.
                if eager.is_ok()
                    && let Err(e) = &meta
                {
                    assert!(e.is_data_dependent(), "meta failed where eager worked: {e}");
                }
            }));
            if r.is_err() {
                failures.push(format!("{op} ({name})"));
            }
        }
    }
    assert!(failures.is_empty(), "panics: {failures:?}");
}
