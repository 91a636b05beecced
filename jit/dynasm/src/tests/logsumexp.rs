//! f32 `logsumexp` decomposed (`passes/decompose.rs`) into a row kernel (max; exp and sum) and a
//! per-row kernel (log, add), against eager (which computes in f64) over dims, keepdim, awkward
//! sizes and rows of specials; f64 keeps eager's kernel.

use rynamo_backend::Executable;
use rynamo_tensor::{DType, Tensor};

use super::common::*;

/// f32 exp and log within their bounds (`ulp.rs`) on terms eager computes in f64.
const TOL: (f64, f64) = (1e-6, 1e-6);

fn graph(shape: &[usize], dims: &str, keepdim: bool, out: &[usize], ty: &str) -> String {
    let s = |v: &[usize]| {
        v.iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (i, o) = (s(shape), s(out));
    let k = if keepdim { "True" } else { "False" };
    format!("graph(%x: {ty}[{i}]):\n  %0: {ty}[{o}] = logsumexp(%x, {dims}, {k})\n  return (%0)\n")
}

#[test]
fn logsumexp_fuses_and_matches_eager() {
    for &(r, c) in &[(1usize, 1usize), (3, 7), (9, 31), (33, 1025)] {
        let x = randn(&[r, c], (r * c) as u64);
        for (dims, keepdim, out) in [
            ("[-1]", false, vec![r]),
            ("[1]", true, vec![r, 1]),
            ("[0]", false, vec![c]),
            ("[0, 1]", false, vec![]),
        ] {
            let src = graph(&[r, c], dims, keepdim, &out, "f32");
            let exe = check(&src, std::slice::from_ref(&x), TOL.0, TOL.1);
            // Inner dims: the row kernel (max; exp and sum) and the per-row log and add.
            // Outer reductions run their eager kernel (see `diff.rs`), the rest still fuses.
            let (kernels, nodes) = exe.step_counts();
            if dims != "[0]" && dims != "[0, 1]" {
                assert!(kernels <= 2 && nodes == 0, "{}", exe.dump());
            }
            let src = graph(&[r, c], dims, keepdim, &out, "f64");
            let exe = check(&src, &[x.to_dtype(DType::Float64)], 0.0, 0.0);
            assert_eq!(
                exe.step_counts().1,
                1,
                "f64 keeps eager's kernel:\n{}",
                exe.dump()
            );
        }
    }
}

#[test]
fn logsumexp_rows_of_specials() {
    let (inf, nan) = (f32::INFINITY, f32::NAN);
    let rows: [[f32; 4]; 7] = [
        [-inf, -inf, -inf, -inf],
        [inf, 1.0, -inf, 2.0],
        [inf, inf, 0.0, 0.0],
        [nan, 1.0, 2.0, 3.0],
        [nan, nan, nan, nan],
        [1e30, -1e30, 88.0, 0.0],
        [-0.0, 0.0, 1e-40, -1e-40],
    ];
    let x = Tensor::from_vec(rows.concat(), &[7, 4]).unwrap();
    let src = graph(&[7, 4], "[1]", true, &[7, 1], "f32");
    let exe = check(&src, std::slice::from_ref(&x), TOL.0, TOL.1);
    assert_eq!(exe.step_counts(), (2, 0), "{}", exe.dump());
    let got = exe.run(&[x]).unwrap()[0].to_vec::<f32>();
    assert_eq!(got.len(), 7);
    // PyTorch's values: -inf for all -inf, inf with a +inf, NaN with a NaN.
    assert_eq!(got[0], -inf);
    assert_eq!((got[1], got[2]), (inf, inf));
    assert!(got[3].is_nan() && got[4].is_nan(), "{got:?}");
}
