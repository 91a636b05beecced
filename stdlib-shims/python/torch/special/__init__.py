"""``torch.special``: registry ops of the same meaning (``logit``, ``erfinv``, ``xlogy``; ``expit`` is
``sigmoid``) and the functions that compose from registry ops. Those that need kernels of
their own (``erfc``, ``erfcx``, ``gammaln``, ``digamma``/``psi``, ``polygamma``, ``i0``/``i1``
and kin, ``log_ndtr``, ``ndtri``, ``zeta``, the Bessel and orthogonal polynomials) are not here yet:
using one raises ``AttributeError``."""

import torch
from torch import erfinv, logit, xlogy  # noqa: F401
from torch._refs_special import entr, ndtr, xlog1py  # noqa: F401

__all__ = ["entr", "erf", "erfinv", "exp2", "expit", "expm1", "log1p", "log_softmax", "logit", "logsumexp", "ndtr", "round",
           "sinc", "softmax", "xlog1py", "xlogy"]


def erf(input, *, out=None):
    return torch.erf(input)


def exp2(input, *, out=None):
    return torch.exp2(input)


def expit(input, *, out=None):
    return torch.sigmoid(input)


def expm1(input, *, out=None):
    return torch.expm1(input)


def log1p(input, *, out=None):
    return torch.log1p(input)


def round(input, *, decimals=0, out=None):
    return torch.round(input, decimals=decimals)


def sinc(input, *, out=None):
    return torch.sinc(input)


def logsumexp(input, dim, keepdim=False, *, out=None):
    return torch.logsumexp(input, dim, keepdim)


def softmax(input, dim, *, dtype=None):
    return torch.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    return torch.log_softmax(input, dim, dtype=dtype)
