"""PyTorch functions that are aliases or compositions of registry ops (PyTorch's ``torch._refs``
idea): NumPy-style aliases, ``tensordot``, ``block_diag``, ``cdist``, ``cartesian_prod``,
``combinations``, ``vander``, ``diag_embed``, the trapezoid rules, ``renorm``, ``histc``, the
``*_scatter`` functions and the ``add*`` matrix products.

Every result comes from registry ops, so autograd records them and Dynamo inlines them into the
graph. The formulas follow PyTorch's own decompositions where that decides rounding
(``vander`` by cumulative products, ``renorm``'s ``1e-7``).
"""

import builtins as _builtins
import itertools as _itertools

import torch
import torch._autocast_policy as _autocast_policy
from torch._refs import _DTYPE_NAMES
from torch.functional import _wrap_dim

# === Aliases ===


def fix(input):
    """Alias of ``torch.trunc``."""
    return torch.trunc(input)


def positive(input):
    """``input`` itself; PyTorch refuses bool tensors."""
    if input.dtype == torch.bool:
        raise NotImplementedError("The `+` operator, on a bool tensor is not supported.")
    return input


def negative(input):
    """Alias of ``torch.neg``."""
    return torch.neg(input)


def absolute(input):
    """Alias of ``torch.abs``."""
    return torch.abs(input)


def arccos(input):
    """Alias of ``torch.acos``."""
    return torch.acos(input)


def arcsin(input):
    """Alias of ``torch.asin``."""
    return torch.asin(input)


def arctan(input):
    """Alias of ``torch.atan``."""
    return torch.atan(input)


def multiply(input, other):
    """Alias of ``torch.mul``."""
    return torch.mul(input, other)


def subtract(input, other, *, alpha=1):
    """Alias of ``torch.sub``."""
    return torch.sub(input, other, alpha=alpha)


def divide(input, other, *, rounding_mode=None):
    """Alias of ``torch.div``."""
    return torch.div(input, other, rounding_mode=rounding_mode)


def greater(input, other):
    """Alias of ``torch.gt``."""
    return torch.gt(input, other)


def greater_equal(input, other):
    """Alias of ``torch.ge``."""
    return torch.ge(input, other)


def less(input, other):
    """Alias of ``torch.lt``."""
    return torch.lt(input, other)


def less_equal(input, other):
    """Alias of ``torch.le``."""
    return torch.le(input, other)


def not_equal(input, other):
    """Alias of ``torch.ne``."""
    return torch.ne(input, other)


def ravel(input):
    """The flattened tensor (a view when the layout allows)."""
    return input.reshape(-1)


def msort(input):
    """``input`` sorted along its first dimension."""
    return torch.sort(input, dim=0).values


def isreal(input):
    """Elementwise "has no imaginary part": every element of a real tensor."""
    return torch.ones_like(input, dtype=torch.bool)


def is_same_size(input, other):
    return input.shape == other.shape


def narrow_copy(input, dim, start, length):
    return input.narrow(dim, start, length).clone()


# === Products ===


def tensordot(a, b, dims=2, out=None):
    """Contracts the last ``dims`` dims of ``a`` with the first of ``b``, or the listed pairs."""
    if isinstance(dims, torch.Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a, dims_b = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        dims_a, dims_b = dims
        dims_a = [dims_a] if isinstance(dims_a, int) else list(dims_a)
        dims_b = [dims_b] if isinstance(dims_b, int) else list(dims_b)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    dims_a = [_wrap_dim(d, a.dim()) for d in dims_a]
    dims_b = [_wrap_dim(d, b.dim()) for d in dims_b]
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[da]} in dim "
                               f"{da} and second has size {b.shape[db]} in dim {db}")
    free_a = [d for d in range(a.dim()) if d not in dims_a]
    free_b = [d for d in range(b.dim()) if d not in dims_b]
    k = 1
    for d in dims_a:
        k *= a.shape[d]
    am = a.permute(free_a + dims_a).reshape(-1, k)
    bm = b.permute(dims_b + free_b).reshape(k, -1)
    return (am @ bm).reshape([a.shape[d] for d in free_a] + [b.shape[d] for d in free_b])


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``; ``beta=0`` ignores ``input`` (NaN included)."""
    if isinstance(input, torch.Tensor) and not input.dtype == mat.dtype == vec.dtype:
        raise RuntimeError("addmv input tensors must have the same dtype, but got %s, %s, and %s"
                           % tuple(_DTYPE_NAMES[t.dtype] for t in (input, mat, vec)))
    return _scaled_sum(input, torch.mv(mat, vec), beta, alpha)


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)``."""
    return _scaled_sum(input, torch.outer(vec1, vec2), beta, alpha)


@_autocast_policy.lower_precision_fp
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_i batch1[i] @ batch2[i]``."""
    for name, t in (("self", input), ("mat1", batch1)):
        if isinstance(t, torch.Tensor) and t.dtype != batch2.dtype:
            raise RuntimeError("%s and mat2 must have the same dtype, but got %s and %s"
                               % (name, _DTYPE_NAMES[t.dtype], _DTYPE_NAMES[batch2.dtype]))
    return _scaled_sum(input, torch.bmm(batch1, batch2).sum(0), beta, alpha)


def _scaled_sum(input, prod, beta, alpha):
    prod = prod if alpha == 1 else prod * alpha
    if beta == 0:
        return prod + torch.zeros_like(input)  # broadcast to input's shape, its values unread
    return prod + (input if beta == 1 else input * beta)


def chain_matmul(*matrices, out=None):
    """Deprecated alias of ``torch.linalg.multi_dot``."""
    if len(matrices) == 1:
        return matrices[0].clone()
    return torch.linalg.multi_dot(list(matrices))


# === Building ===


def block_diag(*tensors):
    """The tensors (0-d as 1x1, 1-d as one row) along the diagonal of one matrix."""
    mats = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
        mats.append(t.reshape(1, -1) if t.dim() < 2 else t)
    dtype = tensors[0].dtype if tensors else torch.get_default_dtype()
    for t in tensors[1:]:
        dtype = torch.promote_types(dtype, t.dtype)
    rows = _builtins.sum(m.shape[0] for m in mats)
    cols = _builtins.sum(m.shape[1] for m in mats)
    out = torch.zeros(rows, cols, dtype=dtype)
    r = c = 0
    for m in mats:
        out[r:r + m.shape[0], c:c + m.shape[1]] = m.to(dtype)
        r, c = r + m.shape[0], c + m.shape[1]
    return out


def cartesian_prod(*tensors):
    """Every combination of one element from each 1-d tensor, one per row."""
    if len(tensors) == 1:
        return tensors[0]
    grids = torch.meshgrid(*tensors, indexing="ij")
    return torch.stack([g.reshape(-1) for g in grids], dim=1)


def combinations(input, r=2, with_replacement=False):
    """The length-``r`` combinations of a 1-d tensor's elements, one per row."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_empty(0)
    pick = _itertools.combinations_with_replacement if with_replacement else _itertools.combinations
    rows = list(pick(range(input.shape[0]), r))
    if not rows:
        return input.new_empty(0, r)
    return input[torch.tensor(rows, dtype=torch.int64)]


def vander(x, N=None, increasing=False):
    """Powers of ``x`` in columns, by running products as PyTorch computes them."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dtype = torch.promote_types(x.dtype, torch.int64)
    if n == 0:
        return torch.empty(x.shape[0], 0, dtype=dtype)
    ones = torch.ones(x.shape[0], 1, dtype=dtype)
    if n == 1:
        out = ones
    else:
        powers = torch.cumprod(x.to(dtype).unsqueeze(1).expand(x.shape[0], n - 1), dim=1)
        out = torch.cat([ones, powers], dim=1)
    return out if increasing else out.flip(1)


def diagflat(input, offset=0):
    return torch.diag(input.reshape(-1), offset)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Batches of diagonal matrices: the last dim of ``input`` on the ``offset`` diagonal of the
    plane (``dim1``, ``dim2``) of the result."""
    nd = input.dim() + 1
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = input.shape[-1] if input.dim() > 0 else 1
    m = n + abs(offset)
    src = torch.nn.functional.pad(input, (0, abs(offset))) if offset else input
    idx = torch.arange(m)
    mask = (idx.unsqueeze(0) - idx.unsqueeze(1)) == offset  # [row, col]: col - row == offset
    vals = src.unsqueeze(-1) if offset >= 0 else src.unsqueeze(-2)
    out = torch.where(mask, vals, torch.zeros((), dtype=input.dtype))
    if d1 > d2:
        out = out.transpose(-2, -1)
        d1, d2 = d2, d1
    return torch.movedim(out, (-2, -1), (d1, d2))


def ldexp(input, other):
    """``input * 2 ** other``, in a floating dtype."""
    return torch.mul(input, torch.pow(2.0, other))


# === Calculus ===


def _trapezoid_spacing(y, x, dx, dim):
    if x is not None:
        if x.dim() == 1:
            shape = [1] * y.dim()
            shape[dim] = -1
            x = x.reshape(shape)
        return torch.diff(x, dim=dim)
    return 1 if dx is None else dx


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoid rule along ``dim``, with sample points ``x`` or a constant spacing ``dx``."""
    d = _wrap_dim(dim, y.dim())
    if y.shape[d] == 0:
        return torch.zeros_like(y.sum(d))
    if x is None:
        edges = y.select(d, 0) + y.select(d, -1)
        return (y.sum(d) - edges * 0.5) * (1 if dx is None else dx)
    n = y.shape[d]
    mids = y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)
    return (_trapezoid_spacing(y, x, dx, d) * mids).sum(d) / 2.0


def trapz(y, x=None, *, dx=None, dim=-1):
    """Deprecated alias of ``trapezoid``."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoid rule along ``dim`` (one element fewer)."""
    d = _wrap_dim(dim, y.dim())
    n = y.shape[d]
    if n == 0:
        return y.narrow(d, 0, 0)
    mids = (y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) / 2.0
    return torch.cumsum(_trapezoid_spacing(y, x, dx, d) * mids, dim=d)


# === Norms and counting ===


def renorm(input, p, dim, maxnorm):
    """Each slice along ``dim`` rescaled to p-norm at most ``maxnorm``."""
    d = _wrap_dim(dim, input.dim())
    rest = [i for i in range(input.dim()) if i != d]
    norm = torch.linalg.vector_norm(input, p, dim=rest, keepdim=True)
    factor = torch.where(norm > maxnorm, maxnorm / (norm + 1e-7), torch.ones((), dtype=norm.dtype))
    return input * factor


def vdot(input, other, *, out=None):
    """``sum(conj(input) * other)`` of two 1-D tensors: ``dot`` for real ones (its checks and
    texts); complex ones are conjugated first."""
    if not (input.is_complex() or other.is_complex()):
        result = torch.dot(input, other)
    else:
        if input.dim() != 1 or other.dim() != 1:
            raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D tensors")
        if input.dtype != other.dtype:
            names = {**_DTYPE_NAMES, torch.complex64: "ComplexFloat", torch.complex128: "ComplexDouble"}
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                               f"{names[input.dtype]} and {names[other.dtype]}")
        if input.numel() != other.numel():
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.numel()}] and src "
                               f"[{other.numel()}] to have the same number of elements, but got {input.numel()} "
                               f"and {other.numel()} elements respectively")
        result = (input.conj() * other).sum()
    if out is not None:
        return out.resize_(result.shape).copy_(result)
    return result


def dist(input, other, p=2):
    """The p-norm of ``input - other``."""
    return torch.linalg.vector_norm(input - other, p)


@_autocast_policy.fp32
def cdist(x1, x2, p=2.0, compute_mode=None):
    """Pairwise p-norm distances between the rows of ``x1`` and ``x2`` (batched)."""
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: "
                           f"{x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    return torch.linalg.vector_norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), p, dim=-1)


def histc(input, bins=100, min=0, max=0):
    """Counts of ``input`` in ``bins`` equal bins over [min, max] (the data's range when both
    are 0); elements outside are ignored, ``max`` falls in the last bin."""
    if bins <= 0:
        raise RuntimeError(f"torch.histc: bins must be > 0, but got {bins} for bins")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{_DTYPE_NAMES[input.dtype]}'")
    lo, hi = float(min), float(max)
    if lo == hi and input.numel() > 0:
        lo, hi = float(input.min()), float(input.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError(f"torch.histc: max must be larger than min, but got min {lo} max {hi}")
    flat = input.reshape(-1)
    inside = (flat >= lo) & (flat <= hi)
    idx = ((flat[inside].double() - lo) * bins / (hi - lo)).floor().long().clamp(0, bins - 1)
    return torch.bincount(idx, minlength=bins).to(input.dtype)


# === Scatters into copies ===


def select_scatter(input, src, dim, index):
    out = input.clone()
    out.select(dim, index).copy_(src)
    return out


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    out = input.clone()
    idx = [slice(None)] * input.dim()
    idx[_wrap_dim(dim, input.dim())] = slice(start, end, step)
    out[tuple(idx)] = src
    return out


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    out = input.clone()
    torch.diagonal(out, offset, dim1, dim2).copy_(src)
    return out


def index_put(input, indices, values, accumulate=False):
    return input.clone().index_put_(indices, values, accumulate)


# Tensor methods PyTorch has for the functions above.
METHODS = (
    "fix positive negative absolute arccos arcsin arctan multiply subtract divide greater greater_equal less "
    "less_equal not_equal ravel msort isreal is_same_size narrow_copy addmv addr addbmm diag_embed diagflat ldexp "
    "renorm dist vdot histc select_scatter slice_scatter diagonal_scatter index_put"
).split()
