//! `layer_norm`, `batch_norm`, `group_norm`, `embedding`, `dropout`, `pad`.

use rynamo_tensor::ops::pad::PadMode;
use rynamo_tensor::ops::{self, index, nn, norm};
use rynamo_tensor::{DType, Tensor, random};

use crate::Value;
use crate::def::op;
use crate::samples::{fx, pos_args, t, with_kw};

op! {
    layer_norm = "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05) -> Tensor",
        Extern, [FUNCTION NN_FUNCTIONAL];
    meta(_, a) { Ok(vec![nn::layer_norm_meta(a.input, a.normalized_shape, a.weight, a.bias)?]) }
    eager(_, a) {
        Ok(vec![nn::layer_norm(a.input, a.normalized_shape, a.weight, a.bias, a.eps)?])
    }
    with .sample(|| {
        pos_args(vec![t(fx::x()), Value::IntList(vec![3]), t(fx::y()), t(fx::y())])
    })
}

op! {
    embedding = "embedding(Tensor input, Tensor weight, int? padding_idx=None) -> Tensor", Extern,
        [NN_FUNCTIONAL];
    meta(_, a) { Ok(vec![index::embedding_meta(a.input, a.weight)?]) }
    eager(_, a) { Ok(vec![index::embedding(a.input, a.weight)?]) }
    with .sample(|| pos_args(vec![t(fx::longs(&[1, 0, 1])), t(fx::x())]))
}

op! {
    dropout = "dropout(Tensor input, float p=0.5, bool training=True) -> Tensor", Extern,
        [NN_FUNCTIONAL RANDOM];
    meta(_, a) { Ok(vec![random::dropout_meta(a.input, a.p)?]) }
    eager(_, a) { Ok(vec![random::dropout(a.input, a.p, a.training, None)?]) }
    with .sample(|| pos_args(vec![t(fx::x()), Value::Float(0.3)]))
}

op! {
    batch_norm = "batch_norm(Tensor input, Tensor? running_mean, Tensor? running_var, Tensor? weight=None, Tensor? bias=None, bool training=False, float momentum=0.1, float eps=1e-05) -> Tensor",
        Extern, [NN_FUNCTIONAL MUTATES_ARGS];
    meta(_, a) {
        Ok(vec![norm::batch_norm_meta(
            a.input,
            a.running_mean,
            a.running_var,
            a.weight,
            a.bias,
            a.training,
        )?])
    }
    eager(_, a) {
        Ok(vec![norm::batch_norm(
            a.input,
            a.running_mean,
            a.running_var,
            a.weight,
            a.bias,
            a.training,
            a.momentum,
            a.eps,
        )?])
    }
    with .sample(|| {
        let stats = vec![
            t(fx::img()),
            t(Tensor::zeros(&[4], DType::Float32)),
            t(Tensor::ones(&[4], DType::Float32)),
        ];
        with_kw(stats, "training", Value::Bool(true))
    })
}

op! {
    group_norm = "group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05) -> Tensor",
        Extern, [FUNCTION NN_FUNCTIONAL];
    meta(_, a) { Ok(vec![norm::group_norm_meta(a.input, a.num_groups, a.weight, a.bias)?]) }
    eager(_, a) { Ok(vec![norm::group_norm(a.input, a.num_groups, a.weight, a.bias, a.eps)?]) }
    with .sample(|| pos_args(vec![t(fx::img()), Value::Int(2)]))
}

op! {
    pad = "pad(Tensor input, int[] pad, str mode='constant', float? value=None) -> Tensor", Extern,
        [NN_FUNCTIONAL];
    meta(_, a) { Ok(vec![ops::pad::pad_meta(a.input, a.pad, PadMode::parse(a.mode)?)?]) }
    eager(_, a) { Ok(vec![ops::pad::pad(a.input, a.pad, PadMode::parse(a.mode)?, a.value)?]) }
    with .sample(|| {
        let args = vec![t(fx::img()), Value::IntList(vec![1, 2, 2, 1])];
        with_kw(args, "mode", Value::Str("reflect".into()))
    })
}
