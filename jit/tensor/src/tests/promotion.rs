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

/// `torch.promote_types` over every pair of the twelve dtypes, recorded from PyTorch 2.15
/// (`[[str(torch.promote_types(a, b))[6:] for b in D] for a in D]`, D in `DType::ALL` order).
const TORCH_PROMOTE: [&str; 12] = [
    "bool uint8 int8 int16 int32 int64 float16 bfloat16 float32 float64 complex64 complex128",
    "uint8 uint8 int16 int16 int32 int64 float16 bfloat16 float32 float64 complex64 complex128",
    "int8 int16 int8 int16 int32 int64 float16 bfloat16 float32 float64 complex64 complex128",
    "int16 int16 int16 int16 int32 int64 float16 bfloat16 float32 float64 complex64 complex128",
    "int32 int32 int32 int32 int32 int64 float16 bfloat16 float32 float64 complex64 complex128",
    "int64 int64 int64 int64 int64 int64 float16 bfloat16 float32 float64 complex64 complex128",
    "float16 float16 float16 float16 float16 float16 float16 float32 float32 float64 complex64 complex128",
    "bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 float32 bfloat16 float32 float64 complex64 complex128",
    "float32 float32 float32 float32 float32 float32 float32 float32 float32 float64 complex64 complex128",
    "float64 float64 float64 float64 float64 float64 float64 float64 float64 float64 complex128 complex128",
    "complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex128 complex64 complex128",
    "complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128",
];

#[test]
fn promote_types_matches_torch_table_with_complex() {
    for (a, row) in DType::ALL.into_iter().zip(TORCH_PROMOTE) {
        let want: Vec<&str> = row.split(' ').collect();
        assert_eq!(want.len(), DType::ALL.len());
        for (b, w) in DType::ALL.into_iter().zip(want) {
            assert_eq!(promote_types(a, b).name(), w, "promote_types({a}, {b})");
        }
    }
}

/// `torch.result_type(tensor, 1j)` and with complex zero-dim tensors, recorded from PyTorch 2.15:
/// a complex lower group keeps a floating result's precision (`float64 + complex64 zero-dim ->
/// complex128`, `float32 + complex128 zero-dim -> complex64`); integers take the complex dtype.
#[test]
fn result_type_with_complex_operands_matches_torch() {
    use Operand::*;
    let real = [Bool, UInt8, Int8, Int16, Int32, Int64, Float32, Float64];
    let scalar_1j = [
        Complex64, Complex64, Complex64, Complex64, Complex64, Complex64, Complex64, Complex128,
    ];
    let zero_c128 = [
        Complex128, Complex128, Complex128, Complex128, Complex128, Complex128, Complex64,
        Complex128,
    ];
    let zero_c64 = [
        Complex64, Complex64, Complex64, Complex64, Complex64, Complex64, Complex64, Complex128,
    ];
    for (i, d) in real.into_iter().enumerate() {
        let c = Scalar(Category::Complex);
        assert_eq!(result_type(&[Dimensioned(d), c]), scalar_1j[i], "{d} + 1j");
        assert_eq!(
            result_type(&[ZeroDim(d), c]),
            scalar_1j[i],
            "{d} zero-dim + 1j"
        );
        let z = ZeroDim(Complex128);
        assert_eq!(
            result_type(&[Dimensioned(d), z]),
            zero_c128[i],
            "{d} + c128"
        );
        let z = ZeroDim(Complex64);
        assert_eq!(result_type(&[Dimensioned(d), z]), zero_c64[i], "{d} + c64");
    }
    for c in [Complex64, Complex128] {
        for s in [
            Category::Complex,
            Category::Float,
            Category::Int,
            Category::Bool,
        ] {
            assert_eq!(result_type(&[Dimensioned(c), Scalar(s)]), c);
        }
        assert_eq!(result_type(&[Dimensioned(c), ZeroDim(Complex128)]), c);
    }
    assert_eq!(
        result_type(&[ZeroDim(Float64), Scalar(Category::Complex)]),
        Complex128
    );
}

/// float16/bfloat16 with a complex scalar give complex32/bcomplex32 in PyTorch, which Rynamo
/// lacks: an error, never a different dtype.
#[test]
fn half_with_complex_is_an_error_not_a_guess() {
    use Operand::*;
    for h in [Float16, BFloat16] {
        let err = crate::try_result_type(&[Dimensioned(h), Scalar(Category::Complex)]);
        assert!(err.is_err(), "{h}");
        // a complex *dimensioned* operand outranks the half one: plain promotion.
        assert_eq!(
            result_type(&[Dimensioned(h), Dimensioned(Complex64)]),
            Complex64
        );
    }
}

#[test]
fn complex_dtype_properties() {
    assert_eq!(DType::from_name("torch.cfloat"), Some(Complex64));
    assert_eq!(DType::from_name("cdouble"), Some(Complex128));
    assert_eq!((Complex64.itemsize(), Complex128.itemsize()), (8, 16));
    assert_eq!(
        (Complex64.aten_name(), Complex128.aten_name()),
        ("ComplexFloat", "ComplexDouble")
    );
    assert!(Complex64.is_complex() && !Complex64.is_floating_point() && Complex64.is_signed());
    assert_eq!(
        (Complex64.to_real(), Complex128.to_real()),
        (Float32, Float64)
    );
    assert_eq!(Float64.to_complex(), Some(Complex128));
    assert_eq!(Float16.to_complex(), None);
    assert!(crate::can_cast(Float64, Complex64) && !crate::can_cast(Complex64, Float64));
    assert_eq!(DType::REAL.len() + 2, DType::ALL.len());
    assert!(DType::REAL.iter().all(|d| !d.is_complex()));
}
