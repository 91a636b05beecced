//! Extra gradcheck calls for the nn, loss, conv/pool, indexing, scan and rearranging formulas
//! (configurations the samples miss: strides, padding, groups, dilation, ceil_mode, weights,
//! ignore_index, reductions, ...), the arguments that stay constant, the calls PyTorch refuses
//! to differentiate, second-order checks (`gradgradcheck`) and dropout's saved mask.

use rynamo_tensor::random::{self, Generator};
use rynamo_tensor::{DType, Tensor};

use crate::autograd::{self, BackwardOptions, GradModeGuard};
use crate::{IValue, Op, Value, registry};

/// A call: op, positional and keyword arguments.
pub(super) type Call = (Op, Vec<IValue>, Vec<(String, IValue)>);

fn f64s(shape: &[usize], seed: u64) -> Tensor {
    random::randn(shape, Some(DType::Float64), Some(&Generator::new(seed))).unwrap()
}

fn map(x: &Tensor, f: impl Fn(f64) -> f64) -> Tensor {
    let v: Vec<f64> = x.to_vec::<f64>().into_iter().map(f).collect();
    Tensor::from_vec(v, x.shape()).unwrap()
}

fn longs(v: &[i64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(v.to_vec(), shape).unwrap()
}

fn t(x: &Tensor) -> IValue {
    Value::Tensor(x.clone())
}

fn i(v: i64) -> IValue {
    Value::Int(v)
}

fn ints(v: &[i64]) -> IValue {
    Value::IntList(v.to_vec())
}

fn fl(v: f64) -> IValue {
    Value::Float(v)
}

fn s(v: &str) -> IValue {
    Value::Str(v.into())
}

fn kw(pairs: &[(&str, IValue)]) -> Vec<(String, IValue)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

/// Schema positions of float arguments that are not differentiated (class weights, running
/// statistics): they stay constants in the finite differences.
pub(super) fn frozen(op: Op) -> Vec<usize> {
    match op {
        Op::CrossEntropy | Op::NllLoss => vec![2],
        Op::BatchNorm => vec![1, 2],
        Op::NativeBatchNorm => vec![3, 4],
        _ => vec![],
    }
}

/// The error PyTorch raises when differentiating this call, if it refuses to.
pub(super) fn refused(op: Op, args: &[IValue]) -> Option<&'static str> {
    let reduce = matches!(args.get(4), Some(Value::Str(_)));
    match op {
        Op::ScatterValue | Op::ScatterValue_ | Op::Scatter | Op::Scatter_ if reduce => {
            Some("derivative for aten::scatter is not implemented")
        }
        _ => None,
    }
}

/// Checks that backward through the call fails with `msg`.
pub(super) fn expect_refusal(op: Op, args: &[IValue], msg: &str) -> Result<(), String> {
    let args: Vec<IValue> = args
        .iter()
        .map(|a| {
            a.try_map(|x| {
                if x.dtype().is_floating_point() {
                    Ok::<_, ()>(leaf(&x.to_dtype(DType::Float64)))
                } else {
                    Ok(x.clone())
                }
            })
            .unwrap()
        })
        .collect();
    let inputs: Vec<Tensor> = args
        .iter()
        .flat_map(|a| a.tensors().into_iter().cloned())
        .filter(Tensor::needs_grad)
        .collect();
    // in-place ops write a recorded copy, not the leaves
    let args: Vec<IValue> = args
        .iter()
        .map(|a| {
            a.try_map(|x| {
                Ok::<_, ()>(if x.needs_grad() {
                    call(Op::Clone, vec![t(x)])
                } else {
                    x.clone()
                })
            })
            .unwrap()
        })
        .collect();
    let out = registry::call(op, &args).map_err(|e| format!("forward failed: {e}"))?;
    let y = sum_all(&out[0]);
    match autograd::grad(&[y], &[None], &inputs, opts(false), true, true) {
        Ok(_) => Err(format!("backward succeeded; PyTorch raises \"{msg}\"")),
        Err(e) if e.to_string().contains(msg) => Ok(()),
        Err(e) => Err(format!("backward raised \"{e}\"; PyTorch raises \"{msg}\"")),
    }
}

fn leaf(x: &Tensor) -> Tensor {
    let mut l = x.deep_clone().with_autograd(None);
    l.ensure_autograd().update(|s| s.requires_grad = true);
    l
}

/// Binds Python-style positional arguments and runs `op`; its first output.
fn call(op: Op, p: Vec<IValue>) -> Tensor {
    let args = registry::bind(op, p, vec![]).unwrap();
    registry::call(op, &args).unwrap().remove(0)
}

fn sum_all(x: &Tensor) -> Tensor {
    call(Op::Sum, vec![t(x)])
}

fn opts(create_graph: bool) -> BackwardOptions {
    BackwardOptions {
        retain_graph: create_graph,
        create_graph,
    }
}

/// Every extra call, with its constant argument positions.
pub(super) fn cases() -> Vec<(Call, Vec<usize>)> {
    let mut v: Vec<Call> = Vec::new();
    v.extend(rearrange_cases());
    v.extend(indexing_cases());
    v.extend(order_cases());
    v.extend(einsum_cases());
    v.extend(nn_cases());
    v.extend(loss_cases());
    v.extend(attention_cases());
    v.extend(pool_cases());
    v.extend(conv_cases());
    v.extend(norm_cases());
    v.into_iter()
        .map(|c| {
            let f = frozen(c.0);
            (c, f)
        })
        .collect()
}

fn rearrange_cases() -> Vec<Call> {
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

fn indexing_cases() -> Vec<Call> {
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

fn order_cases() -> Vec<Call> {
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

fn einsum_cases() -> Vec<Call> {
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

fn nn_cases() -> Vec<Call> {
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

fn loss_cases() -> Vec<Call> {
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

fn attention_cases() -> Vec<Call> {
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

fn pool_cases() -> Vec<Call> {
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

fn conv_cases() -> Vec<Call> {
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

fn norm_cases() -> Vec<Call> {
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
    ]
}

/// `gradgradcheck`: `G(x, v) = grad_x <v, f(x)>` is differentiated again (through the formulas
/// run with `create_graph=True`) with respect to the inputs and `v`, against central
/// differences of the first-order gradient (run without it); the two first-order forms must
/// agree too.
fn gradgrad(op: Op, p: Vec<IValue>, k: Vec<(String, IValue)>) -> Result<(), String> {
    let args = op.schema().bind(p, k).map_err(|e| e.to_string())?;
    let frozen = frozen(op);
    let is_var = |pos: usize, x: &Tensor| !frozen.contains(&pos) && x.dtype() == DType::Float64;
    let mut vals: Vec<Tensor> = Vec::new();
    for (pos, a) in args.iter().enumerate() {
        vals.extend(a.tensors().into_iter().filter(|x| is_var(pos, x)).cloned());
    }
    let n_in = vals.len();
    let out_shape = {
        let _g = GradModeGuard::new(false);
        registry::call(op, &args).map_err(|e| e.to_string())?[0]
            .shape()
            .to_vec()
    };
    vals.push(f64s(&out_shape, 500));
    // G for the values `vals` (inputs, then v); the leaves and the gradients.
    let grads = |vals: &[Tensor], create: bool| -> crate::Result<(Vec<Tensor>, Vec<Tensor>)> {
        let leaves: Vec<Tensor> = vals.iter().map(leaf).collect();
        let mut next = 0;
        let a: Vec<IValue> = args
            .iter()
            .enumerate()
            .map(|(pos, a)| {
                a.try_map(|x| {
                    Ok::<_, ()>(if is_var(pos, x) {
                        next += 1;
                        leaves[next - 1].clone()
                    } else {
                        x.clone()
                    })
                })
                .unwrap()
            })
            .collect();
        let out = registry::call(op, &a)?.remove(0);
        let ins = &leaves[..n_in];
        let g = autograd::grad(
            &[out],
            &[Some(leaves[n_in].clone())],
            ins,
            opts(create),
            true,
            true,
        )?;
        Ok((leaves, g.into_iter().map(Option::unwrap).collect()))
    };
    let us: Vec<Tensor> = vals[..n_in]
        .iter()
        .enumerate()
        .map(|(j, x)| f64s(x.shape(), 600 + j as u64))
        .collect();
    let dot = |a: &Tensor, b: &Tensor| -> f64 {
        a.to_vec::<f64>()
            .iter()
            .zip(b.to_vec::<f64>())
            .map(|(x, y)| x * y)
            .sum()
    };
    let first = |vals: &[Tensor]| -> f64 {
        let (_, g) = grads(vals, false).unwrap();
        g.iter().zip(&us).map(|(g, u)| dot(g, u)).sum()
    };
    let (leaves, g) = grads(&vals, true).map_err(|e| format!("backward failed: {e}"))?;
    let (_, plain) = grads(&vals, false).map_err(|e| format!("backward failed: {e}"))?;
    for (a, b) in g.iter().zip(&plain) {
        for (x, y) in a.to_vec::<f64>().iter().zip(b.to_vec::<f64>()) {
            if (x - y).abs() > 1e-9 + 1e-7 * y.abs() {
                return Err(format!(
                    "create_graph gradient {x} differs from the plain one {y}"
                ));
            }
        }
    }
    let total = g
        .iter()
        .zip(&us)
        .map(|(g, u)| sum_all(&call(Op::Mul, vec![t(g), t(u)])))
        .reduce(|a, b| call(Op::Add, vec![t(&a), t(&b)]))
        .ok_or("no inputs")?;
    let ana = autograd::grad(&[total], &[None], &leaves, opts(false), true, true)
        .map_err(|e| format!("double backward failed: {e}"))?;
    const EPS: f64 = 1e-6;
    for (li, a) in ana.iter().enumerate() {
        // `None`: the first gradient does not depend on this value (a linear op's input)
        let a = a
            .as_ref()
            .map_or_else(|| vec![0.0; vals[li].numel()], |a| a.to_vec::<f64>());
        for (el, an) in a.iter().enumerate() {
            let bump = |d: f64| {
                let mut v = vals.clone();
                let mut data = v[li].to_vec::<f64>();
                data[el] += d;
                v[li] = Tensor::from_vec(data, v[li].shape()).unwrap();
                first(&v)
            };
            let num = (bump(EPS) - bump(-EPS)) / (2.0 * EPS);
            if (an - num).abs() > 1e-5 + 1e-3 * num.abs() {
                let what = if li == n_in {
                    "grad_output".to_string()
                } else {
                    format!("input {li}")
                };
                return Err(format!(
                    "second derivative of {what} element {el}: analytical {an}, numerical {num}"
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn double_backward_matches_finite_differences() {
    let x = f64s(&[2, 3, 4], 701);
    let w = f64s(&[4], 702);
    let b = f64s(&[4], 703);
    let img = f64s(&[2, 4, 3, 3], 704);
    let logits = f64s(&[3, 4], 705);
    let target = longs(&[1, 3, 0], &[3]);
    let cases: Vec<Call> = vec![
        (Op::LayerNorm, vec![t(&x), ints(&[4]), t(&w), t(&b)], vec![]),
        (Op::GroupNorm, vec![t(&img), i(2), t(&w), t(&b)], vec![]),
        (
            Op::CrossEntropy,
            vec![t(&logits), t(&target)],
            kw(&[("label_smoothing", fl(0.1))]),
        ),
        (
            Op::MseLoss,
            vec![t(&logits), t(&f64s(&[3, 4], 706))],
            vec![],
        ),
        (Op::Cumprod, vec![t(&logits), i(1)], vec![]),
        (Op::Logcumsumexp, vec![t(&logits), i(0)], vec![]),
        (
            Op::ScaledDotProductAttention,
            vec![
                t(&f64s(&[2, 3], 707)),
                t(&f64s(&[4, 3], 708)),
                t(&f64s(&[4, 2], 709)),
            ],
            kw(&[("is_causal", Value::Bool(true))]),
        ),
        (
            Op::Einsum,
            vec![
                s("ij,jk->ik"),
                Value::TensorList(vec![f64s(&[2, 3], 710), f64s(&[3, 2], 711)]),
            ],
            vec![],
        ),
        (
            Op::Pad,
            vec![t(&x), ints(&[1, 2])],
            kw(&[("mode", s("reflect"))]),
        ),
    ];
    let mut failures = Vec::new();
    for (op, p, k) in cases {
        if let Err(e) = gradgrad(op, p, k) {
            failures.push(format!("{op}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every extra first-order case of these families differentiated twice: PyTorch double
/// differentiates all of them. Left out: dropout (a fresh mask per call, so no finite
/// differences), in-place ops (they would write the leaves), refusals, and calls whose output
/// is not float64 (a float32 cumsum: the finite differences would see its rounding).
#[test]
fn double_backward_of_every_case_matches_finite_differences() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for ((op, p, k), _) in cases() {
        if op == Op::Dropout || op.functional_twin().is_some() || refused(op, &p).is_some() {
            continue;
        }
        if k.iter().any(|(name, _)| name == "dtype") {
            continue;
        }
        checked += 1;
        if let Err(e) = gradgrad(op, p, k) {
            failures.push(format!("{op}: {e}"));
        }
    }
    assert!(checked > 80, "only {checked} cases checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Dropout saves its mask: the gradient is `grad * out / x` exactly (x has no zeros), however
/// the generator moves afterwards, and only kept elements get one.
#[test]
fn dropout_gradient_uses_the_saved_mask() {
    for dt in [DType::Float32, DType::Float64] {
        let x0 = map(&f64s(&[64, 33], 801), |v| v.abs() + 0.25).to_dtype(dt);
        let x = leaf(&x0);
        let y = registry::call(Op::Dropout, &[t(&x), fl(0.4), Value::Bool(true)])
            .unwrap()
            .remove(0);
        assert_eq!(
            crate::autograd::grad_fn_of(&y).unwrap().0.name(),
            "MulBackward0"
        );
        // the generator moves on: a recomputed mask would differ
        random::randn(&[1000], None, None).unwrap();
        let g = f64s(y.shape(), 802).to_dtype(dt);
        let gx = autograd::grad(
            std::slice::from_ref(&y),
            &[Some(g.clone())],
            std::slice::from_ref(&x),
            opts(false),
            false,
            false,
        )
        .unwrap()
        .remove(0)
        .unwrap();
        let (xv, yv, gv, dv) = (
            x0.to_vec::<f64>(),
            y.to_vec::<f64>(),
            g.to_vec::<f64>(),
            gx.to_vec::<f64>(),
        );
        let mut kept = 0;
        for j in 0..xv.len() {
            let want = gv[j] * (yv[j] / xv[j]);
            let tol = if dt == DType::Float32 { 1e-5 } else { 1e-12 };
            assert!(
                (dv[j] - want).abs() <= tol * (1.0 + want.abs()),
                "{dt}: element {j}: {} vs {want}",
                dv[j]
            );
            kept += usize::from(yv[j] != 0.0);
        }
        assert!(
            kept > 0 && kept < xv.len(),
            "{dt}: mask kept {kept} of {}",
            xv.len()
        );
    }
    // evaluation mode and p = 0 are the identity
    let x = leaf(&f64s(&[3, 4], 803));
    for (p, training) in [(0.5, false), (0.0, true)] {
        let y = registry::call(Op::Dropout, &[t(&x), fl(p), Value::Bool(training)])
            .unwrap()
            .remove(0);
        let g = f64s(&[3, 4], 804);
        let gx = autograd::grad(
            &[y],
            &[Some(g.clone())],
            std::slice::from_ref(&x),
            opts(false),
            false,
            false,
        )
        .unwrap()
        .remove(0)
        .unwrap();
        assert_eq!(gx.to_vec::<f64>(), g.to_vec::<f64>());
    }
}

/// padding_idx: the rows read at it get no gradient (the forward still reads them, so finite
/// differences cannot check this); the other rows get what they get without it.
#[test]
fn embedding_padding_rows_get_no_gradient() {
    let table = f64s(&[5, 3], 901);
    let idx = longs(&[0, 2, 4, 2, 1, 2, 4], &[7]);
    let g = f64s(&[7, 3], 902);
    let grad_of = |pad: Option<i64>| {
        let w = leaf(&table);
        let mut p = vec![t(&idx), t(&w)];
        if let Some(pad) = pad {
            p.push(i(pad));
        }
        let y = call(Op::Embedding, p);
        autograd::grad(&[y], &[Some(g.clone())], &[w], opts(false), false, false)
            .unwrap()
            .remove(0)
            .unwrap()
            .to_vec::<f64>()
    };
    let full = grad_of(None);
    for (pad, row) in [(2, 2usize), (-1, 4)] {
        let got = grad_of(Some(pad));
        for r in 0..5 {
            for c in 0..3 {
                let want = if r == row { 0.0 } else { full[r * 3 + c] };
                assert_eq!(got[r * 3 + c], want, "padding_idx {pad}: row {r}");
            }
        }
    }
}
