"""Tensor methods PyTorch has that compose from registry ops (issue 29): the in-place forms of
out-of-place ops (``x.tril_()``, ``x.eq_(y)``, ``x.cumsum_(0)``, ``x.bitwise_and_(y)``, ...), a few
aliases (``arctan2``, ``gcd``, ``take``, ...), the memory no-ops of a CPU-only runtime
(``share_memory_``; ``pin_memory`` raises as CPU-only PyTorch does) and the generator-driven fills ``cauchy_``/``geometric_``.

An in-place form computes the out-of-place result and copies it into ``self``, with PyTorch's
checks: the result's dtype must cast into ``self``'s ("result type Float can't be cast to the
desired output type Long") and its shape must be ``self``'s ("output with shape [3] doesn't match
the broadcast shape [2, 3]"). While autograd records ``self``, the op reads a copy: its backward
needs the values the write overwrites (PyTorch's in-place formulas keep ``original_self``).
``copy_`` then raises PyTorch's error for a leaf that requires grad and bumps the version."""

import math

import torch
from torch._refs_stats import _dtype_name as _title


def _write(self, out):
    if not torch.can_cast(out.dtype, self.dtype):
        raise RuntimeError(f"result type {_title(out.dtype)} can't be cast to the desired output type "
                           f"{_title(self.dtype)}")
    if out.shape != self.shape:
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast shape "
                           f"{list(out.shape)}")
    return self.copy_(out)


def _inplace(name):
    def method(self, *args, **kwargs):
        src = self
        if torch.is_grad_enabled() and self.requires_grad:
            if self.is_leaf:  # before the op's own checks, as PyTorch's VariableType
                raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
            src = self.clone()
        return _write(self, getattr(torch, name)(src, *args, **kwargs))

    method.__name__ = name + "_"
    method.__qualname__ = name + "_"
    return method


# Out-of-place ops whose in-place method PyTorch has.
_INPLACE_OF = (
    "acos arccos arcsin arctan asin atan arctan2 atan2 cosh sinh tan erf log10 log2 sinc sgn deg2rad rad2deg "
    "fix negative absolute copysign ldexp true_divide divide multiply subtract eq ne lt le gt ge greater "
    "greater_equal less less_equal not_equal logical_and logical_or logical_xor bitwise_and bitwise_or bitwise_xor "
    "bitwise_not bitwise_left_shift bitwise_right_shift tril triu cumsum cumprod clip clamp_max renorm addbmm addmv "
    "addr gcd lcm"
).split()

for _name in _INPLACE_OF:
    globals()[_name + "_"] = _inplace(_name)


def heaviside_(self, values):
    src = self
    if torch.is_grad_enabled() and (self.requires_grad or values.requires_grad):
        if self.is_leaf and self.requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        out = torch._refs._no_derivative("aten::heaviside_").apply(self.clone(), values)
    else:
        out = torch.heaviside(src, values)
    return _write(self, out)


def float_power_(self, exponent):
    # PyTorch computes in double and refuses a base that is not double (no silent narrowing).
    if self.dtype != torch.float64 and not self.dtype.is_complex:
        raise RuntimeError(f"the base given to float_power_ has dtype {_title(self.dtype)} but the operation's "
                           "result requires dtype Double")
    return _inplace("float_power")(self, exponent)


def arctan2(self, other):
    return torch.atan2(self, other)


def gcd(self, other):
    return torch.gcd(self, other)


def lcm(self, other):
    return torch.lcm(self, other)


def take(self, index):
    return torch.take(self, index)


def ger(self, vec2):
    return torch.outer(self, vec2)


def prelu(self, weight):
    return torch.prelu(self, weight)


def hardshrink(self, lambd=0.5):
    return torch.hardshrink(self, lambd)


def split_with_sizes(self, split_sizes, dim=0):
    return torch.split_with_sizes(self, split_sizes, dim)


def sum_to_size(self, *size):
    """The sum of ``self`` over the dims that broadcast it from ``size`` (``size`` must be
    expandable to ``self``'s shape)."""
    if len(size) == 1 and isinstance(size[0], (list, tuple, torch.Size)):
        size = tuple(size[0])
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    ok = lead >= 0 and all(s == 1 or s == d for s, d in zip(size, shape[lead:]))
    if not ok:
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    out = self.sum(list(range(lead))) if lead else self
    dims = [i for i, s in enumerate(size) if s == 1 and out.shape[i] != 1]
    return out.sum(dims, keepdim=True) if dims else out


def fill_diagonal_(self, fill_value, wrap=False):
    """Fills the main diagonal (all dims equal for more than 2 dims); ``wrap`` restarts it every
    ``cols + 1`` rows of a tall matrix, as PyTorch."""
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.dim() > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    n = min(self.shape)
    if self.dim() == 2:
        rows, cols = self.shape
        idx = list(range(n))
        r = idx
        c = idx
        if wrap and rows > cols + 1:
            r, c = [], []
            start = 0
            while start < rows:
                for k in range(min(cols, rows - start)):
                    r.append(start + k)
                    c.append(k)
                start += cols + 1
        index = (torch.tensor(r, dtype=torch.int64), torch.tensor(c, dtype=torch.int64))
    else:
        ar = torch.arange(n)
        index = tuple(ar for _ in range(self.dim()))
    return self.index_put_(index, torch.tensor(fill_value, dtype=self.dtype))


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """ATen's draw: one double uniform per element in memory order, ``median + sigma * tan(pi (u - 1/2))``."""
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"cauchy_ expects a floating point dtype, got {self.dtype}")
    if sigma <= 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    u = torch.rand(self.shape, dtype=torch.float64, generator=generator)
    with torch.no_grad():
        return self.copy_(median + sigma * torch.tan(math.pi * (u - 0.5)))


def geometric_(self, p, *, generator=None):
    """ATen's draw: one double uniform per element, ``ceil(log(u) / log1p(-p))``."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    u = torch.rand(self.shape, dtype=torch.float64, generator=generator)
    with torch.no_grad():
        return self.copy_(torch.ceil(torch.log(u) / math.log1p(-p)))


def pin_memory(self, device=None):
    # Pinned memory needs an accelerator's host allocator; CPU-only PyTorch raises this.
    raise RuntimeError("Cannot access accelerator device when none is available.")


def is_pinned(self, device=None):
    return False


def share_memory_(self):
    # Rynamo's DataLoader workers are threads of one process, so every storage is already
    # visible to them; the call only records that it was made, for `is_shared()`.
    self._rynamo_shared = True
    return self


def is_shared(self):
    return getattr(self, "_rynamo_shared", False)


def get_device(self):
    return -1


def is_conj(self):
    return False


def is_neg(self):
    return False


def resolve_conj(self):
    return self


def resolve_neg(self):
    return self


METHODS = [n + "_" for n in _INPLACE_OF] + (
    "heaviside_ float_power_ arctan2 gcd lcm take ger prelu hardshrink split_with_sizes sum_to_size fill_diagonal_ cauchy_ "
    "geometric_ pin_memory is_pinned share_memory_ is_shared get_device is_conj is_neg resolve_conj resolve_neg"
).split()
