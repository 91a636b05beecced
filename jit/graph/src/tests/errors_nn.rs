//! Bad input, continued: shapes and indexing, creation and binding, neural-network ops.

use rynamo_tensor::{DType, IndexItem, Tensor};

use super::errors::{Index, NotImplemented, Runtime, Type, ValueErr, f, fails, l, t};
use crate::{IValue, Op, Value};

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
        vec![f(&[3]), Value::Int(0), t(&[2], DType::Int16)],
        vec![],
        Runtime,
        "gather(): Expected dtype int32/int64 for index",
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
        "Size does not match at dimension 1 expected index [1, 3] to be no larger than self [2, 2] apart from dimension 0",
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
        NotImplemented,
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
    // PyTorch 2.15 computes the integer dtypes but not Bool, and names the dtype before it
    // compares the weight's with it.
    fails(
        Op::Conv2d,
        conv(t(&[1, 3, 5, 5], DType::Bool), f(&[8, 3, 3, 3])),
        vec![],
        NotImplemented,
        "\"slow_conv2d_cpu\" not implemented for 'Bool'",
    );
    fails(
        Op::Conv2d,
        conv(
            t(&[1, 3, 5, 5], DType::Int32),
            t(&[8, 3, 3, 3], DType::Int64),
        ),
        vec![],
        Runtime,
        "expected scalar type Int but found Long",
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
        "Expected more than 1 value per channel when training, got input size torch.Size([1, 3])",
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
}
