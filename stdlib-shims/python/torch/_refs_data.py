"""Decompositions of PyTorch's data ops into registry ops (continues ``torch._refs``):
indexed updates, differences, NaN-aware reductions, products, searching and counting.

Dynamo inlines them. Ops whose output size depends on data (``masked_select``, ``unique``,
``bincount``, tensor ``repeats``) reach it through ``nonzero`` / boolean indexing (flagged
DATA_DEPENDENT) or ``.item()``/``.tolist()``, so compiled code graph-breaks there instead of
guessing a shape.
"""

import builtins as _builtins

import torch
import torch._autocast_policy as _autocast_policy
from torch import return_types
from torch._refs import _DTYPE_NAMES, _not_implemented
from torch.functional import _broadcast_shape, _wrap_dim


def _is_integral(t):
    return not t.is_floating_point() and t.dtype != torch.bool


# === Repeating and selecting ===


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (or slice along ``dim``) repeated ``repeats`` times in place;
    ``repeat_interleave(repeats)`` repeats ``arange(len(repeats))``."""
    if repeats is None:
        repeats, input, dim = input, torch.arange(input.numel()), 0
    if dim is None:
        input, d = input.reshape(-1), 0
    else:
        d = _wrap_dim(dim, input.dim())
    if isinstance(repeats, torch.Tensor) and repeats.numel() == 1 and repeats.dim() <= 1:
        repeats = repeats.reshape(()).item()
    if isinstance(repeats, int):
        if repeats < 0:
            raise RuntimeError("repeats can not be negative")
        sizes = list(input.shape)
        sizes.insert(d + 1, repeats)
        return input.unsqueeze(d + 1).expand(sizes).flatten(d, d + 1)
    if repeats.dim() != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats.dtype not in (torch.int64, torch.int32):
        raise RuntimeError("repeats has to be Long or Int tensor")
    if repeats.shape[0] != input.shape[d]:
        raise RuntimeError(
            "repeats must have the same size as input along dim, but got repeats.size(0) = %d "
            "and input.size(%d) = %d" % (repeats.shape[0], d, input.shape[d])
        )
    if _builtins.bool((repeats < 0).any()):
        raise RuntimeError("repeats can not be negative")
    # Output position p takes the source slice whose cumulative count first exceeds p.
    ends = repeats.to(torch.int64).cumsum(0)
    total = ends[-1].item() if ends.numel() > 0 else 0
    index = torch.searchsorted(ends, torch.arange(total), right=True)
    return input.index_select(d, index)


def masked_select(input, mask):
    """The elements of ``input`` where the broadcast ``mask`` is true, as a 1-d tensor."""
    if mask.dtype != torch.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = _broadcast_shape([input.shape, mask.shape])
    return input.expand(shape)[mask.expand(shape)]


def _index_along(name, input, dim, index, src_shape):
    """``index`` (1-d) expanded over ``src_shape`` along ``dim``, as scatter wants it."""
    d = _wrap_dim(dim, input.dim())
    if index.dim() > 1:
        raise IndexError("%s(): Index is supposed to be a vector" % name)
    if index.dtype not in (torch.int64, torch.int32):
        raise RuntimeError("%s(): Expected dtype int32/int64 for index" % name)
    view = [1] * _builtins.max(len(src_shape), 1)
    view[d] = -1
    return d, index.reshape(view).expand(src_shape).to(torch.int64)


def _check_source(name, input, d, index, source):
    if input.dtype != source.dtype:
        raise RuntimeError(
            "%s(): self (%s) and source (%s) must have the same scalar type"
            % (name, _DTYPE_NAMES[input.dtype], _DTYPE_NAMES[source.dtype])
        )
    along = source.shape[d] if source.dim() > 0 else 1
    if index.numel() != along:
        raise RuntimeError(
            "%s(): Number of indices (%d) should be equal to source.size(dim) (%d), for dim=%d"
            % (name, index.numel(), along, d)
        )


def index_add(input, dim, index, source, *, alpha=1):
    """``input`` with ``alpha * source[.., i, ..]`` added at ``input[.., index[i], ..]``."""
    d, idx = _index_along("index_add_", input, dim, index, source.shape)
    _check_source("index_add_", input, d, index, source)
    return input.scatter_add(d, idx, source if alpha == 1 else source * alpha)


def index_add_(input, dim, index, source, *, alpha=1):
    """In-place ``index_add``."""
    d, idx = _index_along("index_add_", input, dim, index, source.shape)
    _check_source("index_add_", input, d, index, source)
    return input.scatter_add_(d, idx, source if alpha == 1 else source * alpha)


@_autocast_policy.promote
def index_copy(input, dim, index, source):
    """``input`` with ``source[.., i, ..]`` copied to ``input[.., index[i], ..]``."""
    d, idx = _index_along("index_copy_", input, dim, index, source.shape)
    _check_source("index_copy_", input, d, index, source)
    return input.scatter(d, idx, source)


def index_copy_(input, dim, index, source):
    """In-place ``index_copy``."""
    d, idx = _index_along("index_copy_", input, dim, index, source.shape)
    _check_source("index_copy_", input, d, index, source)
    return input.scatter_(d, idx, source)


def _fill_args(input, dim, index, value):
    d = _wrap_dim(dim, input.dim())
    shape = list(input.shape)
    if shape:
        shape[d] = index.numel()
    _, idx = _index_along("index_fill_", input, d, index.reshape(-1), shape)
    if isinstance(value, torch.Tensor):
        if value.dim() != 0:
            raise RuntimeError(
                "index_fill_ only supports a 0-dimensional value tensor, but got tensor with %d "
                "dimension(s)." % value.dim()
            )
        value = value.item()
    return d, idx, value


def index_fill(input, dim, index, value):
    """``input`` with the slices ``index`` along ``dim`` set to ``value``."""
    d, idx, value = _fill_args(input, dim, index, value)
    return input.scatter(d, idx, value)


def index_fill_(input, dim, index, value):
    """In-place ``index_fill``."""
    d, idx, value = _fill_args(input, dim, index, value)
    return input.scatter_(d, idx, value)


# === Differences and NaN-aware reductions ===


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim`` (``!=`` for bools), after concatenating
    ``prepend`` and ``append``."""
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError("order must be non-negative but got %d" % n)
    d = _wrap_dim(dim, input.dim())
    parts = [t for t in (prepend, input, append) if t is not None]
    x = torch.cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        hi, lo = x.narrow(d, 1, length - 1), x.narrow(d, 0, length - 1)
        x = hi != lo if x.dtype == torch.bool else hi - lo
    return x


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """``sum`` treating NaN as 0."""
    x = torch.where(input.isnan(), 0, input) if input.is_floating_point() else input
    return x.sum(dim, keepdim, dtype=dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """``mean`` over the non-NaN elements."""
    if not input.is_floating_point():
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got %s"
            % _DTYPE_NAMES[input.dtype]
        )
    count = input.isnan().logical_not().sum(dim, keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


def _stat_args(dim, unbiased):
    # ``std_mean(x, True)`` binds ``unbiased`` positionally (PyTorch's ``std_mean(input,
    # unbiased)`` overload).
    if isinstance(dim, bool):
        return None, dim
    return dim, unbiased


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std, mean)`` over ``dim``."""
    dim, unbiased = _stat_args(dim, unbiased)
    std = input.std(dim, unbiased, keepdim, correction=correction)
    return std, input.mean(dim, keepdim)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var, mean)`` over ``dim``."""
    dim, unbiased = _stat_args(dim, unbiased)
    var = input.var(dim, unbiased, keepdim, correction=correction)
    return var, input.mean(dim, keepdim)


def aminmax(input, *, dim=None, keepdim=False):
    """``torch.return_types.aminmax(min, max)`` over ``dim`` (all elements without one)."""
    if input.numel() == 0 and dim is None:
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
            "identity."
        )
    dims = [] if dim is None else [dim]
    return return_types.aminmax(
        (input.amin(dims, keepdim), input.amax(dims, keepdim))
    )


# === Products ===


def kron(input, other):
    """The Kronecker product: block ``(i, ...)`` is ``input[i, ...] * other``."""
    nd = _builtins.max(input.dim(), other.dim())
    a_shape = [1] * (nd - input.dim()) + list(input.shape)
    b_shape = [1] * (nd - other.dim()) + list(other.shape)
    a_view, b_view = [], []
    for a, b in zip(a_shape, b_shape):
        a_view += [a, 1]
        b_view += [1, b]
    out = input.reshape(a_view) * other.reshape(b_view)
    return out.reshape([a * b for a, b in zip(a_shape, b_shape)])


def inner(input, other):
    """Sums of products over the last dims; shape ``input.shape[:-1] + other.shape[:-1]``."""
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes %s and %s"
            % (list(input.shape), list(other.shape))
        )
    k = input.shape[-1]
    out = input.reshape(-1, k) @ other.reshape(-1, k).t()
    return out.reshape(list(input.shape[:-1]) + list(other.shape[:-1]))


def cross(input, other, dim=None):
    """The 3-vector cross product along ``dim`` (default: the first dim of size 3)."""
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if dim is None:
        sizes = list(input.shape)
        if 3 not in sizes:
            raise RuntimeError("no dimension of size 3 in input")
        dim = sizes.index(3)
    d = _wrap_dim(dim, input.dim())
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(
            "linalg.cross: inputs dimension %d must have length 3. Got %d and %d"
            % (d, input.shape[d], other.shape[d])
        )
    shape = _broadcast_shape([input.shape, other.shape])
    a, b = input.expand(shape), other.expand(shape)
    a0, a1, a2 = a.select(d, 0), a.select(d, 1), a.select(d, 2)
    b0, b1, b2 = b.select(d, 0), b.select(d, 1), b.select(d, 2)
    return torch.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], d)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, layout=None,
             requires_grad=False):
    """``base ** linspace(start, end, steps)``."""
    dt = dtype if dtype is not None else torch.get_default_dtype()
    if not dt.is_floating_point:
        exps = torch.linspace(start, end, steps, dtype=torch.float64)
        return torch.pow(float(base), exps).to(dt)
    return torch.pow(base, torch.linspace(start, end, steps, dtype=dt))
