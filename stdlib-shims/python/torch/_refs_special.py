"""The ``torch.special`` functions that are compositions of registry ops (``logit``, ``erfinv`` and
``xlogy`` are registry ops of their own)."""

import torch


def _float_input(x):
    return x if x.is_floating_point() else x.to(torch.get_default_dtype())


def entr(input):
    """``-x * log(x)`` for ``x > 0``, 0 at 0, ``-inf`` below 0."""
    x = _float_input(input)
    pos = -x * torch.log(x)
    return torch.where(x > 0, pos, torch.where(x == 0, 0.0, float("-inf")))


def ndtr(input):
    """The standard normal CDF, ``(1 + erf(x / sqrt(2))) / 2``."""
    x = _float_input(input)
    return (1 + torch.erf(x * 0.7071067811865476)) * 0.5


def xlog1py(input, other):
    """``input * log1p(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN)."""
    if not isinstance(input, torch.Tensor):
        input = torch.tensor(input, dtype=other.dtype)
    if not isinstance(other, torch.Tensor):
        other = torch.tensor(other, dtype=input.dtype if input.is_floating_point() else torch.get_default_dtype())
    x, y = _float_input(input), _float_input(other)
    lg = torch.log1p(y)
    # `x * log1p(y)` is already 0 where x == 0 unless log1p(y) is infinite; going through the product
    # keeps PyTorch's gradient there (`log1p(y)` for x, 0 for y). `+ 0.0` turns -0.0 into 0.0.
    return torch.where((x == 0) & torch.isinf(lg), 0.0, x * lg + 0.0)
