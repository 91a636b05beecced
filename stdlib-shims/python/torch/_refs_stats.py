"""Statistics PyTorch users call that compose from registry ops (issue 29): ``cov`` and
``corrcoef`` (PyTorch's own formulas: weighted mean, one matrix product, then the correction),
``quantile``/``nanquantile`` (sort, ranks, then ``floor``/``ceil``/``round`` or a ``lerp``
between neighbours, as ATen's implementation does, every interpolation) and ``nanmedian`` (the
lower median of the non-NaN values, picked by ``gather``), plus the in-place matrix products
``addmm_``/``baddbmm_`` as Tensor methods.

Every result comes from registry ops, so autograd records them and Dynamo inlines them; the
checks that read values (negative weights, ``q`` outside ``[0, 1]``) call ``.item()``, where a
compiled region breaks, as PyTorch's data-dependent checks do."""

import warnings as _warnings

import torch
import torch._autocast_policy as _autocast_policy
from torch.functional import _wrap_dim

_DTYPE_NAMES = {
    torch.float64: "Double", torch.float32: "Float", torch.float16: "Half", torch.bfloat16: "BFloat16",
    torch.int64: "Long", torch.int32: "Int", torch.int16: "Short", torch.int8: "Char", torch.uint8: "Byte",
    torch.bool: "Bool", torch.complex64: "ComplexFloat", torch.complex128: "ComplexDouble",
}


def _dtype_name(dt):
    return _DTYPE_NAMES.get(dt, str(dt).replace("torch.", ""))


def cov(input, *, correction=1, fweights=None, aweights=None):
    if input.dim() > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    x = input if input.dim() == 2 else input.reshape(1, -1)
    if not x.is_floating_point():
        x = x.to(torch.get_default_dtype())
    n_obs = x.shape[1]
    w = None
    if fweights is not None:
        if fweights.dim() > 1:
            raise RuntimeError("cov(): expected fweights to have one or fewer dimensions but got fweights with "
                               f"{fweights.dim()} dimensions")
        if fweights.is_floating_point() or fweights.dtype == torch.bool:
            raise RuntimeError("cov(): expected fweights to have integral dtype but got fweights with "
                               f"{_dtype_name(fweights.dtype)} dtype")
        if fweights.numel() != n_obs:
            raise RuntimeError("cov(): expected fweights to have the same numel as there are observations in the "
                               f"input but got {fweights.numel()} != {n_obs}")
        if bool((fweights < 0).any()):
            raise RuntimeError("cov(): fweights cannot be negative")
        w = fweights
    if aweights is not None:
        if aweights.dim() > 1:
            raise RuntimeError("cov(): expected aweights to have one or fewer dimensions but got aweights with "
                               f"{aweights.dim()} dimensions")
        if not aweights.is_floating_point():
            raise RuntimeError("cov(): expected aweights to have floating point dtype but got aweights with "
                               f"{_dtype_name(aweights.dtype)} dtype")
        if aweights.numel() != n_obs:
            raise RuntimeError("cov(): expected aweights to have the same numel as there are observations in the "
                               f"input but got {aweights.numel()} != {n_obs}")
        if bool((aweights < 0).any()):
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.mean(1)
        w_sum = n_obs
        norm = n_obs - correction
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aweights).sum() / w_sum
    if float(norm) <= 0:
        _warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number "
                       "of observations.")
        norm = norm * 0 if isinstance(norm, torch.Tensor) else 0
    xm = x - avg.unsqueeze(1)
    c = torch.mm(xm, (xm if w is None else xm * w).t())
    return (c / norm).squeeze()


def corrcoef(input):
    if input.dim() > 2:
        raise RuntimeError("corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    c = cov(input)
    if c.dim() == 0:
        return c / c
    std = torch.sqrt(torch.diagonal(c))
    c = c / std.unsqueeze(1)
    c = c / std.unsqueeze(0)
    return torch.clamp(c, -1, 1)


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    if input.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if input.dtype not in (torch.float32, torch.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if isinstance(q, torch.Tensor):
        if q.dim() > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q.dtype != input.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        if not bool(((q >= 0) & (q <= 1)).all()):
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
        qt = q
    else:
        q = float(q)
        if not 0 <= q <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
        qt = torch.tensor(q, dtype=input.dtype)
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    if dim is None:
        x = input.reshape(-1)
    else:
        dim = _wrap_dim(dim, input.dim())
        x = input.movedim(dim, -1) if input.dim() > 0 else input.reshape(1)
    ordered = torch.sort(x, dim=-1).values
    # Ranks in float64, as ATen's kernel computes them (`nearest` rounds the f32 `q` times the
    # last index without rounding the product to f32 first).
    qv = qt.reshape(-1).to(torch.float64)
    last = ordered.shape[-1] - 1
    nan_count_shape = list(ordered.shape[:-1]) + [1]
    if ignore_nan:
        valid = torch.logical_not(torch.isnan(ordered)).sum(-1, keepdim=True)
        ranks = qv * (valid - 1)
        ranks = torch.where(ranks < 0, torch.zeros_like(ranks), ranks)
    else:
        ranks = (qv * last).expand(nan_count_shape[:-1] + [qv.numel()])
        has_nan = torch.isnan(ordered).any(-1, keepdim=True)
        ranks = torch.where(has_nan, torch.full_like(ranks, last), ranks)
    if interpolation == "lower":
        ranks = torch.floor(ranks)
    elif interpolation == "higher":
        ranks = torch.ceil(ranks)
    elif interpolation == "nearest":
        ranks = torch.round(ranks)
    if interpolation in ("lower", "higher", "nearest"):
        values = torch.gather(ordered, -1, ranks.long())
    else:
        below = torch.floor(ranks)
        above = torch.ceil(ranks)
        v_below = torch.gather(ordered, -1, below.long())
        v_above = torch.gather(ordered, -1, above.long())
        weights = torch.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        values = torch.lerp(v_below, v_above, weights.to(input.dtype))
    # [..., len(q)] -> [len(q), ...], then PyTorch's output layout.
    values = values.movedim(-1, 0)
    if keepdim:
        if dim is None:
            values = values.reshape([qv.numel()] + [1] * input.dim())
        else:
            values = values.unsqueeze(dim + 1)
    if qt.dim() == 0:
        values = values.squeeze(0)
    return values


@_autocast_policy.fp32
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


@_autocast_policy.fp32
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    return _quantile("quantile", input, q, dim, keepdim, interpolation, True)


def nanmedian(input, dim=None, keepdim=False):
    """The lower median of the non-NaN values (NaN when all are NaN); with ``dim``, the values
    and their indices."""
    if dim is None:
        flat = input.reshape(-1)
        if flat.numel() == 0:
            return torch.full((), float("nan"), dtype=input.dtype)
        ordered = torch.sort(flat).values
        valid = torch.logical_not(torch.isnan(ordered)).sum()
        pos = torch.clamp(torch.div(valid - 1, 2, rounding_mode="floor"), min=0)
        return torch.gather(ordered, 0, pos.reshape(1)).reshape(())
    d = _wrap_dim(dim, input.dim())
    x = input.movedim(d, -1) if input.dim() > 0 else input.reshape(1)
    if x.shape[-1] == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    ordered, order = torch.sort(x, dim=-1, stable=True)
    valid = torch.logical_not(torch.isnan(ordered)).sum(-1, keepdim=True)
    pos = torch.clamp(torch.div(valid - 1, 2, rounding_mode="floor"), min=0)
    values = torch.gather(ordered, -1, pos).squeeze(-1)
    indices = torch.gather(order, -1, pos).squeeze(-1)
    if keepdim and input.dim() > 0:
        values, indices = values.unsqueeze(d), indices.unsqueeze(d)
    return torch.return_types.nanmedian((values, indices))


def _bad_inplace(input, shape):
    if list(shape) != list(input.shape):
        raise RuntimeError(f"Bad in-place call: input tensor size {list(input.shape)} and output tensor size "
                           f"{list(shape)} should match")


def addmm_(input, mat1, mat2, *, beta=1, alpha=1):
    """In-place ``addmm``: the product must have ``input``'s shape (no broadcasting into it)."""
    if mat1.dim() == 2 and mat2.dim() == 2:
        _bad_inplace(input, [mat1.shape[0], mat2.shape[1]])
    return input.copy_(torch.addmm(input, mat1, mat2, beta=beta, alpha=alpha))


def baddbmm_(input, batch1, batch2, *, beta=1, alpha=1):
    """In-place ``baddbmm``."""
    if batch1.dim() == 3 and batch2.dim() == 3:
        _bad_inplace(input, [batch1.shape[0], batch1.shape[1], batch2.shape[2]])
    return input.copy_(torch.baddbmm(input, batch1, batch2, beta=beta, alpha=alpha))


# Tensor methods PyTorch has for the functions above.
METHODS = "cov corrcoef quantile nanquantile nanmedian addmm_ baddbmm_".split()
