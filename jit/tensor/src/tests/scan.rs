//! `cummax`/`cummin`/`logcumsumexp`: references from the definitions (the extremum of each prefix
//! and where it was last attained; `log(sum(exp))` of each prefix), not from running updates.

use super::*;
use crate::DType;
use crate::ops::scan::{self, ExtremumOp};

/// The prefix extremum of `row[..=i]` and its index: NaN wins (its last occurrence), else the last
/// position holding the max (min).
fn prefix_extremum(row: &[f64], i: usize, max: bool) -> (f64, i64) {
    let prefix = &row[..=i];
    if let Some(j) = prefix.iter().rposition(|v| v.is_nan()) {
        return (f64::NAN, j as i64);
    }
    let best = prefix
        .iter()
        .copied()
        .fold(prefix[0], |a, b| if max { a.max(b) } else { a.min(b) });
    let j = prefix.iter().rposition(|&v| v == best).unwrap();
    (prefix[j], j as i64)
}

/// Reference of `cummax`/`cummin` along `dim` of a row-major `[rows, cols]` matrix.
fn reference_2d(
    x: &[f64],
    rows: usize,
    cols: usize,
    dim: usize,
    max: bool,
) -> (Vec<f64>, Vec<i64>) {
    let mut vals = vec![0.0; rows * cols];
    let mut idx = vec![0; rows * cols];
    let (lines, len) = if dim == 0 { (cols, rows) } else { (rows, cols) };
    for l in 0..lines {
        let at = |i: usize| if dim == 0 { i * cols + l } else { l * cols + i };
        let line: Vec<f64> = (0..len).map(|i| x[at(i)]).collect();
        for i in 0..len {
            let (v, j) = prefix_extremum(&line, i, max);
            vals[at(i)] = v;
            idx[at(i)] = j;
        }
    }
    (vals, idx)
}

fn f64s(x: &Tensor) -> Vec<f64> {
    x.to_dtype(DType::Float64).to_vec::<f64>()
}

#[track_caller]
fn same_bits(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            g == w || (g.is_nan() && w.is_nan()),
            "element {i}: got {g}, want {w}"
        );
    }
}

#[test]
fn ties_take_the_later_index() {
    let x = t(&[1., 3., 3., 2., 3.], &[5]);
    let (v, i) = scan::cum_extremum(ExtremumOp::Max, &x, 0).unwrap();
    assert_eq!(v.to_vec::<f32>(), vec![1., 3., 3., 3., 3.]);
    assert_eq!(i.to_vec::<i64>(), vec![0, 1, 2, 2, 4]);
    assert_eq!(i.dtype(), DType::Int64);
    let (v, i) = scan::cum_extremum(ExtremumOp::Min, &x, -1).unwrap();
    assert_eq!(v.to_vec::<f32>(), vec![1., 1., 1., 1., 1.]);
    assert_eq!(i.to_vec::<i64>(), vec![0, 0, 0, 0, 0]);
    let x = t(&[2., 1., 1., 3., 1.], &[5]);
    let (_, i) = scan::cum_extremum(ExtremumOp::Min, &x, 0).unwrap();
    assert_eq!(i.to_vec::<i64>(), vec![0, 1, 2, 2, 4]);
}

#[test]
fn nan_sticks_and_later_nans_take_the_index() {
    let nan = f32::NAN;
    let x = t(&[1., nan, 3., nan, 0.], &[5]);
    for op in [ExtremumOp::Max, ExtremumOp::Min] {
        let (v, i) = scan::cum_extremum(op, &x, 0).unwrap();
        same_bits(&f64s(&v), &[1., f64::NAN, f64::NAN, f64::NAN, f64::NAN]);
        assert_eq!(i.to_vec::<i64>(), vec![0, 1, 1, 3, 3]);
    }
    // A NaN first element sticks from the start.
    let (v, i) = scan::cum_extremum(ExtremumOp::Max, &t(&[nan, 5.], &[2]), 0).unwrap();
    same_bits(&f64s(&v), &[f64::NAN, f64::NAN]);
    assert_eq!(i.to_vec::<i64>(), vec![0, 0]);
}

#[test]
fn matrices_along_each_dim_match_the_prefix_definition() {
    let nan = f32::NAN;
    let data = [
        3.,
        1.,
        4.,
        1.,
        5.,
        9.,
        2.,
        6.,
        5.,
        3.,
        5.,
        8.,
        9.,
        7.,
        9.,
        3.,
        2.,
        3.,
        8.,
        4.,
        6.,
        2.,
        6.,
        4.,
        nan,
        3.,
        3.,
        8.,
        3.,
        2.,
        7.,
        9.,
        5.,
        0.,
        2.,
        8.,
        f32::INFINITY,
        -1.,
        -0.,
        f32::NEG_INFINITY,
    ];
    let (rows, cols) = (5, 8);
    let x = t(&data, &[rows, cols]);
    let xf: Vec<f64> = data.iter().map(|&v| f64::from(v)).collect();
    for dim in [0, 1] {
        for (op, max) in [(ExtremumOp::Max, true), (ExtremumOp::Min, false)] {
            let (v, i) = scan::cum_extremum(op, &x, dim as i64).unwrap();
            let (wv, wi) = reference_2d(&xf, rows, cols, dim, max);
            same_bits(&f64s(&v), &wv);
            assert_eq!(i.to_vec::<i64>(), wi, "dim {dim} max {max}");
            // A transposed (non-contiguous) view scans the same lines.
            let xt = x.transpose(0, 1).unwrap();
            let (vt, it) = scan::cum_extremum(op, &xt, 1 - dim as i64).unwrap();
            let back = |a: &Tensor| a.transpose(0, 1).unwrap().contiguous();
            same_bits(&f64s(&back(&vt)), &wv);
            assert_eq!(back(&it).to_vec::<i64>(), wi);
        }
    }
}

#[test]
fn parallel_slabs_match_the_reference() {
    // 600 x 500 = 300_000 elements: past the parallel threshold, along the last dim.
    let (rows, cols) = (600, 500);
    let xf: Vec<f64> = (0..rows * cols)
        .map(|k| ((k * 7919) % 1013) as f64 - 500.0)
        .collect();
    let x = Tensor::from_vec(xf.clone(), &[rows, cols]).unwrap();
    let (v, i) = scan::cum_extremum(ExtremumOp::Min, &x, 1).unwrap();
    let (wv, wi) = reference_2d(&xf, rows, cols, 1, false);
    same_bits(&v.to_vec::<f64>(), &wv);
    assert_eq!(i.to_vec::<i64>(), wi);
}

#[test]
fn integers_and_bools() {
    let x = Tensor::from_vec(vec![2i8, -1, 2, 5, -1], &[5]).unwrap();
    let (v, i) = scan::cum_extremum(ExtremumOp::Min, &x, 0).unwrap();
    assert_eq!(v.dtype(), DType::Int8);
    assert_eq!(v.to_vec::<i8>(), vec![2, -1, -1, -1, -1]);
    assert_eq!(i.to_vec::<i64>(), vec![0, 1, 1, 1, 4]);
    let (v, i) = scan::cum_extremum(ExtremumOp::Max, &x, 0).unwrap();
    assert_eq!(v.to_vec::<i8>(), vec![2, 2, 2, 5, 5]);
    assert_eq!(i.to_vec::<i64>(), vec![0, 0, 2, 3, 3]);
    let b = Tensor::from_vec(vec![false, true, false, true], &[4]).unwrap();
    let (v, i) = scan::cum_extremum(ExtremumOp::Max, &b, 0).unwrap();
    assert_eq!(v.to_vec::<bool>(), vec![false, true, true, true]);
    assert_eq!(i.to_vec::<i64>(), vec![0, 1, 1, 3]);
    let (v, i) = scan::cum_extremum(ExtremumOp::Min, &b, 0).unwrap();
    assert_eq!(v.to_vec::<bool>(), vec![false, false, false, false]);
    assert_eq!(i.to_vec::<i64>(), vec![0, 0, 2, 2]);
}

#[test]
fn zero_dim_and_empty_inputs() {
    let s = Tensor::from_vec(vec![5.0f32], &[]).unwrap();
    for dim in [0, -1, 3] {
        // As ATen, a 0-d input takes any dim.
        let (v, i) = scan::cum_extremum(ExtremumOp::Max, &s, dim).unwrap();
        assert_eq!((v.shape(), i.shape()), (&[][..], &[][..]));
        assert_eq!((v.to_vec::<f32>(), i.to_vec::<i64>()), (vec![5.0], vec![0]));
    }
    let e = Tensor::zeros(&[0, 3], DType::Float32);
    for dim in [1, 7] {
        let (v, i) = scan::cum_extremum(ExtremumOp::Min, &e, dim).unwrap();
        assert_eq!((v.shape(), i.shape()), (&[0, 3][..], &[0, 3][..]));
        assert_eq!(i.dtype(), DType::Int64);
    }
    let err = scan::cum_extremum(ExtremumOp::Max, &t(&[1., 2., 3.], &[3]), 1).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Dimension out of range (expected to be in range of [-1, 0], but got 1)"
    );
    assert_eq!(err.kind(), crate::ErrorKind::Index);
    let lse = scan::logcumsumexp(&s, -1).unwrap();
    assert_eq!((lse.shape(), lse.to_vec::<f32>()), (&[][..], vec![5.0]));
    assert_eq!(
        scan::logcumsumexp(&e, 0).unwrap().shape(),
        &[0, 3],
        "empty in, empty out"
    );
}

/// `log(sum(exp(row[..=i])))` in f64, naively (inputs small enough not to overflow).
fn naive_lse(row: &[f64]) -> Vec<f64> {
    (0..row.len())
        .map(|i| row[..=i].iter().map(|v| v.exp()).sum::<f64>().ln())
        .collect()
}

#[test]
fn logcumsumexp_matches_the_naive_sum_and_stays_finite() {
    let xf = [0.5, -1.25, 3.0, 2.0, -7.0, 0.0];
    let x = Tensor::from_vec(xf.to_vec(), &[2, 3]).unwrap();
    let got = scan::logcumsumexp(&x, 1).unwrap();
    let mut want = naive_lse(&xf[..3]);
    want.extend(naive_lse(&xf[3..]));
    assert_close(&got.to_vec::<f64>(), &want, 1e-14);
    let got0 = scan::logcumsumexp(&x, 0).unwrap().to_vec::<f64>();
    let col = |c: usize| naive_lse(&[xf[c], xf[3 + c]]);
    let want0 = [
        col(0)[0],
        col(1)[0],
        col(2)[0],
        col(0)[1],
        col(1)[1],
        col(2)[1],
    ];
    assert_close(&got0, &want0, 1e-14);
    // exp(1000) overflows; the running max keeps the result exact.
    let big = t(&[1000., 1000., -1000.], &[3]);
    let got = scan::logcumsumexp(&big, 0).unwrap();
    assert_eq!(got.dtype(), DType::Float32);
    let want = [1000.0, 1000.0 + 2f64.ln(), 1000.0 + 2f64.ln()];
    assert_close(&f64s(&got), &want, 1e-7);
    // float16 keeps its dtype.
    let h = t(&[0., 0.], &[2]).to_dtype(DType::Float16);
    let got = scan::logcumsumexp(&h, 0).unwrap();
    assert_eq!(got.dtype(), DType::Float16);
    assert_close(&f64s(&got), &[0.0, 2f64.ln()], 1e-3);
}

#[test]
fn logcumsumexp_infinities_and_nan() {
    let (inf, nan) = (f32::INFINITY, f32::NAN);
    let run = |v: &[f32]| f64s(&scan::logcumsumexp(&t(v, &[v.len()]), 0).unwrap());
    let ninf = f64::NEG_INFINITY;
    // An all -inf prefix stays -inf (no NaN from -inf - -inf).
    same_bits(&run(&[-inf, -inf, 0.]), &[ninf, ninf, 0.]);
    same_bits(&run(&[inf, 1., inf, -inf]), &[f64::INFINITY; 4]);
    same_bits(&run(&[-inf, inf]), &[ninf, f64::INFINITY]);
    same_bits(&run(&[1., nan, 2.]), &[1., f64::NAN, f64::NAN]);
    same_bits(&run(&[nan, -inf]), &[f64::NAN, f64::NAN]);
}

#[test]
fn logcumsumexp_rejects_integers_after_the_dim() {
    let x = ti(&[1, 2], &[2]);
    let e = scan::logcumsumexp(&x, 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "\"logcumsumexp_out_cpu\" not implemented for 'Long'"
    );
    assert_eq!(e.kind(), crate::ErrorKind::NotImplemented);
    let b = Tensor::from_vec(vec![true], &[1]).unwrap();
    let e = scan::logcumsumexp(&b, 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "\"logcumsumexp_out_cpu\" not implemented for 'Bool'"
    );
    let e = scan::logcumsumexp(&x, 2).unwrap_err();
    assert_eq!(e.kind(), crate::ErrorKind::Index);
}
