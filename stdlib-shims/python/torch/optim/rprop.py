"""``torch.optim.Rprop`` (resilient backpropagation), PyTorch's single-tensor update: each
element's step size grows by ``etaplus`` while its gradient keeps its sign and shrinks by
``etaminus`` when the sign flips (and that element then skips its update)."""

import torch

from .optimizer import Optimizer, _check_lr, _to_scalar, _use_grad_for_differentiable

__all__ = ["Rprop"]


class Rprop(Optimizer):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False,
                 foreach=None, maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, state, p, group):
        state["step"] = torch.zeros((), dtype=torch.float32)
        state["prev"] = torch.zeros_like(p)
        lr = _to_scalar(group["lr"])
        state["step_size"] = torch.full_like(p.grad, complex(lr, lr) if p.dtype.is_complex else lr)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            self._init_group(group)
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                grad = p.grad if not group["maximize"] else -p.grad
                prev, step_size = state["prev"], state["step_size"]
                state["step"] += 1
                param = p
                if torch.is_complex(p):
                    grad, prev = torch.view_as_real(grad), torch.view_as_real(prev)
                    param, step_size = torch.view_as_real(p), torch.view_as_real(step_size)
                sign = grad.mul(prev.clone() if group["differentiable"] else prev).sign()
                sign[sign.gt(0)] = etaplus
                sign[sign.lt(0)] = etaminus
                sign[sign.eq(0)] = 1
                step_size.mul_(sign).clamp_(step_size_min, step_size_max)
                # A flipped sign skips this step for that element and forgets the gradient.
                grad = grad.clone()
                grad[sign.eq(etaminus)] = 0
                param.addcmul_(grad.sign(), step_size, value=-1)
                prev.copy_(grad)
        return loss
