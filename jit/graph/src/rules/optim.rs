//! The optimizers' multi-tensor ops (PyTorch's names and argument order): `_fused_adam_`,
//! `_fused_adamw_`, `_fused_sgd_` and `_fused_adagrad_` update every parameter of a group (and
//! its state) in one call, bitwise equal to `torch.optim`'s single-tensor path. They write into
//! their list arguments and return nothing (`MUTATES_ARGS`); `torch.optim`'s `foreach`/`fused`
//! paths call them. The kernels live in `rynamo_tensor::ops::optim`.

use rynamo_tensor::ops::optim::{self as kernel, AdagradHyper, AdamHyper, AmpHooks, SgdHyper};
use rynamo_tensor::{DType, Tensor};

use crate::Value;
use crate::def::{Sample, op};
use crate::samples::fx;

/// The schema's keyword arguments of a sample call.
fn kw(pairs: &[(&str, Value<Tensor>)]) -> Vec<(String, Value<Tensor>)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

fn list(ts: Vec<Tensor>) -> Value<Tensor> {
    Value::TensorList(ts)
}

fn zeros() -> Tensor {
    Tensor::zeros(fx::x().shape(), DType::Float32)
}

fn step() -> Tensor {
    Tensor::from_scalar(rynamo_tensor::Scalar::Float(1.0), DType::Float32)
}

fn adam_sample() -> Sample {
    let pos = vec![
        list(vec![fx::x()]),
        list(vec![fx::x()]),
        list(vec![zeros()]),
        list(vec![zeros()]),
        list(vec![]),
        list(vec![step()]),
    ];
    let kws = kw(&[
        ("lr", Value::Float(1e-3)),
        ("beta1", Value::Float(0.9)),
        ("beta2", Value::Float(0.999)),
        ("weight_decay", Value::Float(0.01)),
        ("eps", Value::Float(1e-8)),
        ("amsgrad", Value::Bool(false)),
        ("maximize", Value::Bool(false)),
    ]);
    (pos, kws)
}

macro_rules! fused_adam {
    ($name:ident, $schema:literal, $decoupled:literal) => {
        op! {
            $name = $schema, Extern, [FUNCTION MUTATES_ARGS];
            items {
                fn hyper<T>(a: &Args<'_, T>) -> AdamHyper {
                    AdamHyper {
                        lr: a.lr,
                        beta1: a.beta1,
                        beta2: a.beta2,
                        weight_decay: a.weight_decay,
                        eps: a.eps,
                        amsgrad: a.amsgrad,
                        maximize: a.maximize,
                        decoupled: $decoupled,
                    }
                }
            }
            meta(op, a) {
                let amp = AmpHooks { grad_scale: a.grad_scale, found_inf: a.found_inf };
                kernel::adam_meta(
                    op.name(),
                    [&a.self_, &a.grads, &a.exp_avgs, &a.exp_avg_sqs, &a.max_exp_avg_sqs, &a.state_steps],
                    a.amsgrad,
                    &amp,
                )?;
                Ok(vec![])
            }
            eager(op, a) {
                let amp = AmpHooks { grad_scale: a.grad_scale, found_inf: a.found_inf };
                kernel::adam_(
                    op.name(),
                    [&a.self_, &a.grads, &a.exp_avgs, &a.exp_avg_sqs, &a.max_exp_avg_sqs, &a.state_steps],
                    &hyper(&a),
                    &amp,
                )?;
                Ok(vec![])
            }
            with .not_differentiable().sample(super::adam_sample)
        }
    };
}

fused_adam!(
    fused_adam_,
    "_fused_adam_(Tensor[] self, Tensor[] grads, Tensor[] exp_avgs, Tensor[] exp_avg_sqs, Tensor[] max_exp_avg_sqs, Tensor[] state_steps, *, float lr, float beta1, float beta2, float weight_decay, float eps, bool amsgrad, bool maximize, Tensor? grad_scale=None, Tensor? found_inf=None) -> ()",
    false
);

fused_adam!(
    fused_adamw_,
    "_fused_adamw_(Tensor[] self, Tensor[] grads, Tensor[] exp_avgs, Tensor[] exp_avg_sqs, Tensor[] max_exp_avg_sqs, Tensor[] state_steps, *, float lr, float beta1, float beta2, float weight_decay, float eps, bool amsgrad, bool maximize, Tensor? grad_scale=None, Tensor? found_inf=None) -> ()",
    true
);

op! {
    fused_sgd_ = "_fused_sgd_(Tensor[] self, Tensor[] grads, Tensor[] momentum_buffer_list, *, float weight_decay, float momentum, float lr, float dampening, bool nesterov, bool maximize, bool is_first_step, Tensor? grad_scale=None, Tensor? found_inf=None) -> ()",
        Extern, [FUNCTION MUTATES_ARGS];
    items {
        fn hyper<T>(a: &Args<'_, T>) -> SgdHyper {
            SgdHyper {
                weight_decay: a.weight_decay,
                momentum: a.momentum,
                lr: a.lr,
                dampening: a.dampening,
                nesterov: a.nesterov,
                maximize: a.maximize,
                is_first_step: a.is_first_step,
            }
        }
    }
    meta(op, a) {
        let amp = AmpHooks { grad_scale: a.grad_scale, found_inf: a.found_inf };
        kernel::sgd_meta(op.name(), [&a.self_, &a.grads, &a.momentum_buffer_list], a.momentum, &amp)?;
        Ok(vec![])
    }
    eager(op, a) {
        let amp = AmpHooks { grad_scale: a.grad_scale, found_inf: a.found_inf };
        kernel::sgd_(op.name(), [&a.self_, &a.grads, &a.momentum_buffer_list], &hyper(&a), &amp)?;
        Ok(vec![])
    }
    with .not_differentiable().sample(|| {
        let pos = vec![list(vec![fx::x()]), list(vec![fx::x()]), list(vec![zeros()])];
        let kws = kw(&[
            ("weight_decay", Value::Float(0.0)),
            ("momentum", Value::Float(0.9)),
            ("lr", Value::Float(0.1)),
            ("dampening", Value::Float(0.0)),
            ("nesterov", Value::Bool(true)),
            ("maximize", Value::Bool(false)),
            ("is_first_step", Value::Bool(false)),
        ]);
        (pos, kws)
    })
}

op! {
    fused_adagrad_ = "_fused_adagrad_(Tensor[] self, Tensor[] grads, Tensor[] state_sums, Tensor[] state_steps, *, float lr, float lr_decay, float weight_decay, float eps, bool maximize, Tensor? grad_scale=None, Tensor? found_inf=None) -> ()",
        Extern, [FUNCTION MUTATES_ARGS];
    items {
        fn hyper<T>(a: &Args<'_, T>) -> AdagradHyper {
            AdagradHyper {
                lr: a.lr,
                lr_decay: a.lr_decay,
                weight_decay: a.weight_decay,
                eps: a.eps,
                maximize: a.maximize,
            }
        }
    }
    meta(op, a) {
        let amp = AmpHooks { grad_scale: a.grad_scale, found_inf: a.found_inf };
        kernel::adagrad_meta(op.name(), [&a.self_, &a.grads, &a.state_sums, &a.state_steps], &amp)?;
        Ok(vec![])
    }
    eager(op, a) {
        let amp = AmpHooks { grad_scale: a.grad_scale, found_inf: a.found_inf };
        kernel::adagrad_(op.name(), [&a.self_, &a.grads, &a.state_sums, &a.state_steps], &hyper(&a), &amp)?;
        Ok(vec![])
    }
    with .not_differentiable().sample(|| {
        let pos = vec![list(vec![fx::x()]), list(vec![fx::x()]), list(vec![zeros()]), list(vec![step()])];
        let kws = kw(&[
            ("lr", Value::Float(0.01)),
            ("lr_decay", Value::Float(0.0)),
            ("weight_decay", Value::Float(0.0)),
            ("eps", Value::Float(1e-10)),
            ("maximize", Value::Bool(false)),
        ]);
        (pos, kws)
    })
}
