//! `scaled_dot_product_attention`, the math formulation: `softmax(q @ k^T * scale + mask) @ v`,
//! with fully masked rows giving zeros (PyTorch's safe softmax) rather than NaN.

use crate::error::bail;
use crate::layout::{Shaped, broadcast_shapes};
use crate::ops::gather::index_select;
use crate::ops::matmul::matmul;
use crate::ops::nn::softmax;
use crate::ops::pointwise::{TensorOrScalar, binary, where_};
use crate::ops::reduce::reduce;
use crate::{BinaryOp, DType, Error, ReduceOp, Result, Scalar, Tensor, TensorMeta, random};

/// Options of `scaled_dot_product_attention` besides the tensors.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SdpaArgs {
    /// Dropout probability on the attention weights.
    pub dropout_p: f64,
    /// Apply a lower-triangular (causal) mask.
    pub is_causal: bool,
    /// Score scale; `1 / sqrt(E)` when `None`.
    pub scale: Option<f64>,
    /// Grouped-query attention: key/value heads (dim -3) repeat to match the query's.
    pub enable_gqa: bool,
}

fn name(d: DType) -> String {
    d.aten_name().to_lowercase()
}

/// Shape/dtype rule of `scaled_dot_product_attention`.
pub fn sdpa_meta<S: Shaped>(
    q: &S,
    k: &S,
    v: &S,
    mask: Option<&S>,
    a: &SdpaArgs,
) -> Result<TensorMeta> {
    if q.dtype() != k.dtype() || q.dtype() != v.dtype() {
        bail!(
            Runtime,
            "Expected query, key, and value to have the same dtype, but got query.dtype: {} key.dtype: {} and value.dtype: {} instead.",
            name(q.dtype()),
            name(k.dtype()),
            name(v.dtype())
        );
    }
    for (n, t) in [("query", q), ("key", k), ("value", v)] {
        if t.ndim() < 2 {
            bail!(
                Runtime,
                "scaled_dot_product_attention: expected {n} to have at least 2 dimensions, but got {}",
                t.ndim()
            );
        }
    }
    if !q.dtype().is_floating_point() {
        return Err(Error::NotImplementedFor {
            op: "scaled_dot_product_attention",
            dtype: q.dtype().aten_name(),
        });
    }
    if a.is_causal && mask.is_some() {
        bail!(
            Runtime,
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True"
        );
    }
    if !(0.0..=1.0).contains(&a.dropout_p) {
        bail!(
            Value,
            "dropout probability has to be between 0 and 1, but got {}",
            a.dropout_p
        );
    }
    let (qs, ks, vs) = (q.shape(), k.shape(), v.shape());
    let (nq, nk, nv) = (qs.len(), ks.len(), vs.len());
    let (l, e) = (qs[nq - 2], qs[nq - 1]);
    let (s, ek) = (ks[nk - 2], ks[nk - 1]);
    if e != ek {
        bail!(
            Runtime,
            "Expected query and key to have the same embedding dimension, but got query: {e} and key: {ek}"
        );
    }
    if vs[nv - 2] != s {
        bail!(
            Runtime,
            "Expected key and value to have the same sequence length, but got key: {s} and value: {}",
            vs[nv - 2]
        );
    }
    let mut kb = ks[..nk - 2].to_vec();
    let mut vb = vs[..nv - 2].to_vec();
    if a.enable_gqa && nq >= 3 && nk >= 3 && nv >= 3 {
        let hq = qs[nq - 3];
        for (b, name) in [(&mut kb, "key"), (&mut vb, "value")] {
            let h = b[b.len() - 1];
            if h == 0 || hq % h != 0 {
                bail!(
                    Runtime,
                    "number of heads in {name} must divide the number of heads in query ({hq}), got {h}"
                );
            }
            let last = b.len() - 1;
            b[last] = hq;
        }
    }
    let batch = broadcast_shapes(&broadcast_shapes(&qs[..nq - 2], &kb)?, &vb)?;
    if let Some(m) = mask {
        if m.dtype() != DType::Bool && m.dtype() != q.dtype() {
            bail!(
                Runtime,
                "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: {} and  query.dtype: {} instead.",
                name(m.dtype()),
                name(q.dtype())
            );
        }
        let mut scores = broadcast_shapes(&qs[..nq - 2], &kb)?.to_vec();
        scores.extend([l, s]);
        crate::layout::broadcast_strides(m.shape(), m.strides(), &scores)?;
    }
    let mut shape = batch.to_vec();
    shape.extend([l, vs[nv - 1]]);
    Ok(TensorMeta::contiguous(q.dtype(), &shape))
}

/// Repeats heads (dim -3) of `t` so it has `hq` of them (`repeat_interleave`).
fn repeat_heads(t: &Tensor, hq: usize) -> Result<Tensor> {
    let nd = t.ndim() as i64;
    let h = t.shape()[t.ndim() - 3];
    if h == hq {
        return Ok(t.clone());
    }
    let idx: Vec<i64> = (0..hq).map(|i| (i / (hq / h)) as i64).collect();
    index_select(t, nd - 3, &Tensor::from_vec(idx, &[hq])?)
}

/// `scaled_dot_product_attention(q, k, v, attn_mask, ...)`.
pub fn sdpa(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    mask: Option<&Tensor>,
    a: &SdpaArgs,
) -> Result<Tensor> {
    let meta = sdpa_meta(q, k, v, mask, a)?;
    let c = q.dtype().compute_dtype();
    let (mut qc, mut kc, mut vc) = (q.to_dtype(c), k.to_dtype(c), v.to_dtype(c));
    if a.enable_gqa && q.ndim() >= 3 && k.ndim() >= 3 && v.ndim() >= 3 {
        let hq = q.shape()[q.ndim() - 3];
        kc = repeat_heads(&kc, hq)?;
        vc = repeat_heads(&vc, hq)?;
    }
    qc = qc.contiguous();
    let e = q.shape()[q.ndim() - 1];
    let scale = a.scale.unwrap_or(1.0 / (e as f64).sqrt());
    let mul = |x: &Tensor, s: f64| {
        binary(
            BinaryOp::Mul,
            TensorOrScalar::Tensor(x),
            TensorOrScalar::Scalar(Scalar::Float(s)),
            Scalar::Int(1),
        )
    };
    let mut scores = mul(&matmul(&qc, &kc.transpose(-2, -1)?)?, scale)?;
    let nd = scores.ndim();
    let (l, s) = (scores.shape()[nd - 2], scores.shape()[nd - 1]);
    let neg_inf = TensorOrScalar::Scalar(Scalar::Float(f64::NEG_INFINITY));
    if a.is_causal {
        let keep = crate::ops::rearrange::tri(&Tensor::ones(&[l, s], DType::Bool), 0, false)?;
        scores = where_(&keep, TensorOrScalar::Tensor(&scores), neg_inf)?;
    }
    if let Some(m) = mask {
        scores = if m.dtype() == DType::Bool {
            where_(m, TensorOrScalar::Tensor(&scores), neg_inf)?
        } else {
            binary(
                BinaryOp::Add,
                TensorOrScalar::Tensor(&scores),
                TensorOrScalar::Tensor(&m.to_dtype(c)),
                Scalar::Int(1),
            )?
        };
    }
    let mut attn = softmax(&scores, -1, None, false)?;
    if a.is_causal || mask.is_some() {
        let masked = binary(
            BinaryOp::Eq,
            TensorOrScalar::Tensor(&scores),
            neg_inf,
            Scalar::Int(1),
        )?;
        let dead = reduce(ReduceOp::All, &masked, Some(&[-1]), true, None)?;
        attn = where_(
            &dead,
            TensorOrScalar::Scalar(Scalar::Float(0.0)),
            TensorOrScalar::Tensor(&attn),
        )?;
    }
    if a.dropout_p > 0.0 {
        attn = random::dropout(&attn, a.dropout_p, true, None)?;
    }
    let out = matmul(&attn, &vc)?;
    let full: Vec<i64> = meta.shape.iter().map(|&d| d as i64).collect();
    let r = Tensor::empty(&meta.shape, meta.dtype);
    r.copy_(&out.expand(&full)?)?;
    Ok(r)
}
