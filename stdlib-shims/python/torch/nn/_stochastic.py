"""The random activations of ``torch.nn.functional``: ``alpha_dropout``, ``feature_alpha_dropout``,
``rrelu`` and ``gumbel_softmax``, drawn from the generator in PyTorch's order so a seed gives
PyTorch's values.

- Alpha dropout (ATen's ``_dropout_impl``): a ``bernoulli_(1 - p)`` keep mask ``m`` (per element,
  or per ``(N, C)`` channel for the feature form), then ``x * (a m) + b`` with
  ``a = 1 / sqrt((alpha^2 p + 1)(1 - p))`` and ``b = (m - 1) alpha a + alpha a p``, which keeps
  SELU's zero mean and unit variance.
- RReLU in training (ATen's ``_rrelu_with_noise_train``): each element ``<= 0``, in memory order,
  draws one double ``uniform(lower, upper)`` (bounds first rounded to the input's compute type) and
  is multiplied by it; other elements keep slope 1. Gradients flow through ``x * noise``, as
  PyTorch's ``rrelu_with_noise_backward``. Outside training it is ``leaky_relu`` with the mean
  slope.
"""

import torch
from torch import _refs_stats

_ALPHA = 1.7580993408473766


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _alpha_dropout(input, p, training, inplace, feature):
    _check_p(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return input.mul_(0.0) if inplace else input * torch.zeros((), dtype=input.dtype)
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = list(input.shape[:2]) + [1] * (input.dim() - 2)
        noise = torch.empty(shape, dtype=input.dtype)
    else:
        noise = torch.empty_like(input)
    noise.bernoulli_(1 - p)
    a = 1.0 / ((_ALPHA * _ALPHA * p + 1) * (1 - p)) ** 0.5
    b = noise.add(-1).mul_(_ALPHA * a).add_(_ALPHA * a * p)
    noise.mul_(a)
    if inplace:
        return input.mul_(noise).add_(b)
    return (input * noise).add_(b)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _alpha_dropout(input, p, training, inplace, False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _alpha_dropout(input, p, training, inplace, True)


def _compute_bound(value, dtype):
    # ATen converts lower/upper to the op's compute type (float for float16/bfloat16/float32)
    # before the double uniform draw.
    compute = torch.float64 if dtype == torch.float64 else torch.float32
    return torch.tensor(value, dtype=compute).item()


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False, generator=None):
    if not training:
        return torch.nn.functional.leaky_relu(input, (lower + upper) / 2, inplace)
    if not input.dtype.is_floating_point:
        name = _refs_stats._dtype_name(input.dtype)
        raise NotImplementedError(f'"rrelu_with_noise_out_cpu" not implemented for \'{name}\'')
    negative = (input <= 0).contiguous().reshape(-1)
    draws = torch.empty(int(negative.sum()), dtype=torch.float64)
    draws.uniform_(_compute_bound(lower, input.dtype), _compute_bound(upper, input.dtype), generator=generator)
    noise = torch.ones(input.numel(), dtype=input.dtype)
    noise[negative] = draws.to(torch.float32 if input.dtype != torch.float64 else torch.float64).to(input.dtype)
    noise = noise.reshape(input.shape)
    if inplace:
        return input.mul_(noise)
    return input * noise


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, True)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    if eps != 1e-10:
        import warnings

        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -torch.empty_like(logits).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if not hard:
        return y_soft
    # Straight-through: the one-hot forward, the soft sample's gradient.
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = torch.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
