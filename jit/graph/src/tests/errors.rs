//! Bad input, per op family: the error kind (the Python exception class) and PyTorch's wording,
//! from both the eager kernel and the meta rule, and never a panic.

use rynamo_tensor::{DType, ErrorKind, Tensor};

use crate::{Error, IValue, MetaValue, Op, Value, registry};

pub(super) fn t(shape: &[usize], dt: DType) -> IValue {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n).map(|i| (i % 7) as f64 - 2.0).collect();
    Value::Tensor(Tensor::from_vec(v, shape).unwrap().to_dtype(dt))
}
pub(super) fn f(shape: &[usize]) -> IValue {
    t(shape, DType::Float32)
}
pub(super) fn l(v: &[i64]) -> IValue {
    Value::Tensor(Tensor::from_vec(v.to_vec(), &[v.len()]).unwrap())
}

/// Binds and runs `op`, expecting failure from both the kernel and the meta rule.
#[track_caller]
pub(super) fn fails(op: Op, pos: Vec<IValue>, kw: Vec<(&str, IValue)>, kind: ErrorKind, msg: &str) {
    let kw = kw.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    let e: Error = match op.schema().bind(pos, kw) {
        Err(e) => e,
        Ok(args) => {
            let metas: Vec<MetaValue> = args
                .iter()
                .map(|a| a.try_map(|t| Ok::<_, ()>(t.meta())).unwrap())
                .collect();
            let m = registry::meta(op, &metas);
            let e = registry::call(op, &args).expect_err("the call must fail");
            if let Err(me) = m {
                assert_eq!(
                    me.kind(),
                    e.kind(),
                    "{op}: meta error `{me}` vs eager `{e}`"
                );
            } else {
                // Only value-dependent checks (bounds, zero divisors) may pass the meta rule.
                assert!(
                    matches!(e.kind(), ErrorKind::Index | ErrorKind::Runtime),
                    "{op}: meta accepted, eager failed with {e}"
                );
            }
            e
        }
    };
    assert_eq!(e.kind(), kind, "{op}: `{e}`");
    assert!(e.to_string().contains(msg), "{op}: `{e}` lacks `{msg}`");
}

pub(super) use ErrorKind::{Index, NotImplemented, Runtime, Type, Value as ValueErr};

#[test]
fn pointwise() {
    fails(
        Op::Add,
        vec![f(&[2, 3]), f(&[4])],
        vec![],
        Runtime,
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1",
    );
    fails(
        Op::Sub,
        vec![t(&[2], DType::Bool), t(&[2], DType::Bool)],
        vec![],
        Runtime,
        "Subtraction, the `-` operator, with two bool tensors is not supported",
    );
    fails(
        Op::Neg,
        vec![t(&[2], DType::Bool)],
        vec![],
        NotImplemented,
        "Negation, the `-` operator, on a bool tensor",
    );
    fails(
        Op::BitwiseAnd,
        vec![f(&[2]), f(&[2])],
        vec![],
        NotImplemented,
        "\"bitwise_and_cpu\" not implemented for 'Float'",
    );
    fails(
        Op::Silu,
        vec![t(&[2], DType::Int64)],
        vec![],
        NotImplemented,
        "\"silu_cpu\" not implemented for 'Long'",
    );
    fails(
        Op::FloorDivide,
        vec![t(&[2], DType::Int64), Value::Int(0)],
        vec![],
        Runtime,
        "ZeroDivisionError",
    );
    fails(
        Op::Pow,
        vec![t(&[2], DType::Int64), Value::Int(-1)],
        vec![],
        Runtime,
        "Integers to negative integer powers are not allowed.",
    );
    fails(
        Op::Add,
        vec![t(&[2], DType::Int64), t(&[2], DType::Int32)],
        vec![("alpha", Value::Float(0.5))],
        Runtime,
        "For integral input tensors, argument alpha must not be a floating point number.",
    );
    fails(
        Op::Add,
        vec![Value::Int(1), Value::Int(2)],
        vec![],
        Type,
        "at least one argument must be a Tensor",
    );
    fails(
        Op::Div,
        vec![f(&[2]), f(&[2])],
        vec![("rounding_mode", Value::Str("up".into()))],
        ValueErr,
        "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'up'",
    );
    fails(
        Op::Where,
        vec![f(&[2]), f(&[2]), f(&[2])],
        vec![],
        Runtime,
        "where expected condition to be a boolean tensor",
    );
    fails(
        Op::Clamp,
        vec![f(&[2])],
        vec![],
        Runtime,
        "At least one of 'min' or 'max' must not be None",
    );
    fails(
        Op::Lerp,
        vec![f(&[2]), t(&[2], DType::Float64), Value::Float(0.5)],
        vec![],
        Runtime,
        "expected dtype float for `end` but got dtype double",
    );
    fails(
        Op::Addcdiv,
        vec![f(&[2]), t(&[2], DType::Int64), t(&[2], DType::Int64)],
        vec![],
        Runtime,
        "Integer division with addcdiv is no longer supported",
    );
    fails(
        Op::Gelu,
        vec![f(&[2])],
        vec![("approximate", Value::Str("fast".into()))],
        Runtime,
        "approximate argument must be either none or tanh.",
    );
    fails(
        Op::MaskedFill,
        vec![f(&[2]), f(&[2]), Value::Float(1.0)],
        vec![],
        Runtime,
        "only supports boolean masks",
    );
}

#[test]
fn in_place() {
    fails(
        Op::Add_,
        vec![f(&[3]), f(&[2, 3])],
        vec![],
        Runtime,
        "output with shape [3] doesn't match the broadcast shape [2, 3]",
    );
    fails(
        Op::Mul_,
        vec![t(&[2], DType::Int64), Value::Float(1.5)],
        vec![],
        Runtime,
        "result type Float can't be cast to the desired output type Long",
    );
    fails(
        Op::Exp_,
        vec![t(&[2], DType::Int32)],
        vec![],
        Runtime,
        "result type Float can't be cast to the desired output type Int",
    );
    let Value::Tensor(x) = f(&[1, 3]) else {
        unreachable!()
    };
    let expanded = Value::Tensor(x.expand(&[2, 3]).unwrap());
    fails(
        Op::Add_,
        vec![expanded.clone(), Value::Int(1)],
        vec![],
        Runtime,
        "more than one element of the written-to tensor refers to a single memory location",
    );
    // `fill_` is idempotent, so ATen lets it write an expanded tensor (as `zero_`).
    for (op, pos) in [
        (Op::Fill_, vec![expanded.clone(), Value::Int(1)]),
        (Op::Zero_, vec![expanded]),
    ] {
        let args = op.schema().bind(pos, vec![]).expect("binds");
        registry::call(op, &args).unwrap_or_else(|e| panic!("{op} of an expanded tensor: {e}"));
    }
    // An input partially overlapping the destination: the first write would change a later read.
    let Value::Tensor(a) = f(&[5]) else {
        unreachable!()
    };
    let (head, tail) = (a.narrow(0, 0, 4).unwrap(), a.narrow(0, 1, 4).unwrap());
    fails(
        Op::Add_,
        vec![Value::Tensor(tail.clone()), Value::Tensor(head.clone())],
        vec![],
        Runtime,
        "some elements of the input tensor and the written-to tensor refer to a single memory location",
    );
    fails(
        Op::Copy_,
        vec![Value::Tensor(head), Value::Tensor(tail)],
        vec![],
        Runtime,
        "refer to a single memory location",
    );
    fails(
        Op::Fill_,
        vec![f(&[2]), f(&[2])],
        vec![],
        Runtime,
        "fill_ only supports 0-dimension value tensor",
    );
    fails(
        Op::Copy_,
        vec![f(&[2, 3]), f(&[4])],
        vec![],
        Runtime,
        "The size of tensor a (3) must match the size of tensor b (4)",
    );
    fails(
        Op::IndexPut_,
        vec![
            f(&[3]),
            Value::TensorList(vec![Tensor::from_vec(vec![5i64], &[1]).unwrap()]),
            f(&[1]),
        ],
        vec![],
        Index,
        "index 5 is out of bounds for dimension 0 with size 3",
    );
    fails(
        Op::Scatter_,
        vec![f(&[3]), Value::Int(0), l(&[0]), t(&[1], DType::Float64)],
        vec![],
        Runtime,
        "scatter(): Expected self.dtype to be equal to src.dtype",
    );
}

#[test]
fn reductions() {
    fails(
        Op::Sum,
        vec![f(&[2, 3]), Value::Int(2)],
        vec![],
        Index,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
    );
    fails(
        Op::Sum,
        vec![f(&[2, 3]), Value::IntList(vec![0, 0])],
        vec![],
        Runtime,
        "dim 0 appears multiple times in the list of dims",
    );
    fails(
        Op::Mean,
        vec![t(&[2], DType::Int64)],
        vec![],
        NotImplemented,
        "mean(): could not infer output dtype",
    );
    fails(
        Op::Amax,
        vec![f(&[0, 3]), Value::Int(0)],
        vec![],
        Index,
        "amax(): Expected reduction dim 0 to have non-zero size.",
    );
    fails(
        Op::Max,
        vec![f(&[0])],
        vec![],
        Runtime,
        "max(): Expected reduction dim to be specified for input.numel() == 0.",
    );
    fails(
        Op::Var,
        vec![f(&[3])],
        vec![
            ("unbiased", Value::Bool(true)),
            ("correction", Value::Int(1)),
        ],
        Runtime,
        "Cannot pass both unbiased and correction arguments",
    );
    fails(
        Op::Norm,
        vec![t(&[3], DType::Int64)],
        vec![],
        Runtime,
        "linalg.vector_norm: Expected a floating point",
    );
    fails(
        Op::Softmax,
        vec![t(&[3], DType::Int64), Value::Int(0)],
        vec![],
        NotImplemented,
        "not implemented for 'Long'",
    );
    fails(
        Op::Cumsum,
        vec![f(&[3]), Value::Int(1)],
        vec![],
        Index,
        "Dimension out of range",
    );
    fails(
        Op::Cummax,
        vec![f(&[3]), Value::Int(1)],
        vec![],
        Index,
        "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
    );
    fails(
        Op::Cummin,
        vec![f(&[2, 3]), Value::Int(-3)],
        vec![],
        Index,
        "Dimension out of range (expected to be in range of [-2, 1], but got -3)",
    );
    fails(
        Op::Logcumsumexp,
        vec![t(&[3], DType::Int64), Value::Int(0)],
        vec![],
        NotImplemented,
        "\"logcumsumexp_out_cpu\" not implemented for 'Long'",
    );
    fails(
        Op::Logcumsumexp,
        vec![t(&[3], DType::Int64), Value::Int(1)],
        vec![],
        Index,
        "Dimension out of range",
    );
    fails(
        Op::Topk,
        vec![f(&[3]), Value::Int(4)],
        vec![],
        Runtime,
        "selected index k out of range",
    );
    fails(
        Op::Sort,
        vec![f(&[3]), Value::Int(-2)],
        vec![],
        Index,
        "Dimension out of range",
    );
}

#[test]
fn linear_algebra() {
    fails(
        Op::Matmul,
        vec![f(&[2, 3]), f(&[4, 5])],
        vec![],
        Runtime,
        "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)",
    );
    fails(
        Op::Matmul,
        vec![f(&[]), f(&[3])],
        vec![],
        Runtime,
        "both arguments to matmul need to be at least 1D, but they are 0D and 1D",
    );
    fails(
        Op::Mm,
        vec![f(&[2, 3]), t(&[3, 2], DType::Float64)],
        vec![],
        Runtime,
        "expected m1 and m2 to have the same dtype, but got: float != double",
    );
    fails(
        Op::Bmm,
        vec![f(&[2, 3]), f(&[2, 3, 4])],
        vec![],
        Runtime,
        "batch1 must be a 3D tensor",
    );
    fails(
        Op::Dot,
        vec![f(&[3]), f(&[4])],
        vec![],
        Runtime,
        "inconsistent tensor size",
    );
    fails(
        Op::Dot,
        vec![f(&[3, 1]), f(&[3])],
        vec![],
        Runtime,
        "1D tensors expected, but got 2D and 1D tensors",
    );
    fails(
        Op::Outer,
        vec![f(&[3, 1]), f(&[3])],
        vec![],
        Runtime,
        "outer: Expected 1-D argument self, but got 2-D",
    );
    fails(
        Op::Baddbmm,
        vec![f(&[2, 2, 2]), f(&[2, 2, 3]), f(&[3, 3, 2])],
        vec![],
        Runtime,
        "batch1 and batch2 must have same number of batches, got 2 and 3",
    );
    let ein = |eq: &str, ts: Vec<IValue>| {
        let mut v = vec![Value::Str(eq.into())];
        v.extend(ts);
        v
    };
    fails(
        Op::Einsum,
        ein("ij,jk->ik", vec![f(&[2, 3]), f(&[4, 5])]),
        vec![],
        Runtime,
        "einsum(): subscript j has size 4 for operand 1 which does not broadcast with previously seen size 3",
    );
    fails(
        Op::Einsum,
        ein("ij->ik", vec![f(&[2, 3])]),
        vec![],
        Runtime,
        "einsum(): output subscript k does not appear in the equation for any input operand",
    );
    fails(
        Op::Einsum,
        ein("ijk", vec![f(&[2, 3])]),
        vec![],
        Runtime,
        "einsum(): the number of subscripts in the equation (3) does not match the number of dimensions (2)",
    );
    fails(
        Op::Einsum,
        ein("ij,jk", vec![f(&[2, 3])]),
        vec![],
        Runtime,
        "einsum(): fewer operands were provided",
    );
}
