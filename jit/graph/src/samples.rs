//! A representative call of every registered op (Python-style positional and keyword arguments
//! with small deterministic tensors): the registry's own tests run each one eagerly against its
//! meta rule, and the plugin conformance suite builds its one-node graphs from them.

use rynamo_tensor::{DType, IndexItem, Tensor, random};

use crate::{IValue, Op, Value, registry};

fn f32s(shape: &[usize]) -> Tensor {
    random::randn(
        shape,
        None,
        Some(&random::Generator::new(shape.iter().sum::<usize>() as u64)),
    )
    .expect("invariant: sample tensors have valid shapes")
}

/// A host callee for the `host_call` sample: negates its one input.
struct Negate(Vec<rynamo_tensor::TensorMeta>);

impl crate::host::HostCallee for Negate {
    fn name(&self) -> &str {
        "negate"
    }
    fn output_metas(&self) -> &[rynamo_tensor::TensorMeta] {
        &self.0
    }
    fn call(&self, inputs: &[Tensor]) -> crate::Result<Vec<Tensor>> {
        registry::call(Op::Neg, &[Value::Tensor(inputs[0].clone())])
    }
}

fn t(x: &Tensor) -> IValue {
    Value::Tensor(x.clone())
}

/// A diagonally dominant 3x3 matrix: invertible, well conditioned.
fn well_conditioned() -> Tensor {
    Tensor::from_vec(
        vec![2.0f32, 0.5, -0.3, 0.4, 1.5, 0.2, -0.1, 0.6, 1.8],
        &[3, 3],
    )
    .expect("invariant: sample tensors have valid shapes")
}

/// A symmetric positive-definite 3x3 matrix with distinct eigenvalues.
fn spd() -> Tensor {
    Tensor::from_vec(
        vec![3.0f32, 0.5, -0.4, 0.5, 2.0, 0.3, -0.4, 0.3, 1.2],
        &[3, 3],
    )
    .expect("invariant: sample tensors have valid shapes")
}

/// Python-style positional and keyword arguments for a representative call of `op`.
pub fn sample(op: Op) -> (Vec<IValue>, Vec<(String, IValue)>) {
    let x = f32s(&[2, 3]);
    let pos = f32s(&[2, 3])
        .to_vec::<f32>()
        .iter()
        .map(|v| v.abs() + 0.5)
        .collect::<Vec<_>>();
    let xp = Tensor::from_vec(pos, &[2, 3]).expect("invariant: sample tensors have valid shapes");
    let y = f32s(&[3]);
    let ints = Tensor::from_vec(vec![3i64, -2, 5, 7, 0, 1], &[2, 3])
        .expect("invariant: sample tensors have valid shapes");
    let mask = Tensor::from_vec(vec![true, false, true, false, true, true], &[2, 3])
        .expect("invariant: sample tensors have valid shapes");
    let kw = |k: &str, v: IValue| vec![(k.to_string(), v)];
    use Op::*;
    use Value as V;
    let (p, k): (Vec<IValue>, Vec<(String, IValue)>) = match op {
        Log | Log2 | Log10 | Sqrt | Rsqrt | Reciprocal => (vec![t(&xp)], vec![]),
        Asin | Acos => (vec![t(&xp.to_dtype(DType::Float64))], vec![]),
        LogicalNot | BitwiseNot => (vec![t(&ints)], vec![]),
        LeakyRelu => (vec![t(&x), V::Float(0.2)], vec![]),
        Gelu => (vec![t(&x)], kw("approximate", V::Str("tanh".into()))),
        Round => (vec![t(&x)], kw("decimals", V::Int(2))),
        NanToNum => (vec![t(&x), V::Float(0.0)], vec![]),
        Clamp | Clip | Clamp_ => (vec![t(&x), V::Float(-0.5), V::Float(0.5)], vec![]),
        Add | Sub => (vec![t(&x), t(&y)], kw("alpha", V::Int(2))),
        Add_ | Sub_ => (vec![t(&x.deep_clone()), t(&y)], kw("alpha", V::Float(0.5))),
        Mul_ => (vec![t(&x.deep_clone()), V::Int(3)], vec![]),
        Div_ => (vec![t(&x.deep_clone()), t(&xp)], vec![]),
        Div => (
            vec![t(&ints), V::Int(2)],
            kw("rounding_mode", V::Str("floor".into())),
        ),
        FloorDivide | Remainder => (vec![t(&ints), V::Int(-3)], vec![]),
        Pow => (vec![t(&xp), V::Float(1.5)], vec![]),
        BitwiseAnd | BitwiseOr | BitwiseXor => (vec![t(&ints), V::Int(6)], vec![]),
        LogicalAnd | LogicalOr | LogicalXor => (vec![t(&mask), V::Bool(true)], vec![]),
        Where => (vec![t(&mask), t(&x), V::Float(0.0)], vec![]),
        MaskedFill => (vec![t(&x), t(&mask), V::Float(-1.0)], vec![]),
        MaskedFill_ => (vec![t(&x.deep_clone()), t(&mask), V::Float(-1.0)], vec![]),
        Copy_ => (
            vec![t(&Tensor::zeros(&[2, 3], DType::Int32)), t(&y)],
            vec![],
        ),
        Zero_ => (vec![t(&x.deep_clone())], vec![]),
        Fill_ => (vec![t(&x.deep_clone()), V::Int(4)], vec![]),
        SetItem => (
            vec![
                t(&x.deep_clone()),
                V::Index(vec![IndexItem::Tensor(mask.clone())]),
                V::Float(9.0),
            ],
            vec![],
        ),
        Sum | Mean => (
            vec![t(&x), V::IntList(vec![0, 1])],
            kw("keepdim", V::Bool(true)),
        ),
        Prod | Argmax | Argmin => (vec![t(&x), V::Int(1)], vec![]),
        All | Any => (vec![t(&mask), V::Int(0)], vec![]),
        Amax | Amin | LogSumExp => (vec![t(&x), V::Int(-1)], vec![]),
        MaxDim | MinDim => (vec![t(&x), V::Int(1), V::Bool(true)], vec![]),
        Var | Std => (vec![t(&x), V::Int(1)], kw("correction", V::Int(0))),
        Softmax | LogSoftmax => (vec![t(&x), V::Int(-1)], vec![]),
        Matmul | Mm => (vec![t(&x), t(&f32s(&[3, 4]))], vec![]),
        Bmm => (vec![t(&f32s(&[2, 2, 3])), t(&f32s(&[2, 3, 2]))], vec![]),
        Addmm => (
            vec![
                t(&y),
                t(&x.t().expect("invariant: sample tensors have valid shapes")),
                t(&x),
            ],
            kw("beta", V::Float(0.5)),
        ),
        Linear => (vec![t(&x), t(&f32s(&[4, 3])), t(&f32s(&[4]))], vec![]),
        View | Reshape => (vec![t(&x), V::Int(3), V::Int(-1)], vec![]),
        ViewDtype => (vec![t(&x), V::DType(DType::Int32)], vec![]),
        Permute => (vec![t(&x), V::Int(1), V::Int(0)], vec![]),
        Transpose => (vec![t(&x), V::Int(0), V::Int(-1)], vec![]),
        Expand => (vec![t(&y), V::Int(4), V::Int(-1)], vec![]),
        Slice => (
            vec![t(&x), V::Int(1), V::Int(1), V::None, V::Int(1)],
            vec![],
        ),
        Select => (vec![t(&x), V::Int(1), V::Int(-1)], vec![]),
        Narrow => (vec![t(&x), V::Int(1), V::Int(1), V::Int(2)], vec![]),
        Unsqueeze => (vec![t(&x), V::Int(-1)], vec![]),
        Squeeze => (vec![t(&f32s(&[1, 3, 1]))], vec![]),
        Unflatten => (vec![t(&x), V::Int(1), V::IntList(vec![3, 1])], vec![]),
        Flatten => (
            vec![t(&x
                .t()
                .expect("invariant: sample tensors have valid shapes"))],
            vec![],
        ),
        AsStrided => (
            vec![t(&x), V::IntList(vec![2, 2]), V::IntList(vec![1, 2])],
            vec![],
        ),
        Diagonal => (vec![t(&x), V::Int(1)], vec![]),
        Contiguous => (
            vec![t(&x
                .t()
                .expect("invariant: sample tensors have valid shapes"))],
            vec![],
        ),
        GetItem => (
            vec![
                t(&x),
                V::Index(vec![
                    IndexItem::Slice {
                        start: None,
                        stop: None,
                        step: Some(2),
                    },
                    IndexItem::Tensor(
                        Tensor::from_vec(vec![2i64, 0], &[2])
                            .expect("invariant: sample tensors have valid shapes"),
                    ),
                ]),
            ],
            vec![],
        ),
        To | Type => (vec![t(&x), V::DType(DType::Float16)], vec![]),
        Cat | Stack => (
            vec![V::TensorList(vec![x.clone(), x.clone()]), V::Int(1)],
            vec![],
        ),
        Split => (vec![t(&x), V::Int(2), V::Int(1)], vec![]),
        SplitSizes => (vec![t(&x), V::IntList(vec![1, 2]), V::Int(1)], vec![]),
        Chunk => (vec![t(&x), V::Int(3), V::Int(1)], vec![]),
        Zeros | Ones | Empty | Rand | Randn => (vec![V::Int(2), V::Int(3)], vec![]),
        Full => (vec![V::IntList(vec![2]), V::Int(7)], vec![]),
        FullLike => (vec![t(&x), V::Bool(true)], vec![]),
        Arange => (vec![V::Int(1), V::Float(2.0), V::Float(0.25)], vec![]),
        Linspace => (vec![V::Int(0), V::Int(1), V::Int(5)], vec![]),
        Eye => (vec![V::Int(3)], kw("dtype", V::DType(DType::Int32))),
        ScalarTensor => (vec![V::Float(2.5)], vec![]),
        Randint => (vec![V::Int(10), V::IntList(vec![4])], vec![]),
        RandintLow => (vec![V::Int(-5), V::Int(5), V::IntList(vec![4])], vec![]),
        Randperm => (vec![V::Int(6)], vec![]),
        LayerNorm => (vec![t(&x), V::IntList(vec![3]), t(&y), t(&y)], vec![]),
        Embedding => (
            vec![
                t(&Tensor::from_vec(vec![1i64, 0, 1], &[3])
                    .expect("invariant: sample tensors have valid shapes")),
                t(&x),
            ],
            vec![],
        ),
        Dropout => (vec![t(&x), V::Float(0.3)], vec![]),
        MaxOther | MinOther | Maximum | Minimum | Atan2 => (vec![t(&x), t(&y)], vec![]),
        Eq | Ne | Lt | Le | Gt | Ge => (vec![t(&x), V::Float(0.0)], vec![]),
        Mul => (vec![V::Int(2), t(&x)], vec![]),
        HostCall => {
            let id = crate::host::register(std::sync::Arc::new(Negate(vec![x.meta()])));
            (vec![V::TensorList(vec![x.clone()]), V::Int(id)], vec![])
        }
        _ => sample_more(op),
    };
    (p, k)
}

/// Samples of the ops appended after the first table.
fn sample_more(op: Op) -> (Vec<IValue>, Vec<(String, IValue)>) {
    let x = f32s(&[2, 3]);
    let xp = Tensor::from_vec(vec![0.5f32, 1.0, 1.5, 2.0, 2.5, 3.0], &[2, 3])
        .expect("invariant: sample tensors have valid shapes");
    let y = f32s(&[3]);
    let ints = Tensor::from_vec(vec![3i64, -2, 5, 7, 0, 1], &[2, 3])
        .expect("invariant: sample tensors have valid shapes");
    let idx = Tensor::from_vec(vec![2i64, 0, 1, 1, 2, 0], &[2, 3])
        .expect("invariant: sample tensors have valid shapes");
    let img = f32s(&[2, 4, 5, 5]);
    let kw = |k: &str, v: IValue| vec![(k.to_string(), v)];
    let mine = || t(&x.deep_clone());
    use Op::*;
    use Value as V;
    match op {
        Fmod | Fmod_ => (vec![mine(), V::Float(0.7)], vec![]),
        Remainder_ | FloorDivide_ => (vec![mine(), V::Int(-2)], vec![]),
        Pow_ => (vec![t(&xp.deep_clone()), V::Float(0.5)], vec![]),
        Hypot => (vec![t(&x), t(&y)], vec![]),
        BitwiseLeftShift | BitwiseRightShift => (vec![t(&ints), V::Int(2)], vec![]),
        ClampMin | ClampMax => (vec![t(&x), V::Float(0.1)], vec![]),
        Lerp | Lerp_ => (vec![mine(), t(&y), V::Float(0.3)], vec![]),
        Addcmul | Addcdiv | Addcmul_ | Addcdiv_ => {
            (vec![mine(), t(&y), t(&xp)], kw("value", V::Float(0.5)))
        }
        Log_ | Sqrt_ | Rsqrt_ | Reciprocal_ => (vec![t(&xp.deep_clone())], vec![]),
        Neg_ | Abs_ | Exp_ | Sin_ | Cos_ | Tanh_ | Sigmoid_ | Relu_ | Floor_ | Ceil_ | Trunc_ => {
            (vec![mine()], vec![])
        }
        Round_ => (vec![mine()], kw("decimals", V::Int(1))),
        IndexPut_ => (
            vec![
                mine(),
                V::TensorList(vec![
                    Tensor::from_vec(vec![1i64, 0], &[2])
                        .expect("invariant: sample tensors have valid shapes"),
                ]),
                t(&y),
            ],
            kw("accumulate", V::Bool(true)),
        ),
        Scatter_ | ScatterAdd_ | Scatter | ScatterAdd => {
            (vec![mine(), V::Int(1), t(&idx), t(&x)], vec![])
        }
        ScatterValue_ | ScatterValue => (
            vec![mine(), V::Int(1), t(&idx), V::Float(2.0)],
            kw("reduce", V::Str("multiply".into())),
        ),
        Normal_ => (vec![mine(), V::Float(1.0), V::Float(2.0)], vec![]),
        Uniform_ => (vec![mine(), V::Float(-1.0), V::Float(2.0)], vec![]),
        Norm => (vec![t(&x), V::Float(3.0), V::Int(1)], vec![]),
        NormStr => (vec![t(&x), V::Str("fro".into())], vec![]),
        CountNonzero => (vec![t(&ints), V::Int(0)], vec![]),
        Cumsum | Cumprod => (vec![t(&ints), V::Int(1)], vec![]),
        Cummax | Cummin => (vec![t(&ints), V::Int(-1)], vec![]),
        Logcumsumexp => (vec![t(&x), V::Int(0)], vec![]),
        Multinomial => (vec![t(&xp), V::Int(2)], vec![]),
        LinalgInv | LinalgDet | LinalgSlogdet => (vec![t(&well_conditioned())], vec![]),
        LinalgSolve => (vec![t(&well_conditioned()), t(&f32s(&[3, 2]))], vec![]),
        LinalgCholesky => (vec![t(&spd()), V::Bool(false)], vec![]),
        LinalgEigh => (vec![t(&spd()), V::Str("L".into())], vec![]),
        LinalgQr => (vec![t(&f32s(&[4, 3])), V::Str("reduced".into())], vec![]),
        LinalgSvd => (vec![t(&f32s(&[3, 4])), V::Bool(false)], vec![]),
        Sort | Argsort => (vec![t(&x), V::Int(0), V::Bool(true)], vec![]),
        Topk => (vec![t(&x), V::Int(2)], vec![]),
        Baddbmm => (
            vec![t(&y), t(&f32s(&[2, 2, 4])), t(&f32s(&[2, 4, 3]))],
            kw("alpha", V::Float(2.0)),
        ),
        Dot => (vec![t(&y), t(&y)], vec![]),
        Mv => (vec![t(&x), t(&y)], vec![]),
        Outer => (
            vec![
                t(&y),
                t(&ints
                    .select(0, 0)
                    .expect("invariant: sample tensors have valid shapes")),
            ],
            vec![],
        ),
        Einsum => (
            vec![
                V::Str("bij,bjk->bik".into()),
                V::TensorList(vec![f32s(&[2, 3, 4]), f32s(&[2, 4, 5])]),
            ],
            vec![],
        ),
        Unbind => (vec![t(&x), V::Int(1)], vec![]),
        Repeat => (vec![t(&x), V::Int(2), V::Int(1), V::Int(2)], vec![]),
        Tile => (vec![t(&x), V::IntList(vec![2])], vec![]),
        Flip => (vec![t(&x), V::IntList(vec![0, 1])], vec![]),
        Roll => (vec![t(&x), V::Int(1), V::Int(1)], vec![]),
        Tril | Triu => (vec![t(&x), V::Int(1)], vec![]),
        Gather => (vec![t(&x), V::Int(1), t(&idx)], vec![]),
        IndexSelect => (
            vec![
                t(&x),
                V::Int(1),
                t(&Tensor::from_vec(vec![2i64, 2, 0], &[3])
                    .expect("invariant: sample tensors have valid shapes")),
            ],
            vec![],
        ),
        Nonzero | WhereCond | NonzeroNumpy => (vec![t(&ints)], vec![]),
        NewZeros | NewOnes | NewEmpty => (vec![t(&x), V::Int(4), V::Int(2)], vec![]),
        NewFull => (vec![t(&x), V::IntList(vec![3]), V::Float(1.5)], vec![]),
        Conv1d => (
            vec![t(&f32s(&[2, 4, 9])), t(&f32s(&[6, 2, 3])), t(&f32s(&[6]))],
            kw("groups", V::Int(2)),
        ),
        Conv1dPadding => (
            vec![t(&f32s(&[4, 9])), t(&f32s(&[6, 4, 3]))],
            kw("padding", V::Str("same".into())),
        ),
        Conv2d => (
            vec![t(&img), t(&f32s(&[3, 4, 3, 3])), t(&f32s(&[3]))],
            vec![("stride".into(), V::Int(2)), ("padding".into(), V::Int(1))],
        ),
        Conv2dPadding => (
            vec![t(&img), t(&f32s(&[3, 4, 2, 3]))],
            kw("padding", V::Str("same".into())),
        ),
        MaxPool2d | MaxPool2dWithIndices => {
            (vec![t(&img), V::Int(3), V::Int(2), V::Int(1)], vec![])
        }
        AvgPool2d => (vec![t(&img), V::Int(2)], kw("ceil_mode", V::Bool(true))),
        AdaptiveAvgPool2d => (vec![t(&img), V::IntList(vec![3, 2])], vec![]),
        BatchNorm => (
            vec![
                t(&img),
                t(&Tensor::zeros(&[4], DType::Float32)),
                t(&Tensor::ones(&[4], DType::Float32)),
            ],
            kw("training", V::Bool(true)),
        ),
        GroupNorm => (vec![t(&img), V::Int(2)], vec![]),
        Pad => (
            vec![t(&img), V::IntList(vec![1, 2, 2, 1])],
            kw("mode", V::Str("reflect".into())),
        ),
        CrossEntropy => (
            vec![
                t(&x),
                t(&Tensor::from_vec(vec![2i64, 0], &[2])
                    .expect("invariant: sample tensors have valid shapes")),
            ],
            kw("label_smoothing", V::Float(0.1)),
        ),
        NllLoss => (
            vec![
                t(&x),
                t(&Tensor::from_vec(vec![2i64, 0], &[2])
                    .expect("invariant: sample tensors have valid shapes")),
            ],
            vec![],
        ),
        MseLoss | L1Loss => (vec![t(&x), t(&y)], vec![]),
        ScaledDotProductAttention => (
            vec![
                t(&f32s(&[2, 4, 8])),
                t(&f32s(&[2, 5, 8])),
                t(&f32s(&[2, 5, 3])),
            ],
            kw("is_causal", V::Bool(true)),
        ),
        _ => (vec![t(&x)], vec![]),
    }
}
