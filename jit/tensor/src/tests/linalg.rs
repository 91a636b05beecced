use super::*;
use crate::ops::{matmul, nn, pointwise, reduce, shape};
use crate::{BinaryOp, DType, ReduceOp, UnaryOp, creation, random};

fn naive_matmul(a: &[f64], b: &[f64], n: usize, k: usize, p: usize) -> Vec<f64> {
    let mut o = vec![0.0; n * p];
    for i in 0..n {
        for j in 0..p {
            o[i * p + j] = (0..k).map(|l| a[i * k + l] * b[l * p + j]).sum();
        }
    }
    o
}

#[test]
fn matmul_matches_naive_reference() {
    let (n, k, p) = (37, 70, 19);
    let a = random::randn(&[n, k], None, Some(&crate::Generator::new(1))).unwrap();
    let b = random::randn(&[k, p], None, Some(&crate::Generator::new(2))).unwrap();
    let want = naive_matmul(&a.to_vec::<f64>(), &b.to_vec::<f64>(), n, k, p);
    let got = matmul::matmul(&a, &b).unwrap();
    assert_close(&got.to_vec::<f64>(), &want, 1e-5);
    // Transposed operands go through strides, not copies.
    let bt = b.t().unwrap().contiguous().t().unwrap();
    assert_close(&matmul::mm(&a, &bt).unwrap().to_vec::<f64>(), &want, 1e-5);
    // f64 and f16.
    let got64 = matmul::matmul(&a.to_dtype(DType::Float64), &b.to_dtype(DType::Float64)).unwrap();
    assert_close(&got64.to_vec::<f64>(), &want, 1e-12);
    let got16 = matmul::matmul(&a.to_dtype(DType::Float16), &b.to_dtype(DType::Float16)).unwrap();
    assert_eq!(got16.dtype(), DType::Float16);
    assert_close(&got16.to_vec::<f64>(), &want, 3e-2);
    // Batched broadcasting: [2, 1, n, k] @ [3, k, p] -> [2, 3, n, p].
    let ab = Tensor::from_vec(a.to_vec::<f32>().repeat(2), &[2, 1, n, k]).unwrap();
    let bb = Tensor::from_vec(b.to_vec::<f32>().repeat(3), &[3, k, p]).unwrap();
    let r = matmul::matmul(&ab, &bb).unwrap();
    assert_eq!(r.shape(), &[2, 3, n, p]);
    assert_close(&r.to_vec::<f64>(), &want.repeat(6), 1e-5);
    // Vector cases and integer matmul.
    let v = t(&[1., 2., 3.], &[3]);
    assert_eq!(matmul::matmul(&v, &v).unwrap().shape(), &[] as &[usize]);
    let m = arange_f32(6, &[2, 3]);
    assert_eq!(
        matmul::matmul(&m, &v).unwrap().to_vec::<f32>(),
        vec![8., 26.]
    );
    let mi = ti(&[1, 2, 3, 4], &[2, 2]);
    assert_eq!(
        matmul::matmul(&mi, &mi).unwrap().to_vec::<i64>(),
        vec![7, 10, 15, 22]
    );
    let e = matmul::mm(&m, &m).unwrap_err();
    assert_eq!(
        e.to_string(),
        "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"
    );
}

#[test]
fn addmm_and_linear() {
    let x = arange_f32(6, &[2, 3]);
    let w = t(&[1., 0., 1., 0., 1., 0.], &[2, 3]);
    let bias = t(&[10., 20.], &[2]);
    let l = matmul::linear(&x, &w, Some(&bias)).unwrap();
    assert_eq!(l.to_vec::<f32>(), vec![12., 21., 18., 24.]);
    let a = matmul::addmm(
        &bias,
        &x,
        &w.t().unwrap(),
        Scalar::Float(0.5),
        Scalar::Int(2),
    )
    .unwrap();
    assert_eq!(a.to_vec::<f32>(), vec![9., 12., 21., 18.]);
    let nanb = t(&[f32::NAN, f32::NAN], &[2]);
    let z = matmul::addmm(&nanb, &x, &w.t().unwrap(), Scalar::Int(0), Scalar::Int(1)).unwrap();
    assert_eq!(z.to_vec::<f32>(), vec![2., 1., 8., 4.]);
}

#[test]
fn softmax_layer_norm() {
    let x = t(&[1., 2., 3., 4., 5., 7.], &[2, 3]);
    for dim in [0i64, 1] {
        let s = nn::softmax(&x, dim, None, false).unwrap();
        let sums = reduce::reduce(ReduceOp::Sum, &s, Some(&[dim]), false, None).unwrap();
        assert_close(&sums.to_vec::<f64>(), &vec![1.0; sums.numel()], 1e-6);
        let ls = nn::softmax(&x, dim, None, true).unwrap();
        let e = pointwise::unary(UnaryOp::Exp, &ls).unwrap();
        assert_close(&e.to_vec::<f64>(), &s.to_vec::<f64>(), 1e-6);
    }
    let s = nn::softmax(&x, 1, None, false).unwrap().to_vec::<f64>();
    let d = (1f64.exp() + 2f64.exp() + 3f64.exp()).recip();
    assert_close(
        &s[..3],
        &[1f64.exp() * d, 2f64.exp() * d, 3f64.exp() * d],
        1e-6,
    );
    let w = t(&[1., 2., 3.], &[3]);
    let b = t(&[0., 0., 1.], &[3]);
    let ln = nn::layer_norm(&x, &[3], Some(&w), Some(&b), 1e-5)
        .unwrap()
        .to_vec::<f64>();
    let r = 1.0 / (2.0f64 / 3.0 + 1e-5).sqrt();
    assert_close(&ln[..3], &[-r, 0.0, 3.0 * r + 1.0], 1e-5);
    let e = nn::layer_norm(&x, &[2], None, None, 1e-5).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Given normalized_shape=[2], expected input with shape [*, 2], but got input of size[2, 3]"
    );
}

#[test]
fn cat_stack_split_chunk() {
    let a = arange_f32(4, &[2, 2]);
    let b = ti(&[9, 9], &[2, 1]);
    let c = shape::cat(&[&a, &b], 1).unwrap();
    assert_eq!((c.dtype(), c.shape()), (DType::Float32, &[2usize, 3][..]));
    assert_eq!(c.to_vec::<f32>(), vec![0., 1., 9., 2., 3., 9.]);
    let e = shape::cat(&[&a, &b], 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Sizes of tensors must match except in dimension 0. Expected size 2 but got size 1 for tensor number 1 in the list."
    );
    let s = shape::stack(&[&a, &a], 1).unwrap();
    assert_eq!(s.shape(), &[2, 2, 2]);
    let parts = a.views_of(shape::split_layouts(&arange_f32(5, &[5]), 2, 0).unwrap());
    assert_eq!(parts.len(), 3);
    let x = arange_f32(5, &[5]);
    let parts = x.views_of(shape::chunk_layouts(&x, 2, 0).unwrap());
    assert_eq!(
        parts.iter().map(|p| p.to_vec::<f32>()).collect::<Vec<_>>(),
        vec![vec![0., 1., 2.], vec![3., 4.]]
    );
    assert!(parts[1].shares_storage(&x));
    assert!(shape::split_with_sizes_layouts(&x, &[2, 2], 0).is_err());
}

#[test]
fn creation_ops() {
    assert_eq!(
        creation::arange(Scalar::Int(5), None, Scalar::Int(1), None)
            .unwrap()
            .to_vec::<i64>(),
        vec![0, 1, 2, 3, 4]
    );
    assert_eq!(
        creation::arange(Scalar::Int(5), Some(Scalar::Int(0)), Scalar::Int(-2), None)
            .unwrap()
            .to_vec::<i64>(),
        vec![5, 3, 1]
    );
    let f = creation::arange(
        Scalar::Float(0.0),
        Some(Scalar::Float(1.0)),
        Scalar::Float(0.25),
        None,
    )
    .unwrap();
    assert_eq!(
        (f.dtype(), f.to_vec::<f32>()),
        (DType::Float32, vec![0., 0.25, 0.5, 0.75])
    );
    assert_eq!(
        creation::linspace(Scalar::Int(0), Scalar::Int(1), 5, None)
            .unwrap()
            .to_vec::<f32>(),
        vec![0., 0.25, 0.5, 0.75, 1.]
    );
    assert_eq!(
        creation::eye(2, Some(3), None).unwrap().to_vec::<f32>(),
        vec![1., 0., 0., 0., 1., 0.]
    );
    let d = Tensor::from_scalars(&[Scalar::Int(1), Scalar::Float(2.5)], &[2], None).unwrap();
    assert_eq!(d.dtype(), DType::Float32);
    assert_eq!(
        Tensor::full(&[2], Scalar::Bool(true), DType::Int32).to_vec::<i32>(),
        vec![1, 1]
    );
}

#[test]
fn random_is_seeded_and_distributed() {
    random::manual_seed(7);
    let a = random::rand(&[1000], None, None).unwrap();
    random::manual_seed(7);
    let b = random::rand(&[1000], None, None).unwrap();
    assert_eq!(a.to_vec::<f32>(), b.to_vec::<f32>());
    let av = a.to_vec::<f64>();
    assert!(av.iter().all(|&v| (0.0..1.0).contains(&v)));
    let g = crate::Generator::new(3);
    let n = random::randn(&[20000], None, Some(&g))
        .unwrap()
        .to_vec::<f64>();
    let mean = n.iter().sum::<f64>() / n.len() as f64;
    let var = n.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n.len() as f64;
    assert!(
        mean.abs() < 0.03 && (var - 1.0).abs() < 0.05,
        "{mean} {var}"
    );
    let r = random::randint(-3, 3, &[500], None, Some(&g))
        .unwrap()
        .to_vec::<i64>();
    assert!(r.iter().all(|v| (-3..3).contains(v)) && r.contains(&-3) && r.contains(&2));
    let mut p = random::randperm(50, None, Some(&g))
        .unwrap()
        .to_vec::<i64>();
    p.sort();
    assert_eq!(p, (0..50).collect::<Vec<_>>());
    let x = Tensor::ones(&[10000], DType::Float32);
    let d = random::dropout(&x, 0.25, true, Some(&g))
        .unwrap()
        .to_vec::<f32>();
    let zeros = d.iter().filter(|&&v| v == 0.0).count();
    assert!((2000..3000).contains(&zeros));
    assert!(d.iter().all(|&v| v == 0.0 || (v - 4.0 / 3.0).abs() < 1e-6));
    assert_eq!(
        random::dropout(&x, 0.5, false, None)
            .unwrap()
            .to_vec::<f32>(),
        x.to_vec::<f32>()
    );
}

#[test]
fn parallel_paths_match_serial() {
    // Above `PAR_THRESHOLD` (256 Ki), so both take the threaded path; strided to exercise run
    // splitting.
    let n = 600 * 517;
    assert!(n > crate::iter::PAR_THRESHOLD);
    let x = arange_f32(n, &[600, 517]).t().unwrap();
    let y = pointwise::binary(BinaryOp::Add, ts(&x), ts(&x), Scalar::Int(1)).unwrap();
    let xv = x.to_vec::<f32>();
    assert_eq!(
        y.to_vec::<f32>(),
        xv.iter().map(|v| v * 2.0).collect::<Vec<_>>()
    );
    let s = reduce::reduce(ReduceOp::Sum, &x, Some(&[1]), false, None)
        .unwrap()
        .to_vec::<f64>();
    let want: Vec<f64> = (0..517)
        .map(|j| (0..600).map(|i| (i * 517 + j) as f64).sum::<f64>() as f32 as f64)
        .collect();
    // Summed in f64 (exactly, at these sizes) and rounded once to the f32 result.
    assert_eq!(s, want);
}
