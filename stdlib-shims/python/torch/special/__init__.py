"""``torch.special``: registry ops of the same meaning (``logit``, ``erfinv``, ``xlogy``, ``erfc``,
``gammaln``, ``digamma``/``psi``, ``polygamma``, ``i0``, ``multigammaln``; ``expit`` is ``sigmoid``),
the private ``_special_i0e``/``_special_i1``/``_special_i1e`` kernels, and the functions that
compose from registry ops. Those still without kernels (``erfcx``, ``log_ndtr``, ``ndtri``,
``zeta``, ``gammainc``, the Bessel J/Y/K and orthogonal polynomials) are not here yet: using one
raises ``AttributeError``."""

import torch
from torch import erfinv, logit, xlogy  # noqa: F401
from torch._refs_special import entr, ndtr, xlog1py  # noqa: F401

__all__ = ["digamma", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln", "i0", "i0e", "i1", "i1e",
           "log1p", "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr", "polygamma", "psi", "round",
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


def erfc(input, *, out=None):
    return torch.erfc(input)


def gammaln(input, *, out=None):
    return torch.lgamma(input)


def digamma(input, *, out=None):
    return torch.digamma(input)


psi = digamma


def polygamma(n, input, *, out=None):
    return torch.polygamma(n, input)


def multigammaln(input, p):
    return torch.mvlgamma(input, p)


def i0(input, *, out=None):
    return torch.i0(input)


def i0e(input, *, out=None):
    return torch._special_i0e(input)


def i1(input, *, out=None):
    return torch._special_i1(input)


def i1e(input, *, out=None):
    return torch._special_i1e(input)
