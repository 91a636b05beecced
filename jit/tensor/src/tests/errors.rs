use super::*;
use crate::ErrorKind;

#[test]
fn error_kinds_and_wording() {
    let x = arange_f32(6, &[2, 3]);
    let e = x.transpose(0, 2).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    );
    assert_eq!(e.kind(), ErrorKind::Index);
    let e = x.select(0, 5).unwrap_err();
    assert_eq!(
        e.to_string(),
        "index 5 is out of bounds for dimension 0 with size 2"
    );
    assert_eq!(e.kind(), ErrorKind::Index);
    let e = x.view(&[4, 2]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "shape '[4, 2]' is invalid for input of size 6"
    );
    assert_eq!(e.kind(), ErrorKind::Runtime);
    let e = x.item().unwrap_err();
    assert_eq!(
        e.to_string(),
        "a Tensor with 6 elements cannot be converted to Scalar"
    );
    let e = x.expand(&[2, 4]).unwrap_err();
    assert!(e.to_string().starts_with("The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1"));
    let e = x.slice(0, None, None, -1).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Value);
    let e = Tensor::scalar(1.0f32)
        .t()
        .map(|_| ())
        .and_then(|_| arange_f32(8, &[2, 2, 2]).t().map(|_| ()))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "t() expects a tensor with <= 2 dimensions, but self is 3D"
    );
    let e = crate::ops::pointwise::unary(crate::UnaryOp::BitwiseNot, &x).unwrap_err();
    assert_eq!(
        e.to_string(),
        "\"bitwise_not_cpu\" not implemented for 'Float'"
    );
}
