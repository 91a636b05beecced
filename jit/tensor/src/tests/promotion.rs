use crate::DType::*;
use crate::{Category, DType, Operand, promote_types, result_type};

#[test]
fn promote_types_lattice() {
    let cases = [
        (Bool, Int8, Int8),
        (UInt8, Int8, Int16),
        (UInt8, Int64, Int64),
        (Int32, Float16, Float16),
        (Float16, BFloat16, Float32),
        (Int64, Float32, Float32),
        (Float32, Float64, Float64),
        (Bool, Bool, Bool),
    ];
    for (a, b, want) in cases {
        assert_eq!(promote_types(a, b), want, "{a:?} {b:?}");
        assert_eq!(promote_types(b, a), want, "{b:?} {a:?}");
    }
}

#[test]
fn result_type_follows_torch_docs() {
    use Operand::*;
    let f = |ops: &[Operand]| result_type(ops);
    // Examples from the torch.result_type / type promotion docs.
    assert_eq!(f(&[Dimensioned(Int32), Scalar(Category::Float)]), Float32);
    assert_eq!(f(&[Dimensioned(Int32), Scalar(Category::Int)]), Int32);
    assert_eq!(f(&[Dimensioned(UInt8), Scalar(Category::Int)]), UInt8);
    assert_eq!(f(&[Dimensioned(Int32), ZeroDim(Int64)]), Int32);
    assert_eq!(f(&[Dimensioned(Int32), ZeroDim(Float64)]), Float64);
    assert_eq!(f(&[Dimensioned(Float16), ZeroDim(Float64)]), Float16);
    assert_eq!(f(&[Dimensioned(Bool), Scalar(Category::Int)]), Int64);
    assert_eq!(f(&[Dimensioned(Bool), Scalar(Category::Float)]), Float32);
    assert_eq!(f(&[ZeroDim(Int32), Scalar(Category::Float)]), Float32);
    assert_eq!(f(&[Dimensioned(Float32), Dimensioned(Int64)]), Float32);
    assert_eq!(f(&[ZeroDim(Float64), Dimensioned(Float32)]), Float32);
    assert_eq!(
        f(&[Scalar(Category::Int), Scalar(Category::Float)]),
        Float32
    );
}

#[test]
fn dtype_names_round_trip() {
    for d in DType::ALL {
        assert_eq!(DType::from_name(d.name()), Some(d));
        assert_eq!(DType::from_name(d.short_name()), Some(d));
    }
    assert_eq!(DType::from_name("torch.float"), Some(Float32));
    assert_eq!(Float16.itemsize(), 2);
    assert!(BFloat16.is_floating_point() && !Int8.is_floating_point());
    assert!(Bool.is_integral(true) && !Bool.is_integral(false));
}
