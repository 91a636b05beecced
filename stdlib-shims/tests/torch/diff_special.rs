//! Differential cases for issue 29's `torch.special` kernel ops and in-place forms
//! (`rules/special.rs`, `rules/inplace_forms.rs`): each Python surface gives what the registry
//! gives. Values against PyTorch are checked by `tests/python/special/*_vs_pytorch.py`.

use crate::diff::A::*;
use crate::diff::{Case, c};

pub(crate) fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    // Pool 0: normal values, 8: positive, 9: inside (-1, 1).
    for (name, input) in [
        ("asinh", 0),
        ("acosh", 8),
        ("atanh", 9),
        ("erfc", 0),
        ("lgamma", 0),
        ("digamma", 0),
        ("i0", 0),
        ("_special_i0e", 0),
        ("_special_i1", 0),
        ("_special_i1e", 0),
        ("asinh_", 0),
        ("acosh_", 8),
        ("atanh_", 9),
        ("erfc_", 0),
        ("lgamma_", 8),
        ("digamma_", 8),
        ("i0_", 0),
        ("erfinv_", 9),
        ("logical_not_", 0),
        ("square_", 0),
        ("sign_", 0),
        ("exp2_", 0),
        ("expm1_", 0),
        ("log1p_", 8),
        ("frac_", 0),
    ] {
        v.push(c(name, &[T(input)], &[]));
    }
    v.extend([
        c("polygamma", &[I(2), T(8)], &[]),
        c("polygamma", &[I(0), T(0)], &[]),
        c("polygamma_", &[T(8), I(1)], &[]),
        c("hypot_", &[T(0), T(1)], &[]),
        c("xlogy_", &[T(8), T(8)], &[]),
        c("xlogy_", &[T(8), F(2.0)], &[]),
        c("clamp_min_", &[T(0), F(-0.5)], &[]),
        c("clamp_min_", &[T(0), T(1)], &[]),
    ]);
    v
}
