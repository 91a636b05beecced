//! Differential cases for the complex ops (`rules/complex.rs`) on real inputs: each Python surface
//! gives what the registry gives. The pool holds no complex tensors (its Python sources are real
//! literals), so `view_as_real`, `view_as_complex` and `imag` are listed as checked elsewhere;
//! values against PyTorch, complex inputs included, are in `tests/python/complex/*_vs_pytorch.py`.

use crate::diff::A::*;
use crate::diff::{Case, c};

/// Ops compared with PyTorch by `tests/python/complex/complex_vs_pytorch.py` instead.
pub(crate) const ELSEWHERE: [&str; 3] = ["view_as_real", "view_as_complex", "imag"];

pub(crate) fn cases() -> Vec<Case> {
    vec![
        c("angle", &[T(0)], &[]),
        c("angle", &[T(4)], &[]),
        c("conj", &[T(0)], &[]),
        c("real", &[T(0)], &[]),
        c("polar", &[T(8), T(0)], &[]),
        c("complex", &[T(0), T(1)], &[]),
    ]
}
