//! The Rust interface Dynamo codes against: recognising op callables, generic binding, reading
//! tensors from Python objects, and error mapping.

use rynamo::vm::AsObject;
use rynamo_graph::{Error, Op, TensorMeta, Value};
use rynamo_shims::{
    PyTensor, Surface, as_tensor, bind_overload, op_function, py_to_index, py_to_value, to_py_err,
    wrap_tensor,
};
use rynamo_tensor::{DType, IndexItem, Tensor};

use crate::harness::Py;

#[test]
fn op_function_recognises_registry_callables() {
    let py = Py::new();
    py.out("import math\nclass C:\n    f = torch.add\n");
    let found =
        |expr: &str| -> Option<(String, Vec<Op>, Surface)> {
            py.interp
                .with_vm(|vm, scope| {
                    let eval = vm.builtins.as_object().get_attr("eval", vm)?;
                    let obj = eval.call((expr.to_owned(), scope.globals.clone()), vm)?;
                    Ok(op_function(&obj)
                        .map(|f| (f.name.to_string(), f.overloads.to_vec(), f.surface)))
                })
                .expect("evaluates")
        };
    assert_eq!(
        found("torch.add"),
        Some(("add".into(), vec![Op::Add], Surface::Function))
    );
    assert_eq!(
        found("torch.max"),
        Some((
            "max".into(),
            vec![Op::MaxOther, Op::Max, Op::MaxDim],
            Surface::Function
        ))
    );
    assert_eq!(
        found("F.relu"),
        Some(("relu".into(), vec![Op::Relu], Surface::NnFunctional))
    );
    assert_eq!(
        found("torch.Tensor.view"),
        Some((
            "view".into(),
            vec![Op::View, Op::ViewDtype],
            Surface::Method
        ))
    );
    // A function stored on a class is not bound to instances (unlike a method).
    assert_eq!(
        found("C().f"),
        Some(("add".into(), vec![Op::Add], Surface::Function))
    );
    assert_eq!(found("math.sin"), None);
    assert_eq!(
        found("torch.ones(1).add"),
        None,
        "a bound method is not the op"
    );
}

#[test]
fn bind_overload_is_generic_over_the_tensor_stand_in() {
    let m = TensorMeta::contiguous(DType::Float32, &[2, 3]);
    let ops = [Op::MaxOther, Op::Max, Op::MaxDim];
    let (op, args) = bind_overload(&ops, vec![Value::Tensor(m.clone()), Value::Int(1)], vec![])
        .expect("binds max.dim");
    assert_eq!(op, Op::MaxDim);
    assert_eq!(
        args,
        vec![Value::Tensor(m.clone()), Value::Int(1), Value::Bool(false)]
    );
    let (op, _) = bind_overload(&ops, vec![Value::Tensor(m.clone())], vec![]).expect("binds max");
    assert_eq!(op, Op::Max);
    // `input=` binds to `self`, as in PyTorch's Python signatures.
    let (op, args) = bind_overload(
        &[Op::Relu],
        vec![],
        vec![("input".to_string(), Value::Tensor(m.clone()))],
    )
    .expect("binds relu(input=)");
    assert_eq!((op, args), (Op::Relu, vec![Value::Tensor(m.clone())]));
    // Trailing ints pack into an int list (`x.view(3, 2)`).
    let (_, args) = bind_overload(
        &[Op::View],
        vec![Value::Tensor(m.clone()), Value::Int(3), Value::Int(2)],
        vec![],
    )
    .expect("binds view");
    assert_eq!(args[1], Value::IntList(vec![3, 2]));
    let err = bind_overload::<TensorMeta>(&ops, vec![Value::Str("x".into())], vec![])
        .expect_err("no overload");
    assert!(matches!(err, Error::Bind(_)), "{err:?}");
    assert!(
        err.to_string()
            .starts_with("max() received an invalid combination of arguments - got (str)"),
        "{err}"
    );
}

#[test]
fn tensors_cross_without_copies() {
    let py = Py::new();
    let t = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).expect("3 values");
    py.set_tensor("x", t.clone());
    py.out("x.mul_(10)\ny = x[1:]\nx.requires_grad_()\n");
    // The Python object holds an alias: the in-place op is visible from Rust.
    assert_eq!(t.to_vec::<f32>(), vec![10.0, 20.0, 30.0]);
    let y = &py.tensors("y")[0];
    assert!(y.shares_storage(&t));
    py.interp
        .with_vm(|vm, scope| {
            let x = scope.globals.get_item("x", vm)?;
            let pt = x.downcast_ref::<PyTensor>().expect("a torch.Tensor");
            assert!(pt.requires_grad());
            assert_eq!(pt.meta(), TensorMeta::contiguous(DType::Float32, &[3]));
            pt.set_tensor(Tensor::zeros(&[2, 2], DType::Int64));
            assert!(as_tensor(vm.ctx.new_int(1).as_object()).is_none());
            let w = wrap_tensor(Tensor::ones(&[1], DType::Bool), vm);
            scope.globals.set_item("w", w, vm)?;
            Ok(())
        })
        .expect("runs");
    assert_eq!(
        py.out("print(x.shape, x.dtype, x.requires_grad, w)").trim(),
        "torch.Size([2, 2]) torch.int64 True tensor([True])"
    );
}

#[test]
fn python_values_convert_to_op_arguments() {
    let py = Py::new();
    py.interp
        .with_vm(|vm, _| {
            let conv = |src: &str| -> rynamo::vm::PyResult<String> {
                let obj = vm
                    .builtins
                    .as_object()
                    .get_attr("eval", vm)?
                    .call((src.to_owned(), vm.ctx.new_dict()), vm)?;
                Ok(format!("{:?}", py_to_value(&obj, vm)?))
            };
            assert_eq!(conv("3")?, "Int(3)");
            assert_eq!(conv("True")?, "Bool(true)");
            assert_eq!(conv("2.5")?, "Float(2.5)");
            assert_eq!(conv("None")?, "None");
            assert_eq!(conv("'mean'")?, "Str(\"mean\")");
            assert_eq!(conv("(2, 3)")?, "IntList([2, 3])");
            assert_eq!(conv("[]")?, "IntList([])");
            assert_eq!(conv("__import__('torch').float64")?, "DType(Float64)");
            assert_eq!(conv("__import__('torch').Size([4])")?, "IntList([4])");
            assert!(conv("[1.5]").is_err());
            assert!(conv("2 ** 70").is_err());
            Ok(())
        })
        .expect("conversions");
    py.out("t = torch.ones(2)\nkey = (0, slice(1, None, 2), None, ..., True, [1, 0])\n");
    py.interp
        .with_vm(|vm, scope| {
            let key = scope.globals.get_item("key", vm)?;
            let Value::Index(items) = py_to_index(&key, vm)? else {
                panic!("an index value");
            };
            assert_eq!(items.len(), 6);
            // Tensors have no `PartialEq`; compare the items' debug text.
            let text: Vec<String> = items[..5].iter().map(|i| format!("{i:?}")).collect();
            assert_eq!(
                text,
                [
                    "Int(0)",
                    "Slice { start: Some(1), stop: None, step: Some(2) }",
                    "None",
                    "Ellipsis",
                    "Bool(true)"
                ]
            );
            assert!(matches!(&items[5], IndexItem::Tensor(t) if t.to_vec::<i64>() == vec![1, 0]));
            let t = scope.globals.get_item("t", vm)?;
            let Value::TensorList(ts) =
                py_to_value(vm.ctx.new_list(vec![t.clone(), t]).as_object(), vm)?
            else {
                panic!("a tensor list");
            };
            assert_eq!(ts.len(), 2);
            Ok(())
        })
        .expect("index conversion");
}

#[test]
fn errors_map_to_python_exception_classes() {
    let py = Py::new();
    py.interp.enter(|vm| {
        let class = |e: Error| to_py_err(&e, vm).class().name().to_string();
        use rynamo_tensor::Error as TE;
        assert_eq!(class(Error::Bind("x".into())), "TypeError");
        assert_eq!(
            class(Error::Tensor(TE::Runtime("x".into()))),
            "RuntimeError"
        );
        assert_eq!(
            class(Error::Tensor(TE::IndexOutOfBounds {
                index: 3,
                dim: 0,
                size: 2
            })),
            "IndexError"
        );
        assert_eq!(class(Error::Tensor(TE::Value("x".into()))), "ValueError");
        assert_eq!(class(Error::Tensor(TE::Type("x".into()))), "TypeError");
        assert_eq!(
            class(Error::Tensor(TE::NotImplemented("x".into()))),
            "NotImplementedError"
        );
        let e = to_py_err(&Error::Tensor(TE::ViewIncompatible), vm);
        let msg = e.as_object().str(vm).expect("str").to_string();
        assert!(msg.starts_with("view size is not compatible"), "{msg}");
    });
}
