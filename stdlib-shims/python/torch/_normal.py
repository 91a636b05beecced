"""``torch.normal``: ATen's four overloads over ``Tensor.normal_``, so it draws PyTorch's numbers.

ATen fills the broadcast output with standard normals, then scales by ``std`` and shifts by
``mean`` in place (a float ``std`` is drawn at that scale directly). PyTorch's derivative of
``normal`` is zero for both arguments (the samples are not reparameterised); when an argument
requires grad the result does too, with that zero gradient."""

import numbers

import torch

_SIGNATURES = """ * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)
 * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)
 * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)
 * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, Tensor out = None, \
torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, \
bool requires_grad = False)
"""


class _ZeroGradient(torch.autograd.Function):
    """Passes the samples through; the gradient of ``mean`` and ``std`` is zero (PyTorch's)."""

    @staticmethod
    def forward(ctx, sample, mean, std):
        ctx.shapes = [a.shape if isinstance(a, torch.Tensor) else None for a in (mean, std)]
        return sample

    @staticmethod
    def backward(ctx, grad):
        return (None,) + tuple(None if s is None else grad.new_zeros(s) for s in ctx.shapes)


def _check_std(std):
    if isinstance(std, torch.Tensor):
        if not bool((std >= 0).all()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def _bad_args(mean, std):
    got = ", ".join(type(a).__name__ for a in (mean, std))
    return TypeError(f"normal() received an invalid combination of arguments - got ({got}), but expected one "
                     f"of:\n{_SIGNATURES}")


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    mean_t, std_t = isinstance(mean, torch.Tensor), isinstance(std, torch.Tensor)
    if not mean_t and not std_t:
        if size is None or not isinstance(mean, numbers.Real) or not isinstance(std, numbers.Real):
            raise _bad_args(mean, std)
        _check_std(std)
        result = torch.empty(size, dtype=dtype).normal_(mean, std, generator=generator)
        result.requires_grad_(requires_grad)
    else:
        _check_std(std)
        if not mean_t:
            shape, dtype = std.shape, std.dtype
        elif not std_t:
            shape, dtype = mean.shape, mean.dtype
        else:
            shape, dtype = torch.broadcast_shapes(mean.shape, std.shape), torch.promote_types(mean.dtype, std.dtype)
        with torch.no_grad():
            if std_t:
                result = torch.empty(shape, dtype=dtype).normal_(0.0, 1.0, generator=generator).mul_(std).add_(mean)
            else:
                result = torch.empty(shape, dtype=dtype).normal_(0.0, std, generator=generator).add_(mean)
        if torch.is_grad_enabled() and any(isinstance(a, torch.Tensor) and a.requires_grad for a in (mean, std)):
            result = _ZeroGradient.apply(result, mean, std)
    if out is not None:
        out.resize_(result.shape).copy_(result)
        return out
    return result
