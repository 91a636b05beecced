//! The formatter's building blocks against Python's `format()` results, and whole reprs for
//! dtypes the Python tests cannot build directly.

use rynamo_tensor::{DType, Tensor};

use super::*;

#[track_caller]
fn check_repr(t: &Tensor, expected: &str) {
    let got = tensor_repr(t, "tensor(", None, DType::Float32, &PrintOptions::default())
        .expect("printable");
    assert_eq!(got, expected);
}

#[test]
fn scientific_matches_python_exponent_format() {
    // Python: "{:.4e}".format(v)
    assert_eq!(scientific(1e-5, 4), "1.0000e-05");
    assert_eq!(scientific(123456.0, 4), "1.2346e+05");
    assert_eq!(scientific(-2.5e-300, 2), "-2.50e-300");
    assert_eq!(scientific(0.0, 4), "0.0000e+00");
    assert_eq!(scientific(f64::INFINITY, 4), "inf");
    assert_eq!(scientific(f64::NAN, 4), "nan");
}

#[test]
fn fixed_matches_python_rounding() {
    // Python: "{:.4f}".format(v), "{:.0f}".format(v): round half to even on the exact value.
    assert_eq!(fixed(0.1, 4), "0.1000");
    assert_eq!(fixed(2.5, 0), "2");
    assert_eq!(fixed(3.5, 0), "4");
    assert_eq!(fixed(-0.0, 4), "-0.0000");
    assert_eq!(fixed(f64::NEG_INFINITY, 4), "-inf");
    assert_eq!(fixed(1.00005, 4), "1.0001"); // 1.00005 is 1.000050000000000105... in binary
}

#[test]
fn huge_tensors_print_their_edges_without_reading_the_rest() {
    // PyTorch 2.15: repr(torch.full((1,), 1.5).expand(1000000, 1000000)); 10^12 elements: printing
    // must read only the edges (converting all of it would need 8 TB).
    let row = "[1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000]";
    let rows = |n: usize| vec![row; n].join(",\n        ");
    let t = Tensor::from_vec(vec![1.5f32], &[1])
        .and_then(|t| t.expand(&[1_000_000, 1_000_000]))
        .expect("an expanded view");
    check_repr(
        &t,
        &format!("tensor([{},\n        ...,\n        {}])", rows(3), rows(3)),
    );
}

#[test]
fn tuple_str_matches_python() {
    assert_eq!(tuple_str(&[0]), "(0,)");
    assert_eq!(tuple_str(&[2, 0, 3]), "(2, 0, 3)");
}

#[test]
fn suffix_placement_follows_pytorchs_arithmetic() {
    // No newline: the quirk makes the last line count as `len + 2`.
    let s = add_suffixes("tensor([1, 2]".into(), &["dtype=torch.int32".into()], 7, 80);
    assert_eq!(s, "tensor([1, 2], dtype=torch.int32)");
    let s = add_suffixes("tensor([1, 2]".into(), &["dtype=torch.int32".into()], 7, 20);
    assert_eq!(s, "tensor([1, 2],\n       dtype=torch.int32)");
}

#[test]
fn integer_and_bool_dtypes() {
    let t = Tensor::from_vec(vec![-3i8, 100], &[2]).expect("2 values");
    check_repr(&t, "tensor([ -3, 100], dtype=torch.int8)");
    let t = Tensor::from_vec(vec![1i16, 2, 3, 4], &[2, 2]).expect("4 values");
    check_repr(&t, "tensor([[1, 2],\n        [3, 4]], dtype=torch.int16)");
    let t = Tensor::from_vec(vec![255u8], &[1]).expect("1 value");
    check_repr(&t, "tensor([255], dtype=torch.uint8)");
}

#[test]
fn strided_views_print_in_logical_order() {
    let t = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).expect("6 values");
    let tt = t.t().expect("2-d");
    check_repr(
        &tt,
        "tensor([[1., 4.],\n        [2., 5.],\n        [3., 6.]])",
    );
}

#[test]
fn default_dtype_decides_the_float_suffix() {
    let t = Tensor::from_vec(vec![0.5f32], &[1]).expect("1 value");
    let opts = PrintOptions::default();
    assert_eq!(
        tensor_repr(&t, "tensor(", None, DType::Float64, &opts).expect("printable"),
        "tensor([0.5000], dtype=torch.float32)"
    );
    let t = Tensor::from_vec(vec![0.5f64], &[1]).expect("1 value");
    assert_eq!(
        tensor_repr(&t, "tensor(", None, DType::Float64, &opts).expect("printable"),
        "tensor([0.5000])"
    );
}
