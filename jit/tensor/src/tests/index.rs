use super::*;
use crate::DType;
use crate::IndexItem as I;
use crate::ops::index::{getitem, getitem_meta, setitem};

fn sl(start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> I<Tensor> {
    I::Slice { start, stop, step }
}

#[test]
fn basic_indexing_is_a_view() {
    let x = arange_f32(24, &[2, 3, 4]);
    let v = getitem(
        &x,
        &[I::Int(1), sl(None, None, Some(2)), I::None, I::Int(-1)],
    )
    .unwrap();
    assert!(v.shares_storage(&x));
    assert_eq!(v.shape(), &[2, 1]);
    assert_eq!(v.to_vec::<f32>(), vec![15., 23.]);
    let e = getitem(&x, &[I::Ellipsis, I::Int(0)]).unwrap();
    assert_eq!(e.shape(), &[2, 3]);
    assert_eq!(
        getitem(&x, &[I::Bool(false)]).unwrap().shape(),
        &[0, 2, 3, 4]
    );
    let err = getitem(&x, &[I::Int(0), I::Int(0), I::Int(0), I::Int(0)]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "too many indices for tensor of dimension 3"
    );
    let err = getitem(&x, &[I::Int(2)]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "index 2 is out of bounds for dimension 0 with size 2"
    );
}

#[test]
fn advanced_indexing_placement() {
    let x = arange_f32(24, &[2, 3, 4]);
    let idx = ti(&[2, 0], &[2]);
    // Adjacent advanced index stays in place: [2, 2, 4].
    let a = getitem(&x, &[sl(None, None, None), I::Tensor(idx.clone())]).unwrap();
    assert_eq!(a.shape(), &[2, 2, 4]);
    assert_eq!(a.to_vec::<f32>()[..8], [8., 9., 10., 11., 0., 1., 2., 3.]);
    // Separated advanced indices go first: [2, 3].
    let i0 = ti(&[1, 0], &[2]);
    let i2 = ti(&[3, -1], &[2]);
    let b = getitem(
        &x,
        &[
            I::Tensor(i0.clone()),
            sl(None, None, None),
            I::Tensor(i2.clone()),
        ],
    )
    .unwrap();
    assert_eq!(b.shape(), &[2, 3]);
    assert_eq!(b.to_vec::<f32>(), vec![15., 19., 23., 3., 7., 11.]);
    let m = getitem_meta(
        &x.meta(),
        &[
            I::Tensor(i0.meta()),
            I::Slice {
                start: None,
                stop: None,
                step: None,
            },
            I::Tensor(i2.meta()),
        ],
    )
    .unwrap();
    assert_eq!(m.shape, vec![2, 3]);
    // Boolean mask.
    let y = arange_f32(6, &[2, 3]);
    let mask = Tensor::from_vec(vec![true, false, true, false, false, true], &[2, 3]).unwrap();
    assert_eq!(
        getitem(&y, &[I::Tensor(mask.clone())])
            .unwrap()
            .to_vec::<f32>(),
        vec![0., 2., 5.]
    );
    assert!(getitem_meta(&y.meta(), &[I::Tensor(mask.meta())]).is_err());
    let row_mask = Tensor::from_vec(vec![false, true], &[2]).unwrap();
    assert_eq!(
        getitem(&y, &[I::Tensor(row_mask)]).unwrap().to_vec::<f32>(),
        vec![3., 4., 5.]
    );
    // A uint8 index is a mask too (PyTorch's deprecated byte masks), never positions: rows 0
    // and 2 of a 3-row tensor, not rows [1, 0, 1]; a 0-d one adds a dim as a bool does.
    let z = arange_f32(12, &[3, 4]);
    let bytes = Tensor::from_vec(vec![1u8, 0, 1], &[3]).unwrap();
    let picked = getitem(&z, &[I::Tensor(bytes.clone())]).unwrap();
    assert_eq!(picked.shape(), &[2, 4]);
    assert_eq!(picked.to_vec::<f32>()[4..], [8., 9., 10., 11.]);
    assert!(getitem_meta(&z.meta(), &[I::Tensor(bytes.meta())]).is_err());
    let one = Tensor::from_vec(vec![1u8], &[]).unwrap();
    assert_eq!(getitem(&z, &[I::Tensor(one)]).unwrap().shape(), &[1, 3, 4]);
    setitem(&z, &[I::Tensor(bytes.clone())], ts(&t(&[-1.; 4], &[4]))).unwrap();
    assert_eq!(z.to_vec::<f32>()[..5], [-1., -1., -1., -1., 4.]);
    // A one-value write is ATen's masked_fill_, which refuses byte masks.
    let err = setitem(&z, &[I::Tensor(bytes)], sc(0.0)).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("masked_fill_ only supports boolean masks")
    );
    let err = getitem(&y, &[I::Tensor(ti(&[5], &[1]))]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "index 5 is out of bounds for dimension 0 with size 2"
    );
}

#[test]
fn setitem_writes_through() {
    let y = arange_f32(6, &[2, 3]);
    let alias = y.view(&[6]).unwrap();
    setitem(&y, &[I::Int(0)], sc(-1.0)).unwrap();
    assert_eq!(alias.to_vec::<f32>(), vec![-1., -1., -1., 3., 4., 5.]);
    let mask = pointwise_gt(&y, 3.5);
    setitem(&y, &[I::Tensor(mask)], sc(0.0)).unwrap();
    assert_eq!(y.to_vec::<f32>(), vec![-1., -1., -1., 3., 0., 0.]);
    setitem(
        &y,
        &[sl(None, None, None), I::Tensor(ti(&[2, 0], &[2]))],
        ts(&t(&[7., 8.], &[2])),
    )
    .unwrap();
    assert_eq!(y.to_vec::<f32>(), vec![8., -1., 7., 8., 0., 7.]);
    let z = Tensor::zeros(&[3], DType::Int64);
    setitem(&z, &[sl(Some(1), None, None)], ts(&t(&[1.9, 2.1], &[2]))).unwrap();
    assert_eq!(z.to_vec::<i64>(), vec![0, 1, 2]);
    let emb = crate::ops::index::embedding(
        &ti(&[[1, 1], [0, 2]].concat(), &[2, 2]),
        &arange_f32(6, &[3, 2]),
    )
    .unwrap();
    assert_eq!(emb.shape(), &[2, 2, 2]);
    assert_eq!(emb.to_vec::<f32>(), vec![2., 3., 2., 3., 0., 1., 4., 5.]);
}

/// `__setitem__` drops the value's leading size-1 dims before broadcasting (PyTorch's
/// `slicePrefix1sSize`); `index_put_` does not, and a value that still does not fit is an error.
#[test]
fn setitem_drops_leading_unit_dims() {
    let y = Tensor::zeros(&[3], DType::Float32);
    setitem(&y, &[I::Int(0)], ts(&t(&[5.], &[1]))).unwrap();
    assert_eq!(y.to_vec::<f32>(), vec![5., 0., 0.]);
    let z = Tensor::zeros(&[2, 3], DType::Float32);
    setitem(
        &z,
        &[I::Int(1)],
        ts(&Tensor::ones(&[1, 1, 3], DType::Float32)),
    )
    .unwrap();
    assert_eq!(z.to_vec::<f32>(), vec![0., 0., 0., 1., 1., 1.]);
    let w = Tensor::zeros(&[2, 3], DType::Float32);
    let rows = I::Tensor(ti(&[0, 1], &[2]));
    let v = arange_f32(6, &[1, 2, 3]);
    setitem(&w, std::slice::from_ref(&rows), ts(&v)).unwrap();
    assert_eq!(w.to_vec::<f32>(), v.to_vec::<f32>());
    let err = setitem(&w, &[rows], ts(&Tensor::ones(&[1, 3, 3], DType::Float32))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "shape mismatch: value tensor of shape [3, 3] cannot be broadcast to indexing result of shape [2, 3]"
    );
    // Only leading ones go: [2, 1] stays and does not fit a row of 3.
    assert!(
        setitem(
            &w,
            &[I::Int(0)],
            ts(&Tensor::ones(&[1, 2, 1], DType::Float32))
        )
        .is_err()
    );
    let idx = ti(&[0, 1], &[2]);
    assert!(crate::ops::gather::index_put_(&w, &[&idx], &v, false).is_err());
}

fn pointwise_gt(x: &Tensor, v: f64) -> Tensor {
    crate::ops::pointwise::binary(crate::BinaryOp::Gt, ts(x), sc(v), Scalar::Int(1)).unwrap()
}
