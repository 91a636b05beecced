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




def frexp(input):
    """``(mantissa, exponent)`` with ``input = mantissa * 2**exponent``, ``|mantissa|`` in
    ``[0.5, 1)`` (0, infinities and NaN come back with exponent 0). The exponent starts from
    ``floor(log2|x|) + 1`` in float64 and one step corrects ``log2``'s rounding at powers of two;
    the scaling by ``2**-e`` goes in two halves so subnormal inputs do not overflow it."""
    if not input.is_floating_point():
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    x = input.to(torch.float64)
    special = (x == 0) | torch.logical_not(torch.isfinite(x))
    e = torch.where(special, torch.zeros_like(x), torch.floor(torch.log2(torch.abs(x))) + 1)
    half = torch.floor(e / 2)
    m = x * torch.exp2(-half) * torch.exp2(half - e)
    regular = torch.logical_not(special)
    big = (torch.abs(m) >= 1) & regular
    m = torch.where(big, m / 2, m)
    e = torch.where(big, e + 1, e)
    small = (torch.abs(m) < 0.5) & regular
    m = torch.where(small, m * 2, m)
    e = torch.where(small, e - 1, e)
    return torch.return_types.frexp((m.to(input.dtype), e.to(torch.int32)))


# Tensor methods PyTorch has for the functions above.
METHODS = "arcsinh arccosh arctanh arcsinh_ arccosh_ arctanh_ mvlgamma mvlgamma_ polygamma frexp".split()
