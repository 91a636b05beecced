//! Bad input, per op family: the error kind (the Python exception class) and PyTorch's wording,
//! from both the eager kernel and the meta rule, and never a panic.

use rynamo_tensor::{DType, ErrorKind, IndexItem, Scalar, Tensor};

use crate::{Error, IValue, MetaValue, Op, Value, registry};

fn t(shape: &[usize], dt: DType) -> IValue {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n).map(|i| (i % 7) as f64 - 2.0).collect();
    Value::Tensor(Tensor::from_vec(v, shape).unwrap().to_dtype(dt))
}
fn f(shape: &[usize]) -> IValue {
    t(shape, DType::Float32)
}
fn l(v: &[i64]) -> IValue {
    Value::Tensor(Tensor::from_vec(v.to_vec(), &[v.len()]).unwrap())
}

/// Binds and runs `op`, expecting failure from both the kernel and the meta rule.
#[track_caller]
fn fails(op: Op, pos: Vec<IValue>, kw: Vec<(&str, IValue)>, kind: ErrorKind, msg: &str) {
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

use ErrorKind::{Index, Runtime, Type, Value as ValueErr};

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
        Runtime,
        "Negation, the `-` operator, on a bool tensor",
    );
    fails(
        Op::BitwiseAnd,
        vec![f(&[2]), f(&[2])],
        vec![],
        Runtime,
        "\"bitwise_and_cpu\" not implemented for 'Float'",
    );
    fails(
        Op::Silu,
        vec![t(&[2], DType::Int64)],
        vec![],
        Runtime,
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
    fails(
        Op::Fill_,
        vec![expanded, Value::Int(1)],
        vec![],
        Runtime,
        "single memory location",
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
        Runtime,
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
        Runtime,
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
        "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)",
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
        "expected mat1 and mat2 to have the same dtype, but got: float != double",
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

#[test]
fn shapes_and_indexing() {
    fails(
        Op::View,
        vec![f(&[2, 3]), Value::IntList(vec![4, 2])],
        vec![],
        Runtime,
        "shape '[4, 2]' is invalid for input of size 6",
    );
    let Value::Tensor(x) = f(&[2, 3]) else {
        unreachable!()
    };
    fails(
        Op::View,
        vec![Value::Tensor(x.t().unwrap()), Value::IntList(vec![6])],
        vec![],
        Runtime,
        "view size is not compatible with input tensor's size and stride",
    );
    fails(
        Op::Cat,
        vec![Value::TensorList(vec![
            x.clone(),
            Tensor::zeros(&[2, 4, 1], DType::Float32),
        ])],
        vec![],
        Runtime,
        "Tensors must have same number of dimensions: got 2 and 3",
    );
    fails(
        Op::Stack,
        vec![Value::TensorList(vec![])],
        vec![],
        Runtime,
        "stack expects a non-empty TensorList",
    );
    fails(
        Op::Select,
        vec![f(&[3]), Value::Int(0), Value::Int(5)],
        vec![],
        Index,
        "index 5 is out of bounds for dimension 0 with size 3",
    );
    fails(
        Op::GetItem,
        vec![
            f(&[3]),
            Value::Index(vec![IndexItem::Int(0), IndexItem::Int(0)]),
        ],
        vec![],
        Index,
        "too many indices for tensor of dimension 1",
    );
    fails(
        Op::GetItem,
        vec![
            f(&[3]),
            Value::Index(vec![IndexItem::Tensor(
                Tensor::from_vec(vec![3i64], &[1]).unwrap(),
            )]),
        ],
        vec![],
        Index,
        "index 3 is out of bounds for dimension 0 with size 3",
    );
    fails(
        Op::GetItem,
        vec![
            f(&[3]),
            Value::Index(vec![IndexItem::Tensor(Tensor::zeros(&[1], DType::Float32))]),
        ],
        vec![],
        Index,
        "tensors used as indices must be long, int, byte or bool tensors",
    );
    fails(
        Op::Gather,
        vec![f(&[3]), Value::Int(0), t(&[2], DType::Int32)],
        vec![],
        Runtime,
        "gather(): Expected dtype int64 for index",
    );
    fails(
        Op::Gather,
        vec![f(&[3]), Value::Int(0), l(&[3])],
        vec![],
        Runtime,
        "index 3 is out of bounds for dimension 0 with size 3",
    );
    fails(
        Op::Gather,
        vec![
            f(&[2, 2]),
            Value::Int(0),
            Value::Tensor(Tensor::zeros(&[1, 3], DType::Int64)),
        ],
        vec![],
        Runtime,
        "Size does not match at dimension 1 expected index [1, 3] to be smaller than self [2, 2] apart from dimension 0",
    );
    fails(
        Op::IndexSelect,
        vec![f(&[3]), Value::Int(0), l(&[7])],
        vec![],
        Index,
        "index out of range in self",
    );
    fails(
        Op::Repeat,
        vec![f(&[2, 3]), Value::IntList(vec![2])],
        vec![],
        Runtime,
        "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor",
    );
    fails(
        Op::Tril,
        vec![f(&[3])],
        vec![],
        Runtime,
        "tril: input tensor must have at least 2 dimensions",
    );
    fails(
        Op::Flip,
        vec![f(&[3]), Value::IntList(vec![0, 0])],
        vec![],
        Runtime,
        "dim 0 appears multiple times",
    );
    fails(
        Op::Roll,
        vec![f(&[3]), Value::IntList(vec![1, 2])],
        vec![],
        Runtime,
        "shifts and dimensions must align",
    );
    fails(
        Op::Unbind,
        vec![f(&[])],
        vec![],
        Index,
        "Dimension specified as 0 but tensor has no dimensions",
    );
    fails(
        Op::Split,
        vec![f(&[3]), Value::Int(-1)],
        vec![],
        Runtime,
        "split expects split_size be non-negative",
    );
}

#[test]
fn creation_and_binding() {
    fails(
        Op::Zeros,
        vec![Value::IntList(vec![2, -1])],
        vec![],
        Runtime,
        "Trying to create tensor with negative dimension -1",
    );
    fails(
        Op::Arange,
        vec![Value::Int(0), Value::Int(3), Value::Int(0)],
        vec![],
        Runtime,
        "step must be nonzero",
    );
    fails(
        Op::Arange,
        vec![Value::Int(5), Value::Int(0), Value::Int(1)],
        vec![],
        Runtime,
        "upper bound and larger bound inconsistent with step sign",
    );
    fails(
        Op::RandintLow,
        vec![Value::Int(3), Value::Int(3), Value::IntList(vec![2])],
        vec![],
        Runtime,
        "random_ expects 'from' to be less than 'to', but got from=3 >= to=3",
    );
    fails(
        Op::Rand,
        vec![Value::IntList(vec![2])],
        vec![("dtype", Value::DType(DType::Int64))],
        Runtime,
        "not implemented for 'Long'",
    );
    fails(
        Op::Add,
        vec![f(&[2])],
        vec![],
        Type,
        "add() missing 1 required positional argument: \"other\"",
    );
    fails(
        Op::Sum,
        vec![f(&[2])],
        vec![("axis", Value::Int(0))],
        Type,
        "sum() got an unexpected keyword argument 'axis'",
    );
    fails(
        Op::Transpose,
        vec![f(&[2, 2]), Value::Str("a".into()), Value::Int(0)],
        vec![],
        Type,
        "transpose(): argument 'dim0' (position 2) must be int, not str",
    );
}

#[test]
fn neural_network() {
    let conv = |x: IValue, w: IValue| vec![x, w];
    fails(
        Op::Conv2d,
        conv(f(&[1, 4, 5, 5]), f(&[8, 3, 3, 3])),
        vec![],
        Runtime,
        "Given groups=1, weight of size [8, 3, 3, 3], expected input[1, 4, 5, 5] to have 3 channels, but got 4 channels instead",
    );
    fails(
        Op::Conv2d,
        conv(f(&[2, 3]), f(&[8, 3, 3, 3])),
        vec![],
        Runtime,
        "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [2, 3]",
    );
    fails(
        Op::Conv2d,
        conv(f(&[1, 3, 2, 2]), f(&[8, 3, 3, 3])),
        vec![],
        Runtime,
        "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size can't be greater than actual input size",
    );
    fails(
        Op::Conv2d,
        conv(
            t(&[1, 3, 5, 5], DType::Int64),
            t(&[8, 3, 3, 3], DType::Int64),
        ),
        vec![],
        Runtime,
        "\"slow_conv2d_cpu\" not implemented for 'Long'",
    );
    fails(
        Op::Conv2dPadding,
        conv(f(&[1, 3, 5, 5]), f(&[8, 3, 3, 3])),
        vec![
            ("padding", Value::Str("same".into())),
            ("stride", Value::Int(2)),
        ],
        Runtime,
        "padding='same' is not supported for strided convolutions",
    );
    fails(
        Op::MaxPool2d,
        vec![
            f(&[1, 4, 4]),
            Value::Int(3),
            Value::IntList(vec![]),
            Value::Int(2),
        ],
        vec![],
        Runtime,
        "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and dilation=1",
    );
    fails(
        Op::MaxPool2d,
        vec![f(&[1, 2, 2]), Value::Int(3)],
        vec![],
        Runtime,
        "Output size is too small",
    );
    fails(
        Op::BatchNorm,
        vec![f(&[1, 3]), Value::None, Value::None],
        vec![("training", Value::Bool(true))],
        ValueErr,
        "Expected more than 1 value per channel when training, got input size [1, 3]",
    );
    fails(
        Op::BatchNorm,
        vec![f(&[2, 3]), f(&[2]), f(&[3])],
        vec![],
        Runtime,
        "running_mean should contain 3 elements not 2",
    );
    fails(
        Op::GroupNorm,
        vec![f(&[2, 6, 4]), Value::Int(4)],
        vec![],
        Runtime,
        "Expected number of channels in input to be divisible by num_groups, but got input of shape [2, 6, 4] and num_groups=4",
    );
    fails(
        Op::LayerNorm,
        vec![f(&[2, 3]), Value::IntList(vec![4])],
        vec![],
        Runtime,
        "Given normalized_shape=[4], expected input with shape [*, 4]",
    );
    fails(
        Op::CrossEntropy,
        vec![f(&[2, 3]), l(&[0, 5])],
        vec![],
        Index,
        "Target 5 is out of bounds.",
    );
    fails(
        Op::CrossEntropy,
        vec![f(&[2, 3]), l(&[0, 1, 2])],
        vec![],
        ValueErr,
        "Expected input batch_size (2) to match target batch_size (3).",
    );
    fails(
        Op::CrossEntropy,
        vec![f(&[3]), l(&[0, 1, 2])],
        vec![],
        Runtime,
        "Expected floating point type for target with class probabilities, got Long",
    );
    fails(
        Op::NllLoss,
        vec![f(&[2, 3]), t(&[2], DType::Int32)],
        vec![],
        Runtime,
        "expected scalar type Long but found Int",
    );
    fails(
        Op::MseLoss,
        vec![f(&[3]), f(&[3])],
        vec![("reduction", Value::Str("avg".into()))],
        ValueErr,
        "avg is not a valid value for reduction",
    );
    fails(
        Op::ScaledDotProductAttention,
        vec![
            f(&[2, 3, 4]),
            f(&[2, 3, 4]),
            f(&[2, 3, 4]),
            t(&[3, 3], DType::Bool),
        ],
        vec![("is_causal", Value::Bool(true))],
        Runtime,
        "Explicit attn_mask should not be set when is_causal=True",
    );
    fails(
        Op::Pad,
        vec![f(&[1, 1, 3]), Value::IntList(vec![3, 3])],
        vec![("mode", Value::Str("reflect".into()))],
        Runtime,
        "Padding size should be less than the corresponding input dimension",
    );
    fails(
        Op::Pad,
        vec![f(&[3]), Value::IntList(vec![1])],
        vec![],
        Runtime,
        "Padding length must be divisible by 2",
    );
    fails(
        Op::Embedding,
        vec![f(&[2]), f(&[4, 3])],
        vec![],
        Runtime,
        "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int",
    );
    fails(
        Op::Dropout,
        vec![f(&[2]), Value::Float(1.5)],
        vec![],
        ValueErr,
        "dropout probability has to be between 0 and 1, but got 1.5",
    );
    let _ = Scalar::Int(0);
}
