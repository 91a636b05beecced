//! Losses and `scaled_dot_product_attention`.

use rynamo_tensor::ops::attention::{self, SdpaArgs};
use rynamo_tensor::ops::loss::{self, Reduction, Regression};

use crate::Value;
use crate::autograd::vjp::loss as vjp_loss;
use crate::def::{Sample, op};
use crate::samples::{f32s, fx, pos_args, t, with_kw};

/// `op(x, [2, 0])`: class targets.
fn classes(kw: Option<(&str, Value<rynamo_tensor::Tensor>)>) -> Sample {
    let args = vec![t(fx::x()), t(fx::longs(&[2, 0]))];
    match kw {
        Some((k, v)) => with_kw(args, k, v),
        None => pos_args(args),
    }
}

op! {
    cross_entropy = "cross_entropy(Tensor input, Tensor target, Tensor? weight=None, bool? size_average=None, int ignore_index=-100, bool? reduce=None, str reduction='mean', float label_smoothing=0.0) -> Tensor",
        Extern, [NN_FUNCTIONAL];
    meta(_, a) {
        let r = Reduction::parse(a.reduction, a.size_average, a.reduce)?;
        Ok(vec![loss::cross_entropy_meta(a.input, a.target, a.weight, r, a.label_smoothing)?])
    }
    eager(_, a) {
        let r = Reduction::parse(a.reduction, a.size_average, a.reduce)?;
        Ok(vec![loss::cross_entropy(
            a.input,
            a.target,
            a.weight,
            a.ignore_index,
            r,
            a.label_smoothing,
        )?])
    }
    with .recorded_as(&vjp_loss::CROSS_ENTROPY_PARTS).sample(|| classes(Some(("label_smoothing", Value::Float(0.1)))))
}

op! {
    nll_loss = "nll_loss(Tensor input, Tensor target, Tensor? weight=None, bool? size_average=None, int ignore_index=-100, bool? reduce=None, str reduction='mean') -> Tensor",
        Extern, [NN_FUNCTIONAL];
    meta(_, a) {
        let r = Reduction::parse(a.reduction, a.size_average, a.reduce)?;
        Ok(vec![loss::nll_loss_meta(a.input, a.target, a.weight, r)?])
    }
    eager(_, a) {
        let r = Reduction::parse(a.reduction, a.size_average, a.reduce)?;
        Ok(vec![loss::nll_loss(a.input, a.target, a.weight, a.ignore_index, r)?])
    }
    with .recorded_as(&vjp_loss::NLL_CHECK).vjp(&vjp_loss::NLL).sample(|| classes(None))
}

/// A regression loss (`mse_loss`, `l1_loss`).
macro_rules! regression {
    ($name:ident = $schema:literal, $k:ident $(, with $($with:tt)*)?) => {
        op! {
            $name = $schema, Extern, [NN_FUNCTIONAL];
            meta(_, a) {
                let r = Reduction::parse(a.reduction, a.size_average, a.reduce)?;
                Ok(vec![loss::regression_meta(Regression::$k, a.input, a.target, r)?])
            }
            eager(_, a) {
                let r = Reduction::parse(a.reduction, a.size_average, a.reduce)?;
                Ok(vec![loss::regression(Regression::$k, a.input, a.target, r)?])
            }
            with $($($with)*)? .sample(|| pos_args(vec![t(fx::x()), t(fx::y())]))
        }
    };
}

regression!(
    mse_loss = "mse_loss(Tensor input, Tensor target, bool? size_average=None, bool? reduce=None, str reduction='mean') -> Tensor",
    Mse,
    with.vjp(&vjp_loss::MSE)
);
regression!(
    l1_loss = "l1_loss(Tensor input, Tensor target, bool? size_average=None, bool? reduce=None, str reduction='mean') -> Tensor",
    L1,
    with.recorded_as(&vjp_loss::L1_PARTS)
);

op! {
    scaled_dot_product_attention = "scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor",
        Extern, [NN_FUNCTIONAL RANDOM];
    items {
        /// The attention options.
        fn options<T>(a: &Args<'_, T>) -> SdpaArgs {
            SdpaArgs {
                dropout_p: a.dropout_p,
                is_causal: a.is_causal,
                scale: a.scale,
                enable_gqa: a.enable_gqa,
            }
        }
    }
    meta(_, a) {
        Ok(vec![attention::sdpa_meta(a.query, a.key, a.value, a.attn_mask, &options(&a))?])
    }
    eager(_, a) {
        Ok(vec![attention::sdpa(a.query, a.key, a.value, a.attn_mask, &options(&a))?])
    }
    with .recorded_as(&vjp_loss::SDPA_PARTS).sample(|| {
        let args = vec![t(f32s(&[2, 4, 8])), t(f32s(&[2, 5, 8])), t(f32s(&[2, 5, 3]))];
        with_kw(args, "is_causal", Value::Bool(true))
    })
}
