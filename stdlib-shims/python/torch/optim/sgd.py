"""``torch.optim.SGD``: stochastic gradient descent with momentum, dampening, Nesterov momentum,
weight decay and ``maximize`` (PyTorch's single-tensor update, op for op), and the multi-tensor
path (``torch._fused_sgd_``, bitwise equal to it)."""

import torch

from .optimizer import (Optimizer, _check_foreach_fused, _check_lr, _multi_tensor_split, _to_scalar,
                        _use_grad_for_differentiable)

__all__ = ["SGD"]


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        _check_lr(lr)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach,
                        differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        _check_foreach_fused(foreach, fused, differentiable)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One update; ``closure`` (re-evaluating the loss) runs first, with grad enabled."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            fast, rest = _multi_tensor_split(group, params, self.state, ("momentum_buffer",))
            if fast:
                self._multi_tensor_step(group, fast)
            if rest:
                self._single_tensor_step(group, rest)
        return loss

    def _multi_tensor_step(self, group, params):
        """Every parameter in ``torch._fused_sgd_`` calls: one for the parameters with a momentum
        buffer, one (``is_first_step``: the buffer starts as the gradient) for those without."""
        momentum = group["momentum"]
        hyper = dict(weight_decay=float(group["weight_decay"]), momentum=float(momentum),
                     lr=float(_to_scalar(group["lr"])), dampening=float(group["dampening"]),
                     nesterov=group["nesterov"], maximize=group["maximize"])
        if momentum == 0:
            # No buffers, and no state written (as the single-tensor path).
            torch._fused_sgd_(params, [p.grad for p in params], [], is_first_step=False, **hyper)
            return
        bufs = [self.state[p].get("momentum_buffer") for p in params]
        have = [i for i, b in enumerate(bufs) if b is not None]
        fresh = [i for i, b in enumerate(bufs) if b is None]
        for idx, first in ((have, False), (fresh, True)):
            if not idx:
                continue
            ps = [params[i] for i in idx]
            bs = [bufs[i] if bufs[i] is not None else torch.empty_like(params[i]) for i in idx]
            torch._fused_sgd_(ps, [p.grad for p in ps], bs, is_first_step=first, **hyper)
            for p, b in zip(ps, bs):
                self.state[p]["momentum_buffer"] = b

    def _single_tensor_step(self, group, params):
        lr = _to_scalar(group["lr"])
        momentum = group["momentum"]
        dampening = group["dampening"]
        weight_decay = group["weight_decay"]
        # Buffers are read for every parameter before any update (as PyTorch's _init_group), so a
        # parameter listed twice starts both updates from the same buffer.
        buffers = [self.state[p].get("momentum_buffer") for p in params] if momentum != 0 else []
        for i, p in enumerate(params):
            grad = p.grad if not group["maximize"] else -p.grad
            if weight_decay != 0:
                grad = grad.add(p, alpha=weight_decay)
            if momentum != 0:
                buf = buffers[i]
                if buf is None:
                    buf = grad.detach().clone()
                    buffers[i] = buf
                else:
                    buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
            p.add_(grad, alpha=-lr)
        for p, buf in zip(params, buffers):
            self.state[p]["momentum_buffer"] = buf
