use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use rynamo_graph::{Graph, GraphBuilder, Op, Value, ValueId, parse};
use rynamo_plugin_abi::*;
use rynamo_tensor::{DType, IndexItem, Scalar, Tensor, TensorMeta};

use crate::*;

/// A graph that uses every argument kind and every index-item kind.
fn every_arg_kind() -> Graph {
    let mut b = GraphBuilder::new();
    let x = b.input("x", TensorMeta::contiguous(DType::Float32, &[4, 6]));
    let i = b.input("idx", TensorMeta::contiguous(DType::Int64, &[2]));
    let t = |v: ValueId| Value::Tensor(v);
    let kw = |k: &str, v| vec![(k.to_string(), v)];
    let a = b
        .call_py(
            Op::Add,
            vec![t(x), Value::Float(1.5)],
            kw("alpha", Value::Int(2)),
        )
        .unwrap();
    let c = b
        .call_py(
            Op::Cat,
            vec![Value::TensorList(vec![a[0], x]), Value::Int(0)],
            vec![],
        )
        .unwrap();
    let g = b
        .call_py(
            Op::Gelu,
            vec![t(c[0])],
            kw("approximate", Value::Str("tanh".into())),
        )
        .unwrap();
    let s = b
        .call_py(
            Op::Sum,
            vec![t(g[0]), Value::IntList(vec![0, -1])],
            kw("keepdim", Value::Bool(true)),
        )
        .unwrap();
    let d = b
        .call_py(Op::To, vec![t(s[0]), Value::DType(DType::Float64)], vec![])
        .unwrap();
    let f = b
        .call_py(Op::FullLike, vec![t(d[0]), Value::Bool(true)], vec![])
        .unwrap();
    let m = b
        .call_py(Op::Mul, vec![Value::Int(3), t(x)], vec![])
        .unwrap();
    let idx = Value::Index(vec![
        IndexItem::Slice {
            start: Some(1),
            stop: None,
            step: Some(2),
        },
        IndexItem::Tensor(i),
    ]);
    let gi = b.call_py(Op::GetItem, vec![t(m[0]), idx], vec![]).unwrap();
    let idx = Value::Index(vec![
        IndexItem::Int(0),
        IndexItem::None,
        IndexItem::Ellipsis,
        IndexItem::Bool(true),
    ]);
    let gj = b.call_py(Op::GetItem, vec![t(gi[0]), idx], vec![]).unwrap();
    let mut outs = vec![f[0], m[0], x, gj[0]];
    let md = b
        .call_py(Op::MaxDim, vec![t(x), Value::Int(1)], vec![])
        .unwrap();
    outs.extend(md);
    b.finish(outs)
}

#[test]
fn round_trips_every_argument_kind() {
    let g = every_arg_kind();
    rynamo_graph::verify(&g).unwrap();
    let bytes = encode(&g).unwrap();
    assert_eq!(decode(&bytes).unwrap(), g);
    let h = header(&bytes).unwrap();
    assert_eq!(h.num_inputs, 2);
    assert_eq!(h.num_nodes as usize, g.nodes().len());
    assert_eq!(h.num_values as usize, g.values().len());
}

#[test]
fn round_trips_scalars_strides_and_specials() {
    let text = "graph(%x: f32[2, 3]{1, 2}, %y: b8[]):\n  \
                %0: f32[2, 3] = where(%y, %x, -inf)\n  \
                %1: f32[2, 3] = add(%0, True, alpha=2.5)\n  \
                return (%1, %x, %1)\n";
    let g = parse(text).unwrap();
    let back = decode(&encode(&g).unwrap()).unwrap();
    assert_eq!(back, g);
    assert_eq!(back.to_string(), text);
}

#[test]
fn renumbers_values_into_wire_order() {
    // An input declared after the node that uses a value: the wire order puts inputs first.
    let mut g = Graph::new();
    let x = g.add_input("x", TensorMeta::contiguous(DType::Float32, &[3]));
    let out = g.add_value("n", TensorMeta::contiguous(DType::Float32, &[3]));
    let y = g.add_input("y", TensorMeta::contiguous(DType::Float32, &[3]));
    g.push_node(
        Op::Add,
        vec![
            Value::Tensor(x),
            Value::Tensor(y),
            Value::Scalar(Scalar::Int(1)),
        ],
        vec![out],
    );
    g.set_outputs(vec![out]);
    let back = decode(&encode(&g).unwrap()).unwrap();
    assert_eq!(back.inputs(), &[ValueId(0), ValueId(1)]);
    assert_eq!(back.value(ValueId(1)).name, "y");
    assert_eq!(back.nodes()[0].outputs, vec![ValueId(2)]);
    assert_eq!(back.to_string(), g.to_string());
}

#[test]
fn refuses_to_encode_use_before_definition() {
    let mut g = Graph::new();
    let a = g.add_value("a", TensorMeta::contiguous(DType::Float32, &[3]));
    let b = g.add_value("b", TensorMeta::contiguous(DType::Float32, &[3]));
    g.push_node(Op::Neg, vec![Value::Tensor(a)], vec![b]);
    g.push_node(Op::Neg, vec![Value::Tensor(b)], vec![a]);
    let e = encode(&g).unwrap_err();
    assert!(
        e.to_string().contains("uses %v0 before it is defined"),
        "{e}"
    );
    let mut g = Graph::new();
    let x = g.add_input("x", TensorMeta::contiguous(DType::Float32, &[3]));
    g.set_outputs(vec![ValueId(7)]);
    let _ = x;
    assert!(encode(&g).unwrap_err().to_string().contains("not defined"));
}

#[test]
fn rejects_bad_magic_version_and_unknown_ops() {
    let g = every_arg_kind();
    let bytes = encode(&g).unwrap();
    let mut b = bytes.clone();
    b[0] = b'X';
    assert_eq!(decode(&b).unwrap_err(), Error::BadMagic);
    let mut b = bytes.clone();
    b[4] = 2;
    assert_eq!(
        decode(&b).unwrap_err(),
        Error::Version {
            found: 2,
            supported: 1
        }
    );
    // Find the first node's op id: after the header and the values.
    let first_node = bytes.len() - node_section_len(&g) - 4 * g.outputs().len();
    let mut b = bytes.clone();
    b[first_node..first_node + 2].copy_from_slice(&9999u16.to_le_bytes());
    assert_eq!(
        decode(&b).unwrap_err(),
        Error::UnknownOp {
            node: 0,
            id: 9999,
            known: Op::ALL.len()
        }
    );
    let mut b = bytes;
    b.push(0);
    assert!(
        decode(&b)
            .unwrap_err()
            .to_string()
            .contains("1 trailing bytes")
    );
}

fn node_section_len(g: &Graph) -> usize {
    // Encode the same graph without nodes and compare lengths: values are the same bytes.
    let mut empty = Graph::new();
    for &v in g.inputs() {
        let i = g.value(v);
        empty.add_input(i.name.clone(), i.meta.clone());
    }
    let with = encode(g).unwrap().len();
    let values_only: usize = g.values()[g.inputs().len()..]
        .iter()
        .map(|v| 4 + v.name.len() + 16 * v.meta.shape.len())
        .sum();
    with - encode(&empty).unwrap().len() - values_only - 4 * g.outputs().len()
}

#[test]
fn every_truncation_is_an_error_not_a_panic() {
    let bytes = encode(&every_arg_kind()).unwrap();
    for n in 0..bytes.len() {
        assert!(decode(&bytes[..n]).is_err(), "prefix of {n} bytes decoded");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// Corrupting any byte never panics, and whatever decodes re-encodes to the same bytes.
    #[test]
    fn corrupted_bytes_never_panic(pos in 0usize..4096, val in any::<u8>()) {
        let mut bytes = encode(&every_arg_kind()).unwrap();
        let p = pos % bytes.len();
        bytes[p] = val;
        if let Ok(g) = decode(&bytes) {
            prop_assert_eq!(encode(&g).unwrap(), bytes);
        }
    }

    /// Hostile counts do not allocate past the input.
    #[test]
    fn huge_counts_are_rejected(n in any::<u32>()) {
        let mut bytes = encode(&every_arg_kind()).unwrap();
        bytes[8..12].copy_from_slice(&n.max(1 << 20).to_le_bytes());
        prop_assert!(decode(&bytes).is_err());
    }
}

#[test]
fn dtypes_map_to_dlpack_and_back() {
    for d in DType::ALL {
        let t = dtype_to_abi(d);
        assert_eq!(dtype_from_abi(t), Some(d), "{d}");
        assert_eq!(dtype_from_code(dtype_code(d)), Some(d));
    }
    assert_eq!(dtype_to_abi(DType::Float32).code, RYNAMO_DTYPE_CODE_FLOAT);
    assert_eq!(dtype_to_abi(DType::BFloat16).code, RYNAMO_DTYPE_CODE_BFLOAT);
    let mut v = dtype_to_abi(DType::Float32);
    v.lanes = 4;
    assert_eq!(dtype_from_abi(v), None);
}

#[test]
fn borrowed_descriptors_view_host_memory_without_copying() {
    let x = Tensor::from_vec((0..12).map(|i| i as f32).collect::<Vec<_>>(), &[3, 4]).unwrap();
    let view = x
        .t()
        .unwrap()
        .as_strided(&[2, 2], &[1, 4], Some(5))
        .unwrap();
    let desc = TensorDesc::new(&view);
    // SAFETY: `desc` and `view` outlive `b`.
    let b = unsafe { borrow(desc.raw()) }.unwrap();
    assert_eq!(b.to_vec::<f32>(), view.to_vec::<f32>());
    assert_eq!(b.strides(), view.strides());
    assert_eq!(b.data_ptr::<f32>(), view.data_ptr::<f32>());
}

#[test]
fn export_then_adopt_is_zero_copy_and_releases_once() {
    static KEEPS: AtomicUsize = AtomicUsize::new(0);
    struct Keep;
    impl Drop for Keep {
        fn drop(&mut self) {
            KEEPS.fetch_add(1, Ordering::SeqCst);
        }
    }
    let x = Tensor::from_vec(vec![1i64, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
    let xt = x.t().unwrap();
    let m = export(xt.clone());
    // SAFETY: `m` is a fresh managed tensor from `export`.
    let y = unsafe { adopt(m, Box::new(Keep)) }.unwrap();
    assert_eq!(y.to_vec::<i64>(), vec![1, 4, 2, 5, 3, 6]);
    assert_eq!(y.data_ptr::<i64>(), xt.data_ptr::<i64>());
    let alias = y.clone();
    drop(y);
    assert_eq!(
        KEEPS.load(Ordering::SeqCst),
        0,
        "an alias still holds the storage"
    );
    drop(alias);
    assert_eq!(KEEPS.load(Ordering::SeqCst), 1);
    assert_eq!(
        Arc::strong_count(x.storage()),
        2,
        "x and xt remain; the export is gone"
    );
}

#[test]
fn bad_descriptors_are_rejected_and_released() {
    let x = Tensor::from_vec(vec![1.0f32; 6], &[2, 3]).unwrap();
    let check = |f: &dyn Fn(&mut RynamoTensor), want: &str| {
        let m = export(x.clone());
        // SAFETY: `m` is valid; we only corrupt its descriptor before handing it back.
        unsafe { f(&mut (*m).dl_tensor) };
        let before = Arc::strong_count(x.storage());
        // SAFETY: as above.
        let e = unsafe { adopt(m, Box::new(())) }.unwrap_err();
        assert!(e.to_string().contains(want), "{e}");
        assert_eq!(
            Arc::strong_count(x.storage()),
            before - 1,
            "released on error"
        );
    };
    check(&|t| t.device.device_type = 2, "not the CPU");
    check(&|t| t.dtype.bits = 12, "not supported");
    check(&|t| t.byte_offset = 2, "not aligned");
    check(&|t| t.ndim = -1, "ndim -1");
    static NEG: [i64; 2] = [-1, 1];
    check(&|t| t.strides = NEG.as_ptr(), "negative stride");
    static HUGE: [i64; 2] = [i64::MAX, 3];
    check(&|t| t.shape = HUGE.as_ptr(), "overflow");
    // SAFETY: NULL is rejected before any read.
    assert!(unsafe { adopt(std::ptr::null_mut(), Box::new(())) }.is_err());
}
