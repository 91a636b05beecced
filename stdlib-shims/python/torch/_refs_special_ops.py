"""The Python side of the ``torch.special`` kernel ops (issue 29): NumPy-style aliases of the
inverse hyperbolics, ``mvlgamma`` (a composition over ``lgamma``, as PyTorch's own), and the
Tensor methods whose argument order differs from the function's (``x.polygamma(n)``).

Every result comes from registry ops, so autograd records them and Dynamo inlines them."""

import math as _math

import torch


def arcsinh(input):
    """Alias of ``torch.asinh``."""
    return torch.asinh(input)


def arccosh(input):
    """Alias of ``torch.acosh``."""
    return torch.acosh(input)


def arctanh(input):
    """Alias of ``torch.atanh``."""
    return torch.atanh(input)


def arcsinh_(input):
    """Alias of ``torch.asinh_``."""
    return torch.asinh_(input)


def arccosh_(input):
    """Alias of ``torch.acosh_``."""
    return torch.acosh_(input)


def arctanh_(input):
    """Alias of ``torch.atanh_``."""
    return torch.atanh_(input)


def _mvlgamma_check(input, p):
    if input.dtype == torch.bool:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")


def mvlgamma(input, p):
    """The multivariate log-gamma function of dimension ``p``:
    ``Σ_{i<p} lgamma(x - i/2) + p(p-1)/4 · log(π)``, summed over a new last dimension as PyTorch
    does (integers promote to the default float dtype)."""
    _mvlgamma_check(input, p)
    dtype = input.dtype if input.is_floating_point() else torch.get_default_dtype()
    offsets = torch.arange(-p * 0.5 + 0.5, 0.5, 0.5, dtype=dtype)
    args = offsets + input.unsqueeze(-1)
    return torch.lgamma(args).sum(-1) + p * (p - 1) * _math.log(_math.pi) * 0.25


def mvlgamma_(input, p):
    """In-place ``mvlgamma``."""
    _mvlgamma_check(input, p)
    return input.copy_(mvlgamma(input, p))


def polygamma(input, n):
    """``Tensor.polygamma(n)``: ``torch.polygamma(n, self)``."""
    return torch.polygamma(n, input)


# Tensor methods PyTorch has for the functions above.
METHODS = "arcsinh arccosh arctanh arcsinh_ arccosh_ arctanh_ mvlgamma mvlgamma_ polygamma".split()
