"""``torch.optim.ASGD`` (averaged SGD), PyTorch's single-tensor update: the parameter takes a
decayed SGD step with a shrinking rate ``eta``; ``ax`` keeps the running average of the
parameters once ``step > t0``."""

import torch

from .optimizer import Optimizer, _check_lr, _get_value, _to_scalar, _use_grad_for_differentiable

__all__ = ["ASGD"]


class ASGD(Optimizer):
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        if not 0.0 <= lambd:
            raise ValueError(f"Invalid lambd value: {lambd}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, state, p, group):
        state["step"] = torch.zeros((), dtype=torch.float32)
        state["eta"] = torch.as_tensor(_to_scalar(group["lr"]), dtype=torch.float32).clone().detach()
        state["mu"] = torch.ones((), dtype=torch.float32)
        state["ax"] = torch.zeros_like(p)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            self._init_group(group)
            lr, lambd, alpha, t0 = _to_scalar(group["lr"]), group["lambd"], group["alpha"], group["t0"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                grad = p.grad if not group["maximize"] else -p.grad
                ax, mu, eta, step_t = state["ax"], state["mu"], state["eta"], state["step"]
                step_t += 1
                if group["weight_decay"] != 0:
                    grad = grad.add(p, alpha=group["weight_decay"])
                eta_value = _get_value(eta)
                p.mul_(1 - lambd * eta_value)
                step = _get_value(step_t)
                if isinstance(step, torch.Tensor):
                    # Traced (``_get_value`` gave tensors): the same values without ``.item()``,
                    # so the step is one graph as in PyTorch 2.15 (its Dynamo rewrites a tensor
                    # ``alpha`` the same way).
                    p.add_(grad * -eta_value)
                    ax.copy_(torch.where(mu == 1, p, ax + (p - ax) * mu))
                    eta.copy_(lr / ((1 + lambd * lr * step) ** alpha))
                    mu.copy_(1 / torch.clamp(step - t0, min=1))
                    continue
                p.add_(grad, alpha=-eta_value)
                # PyTorch copies until averaging starts (mu == 1), then moves the average.
                if mu.item() != 1:
                    ax.add_(p.sub(ax).mul_(mu))
                else:
                    ax.copy_(p)
                eta.copy_(torch.as_tensor(lr / ((1 + lambd * lr * step) ** alpha)))
                mu.copy_(torch.as_tensor(1 / max(1, step - t0)))
        return loss
