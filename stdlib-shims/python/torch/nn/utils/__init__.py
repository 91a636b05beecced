"""``torch.nn.utils``: flattening parameters to a vector and back, gradient clipping (over
gradients that user code assigned: there is no autograd engine)."""

import math

import torch


def parameters_to_vector(parameters):
    """One 1-D tensor of all parameters, concatenated."""
    return torch.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copies consecutive slices of ``vec`` into ``parameters``."""
    if not isinstance(vec, torch.Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        with torch.no_grad():
            param.copy_(vec[pointer:pointer + n].reshape(param.shape))
        pointer += n


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales the gradients in place so that their joint ``norm_type`` norm is at most
    ``max_norm``; returns the norm before clipping."""
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    norm_type = float(norm_type)
    if norm_type == math.inf:
        norms = [g.abs().amax() for g in grads]
        total = norms[0] if len(norms) == 1 else torch.stack(norms).amax()
    else:
        sums = [g.abs().pow(norm_type).sum() for g in grads]
        total = torch.stack(sums).sum().pow(1.0 / norm_type)
    if error_if_nonfinite and bool(total.isnan() | total.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot "
            "be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`"
        )
    coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    with torch.no_grad():
        for g in grads:
            g.mul_(coef.to(g.dtype))
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient to ``[-clip_value, clip_value]`` in place."""
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    with torch.no_grad():
        for p in parameters:
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)
