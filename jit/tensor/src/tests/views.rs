use super::*;
use crate::Shaped;

#[test]
fn views_share_storage_and_see_writes() {
    let x = arange_f32(12, &[3, 4]);
    let v = x.view(&[4, 3]).unwrap();
    let tr = x.t().unwrap();
    let s = x.slice(1, Some(1), Some(3), 1).unwrap();
    for y in [&v, &tr, &s] {
        assert!(y.shares_storage(&x));
    }
    let before = x.version();
    s.fill_(Scalar::Float(-1.0));
    // Every alias sees the write and the bumped version.
    assert_eq!(v.version(), before + 1);
    assert_eq!(tr.version(), before + 1);
    assert_eq!(
        x.to_vec::<f32>(),
        vec![0., -1., -1., 3., 4., -1., -1., 7., 8., -1., -1., 11.]
    );
    assert_eq!(tr.to_vec::<f32>()[..3], [0., 4., 8.]);
}

#[test]
fn view_follows_pytorch_stride_rule() {
    let x = arange_f32(24, &[2, 3, 4]);
    // Splitting and merging contiguous dims is a view.
    assert_eq!(x.view(&[6, 4]).unwrap().strides(), &[4, 1]);
    assert_eq!(x.view(&[2, -1]).unwrap().shape(), &[2, 12]);
    // A transposed tensor cannot be flattened without a copy...
    let tr = x.transpose(1, 2).unwrap();
    let err = tr.view(&[2, 12]).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("view size is not compatible with input tensor's size and stride")
    );
    // ...but its untouched leading dim can still be split, and reshape copies.
    assert_eq!(tr.view(&[1, 2, 4, 3]).unwrap().strides(), &[24, 12, 1, 4]);
    let r = tr.reshape(&[2, 12]).unwrap();
    assert!(!r.shares_storage(&x));
    assert_eq!(r.to_vec::<f32>()[..4], [0., 4., 8., 1.]);
    // reshape of a contiguous tensor stays a view.
    assert!(x.reshape(&[4, 6]).unwrap().shares_storage(&x));
}

#[test]
fn permute_expand_select_narrow_squeeze() {
    let x = arange_f32(6, &[2, 3]);
    let p = x.permute(&[1, 0]).unwrap();
    assert_eq!(
        (p.shape(), p.strides()),
        (&[3usize, 2][..], &[1isize, 3][..])
    );
    let e = t(&[1., 2., 3.], &[3]).expand(&[2, -1]).unwrap();
    assert_eq!(e.strides(), &[0, 1]);
    assert_eq!(e.to_vec::<f32>(), vec![1., 2., 3., 1., 2., 3.]);
    assert_eq!(x.select(1, -1).unwrap().to_vec::<f32>(), vec![2., 5.]);
    assert_eq!(
        x.narrow(1, 1, 2).unwrap().to_vec::<f32>(),
        vec![1., 2., 4., 5.]
    );
    let u = x.unsqueeze(0).unwrap().unsqueeze(-1).unwrap();
    assert_eq!(u.shape(), &[1, 2, 3, 1]);
    assert_eq!(u.squeeze(None).unwrap().shape(), &[2, 3]);
    assert_eq!(u.squeeze(Some(&[0])).unwrap().shape(), &[2, 3, 1]);
    assert_eq!(x.unflatten(1, &[3, 1]).unwrap().shape(), &[2, 3, 1]);
    assert_eq!(x.flatten(0, -1).unwrap().shape(), &[6]);
    let d = arange_f32(9, &[3, 3]).diagonal(1, 0, 1).unwrap();
    assert_eq!(d.to_vec::<f32>(), vec![1., 5.]);
    let a = x.as_strided(&[2, 2], &[1, 2], Some(1)).unwrap();
    assert_eq!(a.to_vec::<f32>(), vec![1., 3., 2., 4.]);
    assert!(x.as_strided(&[4], &[2], Some(0)).is_err());
}

#[test]
fn slice_clamps_like_python() {
    let x = arange_f32(5, &[5]);
    let v = |s: Option<i64>, e: Option<i64>, st: i64| x.slice(0, s, e, st).unwrap().to_vec::<f32>();
    assert_eq!(v(Some(-2), None, 1), vec![3., 4.]);
    assert_eq!(v(Some(1), Some(100), 2), vec![1., 3.]);
    assert_eq!(v(Some(4), Some(2), 1), Vec::<f32>::new());
    assert_eq!(v(Some(-100), Some(2), 1), vec![0., 1.]);
    assert!(x.slice(0, None, None, 0).is_err());
}

#[test]
fn broadcasting_shapes_and_message() {
    use crate::broadcast_shapes;
    assert_eq!(broadcast_shapes(&[3, 1], &[4]).unwrap().as_slice(), &[3, 4]);
    assert_eq!(broadcast_shapes(&[], &[2, 2]).unwrap().as_slice(), &[2, 2]);
    let e = broadcast_shapes(&[2, 3], &[2, 4]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"
    );
}

#[test]
fn copy_broadcasts_and_casts() {
    let dst = Tensor::zeros(&[2, 3], crate::DType::Int32);
    dst.copy_(&t(&[1.7, -2.2, 3.0], &[3])).unwrap();
    assert_eq!(dst.to_vec::<i32>(), vec![1, -2, 3, 1, -2, 3]);
    let e = dst.copy_(&t(&[1., 2.], &[2])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"
    );
    // copy_ from an overlapping view of itself reads the old values.
    let x = arange_f32(4, &[4]);
    x.slice(0, Some(1), None, 1)
        .unwrap()
        .copy_(&x.slice(0, None, Some(3), 1).unwrap())
        .unwrap();
    assert_eq!(x.to_vec::<f32>(), vec![0., 0., 1., 2.]);
}

#[test]
fn external_storage_runs_release_once() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let released = Arc::new(AtomicUsize::new(0));
    let mut buf = vec![1.5f32, 2.5];
    let r = released.clone();
    let ptr = std::ptr::NonNull::new(buf.as_mut_ptr().cast::<u8>()).unwrap();
    // SAFETY: `buf` outlives the storage (dropped below after the tensors).
    let st = unsafe {
        crate::Storage::from_external(
            ptr,
            8,
            Box::new(move || {
                r.fetch_add(1, Ordering::SeqCst);
            }),
        )
    };
    let x = Tensor::from_storage(
        Arc::new(st),
        crate::DType::Float32,
        crate::Layout::contiguous(&[2]),
    )
    .unwrap();
    let y = x.clone();
    assert_eq!(y.to_vec::<f32>(), vec![1.5, 2.5]);
    drop(x);
    assert_eq!(released.load(Ordering::SeqCst), 0);
    drop(y);
    assert_eq!(released.load(Ordering::SeqCst), 1);
    drop(buf);
}

#[test]
fn storage_is_aligned() {
    let x = Tensor::empty(&[3], crate::DType::Float64);
    assert_eq!(
        x.storage().as_ptr() as usize % crate::storage::STORAGE_ALIGN,
        0
    );
    assert_eq!(x.layout().offset, 0);
}
