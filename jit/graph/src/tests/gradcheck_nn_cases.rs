//! The gradcheck calls of `gradcheck_nn.rs`, one table per family of formulas (rearranging,
//! indexing, scans and sorts, einsum, nn functions, losses, attention, pools, convolutions,
//! norms): configurations the registry samples miss.

use rynamo_tensor::{DType, Tensor};

use super::gradcheck_nn::{Call, f64s, fl, i, ints, kw, longs, map, s, t};
use crate::{IValue, Op, Value};

pub(super) fn rearrange_cases() -> Vec<Call> {
    let x = f64s(&[3, 4], 1);
    let x3 = f64s(&[2, 3, 4], 2);
    let nc = f64s(&[4, 3], 3).t().unwrap();
    vec![
        (Op::Repeat, vec![t(&x3), i(2), i(1), i(3), i(1)], vec![]),
        (Op::Tile, vec![t(&x3), ints(&[2])], vec![]),
        (Op::Tile, vec![t(&nc), ints(&[2, 1, 2])], vec![]),
        (Op::Flip, vec![t(&nc), ints(&[-1])], vec![]),
        (Op::Roll, vec![t(&x), i(2)], vec![]),
        (
            Op::Roll,
            vec![t(&x3), ints(&[1, -2]), ints(&[0, 2])],
            vec![],
        ),
        (Op::Tril, vec![t(&x), i(-1)], vec![]),
        (Op::Triu, vec![t(&x3), i(1)], vec![]),
        (Op::Diagonal, vec![t(&x3), i(-1), i(0), i(2)], vec![]),
        (Op::Diagonal, vec![t(&nc), i(0), i(1), i(0)], vec![]),
        (
            Op::AsStrided,
            vec![t(&nc), ints(&[2, 2]), ints(&[1, 3])],
            vec![],
        ),
        // overlapping windows read the same elements
        (
            Op::AsStrided,
            vec![t(&x), ints(&[3, 3]), ints(&[2, 1]), i(1)],
            vec![],
        ),
        (
            Op::AsStrided,
            vec![t(&x), ints(&[4, 2]), ints(&[0, 3])],
            vec![],
        ),
    ]
}

pub(super) fn indexing_cases() -> Vec<Call> {
    let x = f64s(&[3, 4], 11);
    let src = f64s(&[3, 3], 12);
    let src2 = f64s(&[2, 3], 13);
    // distinct per row along dim 1 (scatter with duplicates keeps one write)
    let perm = longs(&[3, 0, 1, 0, 2, 3, 1, 3, 0], &[3, 3]);
    let dup = longs(&[0, 0, 1, 2, 2, 2], &[2, 3]);
    vec![
        (Op::Gather, vec![t(&x), i(0), t(&dup)], vec![]),
        (Op::Scatter, vec![t(&x), i(1), t(&perm), t(&src)], vec![]),
        (
            Op::ScatterValue,
            vec![t(&x), i(1), t(&perm), fl(1.5)],
            vec![],
        ),
        (Op::ScatterAdd, vec![t(&x), i(0), t(&dup), t(&src2)], vec![]),
        (
            Op::ScatterAdd_,
            vec![t(&x), i(0), t(&dup), t(&src2)],
            vec![],
        ),
        (
            Op::IndexSelect,
            vec![t(&x), i(0), t(&longs(&[2, 0, 2, 1], &[4]))],
            vec![],
        ),
        (
            Op::IndexSelect,
            vec![t(&x), i(1), t(&Tensor::scalar(2i64))],
            vec![],
        ),
        (
            Op::IndexSelect,
            vec![
                t(&x),
                i(1),
                t(&Tensor::from_vec(vec![3i32, 0, 3], &[3]).unwrap()),
            ],
            vec![],
        ),
    ]
}

pub(super) fn order_cases() -> Vec<Call> {
    let x = f64s(&[3, 5], 21);
    // zeros: one per row at different places, and two in a row
    let z = Tensor::from_vec(
        vec![
            1.5, 0.0, -2.0, 0.5, 1.2, 0.0, 0.7, 1.1, -0.4, 2.0, 0.9, 1.3, 0.0, 0.0, -1.5,
        ],
        &[3, 5],
    )
    .unwrap();
    vec![
        (Op::Cumsum, vec![t(&x), i(0)], vec![]),
        (
            Op::Cumsum,
            vec![t(&x), i(-1)],
            kw(&[("dtype", Value::DType(DType::Float32))]),
        ),
        (Op::Cumprod, vec![t(&x), i(1)], vec![]),
        (Op::Cumprod, vec![t(&z), i(1)], vec![]),
        (Op::Cumprod, vec![t(&z.t().unwrap()), i(0)], vec![]),
        (Op::Cumprod, vec![t(&Tensor::scalar(1.5f64)), i(0)], vec![]),
        (Op::Logcumsumexp, vec![t(&x), i(1)], vec![]),
        (Op::Sort, vec![t(&x), i(1)], vec![]),
        (
            Op::Topk,
            vec![t(&x), i(2), i(0), Value::Bool(false)],
            vec![],
        ),
        (Op::Cummax, vec![t(&x), i(1)], vec![]),
        (Op::Cummin, vec![t(&x), i(0)], vec![]),
    ]
}

pub(super) fn einsum_cases() -> Vec<Call> {
    let e = |eq: &str, ts: Vec<Tensor>| (Op::Einsum, vec![s(eq), Value::TensorList(ts)], vec![]);
    vec![
        e("ij,jk->ik", vec![f64s(&[2, 3], 31), f64s(&[3, 4], 32)]),
        e("ii->i", vec![f64s(&[3, 3], 33)]),
        e("ii", vec![f64s(&[3, 3], 34)]),
        e("iij->ji", vec![f64s(&[2, 2, 3], 35)]),
        e("ij->", vec![f64s(&[2, 3], 36)]),
        e("i,i->", vec![f64s(&[4], 37), f64s(&[4], 38)]),
        e("ij,j", vec![f64s(&[2, 3], 39), f64s(&[3], 40)]),
        e(
            "...ij,...jk->...ik",
            vec![f64s(&[2, 1, 2, 3], 41), f64s(&[4, 3, 2], 42)],
        ),
        e(
            "b i j, b k j -> b i k",
            vec![f64s(&[2, 3, 4], 43), f64s(&[2, 2, 4], 44)],
        ),
        e("ij,kl->ijkl", vec![f64s(&[2, 1], 45), f64s(&[1, 3], 46)]),
    ]
}

pub(super) fn nn_cases() -> Vec<Call> {
    let x = f64s(&[2, 3, 4], 51);
    let img = f64s(&[2, 4, 3, 3], 52);
    let w4 = f64s(&[4], 53);
    let b4 = f64s(&[4], 54);
    let table = f64s(&[5, 3], 55);
    let idx = longs(&[0, 2, 4, 2, 1, 2], &[2, 3]);
    vec![
        (Op::LayerNorm, vec![t(&x), ints(&[3, 4])], vec![]),
        (
            Op::LayerNorm,
            vec![t(&x), ints(&[4]), t(&w4), Value::None, fl(1e-3)],
            vec![],
        ),
        (Op::GroupNorm, vec![t(&img), i(2), t(&w4), t(&b4)], vec![]),
        (Op::GroupNorm, vec![t(&f64s(&[3, 4], 56)), i(4)], vec![]),
        (Op::Embedding, vec![t(&idx), t(&table)], vec![]),
        (
            Op::Embedding,
            vec![t(&idx.to_dtype(DType::Int32)), t(&table)],
            vec![],
        ),
        (Op::Pad, vec![t(&x), ints(&[1, -1, 0, 2])], vec![]),
        (
            Op::Pad,
            vec![t(&x), ints(&[2, 1])],
            kw(&[("mode", s("reflect"))]),
        ),
        (
            Op::Pad,
            vec![t(&img), ints(&[2, 1, 0, 2])],
            kw(&[("mode", s("replicate"))]),
        ),
        (
            Op::Pad,
            vec![t(&x), ints(&[3, 1])],
            kw(&[("mode", s("circular"))]),
        ),
        (
            Op::Pad,
            vec![t(&img), ints(&[1, 2, 2, 0])],
            kw(&[("mode", s("circular"))]),
        ),
    ]
}

pub(super) fn loss_cases() -> Vec<Call> {
    let x = f64s(&[4, 5], 61);
    let target = longs(&[1, 0, 4, 2], &[4]);
    let ignored = longs(&[1, -100, 4, 3], &[4]);
    let w = map(&f64s(&[5], 62), |v| v.abs() + 0.2);
    let x3 = f64s(&[2, 3, 4], 63);
    let t3 = longs(&[0, 2, 1, 1, 2, 2, 0, 1], &[2, 4]);
    let probs = map(&f64s(&[4, 5], 64), |v| v.abs());
    let none = || ("reduction", s("none"));
    let sum = || ("reduction", s("sum"));
    let ce = |args: Vec<IValue>, k: Vec<(String, IValue)>| (Op::CrossEntropy, args, k);
    let nll = |args: Vec<IValue>, k: Vec<(String, IValue)>| (Op::NllLoss, args, k);
    vec![
        ce(vec![t(&x), t(&target)], vec![]),
        ce(vec![t(&x), t(&target), t(&w)], kw(&[none()])),
        ce(vec![t(&x), t(&ignored), t(&w)], vec![]),
        ce(
            vec![t(&x), t(&ignored)],
            kw(&[sum(), ("label_smoothing", fl(0.2))]),
        ),
        ce(
            vec![t(&x), t(&ignored), t(&w)],
            kw(&[("label_smoothing", fl(0.3))]),
        ),
        ce(
            vec![t(&x), t(&ignored)],
            kw(&[none(), ("label_smoothing", fl(0.1))]),
        ),
        ce(vec![t(&x3), t(&t3)], kw(&[("ignore_index", i(2))])),
        ce(vec![t(&f64s(&[5], 65)), t(&Tensor::scalar(3i64))], vec![]),
        ce(vec![t(&x), t(&probs)], vec![]),
        ce(
            vec![t(&x), t(&probs), t(&w)],
            kw(&[none(), ("label_smoothing", fl(0.2))]),
        ),
        ce(vec![t(&x), t(&probs)], kw(&[sum()])),
        nll(vec![t(&x), t(&ignored), t(&w)], vec![]),
        nll(vec![t(&x), t(&target)], kw(&[none()])),
        nll(
            vec![t(&x3), t(&t3), t(&map(&f64s(&[3], 66), f64::abs))],
            kw(&[sum()]),
        ),
        nll(
            vec![t(&f64s(&[5], 67)), t(&Tensor::scalar(-100i64))],
            kw(&[sum()]),
        ),
        (Op::MseLoss, vec![t(&x), t(&f64s(&[5], 68))], kw(&[none()])),
        (
            Op::MseLoss,
            vec![t(&x), t(&f64s(&[4, 5], 69))],
            kw(&[sum()]),
        ),
        (Op::L1Loss, vec![t(&x), t(&f64s(&[4, 5], 70))], vec![]),
        (Op::L1Loss, vec![t(&x), t(&f64s(&[5], 71))], kw(&[none()])),
        (Op::L1Loss, vec![t(&x), t(&f64s(&[4, 1], 72))], kw(&[sum()])),
    ]
}

pub(super) fn attention_cases() -> Vec<Call> {
    let q = f64s(&[2, 3, 4], 81);
    let k = f64s(&[2, 5, 4], 82);
    let v = f64s(&[2, 5, 2], 83);
    let bool_mask = Tensor::from_vec(
        vec![
            true, false, true, true, false, false, false, false, false, false, true, true, true,
            false, true,
        ],
        &[3, 5],
    )
    .unwrap();
    let float_mask = f64s(&[3, 5], 84);
    let sdpa =
        |args: Vec<IValue>, k: Vec<(String, IValue)>| (Op::ScaledDotProductAttention, args, k);
    vec![
        sdpa(vec![t(&q), t(&k), t(&v)], vec![]),
        sdpa(
            vec![t(&q), t(&k), t(&v)],
            kw(&[("is_causal", Value::Bool(true))]),
        ),
        // the second row is fully masked: zeros, no gradient
        sdpa(vec![t(&q), t(&k), t(&v), t(&bool_mask)], vec![]),
        sdpa(
            vec![t(&q), t(&k), t(&v), t(&float_mask)],
            kw(&[("scale", fl(0.3))]),
        ),
        sdpa(
            vec![
                t(&f64s(&[1, 4, 3, 2], 85)),
                t(&f64s(&[1, 2, 5, 2], 86)),
                t(&f64s(&[1, 2, 5, 3], 87)),
            ],
            kw(&[("enable_gqa", Value::Bool(true))]),
        ),
    ]
}

pub(super) fn pool_cases() -> Vec<Call> {
    let img = f64s(&[2, 3, 5, 6], 91);
    vec![
        (Op::MaxPool2d, vec![t(&img), i(2)], vec![]),
        (
            Op::MaxPool2d,
            vec![
                t(&img),
                ints(&[3, 2]),
                ints(&[2, 1]),
                ints(&[1, 0]),
                ints(&[1, 2]),
                Value::Bool(true),
            ],
            vec![],
        ),
        (
            Op::MaxPool2dWithIndices,
            vec![t(&f64s(&[3, 4, 4], 92)), i(3), i(1), i(1)],
            vec![],
        ),
    ]
}

pub(super) fn conv_cases() -> Vec<Call> {
    let x = f64s(&[2, 4, 6, 5], 101);
    let x1 = f64s(&[2, 4, 7], 102);
    let conv2 = |args: Vec<IValue>, k: Vec<(String, IValue)>| (Op::Conv2d, args, k);
    vec![
        conv2(
            vec![t(&x), t(&f64s(&[3, 4, 3, 3], 103)), t(&f64s(&[3], 104))],
            vec![],
        ),
        conv2(
            vec![t(&x), t(&f64s(&[6, 2, 2, 3], 105))],
            kw(&[
                ("stride", ints(&[2, 1])),
                ("padding", ints(&[1, 2])),
                ("dilation", ints(&[2, 1])),
                ("groups", i(2)),
            ]),
        ),
        conv2(
            vec![t(&f64s(&[4, 5, 5], 106)), t(&f64s(&[2, 4, 1, 1], 107))],
            vec![],
        ),
        (
            Op::Conv2dPadding,
            vec![t(&x), t(&f64s(&[2, 4, 2, 4], 108)), t(&f64s(&[2], 109))],
            kw(&[("padding", s("same")), ("dilation", ints(&[2, 1]))]),
        ),
        (
            Op::Conv2dPadding,
            vec![t(&x), t(&f64s(&[2, 2, 3, 3], 110))],
            kw(&[("padding", s("valid")), ("stride", i(2)), ("groups", i(2))]),
        ),
        (
            Op::Conv1d,
            vec![t(&x1), t(&f64s(&[4, 1, 3], 111))],
            kw(&[("stride", i(2)), ("padding", i(2)), ("groups", i(4))]),
        ),
        (
            Op::Conv1dPadding,
            vec![t(&f64s(&[4, 7], 112)), t(&f64s(&[3, 4, 4], 113))],
            kw(&[("padding", s("same"))]),
        ),
    ]
}

/// `native_batch_norm(x, weight, bias, running_mean, running_var, training, 0.1, 1e-5)`.
fn native(
    x: &Tensor,
    params: Option<(&Tensor, &Tensor)>,
    stats: Option<(&Tensor, &Tensor)>,
    training: bool,
) -> Call {
    let pair = |p: Option<(&Tensor, &Tensor)>| match p {
        Some((a, b)) => [t(a), t(b)],
        None => [Value::None, Value::None],
    };
    let mut args: Vec<IValue> = vec![t(x)];
    args.extend(pair(params));
    args.extend(pair(stats));
    args.extend([Value::Bool(training), fl(0.1), fl(1e-5)]);
    (Op::NativeBatchNorm, args, vec![])
}

pub(super) fn norm_cases() -> Vec<Call> {
    let img = f64s(&[3, 2, 4, 3], 121);
    let w = f64s(&[2], 122);
    let b = f64s(&[2], 123);
    let rm = f64s(&[2], 124);
    let rv = map(&f64s(&[2], 125), |v| v.abs() + 0.5);
    let bn = |args: Vec<IValue>, k: Vec<(String, IValue)>| (Op::BatchNorm, args, k);
    let training = || ("training", Value::Bool(true));
    vec![
        bn(
            vec![t(&img), t(&rm), t(&rv), t(&w), t(&b)],
            kw(&[training()]),
        ),
        bn(
            vec![t(&img), Value::None, Value::None],
            kw(&[training(), ("eps", fl(0.1))]),
        ),
        bn(
            vec![t(&f64s(&[5, 2], 126)), t(&rm), t(&rv), t(&w)],
            kw(&[training()]),
        ),
        bn(vec![t(&img), t(&rm), t(&rv), t(&w), t(&b)], vec![]),
        bn(
            vec![t(&f64s(&[4, 2, 3], 127)), t(&rm), t(&rv)],
            kw(&[("eps", fl(0.3))]),
        ),
        // PyTorch's argument order (parameters before running statistics); in training the
        // backward reads the saved statistics, in evaluation the affine map is differentiated
        native(&img, Some((&w, &b)), Some((&rm, &rv)), true),
        native(&img, None, None, true),
        native(&f64s(&[5, 2], 126), Some((&w, &b)), None, true),
        native(&img, Some((&w, &b)), Some((&rm, &rv)), false),
        (
            Op::AvgPool2d,
            vec![t(&img), ints(&[2, 3]), i(1), i(1)],
            vec![],
        ),
        (
            Op::AvgPool2d,
            vec![
                t(&f64s(&[2, 3, 5, 5], 128)),
                i(3),
                i(2),
                i(1),
                Value::Bool(true),
                Value::Bool(false),
            ],
            vec![],
        ),
        (
            Op::AvgPool2d,
            vec![t(&f64s(&[3, 5, 4], 129)), i(2)],
            kw(&[("divisor_override", i(3)), ("ceil_mode", Value::Bool(true))]),
        ),
        (
            Op::AdaptiveAvgPool2d,
            vec![t(&f64s(&[2, 3, 7, 5], 130)), ints(&[3, 4])],
            vec![],
        ),
        (
            Op::AdaptiveAvgPool2d,
            vec![t(&f64s(&[3, 4, 4], 131)), i(1)],
            vec![],
        ),
        // Upsampling, downsampling (some inputs unread), align_corners, given scales.
        (
            Op::UpsampleBilinear2d,
            vec![
                t(&f64s(&[2, 3, 4, 5], 140)),
                ints(&[7, 9]),
                Value::Bool(false),
            ],
            vec![],
        ),
        (
            Op::UpsampleBilinear2d,
            vec![
                t(&f64s(&[1, 2, 6, 5], 141)),
                ints(&[3, 10]),
                Value::Bool(true),
            ],
            vec![],
        ),
        (
            Op::UpsampleBilinear2d,
            vec![
                t(&f64s(&[1, 2, 3, 4], 142)),
                ints(&[6, 8]),
                Value::Bool(false),
                fl(2.0),
                fl(2.0),
            ],
            vec![],
        ),
        (
            Op::UpsampleLinear1d,
            vec![t(&f64s(&[2, 3, 5], 144)), ints(&[9]), Value::Bool(false)],
            vec![],
        ),
        (
            Op::UpsampleLinear1d,
            vec![
                t(&f64s(&[1, 2, 7], 145)),
                ints(&[3]),
                Value::Bool(true),
                fl(0.5),
            ],
            vec![],
        ),
        (
            Op::UpsampleLinear1dBackward,
            vec![
                t(&f64s(&[2, 3, 9], 146)),
                ints(&[9]),
                ints(&[2, 3, 5]),
                Value::Bool(false),
            ],
            vec![],
        ),
        (
            Op::UpsampleTrilinear3d,
            vec![
                t(&f64s(&[1, 2, 2, 3, 4], 147)),
                ints(&[3, 2, 6]),
                Value::Bool(false),
            ],
            vec![],
        ),
        (
            Op::UpsampleTrilinear3d,
            vec![
                t(&f64s(&[1, 1, 3, 2, 3], 148)),
                ints(&[4, 4, 2]),
                Value::Bool(true),
            ],
            vec![],
        ),
        (
            Op::UpsampleTrilinear3dBackward,
            vec![
                t(&f64s(&[1, 2, 3, 2, 6], 149)),
                ints(&[3, 2, 6]),
                ints(&[1, 2, 2, 3, 4]),
                Value::Bool(false),
            ],
            vec![],
        ),
        (
            Op::UpsampleBilinear2dBackward,
            vec![
                t(&f64s(&[2, 3, 7, 9], 143)),
                ints(&[7, 9]),
                ints(&[2, 3, 4, 5]),
                Value::Bool(false),
            ],
            vec![],
        ),
    ]
}
