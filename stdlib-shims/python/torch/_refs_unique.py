"""``torch.unique`` and ``torch.unique_consecutive`` over registry ops (continues
``torch._refs``), with and without ``dim``.

Without ``dim`` the elements are compared; with ``dim`` the slices along it (ATen's
``unique_dim``): ``unique`` sorts them lexicographically, ``unique_consecutive`` collapses runs of
equal neighbours. Every step is a whole-tensor op: slices are ranked by prefix doubling (one
batched sort per halving of the slice length), never by a Python loop over elements. As in ATen,
NaN equals nothing, so a NaN element (or a slice holding one) is never merged with another; slices
holding NaN may sort in another order than ATen's, whose comparison treats NaN as a tie.

The output sizes depend on the data (boolean masks), so compiled code graph-breaks there.
"""

import torch


def _dim_of(input, dim):
    """``dim`` wrapped as ``Tensor.size(dim)`` does (a 0-d tensor has no dims to pick)."""
    nd = input.dim()
    if nd == 0:
        raise IndexError("dimension specified as %d but tensor has no dimensions" % dim)
    if dim < -nd or dim >= nd:
        raise IndexError(
            "Dimension out of range (expected to be in range of [%d, %d], but got %d)"
            % (-nd, nd - 1, dim)
        )
    return dim % nd


def _pack(output, inverse, counts, return_inverse, return_counts):
    if return_inverse and return_counts:
        return output, inverse, counts
    if return_inverse:
        return output, inverse
    if return_counts:
        return output, counts
    return output


def _group(starts):
    """The run each position belongs to, from a boolean mask of run starts."""
    return starts.to(torch.int64).cumsum(0) - 1


def _counts(starts, n):
    """Run lengths from a boolean mask of run starts over ``n`` positions."""
    bounds = torch.cat([starts.nonzero().reshape(-1), torch.tensor([n])])
    return bounds[1:] - bounds[:-1]


def _dense_rank(keys):
    """Per column of ``keys`` ([n, k]), each row's rank among the column's distinct values
    (0 for the smallest); NaN ranks above everything and apart from every other NaN."""
    n = keys.shape[0]
    vals, perm = keys.sort(0, stable=True)
    step = torch.cat(
        [torch.zeros(1, keys.shape[1], dtype=torch.int64), (vals[1:] != vals[:-1]).to(torch.int64)]
    )
    return torch.zeros(n, keys.shape[1], dtype=torch.int64).scatter(0, perm, step.cumsum(0))


def _slice_keys(rows):
    """One int64 key per row of ``rows`` ([n, m]): equal keys for equal rows, ordered as the rows
    are lexicographically. Column ranks are paired (``rank_a * n + rank_b`` < n^2) and re-ranked
    until one column is left: ceil(log2 m) rounds."""
    n = rows.shape[0]
    if rows.dtype == torch.bool:
        rows = rows.to(torch.uint8)
    ranks = _dense_rank(rows)
    while ranks.shape[1] > 1:
        if ranks.shape[1] % 2:
            ranks = torch.cat([ranks, torch.zeros(n, 1, dtype=torch.int64)], 1)
        ranks = _dense_rank(ranks[:, 0::2] * n + ranks[:, 1::2])
    return ranks.reshape(-1)


def _slices(input, d):
    """``input`` as [size(d), rest], or None when ``unique_dim`` returns early (an empty ``d``)
    after ATen's checks of zero-size dims."""
    zero_dims = sum(1 for s in input.shape if s == 0)
    if input.shape[d] == 0:
        if zero_dims != 1:
            raise RuntimeError(
                "Number of zero sized dimensions is more than one, so unique cannot be applied "
            )
        return None
    if zero_dims != 0:
        raise RuntimeError(
            "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"
        )
    moved = input.movedim(d, 0)
    return moved, moved.reshape(input.shape[d], -1)


def _unique_dim(input, dim, consecutive, return_inverse, return_counts):
    d = _dim_of(input, dim)
    split = _slices(input, d)
    if split is None:
        empty = torch.zeros(0, dtype=torch.int64)
        return _pack(input.clone(), empty, empty.clone(), return_inverse, return_counts)
    moved, rows = split
    n = rows.shape[0]
    first = torch.ones(1, dtype=torch.bool)
    if consecutive:
        starts = torch.cat([first, (rows[1:] != rows[:-1]).any(1)])
        picked = starts.nonzero().reshape(-1)
        inverse = _group(starts) if return_inverse else None
    else:
        keys, perm = _slice_keys(rows).sort(stable=True)
        starts = torch.cat([first, keys[1:] != keys[:-1]])
        picked = perm[starts]
        if return_inverse:
            inverse = torch.zeros(n, dtype=torch.int64).scatter(0, perm, _group(starts))
        else:
            inverse = None
    output = moved.index_select(0, picked).movedim(0, d)
    counts = _counts(starts, n) if return_counts else None
    return _pack(output, inverse, counts, return_inverse, return_counts)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements (or slices along ``dim``), ascending; optionally each one's position
    among them (``inverse``: shaped like ``input``, or ``[input.size(dim)]``) and how often each
    occurs."""
    if dim is not None:
        return _unique_dim(input, dim, False, return_inverse, return_counts)
    flat = input.reshape(-1)
    n = flat.numel()
    values, perm = flat.sort(stable=True)
    if n > 0:
        starts = torch.cat([torch.ones(1, dtype=torch.bool), values[1:] != values[:-1]])
    else:
        starts = torch.zeros(0, dtype=torch.bool)
    inverse = counts = None
    if return_inverse:
        inverse = torch.zeros(n, dtype=torch.int64).scatter(0, perm, _group(starts))
        inverse = inverse.reshape(input.shape)
    if return_counts:
        counts = _counts(starts, n)
    return _pack(values[starts], inverse, counts, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapses runs of equal consecutive elements (or slices along ``dim``): the first of each
    run; optionally each element's run (``inverse``) and the run lengths (``counts``)."""
    if dim is not None and not (dim == 0 and input.dim() == 1):
        return _unique_dim(input, dim, True, return_inverse, return_counts)
    flat = input.reshape(-1)
    n = flat.numel()
    if n > 0:
        starts = torch.cat([torch.ones(1, dtype=torch.bool), flat[1:] != flat[:-1]])
    else:
        starts = torch.zeros(0, dtype=torch.bool)
    inverse = _group(starts).reshape(input.shape) if return_inverse else None
    counts = _counts(starts, n) if return_counts else None
    return _pack(flat[starts], inverse, counts, return_inverse, return_counts)
