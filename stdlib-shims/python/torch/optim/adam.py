"""``torch.optim.Adam`` and ``AdamW`` (Adam with decoupled weight decay): PyTorch's
single-tensor update, op for op (``lerp_`` for the first moment, ``addcmul_`` for the second,
the bias-corrected denominator with ``eps`` added after the square root), and the multi-tensor
path (``torch._fused_adam_`` / ``_fused_adamw_``, bitwise equal to it; see
``optimizer._multi_tensor_split`` for which runs)."""

import torch

from .optimizer import (Optimizer, _addcdiv_, _check_foreach_fused, _check_lr, _get_value,
                        _multi_tensor_split, _to_scalar, _use_grad_for_differentiable)

__all__ = ["Adam", "AdamW"]


def _check_betas(betas):
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        _check_foreach_fused(foreach, fused, differentiable)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("fused", None)

    def _init_state(self, state, p, group):
        state["step"] = torch.tensor(0.0, dtype=torch.float32)
        state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            self._init_group(group)
            params = [p for p in group["params"] if p.grad is not None]
            fast, rest = _multi_tensor_split(group, params, self.state, ("exp_avg", "exp_avg_sq", "max_exp_avg_sq"))
            if fast:
                self._multi_tensor_step(group, fast)
            for p in rest:
                self._single_tensor_step(group, p)
        return loss

    def _multi_tensor_step(self, group, params):
        """Every parameter in one ``torch._fused_adam_`` (``_fused_adamw_``) call; the step counters
        are incremented first, as PyTorch does before its fused kernels."""
        beta1, beta2 = (_to_scalar(b) for b in group["betas"])
        states = [self.state[p] for p in params]
        steps = [st["step"] for st in states]
        for step_t in steps:
            step_t += 1
        amsgrad = group["amsgrad"]
        fn = torch._fused_adamw_ if group["decoupled_weight_decay"] else torch._fused_adam_
        fn(params, [p.grad for p in params], [st["exp_avg"] for st in states],
           [st["exp_avg_sq"] for st in states], [st["max_exp_avg_sq"] for st in states] if amsgrad else [],
           steps, lr=float(_to_scalar(group["lr"])), beta1=float(beta1), beta2=float(beta2),
           weight_decay=float(group["weight_decay"]), eps=float(group["eps"]), amsgrad=amsgrad,
           maximize=group["maximize"])

    def _single_tensor_step(self, group, p):
        beta1, beta2 = (_to_scalar(b) for b in group["betas"])
        lr = _to_scalar(group["lr"])
        wd, eps, amsgrad = group["weight_decay"], group["eps"], group["amsgrad"]
        state = self.state[p]
        grad = p.grad if not group["maximize"] else -p.grad
        exp_avg, exp_avg_sq, step_t = state["exp_avg"], state["exp_avg_sq"], state["step"]
        step_t += 1
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            else:
                grad = grad.add(p, alpha=wd)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step = _get_value(step_t)
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2**0.5
        if amsgrad:
            max_sq = state["max_exp_avg_sq"]
            max_sq.copy_(torch.maximum(max_sq, exp_avg_sq))
            denom = (max_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        _addcdiv_(p, exp_avg, denom, -step_size)


class AdamW(Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
