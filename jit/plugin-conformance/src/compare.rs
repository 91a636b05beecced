//! Differential comparison against the eager oracle, with `torch.testing.assert_close`'s default
//! tolerances per dtype.

use rynamo_tensor::{DType, Tensor};

/// `(rtol, atol)` for a dtype (PyTorch's `assert_close` defaults; exact for integers and bools).
pub fn tolerances(d: DType) -> (f64, f64) {
    match d {
        DType::Float16 => (1e-3, 1e-5),
        DType::BFloat16 => (1.6e-2, 1e-5),
        DType::Float32 => (1.3e-6, 1e-5),
        DType::Float64 => (1e-7, 1e-7),
        _ => (0.0, 0.0),
    }
}

/// Checks dtype, shape and (unless `values` is false) every element; NaNs compare equal.
pub fn compare(got: &Tensor, want: &Tensor, values: bool) -> Result<(), String> {
    if got.dtype() != want.dtype() || got.shape() != want.shape() {
        return Err(format!(
            "expected {}{:?}, got {}{:?}",
            want.dtype().name(),
            want.shape(),
            got.dtype().name(),
            got.shape()
        ));
    }
    if !values {
        return Ok(());
    }
    let (rtol, atol) = tolerances(want.dtype());
    let (g, w) = (got.to_vec::<f64>(), want.to_vec::<f64>());
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let ok = (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= atol + rtol * b.abs();
        if !ok {
            return Err(format!(
                "element {i}: expected {b}, got {a} (rtol {rtol}, atol {atol})"
            ));
        }
    }
    Ok(())
}

/// Compares output lists.
pub fn compare_all(got: &[Tensor], want: &[Tensor], values: bool) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "expected {} outputs, got {}",
            want.len(),
            got.len()
        ));
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        compare(g, w, values).map_err(|e| format!("output {i}: {e}"))?;
    }
    Ok(())
}
