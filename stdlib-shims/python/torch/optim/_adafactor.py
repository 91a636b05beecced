"""``torch.optim.Adafactor``, PyTorch's single-tensor update (its default on every device): the
second moment of a matrix gradient is kept as row and column means (factored), of a vector in
full; the step is relative to the parameter's RMS and clipped by the update's RMS over ``d``."""

import torch

from .optimizer import Optimizer, _to_scalar

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        if isinstance(lr, torch.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def _init_state(self, state, p, group):
        if torch.is_complex(p):
            raise RuntimeError("Adafactor does not support complex parameters")
        state["step"] = torch.tensor(0.0, dtype=torch.float32)
        if p.grad.dim() > 1:
            row_shape = list(p.grad.shape)
            row_shape[-1] = 1
            state["row_var"] = p.grad.new_zeros(row_shape)
            col_shape = list(p.grad.shape)
            col_shape[-2] = 1
            state["col_var"] = p.grad.new_zeros(col_shape)
        else:
            state["variance"] = torch.zeros_like(p.grad)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            self._init_group(group)
            lr, d, beta2_decay = _to_scalar(group["lr"]), group["d"], group["beta2_decay"]
            eps1, eps2 = group["eps"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                if torch.is_complex(p):
                    raise RuntimeError("Adafactor does not support complex parameters")
                state = self.state[p]
                grad = p.grad if not group["maximize"] else -p.grad
                if eps1 is None:
                    eps1 = torch.finfo(p.dtype).eps
                step_t = state["step"]
                step_t += 1
                step = step_t.item()
                one_minus_beta2_t = step**beta2_decay
                rho_t = min(lr, 1 / (step**0.5))
                alpha = max(eps2, p.norm(2).item() / (p.numel() ** 0.5)) * rho_t
                if group["weight_decay"] != 0:
                    p.mul_(1 - lr * group["weight_decay"])
                if grad.dim() > 1:
                    row_var, col_var = state["row_var"], state["col_var"]
                    row_mean = torch.linalg.vector_norm(grad, dim=-1, keepdim=True).square_().div_(grad.size(-1))
                    row_var.lerp_(row_mean, one_minus_beta2_t)
                    col_mean = torch.linalg.vector_norm(grad, dim=-2, keepdim=True).square_().div_(grad.size(-2))
                    col_var.lerp_(col_mean, one_minus_beta2_t)
                    var_estimate = row_var @ col_var
                    var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
                else:
                    variance = state["variance"]
                    variance.lerp_(grad * grad, one_minus_beta2_t)
                    var_estimate = variance.clone()
                update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_()
                update.mul_(grad)
                denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * d))
                p.add_(update, alpha=-alpha / denom)
        return loss
