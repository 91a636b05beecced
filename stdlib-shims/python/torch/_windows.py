"""The window functions (``torch.hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window``, ``kaiser_window``) as ATen composes them (``TensorFactories.cpp``): the same
arange, scale, cos and affine steps in the requested dtype, so the values are PyTorch's. A periodic
window of length N is the symmetric one of length N + 1 without its last point; lengths 0 and 1 give
an empty tensor and ``[1.]``. Also ``torch._assert``, which traceable model code (torchvision, timm)
uses in place of the ``assert`` statement."""

import math

import torch


def _assert(condition, message):
    assert condition, message


def _check(name, window_length, dtype):
    if not isinstance(window_length, int) or isinstance(window_length, bool):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    dtype = dtype or torch.get_default_dtype()
    if not dtype.is_floating_point and not dtype.is_complex:
        from torch._tensor_types import _CPP_NAMES

        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype={_CPP_NAMES[dtype]}, "
                           "device=cpu, layout=Strided (default), requires_grad=false (default), "
                           "pinned_memory=false, memory_format=(nullopt))")
    return dtype


def _window(name, window_length, periodic, dtype, requires_grad, body):
    """``body(n, dtype)``: the symmetric window of length ``n`` (``n >= 2``)."""
    dtype = _check(name, window_length, dtype)
    if window_length == 0:
        out = torch.empty(0, dtype=dtype)
    elif window_length == 1:
        out = torch.ones(1, dtype=dtype)
    else:
        n = window_length + 1 if periodic else window_length
        out = body(n, dtype)
        if periodic:
            out = out.narrow(0, 0, window_length)
    return out.requires_grad_(requires_grad) if requires_grad else out


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   pin_memory=False, requires_grad=False):
    def body(n, dt):
        return torch.arange(n, dtype=dt).mul_(math.pi * 2.0 / (n - 1)).cos_().mul_(-beta).add_(alpha)

    return _window("hamming_window", window_length, periodic, dtype, requires_grad, body)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                requires_grad=False):
    def body(n, dt):
        return torch.arange(n, dtype=dt).mul_(math.pi * 2.0 / (n - 1)).cos_().mul_(-0.5).add_(0.5)

    return _window("hann_window", window_length, periodic, dtype, requires_grad, body)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    def body(n, dt):
        w = torch.arange(n, dtype=dt).mul_(math.pi / (n - 1))
        return w.mul(4).cos_().mul_(0.08) - w.mul(2).cos_().mul_(0.5) + 0.42

    return _window("blackman_window", window_length, periodic, dtype, requires_grad, body)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    def body(n, dt):
        w = torch.arange(n, dtype=dt).mul_(2.0 / (n - 1))
        first_half = ((n - 1) >> 1) + 1
        w.narrow(0, first_half, n - first_half).mul_(-1).add_(2)
        return w

    return _window("bartlett_window", window_length, periodic, dtype, requires_grad, body)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  pin_memory=False, requires_grad=False):
    def body(n, dt):
        alpha = (n - 1) / 2.0
        ratio = (torch.arange(n, dtype=dt) - alpha) / alpha
        return torch.i0(beta * torch.sqrt((1 - ratio * ratio).abs())) / torch.i0(torch.tensor(beta, dtype=dt))

    return _window("kaiser_window", window_length, periodic, dtype, requires_grad, body)
