"""Decompositions of PyTorch functions into registry ops (PyTorch's ``torch._refs``): aliases,
rearrangements and pointwise functions that need no kernel of their own.

Dynamo inlines them, so compiled code captures the registry ops they run. Checks read only
shapes, dtypes and Python arguments; results follow PyTorch's dtype rules.
"""

import builtins as _builtins
import math as _math

import torch
import torch._autocast_policy as _autocast_policy
from torch.functional import _broadcast_shape, _wrap_dim

_DTYPE_NAMES = {
    torch.float32: "Float", torch.float64: "Double", torch.float16: "Half",
    torch.bfloat16: "BFloat16", torch.int64: "Long", torch.int32: "Int", torch.int16: "Short",
    torch.int8: "Char", torch.uint8: "Byte", torch.bool: "Bool",
    torch.complex64: "ComplexFloat", torch.complex128: "ComplexDouble",
}


def _not_implemented(kernel, dtype):
    return NotImplementedError('"%s" not implemented for \'%s\'' % (kernel, _DTYPE_NAMES[dtype]))


# === Aliases ===


def concat(tensors, dim=0):
    """Alias of ``torch.cat``."""
    return torch.cat(tensors, dim)


concatenate = concat


def swapaxes(input, axis0, axis1):
    """Alias of ``torch.transpose``."""
    return torch.transpose(input, axis0, axis1)


def swapdims(input, dim0, dim1):
    """Alias of ``torch.transpose``."""
    return torch.transpose(input, dim0, dim1)


def true_divide(input, other):
    """Alias of ``torch.div`` without a rounding mode."""
    return torch.div(input, other)


def argwhere(input):
    """The indices of the nonzero elements, one row each (``torch.nonzero``)."""
    return torch.nonzero(input)


def deg2rad(input):
    """Degrees to radians; integer and bool inputs give the default float dtype."""
    return input * (_math.pi / 180.0)


def rad2deg(input):
    """Radians to degrees; integer and bool inputs give the default float dtype."""
    return input * (180.0 / _math.pi)


# === Rearrangements ===


def fliplr(input):
    """``input`` flipped along dim 1."""
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


def flipud(input):
    """``input`` flipped along dim 0."""
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


def rot90(input, k=1, dims=(0, 1)):
    """``input`` rotated by ``k`` quarter turns in the plane of ``dims`` (from the first
    towards the second)."""
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError("expected total rotation dims == 2, but got dims = %d" % len(dims))
    if input.dim() < 2:
        raise RuntimeError("expected total dims >= 2, but got total dims = %d" % input.dim())
    d0, d1 = _wrap_dim(dims[0], input.dim()), _wrap_dim(dims[1], input.dim())
    if d0 == d1:
        raise RuntimeError(
            "expected rotation dims to be different, but got dim0 = %d and dim1 = %d" % (d0, d1)
        )
    k = k % 4
    if k == 1:
        return input.flip([d1]).transpose(d0, d1)
    if k == 2:
        return input.flip([d0, d1])
    if k == 3:
        return input.flip([d0]).transpose(d0, d1)
    return input.clone()


def take_along_dim(input, indices, dim=None):
    """``gather`` along ``dim`` after broadcasting all other dims of ``input`` and ``indices``;
    without ``dim``, indexes the flattened input."""
    if indices.dtype != torch.int64:
        raise RuntimeError(
            "torch.take_along_dim(): dtype of indices should be Long but got %s"
            % _DTYPE_NAMES[indices.dtype]
        )
    if dim is None:
        return input.reshape(-1).gather(0, indices.reshape(-1))
    if input.dim() != indices.dim():
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of "
            "dimensions, but got %d dimensions for input, and %d dimensions for indices"
            % (input.dim(), indices.dim())
        )
    d = _wrap_dim(dim, input.dim())
    in_sizes = list(input.shape)
    in_sizes[d] = indices.shape[d]
    idx = indices.expand(_broadcast_shape([in_sizes, indices.shape]))
    idx_sizes = list(indices.shape)
    idx_sizes[d] = input.shape[d]
    src = input.expand(_broadcast_shape([idx_sizes, input.shape]))
    return src.gather(d, idx)


def diag(input, diagonal=0):
    """A 1-d tensor as the ``diagonal``-th diagonal of a square matrix; a 2-d tensor's
    ``diagonal``-th diagonal (a copy)."""
    if input.dim() == 2:
        return input.diagonal(diagonal).clone()
    if input.dim() != 1:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got %dD" % input.dim())
    n = input.shape[0]
    k = diagonal
    m = n + _builtins.abs(k)
    pos = torch.arange(m)
    on_diag = (pos.unsqueeze(0) - pos.unsqueeze(1)) == k
    pad = torch.zeros(_builtins.abs(k), dtype=input.dtype)
    padded = torch.cat([input, pad])
    # Row i holds input[i] at column i + k (k >= 0); column j holds input[j] at row j - k.
    values = padded.unsqueeze(1) if k >= 0 else padded.unsqueeze(0)
    return torch.where(on_diag, values, torch.zeros((), dtype=input.dtype))


@_autocast_policy.fp32
def trace(input):
    """The sum of a matrix's main diagonal (integers accumulate as int64)."""
    if input.dim() != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim %d" % input.dim())
    return input.diagonal().sum()


def _tri_indices(row, col, offset, dtype, lower):
    if row < 0:
        raise RuntimeError("row must be non-negative, got%d" % row)
    if col < 0:
        raise RuntimeError("col must be non-negative, got%d" % col)
    mask = torch.ones(row, col, dtype=torch.bool)
    mask = mask.tril(offset) if lower else mask.triu(offset)
    return mask.nonzero().t().contiguous().to(dtype)


def tril_indices(row, col, offset=0, *, dtype=torch.int64, device=None, layout=None):
    """The (row, column) coordinates of a ``row x col`` matrix's lower triangle, row-major."""
    return _tri_indices(row, col, offset, dtype, True)


def triu_indices(row, col, offset=0, *, dtype=torch.int64, device=None, layout=None):
    """The (row, column) coordinates of a ``row x col`` matrix's upper triangle, row-major."""
    return _tri_indices(row, col, offset, dtype, False)


# === Pointwise ===


def _result_dtype(a, b):
    # The dtype type promotion gives `a op b`, read off a product's metadata (in a compiled
    # graph the product is dead code; `torch.result_type` is not traceable).
    return (a * b).dtype


def _float_result(a, b):
    dt = _result_dtype(a, b)
    return dt if dt.is_floating_point else torch.get_default_dtype()


def _as_tensor(value, like):
    return value if isinstance(value, torch.Tensor) else torch.tensor(value, dtype=like)


def logaddexp(input, other):
    """``log(exp(input) + exp(other))`` without overflow: ``max + log1p(exp(-|a - b|))``;
    equal infinities give themselves."""
    dt = _result_dtype(input, other)
    if not dt.is_floating_point:
        raise _not_implemented("logaddexp_cpu", dt)
    a, b = input.to(dt), _as_tensor(other, dt).to(dt)
    same_inf = a.isinf() & (a == b)
    out = torch.maximum(a, b) + torch.log1p(torch.exp(-(a - b).abs()))
    return torch.where(same_inf, a, out)


def logaddexp2(input, other):
    """``log2(2**input + 2**other)`` without overflow."""
    dt = _result_dtype(input, other)
    if not dt.is_floating_point:
        raise _not_implemented("logaddexp2_cpu", dt)
    a, b = input.to(dt), _as_tensor(other, dt).to(dt)
    same_inf = a.isinf() & (a == b)
    out = torch.maximum(a, b) + torch.log1p(torch.exp2(-(a - b).abs())) * (1.0 / _math.log(2.0))
    return torch.where(same_inf, a, out)


def heaviside(input, values):
    """0 where ``input < 0`` (or NaN: the comparison is false), ``values`` where it is 0, 1
    where it is positive. PyTorch has no derivative for it: with autograd recording, the result's
    backward raises PyTorch's error instead of passing a gradient to ``values`` (``where``'s)."""
    if input.dtype != values.dtype:
        raise RuntimeError(
            "heaviside is not yet implemented for tensors with different dtypes"
        )
    if torch.is_grad_enabled() and (input.requires_grad or values.requires_grad):
        return _no_derivative("aten::heaviside").apply(input, values)
    return _heaviside(input, values)


def _heaviside(input, values):
    step = (input > 0).to(input.dtype)
    return torch.where(input == 0, values, step)


_NO_DERIVATIVE = {}


def _no_derivative(aten_name):
    """An ``autograd.Function`` computing ``heaviside`` whose backward raises PyTorch's
    "derivative for <aten_name> is not implemented" (PyTorch's ``NotImplemented`` node)."""
    if aten_name not in _NO_DERIVATIVE:
        class NotImplementedBackward(torch.autograd.Function):
            @staticmethod
            def forward(ctx, input, values):
                return _heaviside(input, values)

            @staticmethod
            def backward(ctx, grad):
                raise RuntimeError(f"derivative for {aten_name} is not implemented")

        _NO_DERIVATIVE[aten_name] = NotImplementedBackward
    return _NO_DERIVATIVE[aten_name]


def signbit(input):
    """Whether the sign bit is set: negative numbers and ``-0.0``."""
    if input.dtype == torch.bool:
        return torch.zeros_like(input, dtype=torch.bool)
    if not input.is_floating_point():
        return input < 0
    # The sign bit itself, also of -0.0 and of NaNs: the top bit of the same-width integer.
    bits = {torch.float16: torch.int16, torch.bfloat16: torch.int16, torch.float32: torch.int32}
    return input.contiguous().view(bits.get(input.dtype, torch.int64)) < 0


def sgn(input):
    """``sign`` for real tensors; ``z / |z|`` (0 where ``z`` is 0) for complex ones."""
    if input.is_complex():
        a = input.abs()
        return input / torch.where(a == 0, 1.0, a)
    return torch.sign(input)


def copysign(input, other):
    """``|input|`` with the sign of ``other`` (``-0.0`` counts as negative); a float result."""
    dt = _float_result(input, other)
    a = input.to(dt) if isinstance(input, torch.Tensor) else torch.tensor(input, dtype=dt)
    b = other if isinstance(other, torch.Tensor) else torch.tensor(other, dtype=dt)
    mag = a.abs()
    return torch.where(signbit(b), -mag, mag).to(dt)


def _ignoring_nan(out, input, other):
    """``out`` (``maximum``/``minimum``, which propagate NaN) with a NaN on one side replaced by
    the other side's value, as ``fmax``/``fmin`` do."""
    if not out.is_floating_point():
        return out
    a, b = input.to(out.dtype), other.to(out.dtype)
    return torch.where(a.isnan(), b, torch.where(b.isnan(), a, out))


def fmax(input, other):
    """Elementwise maximum that ignores a NaN when the other value is a number."""
    return _ignoring_nan(torch.maximum(input, other), input, other)


def fmin(input, other):
    """Elementwise minimum that ignores a NaN when the other value is a number."""
    return _ignoring_nan(torch.minimum(input, other), input, other)


def float_power(input, exponent):
    """``pow`` computed in float64."""
    base = input.to(torch.float64) if isinstance(input, torch.Tensor) else float(input)
    exp = exponent.to(torch.float64) if isinstance(exponent, torch.Tensor) else float(exponent)
    return torch.pow(base, exp)


def sinc(input):
    """``sin(pi x) / (pi x)``, 1 at 0; integer inputs give the default float dtype."""
    dt = input.dtype if input.is_floating_point() else torch.get_default_dtype()
    x = input.to(dt)
    px = x * _math.pi
    return torch.where(x == 0, torch.ones((), dtype=dt), torch.sin(px) / px)
