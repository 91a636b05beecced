"""Gradient clipping (``clip_grad_norm_``, ``clip_grad_value_``), as PyTorch computes it: one
vector norm per gradient, the norm of those norms, then every gradient multiplied by
``min(max_norm / (total + 1e-6), 1)`` (always multiplied: no data-dependent branch)."""

import math
import warnings

import torch


def _tensors(x):
    if isinstance(x, torch.Tensor):
        return [x]
    return list(x)


def _vector_norm(t, norm_type):
    if norm_type == math.inf:
        return t.abs().amax() if t.numel() else torch.zeros((), dtype=t.dtype)
    if norm_type == -math.inf:
        return t.abs().amin()
    if norm_type == 0:
        return (t != 0).sum().to(t.dtype)
    return t.reshape(-1).norm(norm_type)


def _check_foreach(foreach, tensors):
    # PyTorch 2.15 runs foreach=True on CPU tensors through its per-tensor fallback: the same
    # numbers as foreach=False, which is what runs here either way.
    return foreach


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type`` norm of all ``tensors`` together (``tensor(0.)`` for none)."""
    tensors = [t for t in _tensors(tensors)]
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return torch.tensor(0.0)
    _check_foreach(foreach, tensors)
    norms = [_vector_norm(t, norm_type) for t in tensors]
    total = _vector_norm(torch.stack(norms), norm_type)
    if error_if_nonfinite and bool(torch.logical_or(total.isnan(), total.isinf())):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scales the gradients of ``parameters`` by ``min(max_norm / (total_norm + 1e-6), 1)``."""
    grads = [p.grad for p in _tensors(parameters) if p.grad is not None]
    if len(grads) == 0:
        return
    _check_foreach(foreach, grads)
    clip_coef = float(max_norm) / (total_norm + 1e-6)
    clip_coef_clamped = torch.clamp(clip_coef, max=1.0)
    with torch.no_grad():
        for g in grads:
            g.mul_(clip_coef_clamped.to(g.dtype))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Clips the gradients' joint norm to ``max_norm`` in place; returns the norm before clipping."""
    parameters = _tensors(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of ``clip_grad_norm_``."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient to ``[-clip_value, clip_value]`` in place."""
    clip_value = float(clip_value)
    grads = [p.grad for p in _tensors(parameters) if p.grad is not None]
    _check_foreach(foreach, grads)
    with torch.no_grad():
        for g in grads:
            g.clamp_(min=-clip_value, max=clip_value)
