//! Differential cases for the complex ops (`rules/complex.rs`) on real inputs: each Python surface
//! gives what the registry gives. The pool holds no complex tensors (its Python sources are real
//! literals), so `view_as_real`, `view_as_complex` and `imag` are listed as checked elsewhere;
//! values against PyTorch, complex inputs included, are in `tests/python/complex/*_vs_pytorch.py`.

use crate::diff::A::*;
use crate::diff::{Case, c};

/// Ops compared with PyTorch by `tests/python/complex/complex_vs_pytorch.py` instead, and the
/// FFT primitives that need complex inputs (`tests/python/fft/fft_vs_pytorch.py`).
pub(crate) const ELSEWHERE: [&str; 5] = [
    "view_as_real",
    "view_as_complex",
    "imag",
    "_fft_c2c",
    "_fft_c2r",
];

pub(crate) fn cases() -> Vec<Case> {
    vec![
        c("angle", &[T(0)], &[]),
        c("angle", &[T(4)], &[]),
        c("conj", &[T(0)], &[]),
        c("real", &[T(0)], &[]),
        c("polar", &[T(8), T(0)], &[]),
        c("complex", &[T(0), T(1)], &[]),
        c("_fft_r2c", &[T(0), L(&[1]), I(0), B(true)], &[]),
        c("_fft_r2c", &[T(6), L(&[0, 2]), I(1), B(false)], &[]),
    ]
}
