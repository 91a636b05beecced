"""``torch.optim.Adagrad``: PyTorch's single-tensor (dense) update, and the multi-tensor path
(``torch._fused_adagrad_``, bitwise equal to it)."""

import torch

from .optimizer import (Optimizer, _addcdiv_, _check_foreach_fused, _check_lr, _get_value,
                        _multi_tensor_split, _to_scalar, _use_grad_for_differentiable)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check_lr(lr)
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        _check_foreach_fused(foreach, fused, differentiable)
        # Adagrad makes its state eagerly, at construction.
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = torch.tensor(0.0, dtype=torch.float32)
                state["sum"] = torch.full_like(p, group["initial_accumulator_value"])

    @_use_grad_for_differentiable
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            fast, rest = _multi_tensor_split(group, params, self.state, ("sum",))
            if fast:
                self._multi_tensor_step(group, fast)
            for p in rest:
                self._single_tensor_step(group, p)
        return loss

    def _multi_tensor_step(self, group, params):
        """Every parameter in one ``torch._fused_adagrad_`` call (step counters incremented first)."""
        states = [self.state[p] for p in params]
        steps = [st["step"] for st in states]
        for step_t in steps:
            step_t += 1
        torch._fused_adagrad_(params, [p.grad for p in params], [st["sum"] for st in states], steps,
                              lr=float(_to_scalar(group["lr"])), lr_decay=float(group["lr_decay"]),
                              weight_decay=float(group["weight_decay"]), eps=float(group["eps"]),
                              maximize=group["maximize"])

    def _single_tensor_step(self, group, p):
        lr = _to_scalar(group["lr"])
        state = self.state[p]
        step_t, state_sum = state["step"], state["sum"]
        step_t += 1
        step = _get_value(step_t)
        grad = p.grad if not group["maximize"] else -p.grad
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        clr = lr / (1 + (step - 1) * group["lr_decay"])
        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt().add_(group["eps"])
        _addcdiv_(p, grad, std, -clr)
