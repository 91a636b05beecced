//! The ops added for issue 29 (models helper): `multinomial` and the `torch.linalg`
//! factorizations (`_linalg_*`, wrapped with PyTorch's argument handling by
//! `torch/linalg/__init__.py`). The kernels live in `rynamo_tensor` (`sampling`, `ops::decomp`,
//! through faer); the backward formulas in `autograd/vjp/linalg_decomp.rs`.

use rynamo_tensor::ops::decomp::{self, QrMode};
use rynamo_tensor::{Tensor, TensorMeta, sampling};

use crate::Value;
use crate::autograd::vjp::linalg_decomp as vjp;
use crate::def::{Sample, op};
use crate::samples::{f32s, fx, pos_args, t};

/// `UPLO=`: whether the upper triangle is read.
fn uplo_upper(s: &str) -> crate::Result<bool> {
    match s {
        "L" | "l" => Ok(false),
        "U" | "u" => Ok(true),
        _ => Err(crate::Error::Tensor(rynamo_tensor::Error::Runtime(
            format!("Expected UPLO argument to be 'L' or 'U', but got {s}"),
        ))),
    }
}

/// A diagonally dominant 3x3 matrix: invertible, well conditioned.
fn well_conditioned() -> Tensor {
    Tensor::from_vec(
        vec![2.0f32, 0.5, -0.3, 0.4, 1.5, 0.2, -0.1, 0.6, 1.8],
        &[3, 3],
    )
    .expect("invariant: sample tensors have valid shapes")
}

/// A symmetric positive-definite 3x3 matrix with distinct eigenvalues.
fn spd() -> Tensor {
    Tensor::from_vec(
        vec![3.0f32, 0.5, -0.4, 0.5, 2.0, 0.3, -0.4, 0.3, 1.2],
        &[3, 3],
    )
    .expect("invariant: sample tensors have valid shapes")
}

fn square() -> Sample {
    pos_args(vec![t(well_conditioned())])
}

op! {
    multinomial = "multinomial(Tensor self, int num_samples, bool replacement=False) -> Tensor",
        Extern, [FUNCTION METHOD RANDOM];
    meta(_, a) { Ok(vec![sampling::multinomial_meta(a.self_, a.num_samples, a.replacement)?]) }
    eager(_, a) { Ok(vec![sampling::multinomial(a.self_, a.num_samples, a.replacement, None)?]) }
    with .sample(|| pos_args(vec![t(fx::pos()), Value::Int(2)]))
}

op! {
    linalg_inv = "_linalg_inv(Tensor a) -> Tensor", Extern, [FUNCTION];
    meta(_, a) { Ok(vec![decomp::same_meta("linalg.inv", a.a)?]) }
    eager(_, a) { Ok(vec![decomp::inv(a.a)?]) }
    with .vjp(&vjp::INV).sample(square)
}

op! {
    linalg_solve = "_linalg_solve(Tensor a, Tensor b) -> Tensor", Extern, [FUNCTION];
    meta(_, a) {
        decomp::check_matrix("torch.linalg.solve", a.a, true)?;
        decomp::check_matrix("torch.linalg.solve", a.b, false)?;
        Ok(vec![TensorMeta::contiguous(a.b.dtype(), a.b.shape())])
    }
    eager(_, a) { Ok(vec![decomp::solve(a.a, a.b)?]) }
    with .vjp(&vjp::SOLVE).sample(|| pos_args(vec![t(well_conditioned()), t(f32s(&[3, 2]))]))
}

op! {
    linalg_det = "_linalg_det(Tensor a) -> Tensor", Extern, [FUNCTION];
    meta(_, a) { Ok(vec![decomp::det_meta("linalg.det", a.a)?]) }
    eager(_, a) { Ok(vec![decomp::det(a.a)?]) }
    with .vjp(&vjp::DET).sample(square)
}

op! {
    linalg_slogdet = "_linalg_slogdet(Tensor a) -> (Tensor sign, Tensor logabsdet)", Extern, [FUNCTION];
    meta(_, a) {
        let m = decomp::det_meta("linalg.slogdet", a.a)?;
        Ok(vec![m.clone(), m])
    }
    eager(_, a) {
        let (s, l) = decomp::slogdet(a.a)?;
        Ok(vec![s, l])
    }
    with .vjp(&vjp::SLOGDET).sample(square)
}

op! {
    linalg_cholesky = "_linalg_cholesky(Tensor a, bool upper=False) -> Tensor", Extern, [FUNCTION];
    meta(_, a) { Ok(vec![decomp::same_meta("linalg.cholesky", a.a)?]) }
    eager(_, a) { Ok(vec![decomp::cholesky(a.a, a.upper)?]) }
    with .vjp(&vjp::CHOLESKY).sample(|| pos_args(vec![t(spd()), Value::Bool(false)]))
}

op! {
    linalg_qr = "_linalg_qr(Tensor a, str mode='reduced') -> (Tensor Q, Tensor R)", Extern, [FUNCTION];
    meta(_, a) {
        let (q, r) = decomp::qr_meta(a.a, QrMode::parse(a.mode)?)?;
        Ok(vec![q, r])
    }
    eager(_, a) {
        let (q, r) = decomp::qr(a.a, QrMode::parse(a.mode)?)?;
        Ok(vec![q, r])
    }
    with .vjp(&vjp::QR).sample(|| pos_args(vec![t(f32s(&[4, 3])), Value::Str("reduced".into())]))
}

op! {
    linalg_svd = "_linalg_svd(Tensor a, bool full_matrices=True) -> (Tensor U, Tensor S, Tensor Vh)",
        Extern, [FUNCTION];
    meta(_, a) { Ok(decomp::svd_meta(a.a, a.full_matrices)?.to_vec()) }
    eager(_, a) {
        let (u, s, vh) = decomp::svd(a.a, a.full_matrices)?;
        Ok(vec![u, s, vh])
    }
    with .vjp(&vjp::SVD).sample(|| pos_args(vec![t(f32s(&[3, 4])), Value::Bool(false)]))
}

op! {
    linalg_eigh = "_linalg_eigh(Tensor a, str uplo='L') -> (Tensor eigenvalues, Tensor eigenvectors)",
        Extern, [FUNCTION];
    meta(_, a) {
        uplo_upper(a.uplo)?;
        let (l, q) = decomp::eigh_meta(a.a)?;
        Ok(vec![l, q])
    }
    eager(_, a) {
        let (l, q) = decomp::eigh(a.a, uplo_upper(a.uplo)?)?;
        Ok(vec![l, q])
    }
    with .vjp(&vjp::EIGH).sample(|| pos_args(vec![t(spd()), Value::Str("L".into())]))
}
