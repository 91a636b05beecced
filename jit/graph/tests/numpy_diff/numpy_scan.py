"""NumPy references of the scans with indices and log-space scans (``cummax``, ``cummin``,
``logcumsumexp``), for numpy_ref.py."""

import numpy as np


def cumext(x, dim, is_max):
    """ATen's running extremum: a NaN sticks (each later NaN takes the index), ties take the
    later index. Values from ``np.maximum/minimum.accumulate`` (NaN-propagating); an element is
    taken where it equals its running value or is NaN, and the index is the last one taken."""
    if x.ndim == 0 or x.size == 0:
        return x.copy(), np.zeros(x.shape, np.int64)
    run = (np.maximum if is_max else np.minimum).accumulate(x, axis=dim)
    taken = (x == run) | (x != x)
    shape = [1] * x.ndim
    shape[dim] = x.shape[dim]
    pos = np.arange(x.shape[dim]).reshape(shape)
    idx = np.maximum.accumulate(np.where(taken, pos, 0), axis=dim)
    return np.take_along_axis(x, idx, axis=dim), idx


def lcse(x, dim):
    if x.ndim == 0:
        return x.copy()
    with np.errstate(all="ignore"):
        return np.logaddexp.accumulate(x, axis=dim)


def lcse_scale(x, dim):
    """The result's magnitude bound: the running max of ``|x|`` over finite values, plus the
    ``log(n)`` a sum of ``n`` terms adds."""
    if x.ndim == 0:
        return np.abs(np.nan_to_num(x, posinf=0, neginf=0)) + 1
    a = np.abs(np.where(np.isfinite(x), x, 0))
    n = np.arange(1, x.shape[dim] + 1).reshape([-1 if d == dim % x.ndim else 1 for d in range(x.ndim)])
    return np.maximum.accumulate(a, axis=dim) + np.log(n) + 1
