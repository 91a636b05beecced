use super::*;
use crate::ops::{pointwise, reduce};
use crate::{BinaryOp, DType, ReduceOp, UnaryOp};

fn bin(
    op: BinaryOp,
    a: TensorOrScalar<&Tensor>,
    b: TensorOrScalar<&Tensor>,
) -> crate::Result<Tensor> {
    pointwise::binary(op, a, b, Scalar::Int(1))
}

#[test]
fn integer_division_semantics() {
    let a = ti(&[7, -7, 7, -7], &[4]);
    let b = ti(&[2, 2, -2, -2], &[4]);
    let div = bin(BinaryOp::Div, ts(&a), ts(&b)).unwrap();
    assert_eq!(div.dtype(), DType::Float32);
    assert_eq!(div.to_vec::<f32>(), vec![3.5, -3.5, -3.5, 3.5]);
    assert_eq!(
        bin(BinaryOp::DivFloor, ts(&a), ts(&b))
            .unwrap()
            .to_vec::<i64>(),
        vec![3, -4, -4, 3]
    );
    assert_eq!(
        bin(BinaryOp::DivTrunc, ts(&a), ts(&b))
            .unwrap()
            .to_vec::<i64>(),
        vec![3, -3, -3, 3]
    );
    assert_eq!(
        bin(BinaryOp::Remainder, ts(&a), ts(&b))
            .unwrap()
            .to_vec::<i64>(),
        vec![1, 1, -1, -1]
    );
    let z = ti(&[1, 0, 1, 1], &[4]);
    let e = bin(BinaryOp::DivFloor, ts(&a), ts(&z)).unwrap_err();
    assert_eq!(e.to_string(), "ZeroDivisionError");
    assert_eq!(e.kind(), crate::ErrorKind::Runtime);
    // Float floor division and remainder follow Python.
    let fa = t(&[7.5, -7.5], &[2]);
    assert_eq!(
        bin(BinaryOp::DivFloor, ts(&fa), sc(2.0))
            .unwrap()
            .to_vec::<f32>(),
        vec![3.0, -4.0]
    );
    assert_eq!(
        bin(BinaryOp::Remainder, ts(&fa), sc(-2.0))
            .unwrap()
            .to_vec::<f32>(),
        vec![-0.5, -1.5]
    );
}

#[test]
fn scalar_promotion_in_kernels() {
    let i = ti(&[1, 2], &[2]);
    let r = bin(BinaryOp::Add, ts(&i), sc(0.5)).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<f32>()),
        (DType::Float32, vec![1.5, 2.5])
    );
    let h = t(&[1.0, 2.0], &[2]).to_dtype(DType::Float16);
    let r = bin(BinaryOp::Mul, ts(&h), sc(3)).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<f32>()),
        (DType::Float16, vec![3.0, 6.0])
    );
    let c = bin(BinaryOp::Lt, ts(&i), sc(2)).unwrap();
    assert_eq!(c.to_vec::<bool>(), vec![true, false]);
    let p = bin(BinaryOp::Pow, ts(&i), sc(3)).unwrap();
    assert_eq!(p.to_vec::<i64>(), vec![1, 8]);
    assert!(bin(BinaryOp::Pow, ts(&i), sc(-1)).is_err());
    let sub = pointwise::binary(BinaryOp::Sub, ts(&i), sc(1), Scalar::Int(3)).unwrap();
    assert_eq!(sub.to_vec::<i64>(), vec![-2, -1]);
    assert!(pointwise::binary(BinaryOp::Add, ts(&i), sc(1), Scalar::Float(0.5)).is_err());
}

/// Integer pow with negative exponents in a tensor truncates toward zero (ATen's `powi`); only a
/// Python-int negative exponent is an error, and a Python-int base takes the tensor path.
#[test]
fn int_pow_with_negative_tensor_exponents() {
    let base = ti(&[2, -1, 1, -1, 0], &[5]);
    let exp = ti(&[-2, -3, -5, -4, -1], &[5]);
    let p = bin(BinaryOp::Pow, ts(&base), ts(&exp)).unwrap();
    assert_eq!(p.to_vec::<i64>(), vec![0, -1, 1, 1, 0]);
    let e = ti(&[-1, 2], &[2]);
    let r = bin(BinaryOp::Pow, sc(2), ts(&e)).unwrap();
    assert_eq!((r.dtype(), r.to_vec::<i64>()), (DType::Int64, vec![0, 4]));
    let i8s = ti(&[-1, 3], &[2]).to_dtype(DType::Int8);
    let r = bin(BinaryOp::Pow, ts(&i8s), ts(&Tensor::scalar(-3i64))).unwrap();
    assert_eq!(r.to_vec::<i64>(), vec![-1, 0]);
    let err = bin(BinaryOp::Pow, ts(&base), sc(-1)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Integers to negative integer powers are not allowed."
    );
    let bools = Tensor::scalar(true);
    assert!(bin(BinaryOp::Pow, ts(&bools), sc(-1)).is_err());
    assert!(bin(BinaryOp::Pow, ts(&t(&[2.0], &[1])), sc(-1)).is_ok());
}

#[test]
fn unary_ops_match_f64_reference() {
    let xs: Vec<f32> = (0..40).map(|i| (i as f32 - 20.0) / 7.0).collect();
    let x = t(&xs, &[5, 8]).t().unwrap(); // strided input
    let xv: Vec<f64> = x.to_vec::<f64>();
    let erf_ref = |v: f64| libm::erf(v);
    type Reference = Box<dyn Fn(f64) -> f64>;
    let cases: Vec<(UnaryOp, Reference)> = vec![
        (UnaryOp::Exp, Box::new(f64::exp)),
        (UnaryOp::Sin, Box::new(f64::sin)),
        (UnaryOp::Tanh, Box::new(f64::tanh)),
        (UnaryOp::Sigmoid, Box::new(|v| 1.0 / (1.0 + (-v).exp()))),
        (UnaryOp::Relu, Box::new(|v| v.max(0.0))),
        (
            UnaryOp::Gelu { tanh: false },
            Box::new(move |v| 0.5 * v * (1.0 + erf_ref(v / 2f64.sqrt()))),
        ),
        (UnaryOp::Silu, Box::new(|v| v / (1.0 + (-v).exp()))),
        (
            UnaryOp::Softplus {
                beta: 1.0,
                threshold: 20.0,
            },
            Box::new(|v| v.exp().ln_1p()),
        ),
        (
            UnaryOp::LeakyRelu { slope: 0.1 },
            Box::new(|v| if v > 0.0 { v } else { 0.1 * v }),
        ),
        (
            UnaryOp::Elu { alpha: 1.0 },
            Box::new(|v| if v > 0.0 { v } else { v.exp_m1() }),
        ),
        (
            UnaryOp::Round { decimals: 0 },
            Box::new(f64::round_ties_even),
        ),
        (UnaryOp::Frac, Box::new(f64::fract)),
        (UnaryOp::Square, Box::new(|v| v * v)),
        (UnaryOp::Atan, Box::new(f64::atan)),
    ];
    for (op, f) in cases {
        let got = pointwise::unary(op, &x).unwrap();
        assert_eq!(got.dtype(), DType::Float32);
        let want: Vec<f64> = xv.iter().map(|&v| f(v)).collect();
        assert_close(&got.to_vec::<f64>(), &want, 1e-6);
    }
    // Integer input promotes for float ops and keeps its dtype for exact ops.
    let i = ti(&[-2, 3], &[2]);
    assert_eq!(
        pointwise::unary(UnaryOp::Sqrt, &i).unwrap().dtype(),
        DType::Float32
    );
    assert_eq!(
        pointwise::unary(UnaryOp::Abs, &i).unwrap().to_vec::<i64>(),
        vec![2, 3]
    );
    assert!(pointwise::unary(UnaryOp::Neg, &Tensor::scalar(true)).is_err());
    let nan = t(&[f32::NAN, f32::INFINITY, 1.0], &[3]);
    assert_eq!(
        pointwise::unary(UnaryOp::IsFinite, &nan)
            .unwrap()
            .to_vec::<bool>(),
        vec![false, false, true]
    );
    let n = pointwise::unary(
        UnaryOp::NanToNum {
            nan: 0.0,
            posinf: None,
            neginf: None,
        },
        &nan,
    )
    .unwrap();
    assert_eq!(n.to_vec::<f32>(), vec![0.0, f32::MAX, 1.0]);
}

#[test]
fn in_place_ops_alias_and_bump_version() {
    let x = arange_f32(6, &[2, 3]);
    let alias = x.view(&[6]).unwrap();
    let v = x.version();
    pointwise::binary_(
        BinaryOp::Mul,
        &x,
        ts(&t(&[1., 2., 3.], &[3])),
        Scalar::Int(1),
    )
    .unwrap();
    assert_eq!(alias.to_vec::<f32>(), vec![0., 2., 6., 3., 8., 15.]);
    assert_eq!(alias.version(), v + 1);
    // Results that cannot be cast back are rejected.
    let i = ti(&[1, 2], &[2]);
    let e = pointwise::binary_(BinaryOp::Div, &i, sc(2), Scalar::Int(1)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "result type Float can't be cast to the desired output type Long"
    );
    // Transposed in-place add over itself reads before writing.
    let m = arange_f32(4, &[2, 2]);
    pointwise::binary_(BinaryOp::Add, &m, ts(&m.t().unwrap()), Scalar::Int(1)).unwrap();
    assert_eq!(m.to_vec::<f32>(), vec![0., 3., 3., 6.]);
    pointwise::clamp_(&m, Some(sc(1.0)), Some(sc(4.0))).unwrap();
    assert_eq!(m.to_vec::<f32>(), vec![1., 3., 3., 4.]);
}

#[test]
fn where_masked_fill_clamp() {
    let c = Tensor::from_vec(vec![true, false, true], &[3]).unwrap();
    let a = ti(&[1, 2, 3], &[3]);
    let w = pointwise::where_(&c, ts(&a), sc(0.5)).unwrap();
    assert_eq!(
        (w.dtype(), w.to_vec::<f32>()),
        (DType::Float32, vec![1.0, 0.5, 3.0])
    );
    let m = pointwise::masked_fill(&arange_f32(6, &[2, 3]), &c, sc(-1.0)).unwrap();
    assert_eq!(m.to_vec::<f32>(), vec![-1., 1., -1., -1., 4., -1.]);
    let cl = pointwise::clamp(
        &t(&[-2., 0.5, f32::NAN, 9.], &[4]),
        Some(sc(0)),
        Some(sc(1)),
    )
    .unwrap();
    assert_close(&cl.to_vec::<f64>(), &[0.0, 0.5, f64::NAN, 1.0], 0.0);
}

/// Naive reduction reference over `dims` of a row-major f64 array.
pub(super) fn naive_sum(x: &[f64], shape: &[usize], dims: &[usize]) -> Vec<f64> {
    let out_shape: Vec<usize> = (0..shape.len())
        .map(|d| if dims.contains(&d) { 1 } else { shape[d] })
        .collect();
    let mut out = vec![0.0; out_shape.iter().product()];
    let strides = crate::layout::contiguous_strides(shape);
    let ostrides = crate::layout::contiguous_strides(&out_shape);
    for (i, v) in x.iter().enumerate() {
        let mut o = 0;
        for d in 0..shape.len() {
            let idx = (i as isize / strides[d]) as usize % shape[d];
            if !dims.contains(&d) {
                o += idx * ostrides[d] as usize;
            }
        }
        out[o] += v;
    }
    out
}

#[test]
fn reductions_over_multiple_dims_with_keepdim() {
    let shape = [3, 4, 5];
    let vals: Vec<f32> = (0..60).map(|i| ((i * 37) % 23) as f32 - 11.0).collect();
    let x = t(&vals, &shape);
    let xf: Vec<f64> = vals.iter().map(|&v| v as f64).collect();
    for dims in [
        vec![0],
        vec![1],
        vec![2],
        vec![0, 2],
        vec![2, 0],
        vec![0, 1, 2],
    ] {
        let di: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        let got = reduce::reduce(ReduceOp::Sum, &x, Some(&di), true, None).unwrap();
        let want = naive_sum(&xf, &shape, &dims);
        assert_eq!(
            got.shape(),
            &(0..3)
                .map(|d| if dims.contains(&d) { 1 } else { shape[d] })
                .collect::<Vec<_>>()[..]
        );
        assert_close(&got.to_vec::<f64>(), &want, 1e-12);
        let mean = reduce::reduce(ReduceOp::Mean, &x, Some(&di), false, None).unwrap();
        let n: usize = dims.iter().map(|&d| shape[d]).product();
        assert_close(
            &mean.to_vec::<f64>(),
            &want.iter().map(|v| v / n as f64).collect::<Vec<_>>(),
            1e-6,
        );
    }
    // Negative dims, int sums to int64, amax over a transposed view.
    let s = reduce::reduce(
        ReduceOp::Sum,
        &ti(&[1, 2, 3, 4], &[2, 2]),
        Some(&[-1]),
        false,
        None,
    )
    .unwrap();
    assert_eq!((s.dtype(), s.to_vec::<i64>()), (DType::Int64, vec![3, 7]));
    let am = reduce::reduce(
        ReduceOp::Amax,
        &x.transpose(0, 2).unwrap(),
        Some(&[1, 2]),
        false,
        None,
    )
    .unwrap();
    assert_eq!(am.shape(), &[5]);
}

#[test]
fn sum_is_accurate() {
    // 1e6 copies of 0.1f32: naive f32 accumulation drifts by ~1e3 ulp; we must not.
    let x = Tensor::full(&[1_000_000], Scalar::Float(0.1), DType::Float32);
    let s = reduce::reduce(ReduceOp::Sum, &x, None, false, None)
        .unwrap()
        .item()
        .unwrap()
        .to_f64();
    let want = 1_000_000.0 * (0.1f32 as f64);
    assert!((s - want).abs() / want < 1e-6, "{s} vs {want}");
}

#[test]
fn var_std_max_argmax_logsumexp() {
    let x = t(&[1., 2., 3., 4., 10., f32::NAN], &[2, 3]);
    let v = reduce::reduce(
        ReduceOp::Var { correction: 1.0 },
        &x.narrow(0, 0, 1).unwrap(),
        Some(&[1]),
        false,
        None,
    )
    .unwrap();
    assert_close(&v.to_vec::<f64>(), &[1.0], 1e-7);
    let s = reduce::reduce(
        ReduceOp::Std { correction: 0.0 },
        &t(&[1., 3.], &[2]),
        None,
        false,
        None,
    )
    .unwrap();
    assert_close(&s.to_vec::<f64>(), &[1.0], 1e-7);
    let (vals, idx) = reduce::minmax_dim(&x, 1, false, true).unwrap();
    assert_close(&vals.to_vec::<f64>(), &[3.0, f64::NAN], 0.0);
    assert_eq!(idx.to_vec::<i64>(), vec![2, 2]);
    let (vals, idx) = reduce::minmax_dim(&x, 0, true, false).unwrap();
    assert_eq!(
        (vals.shape(), idx.to_vec::<i64>()),
        (&[1usize, 3][..], vec![0, 0, 1])
    );
    let am = reduce::reduce(
        ReduceOp::Argmax,
        &t(&[3., 7., 7., 1.], &[4]),
        None,
        false,
        None,
    )
    .unwrap();
    assert_eq!(am.to_vec::<i64>(), vec![1]);
    let l = reduce::reduce(
        ReduceOp::LogSumExp,
        &t(&[1000., 1000.], &[2]),
        Some(&[0]),
        false,
        None,
    )
    .unwrap();
    assert_close(&l.to_vec::<f64>(), &[1000.0 + 2f64.ln()], 1e-6);
    // NaN propagates as ATen's amax does: an all-NaN row is NaN (was -inf), and -inf / +inf
    // rows keep their infinity.
    let nan = f32::NAN;
    let x = t(
        &[
            nan,
            nan,
            nan,
            1.0,
            f32::NEG_INFINITY,
            f32::NEG_INFINITY,
            f32::INFINITY,
            1.0,
        ],
        &[4, 2],
    );
    let l = reduce::reduce(ReduceOp::LogSumExp, &x, Some(&[1]), false, None).unwrap();
    let l = l.to_vec::<f32>();
    assert!(l[0].is_nan() && l[1].is_nan(), "{l:?}");
    assert_eq!((l[2], l[3]), (f32::NEG_INFINITY, f32::INFINITY));
    assert!(reduce::reduce(ReduceOp::Mean, &ti(&[1], &[1]), None, false, None).is_err());
}

#[test]
fn zero_dim_reductions_do_not_panic() {
    let x = Tensor::scalar(2.5f32);
    let r = |op: ReduceOp, dims: Option<&[i64]>| reduce::reduce(op, &x, dims, false, None).unwrap();
    assert_eq!(r(ReduceOp::Sum, Some(&[0])).to_vec::<f32>(), vec![2.5]);
    assert_eq!(r(ReduceOp::Amax, Some(&[-1])).shape(), &[] as &[usize]);
    assert_eq!(r(ReduceOp::Argmax, Some(&[0])).to_vec::<i64>(), vec![0]);
    assert!(r(ReduceOp::Var { correction: 1.0 }, Some(&[0])).to_vec::<f32>()[0].is_nan());
    assert_eq!(
        r(ReduceOp::LogSumExp, Some(&[0])).to_vec::<f32>(),
        vec![2.5]
    );
    assert!(reduce::reduce(ReduceOp::Sum, &x, Some(&[1]), false, None).is_err());
    let (v, i) = reduce::minmax_dim(&x, 0, false, true).unwrap();
    assert_eq!((v.to_vec::<f32>(), i.to_vec::<i64>()), (vec![2.5], vec![0]));
    let s = crate::ops::nn::softmax(&x, 0, None, false).unwrap();
    assert_eq!((s.shape(), s.to_vec::<f32>()), (&[] as &[usize], vec![1.0]));
}

#[test]
fn erfinv_inverts_erf() {
    use crate::kernels::special::erfinv_f64;
    for i in -999..=999 {
        let y = f64::from(i) / 1000.0;
        let x = erfinv_f64(y);
        assert!((libm::erf(x) - y).abs() <= 2.0 * f64::EPSILON, "{y}: {x}");
    }
    // The tails, where erf rounds to 1: erfc(erfinv(y)) recovers 1 - y.
    for t in [1e-3, 1e-8, 1e-15] {
        let x = erfinv_f64(1.0 - t);
        assert!((libm::erfc(x) - t).abs() <= 1e-3 * t, "{t}: {x}");
    }
    assert_eq!(erfinv_f64(1.0), f64::INFINITY);
    assert_eq!(erfinv_f64(-1.0), f64::NEG_INFINITY);
    assert!(erfinv_f64(1.5).is_nan() && erfinv_f64(f64::NAN).is_nan());
    assert!(erfinv_f64(-0.0).is_sign_negative());
}
