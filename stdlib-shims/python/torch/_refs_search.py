"""Decompositions of PyTorch's searching, counting and order statistics into registry ops
(continues ``torch._refs``): ``searchsorted``, ``bucketize``, ``bincount``, ``median``,
``kthvalue`` (``unique`` is in ``torch._refs_unique``).

Order statistics sort (NaN sorts last, as PyTorch treats it as the largest value).
``bincount`` has a data-dependent size: it reads ``.item()``, so compiled code graph-breaks
there.
"""

import builtins as _builtins

import torch
from torch import return_types
from torch.functional import _wrap_dim


def _side(right, side):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(
                "torch.searchsorted(): side can only be 'left' or 'right' but got %s" % side
            )
        if side == "left" and right:
            raise RuntimeError(
                "torch.searchsorted(): side and right can't be set to opposites, got side of "
                "left while right was True"
            )
        return side == "right"
    return _builtins.bool(right)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None, out=None):
    """For each value, how many boundaries lie before it: those ``< v`` (left) or ``<= v``
    (right) along the last dim of ``sorted_sequence``; NaN values land at the end."""
    right = _side(right, side)
    seq = sorted_sequence if sorter is None else sorted_sequence.gather(-1, sorter)
    scalar = not isinstance(input, torch.Tensor)
    values = torch.tensor(input, dtype=seq.dtype) if scalar else input
    if seq.dim() > 1:
        if list(seq.shape[:-1]) != list(values.shape[:-1]) or values.dim() == 0:
            raise RuntimeError(
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                "dimensions of boundaries tensor and input value tensor must match, but we got "
                "boundaries tensor %s and input value tensor %s"
                % (list(seq.shape), list(values.shape))
            )
    out_t = _merge_ranks(seq, values, right)
    return out_t.to(torch.int32) if out_int32 else out_t


def _merge_ranks(seq, values, right):
    """How many boundaries of ``seq`` lie before each value (``< v``, or ``<= v`` when
    ``right``), by one stable sort of boundaries and values together per row: memory and time
    grow with ``len(seq) + len(values)``, not their product.

    Values go before the boundaries in the merged row for ``left`` (a tie sorts the value
    first, so only smaller boundaries precede it) and after them for ``right``. A value's
    answer is its merged position minus the values before it."""
    m = seq.shape[-1]
    shape = values.shape
    if m == 0 or values.numel() == 0:
        return torch.zeros(shape, dtype=torch.int64)
    rows = seq.reshape(1, m) if seq.dim() == 1 else seq.reshape(-1, m)
    vals = values.reshape(rows.shape[0], -1)
    n = vals.shape[-1]
    b = rows.shape[0]
    is_value = torch.ones(b, n, dtype=torch.int64)
    is_bound = torch.zeros(b, m, dtype=torch.int64)
    if right:
        keys, flags = torch.cat([rows, vals], -1), torch.cat([is_bound, is_value], -1)
    else:
        keys, flags = torch.cat([vals, rows], -1), torch.cat([is_value, is_bound], -1)
    perm = keys.sort(-1, stable=True)[1]
    sorted_flags = flags.gather(-1, perm)
    pos = torch.arange(n + m).expand(b, n + m)
    bounds_before = pos - (sorted_flags.cumsum(-1) - sorted_flags)
    ranks = torch.zeros(b, n + m, dtype=torch.int64).scatter(-1, perm, bounds_before)
    out = ranks[:, m:] if right else ranks[:, :n]
    if vals.is_floating_point():
        # The binary search moves right while `!(boundary >= v)`: a NaN value passes every
        # boundary (the sort would stop it before NaN boundaries).
        out = torch.where(vals.isnan(), torch.full((), m, dtype=torch.int64), out)
    return out.reshape(shape)


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The bucket of each value for 1-d ``boundaries`` (``searchsorted`` with the arguments
    swapped)."""
    if boundaries.dim() != 1:
        raise RuntimeError(
            "boundaries tensor must be 1 dimension, but got dim(%d)" % boundaries.dim()
        )
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def bincount(input, weights=None, minlength=0):
    """Occurrences of each value of a 1-d non-negative integer tensor (or sums of
    ``weights``), ``max(input) + 1`` bins, at least ``minlength``."""
    if input.dim() != 1 or input.is_floating_point() or input.dtype == torch.bool:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is not None and (weights.dim() != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    bins = minlength
    if input.numel() > 0:
        if input.min().item() < 0:
            raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
        bins = _builtins.max(bins, input.max().item() + 1)
    index = input.to(torch.int64)
    if weights is None:
        return torch.zeros(bins, dtype=torch.int64).scatter_add(0, index, torch.ones_like(index))
    # PyTorch accumulates float32 weights in float32 and every other dtype in float64.
    dt = torch.float32 if weights.dtype == torch.float32 else torch.float64
    return torch.zeros(bins, dtype=dt).scatter_add(0, index, weights.to(dt))


def _select_sorted(name, input, k_of, dim, keepdim, nan_first):
    d = _wrap_dim(dim, input.dim())
    x = input.reshape(1) if input.dim() == 0 else input
    size = x.shape[d]
    if size == 0:
        raise IndexError("%s(): Expected reduction dim %d to have non-zero size." % (name, d))
    k = k_of(size)
    if k < 0 or k >= size:
        raise RuntimeError("%s(): selected number k out of range for dimension %d" % (name, d))
    values, indices = x.sort(d, stable=True)
    v, i = values.select(d, k), indices.select(d, k)
    if nan_first and x.is_floating_point():
        # median: a slice holding NaN has median NaN, at its first NaN's index.
        nans = x.isnan()
        has = nans.any(d)
        v = torch.where(has, torch.full((), float("nan"), dtype=x.dtype), v)
        i = torch.where(has, nans.to(torch.int64).argmax(d), i)
    if keepdim and input.dim() > 0:
        v, i = v.unsqueeze(d), i.unsqueeze(d)
    if input.dim() == 0:
        v, i = v.reshape(()), i.reshape(())
    return v, i


def median(input, dim=None, keepdim=False):
    """The lower median of all elements; with ``dim``, ``return_types.median(values,
    indices)`` per slice. NaN propagates."""
    if dim is None:
        flat = input.reshape(-1)
        if flat.numel() == 0:
            return torch.full((), float("nan"), dtype=input.dtype)
        v = flat.sort()[0][(flat.numel() - 1) // 2]
        if input.is_floating_point():
            v = torch.where(flat.isnan().any(), torch.full((), float("nan"), dtype=v.dtype), v)
        return v
    v, i = _select_sorted("median", input, lambda n: (n - 1) // 2, dim, keepdim, True)
    return return_types.median((v, i))


def kthvalue(input, k, dim=-1, keepdim=False):
    """``return_types.kthvalue(values, indices)``: the ``k``-th smallest element per slice
    (1-based)."""
    v, i = _select_sorted("kthvalue", input, lambda n: k - 1, dim, keepdim, False)
    return return_types.kthvalue((v, i))
