//! `view(dtype)` layouts and ATen's errors; values checked against `f32::to_bits`.

use super::{arange_f32, t};
use crate::DType;

#[test]
fn same_size_keeps_the_layout_and_reads_the_bits() {
    let x = t(&[1.0, -2.0, 0.5, f32::NAN], &[2, 2]).t().unwrap();
    let v = x.view_dtype(DType::Int32).unwrap();
    assert_eq!((v.shape(), v.strides()), (x.shape(), x.strides()));
    let want: Vec<i32> = [1.0f32, 0.5, -2.0, f32::NAN]
        .iter()
        .map(|f| f.to_bits() as i32)
        .collect();
    assert_eq!(v.to_vec::<i32>(), want);
    // A write through the view is a write to the original.
    v.fill_(crate::Scalar::Int(0));
    assert_eq!(x.to_vec::<f32>(), vec![0.0; 4]);
}

#[test]
fn smaller_elements_scale_the_last_dim_and_offset() {
    let x = arange_f32(6, &[2, 3]).narrow(0, 1, 1).unwrap();
    let b = x.view_dtype(DType::UInt8).unwrap();
    assert_eq!(
        (b.shape(), b.strides(), b.offset()),
        (&[1, 12][..], &[12isize, 1][..], 12)
    );
    assert_eq!(b.to_vec::<u8>()[..4], 3.0f32.to_le_bytes());
}

#[test]
fn larger_elements_need_divisible_sizes_strides_and_offset() {
    let x = arange_f32(8, &[2, 4]);
    let d = x.view_dtype(DType::Float64).unwrap();
    assert_eq!((d.shape(), d.strides()), (&[2, 2][..], &[2isize, 1][..]));
    let bits =
        |a: f32, b: f32| f64::from_bits(u64::from(a.to_bits()) | u64::from(b.to_bits()) << 32);
    assert_eq!(d.to_vec::<f64>()[1], bits(2.0, 3.0));
    let err = |r: crate::Result<crate::Tensor>| r.unwrap_err().to_string();
    assert_eq!(
        err(arange_f32(6, &[2, 3]).view_dtype(DType::Float64)),
        "self.size(-1) must be divisible by 2 to view Float as Double (different element sizes), but got 3"
    );
    assert_eq!(
        err(x.narrow(1, 1, 2).unwrap().view_dtype(DType::Float64)),
        "self.storage_offset() must be divisible by 2 to view Float as Double (different element sizes), but got 1"
    );
    assert_eq!(
        err(x.t().unwrap().view_dtype(DType::Float64)),
        "self.stride(-1) must be 1 to view Float as Double (different element sizes), but got 4"
    );
    assert_eq!(
        err(arange_f32(12, &[4, 3])
            .narrow(1, 0, 2)
            .unwrap()
            .view_dtype(DType::Float64)),
        "self.stride(0) must be divisible by 2 to view Float as Double (different element sizes), but got 3"
    );
    assert_eq!(
        err(t(&[1.0], &[]).view_dtype(DType::Int16)),
        "self.dim() cannot be 0 to view Float as Short (different element sizes)"
    );
}

#[test]
fn bool_views_take_only_zero_and_one_bytes() {
    let ok = super::ti(&[1, 0], &[2]).to_dtype(DType::UInt8);
    assert_eq!(
        ok.view_dtype(DType::Bool).unwrap().to_vec::<bool>(),
        vec![true, false]
    );
    let bad = super::ti(&[2], &[1]).to_dtype(DType::UInt8);
    assert!(bad.view_dtype(DType::Bool).is_err());
}
