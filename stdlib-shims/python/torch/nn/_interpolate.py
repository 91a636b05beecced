"""``F.interpolate`` (``nearest``, ``linear``, ``bilinear``) as gathers along each spatial dim.

Source coordinates follow PyTorch's kernels: ``nearest`` picks ``floor(dst * scale)``; the linear
modes sample ``(dst + 0.5) * scale - 0.5`` (clamped at 0), or ``dst * (in - 1) / (out - 1)`` with
``align_corners``. ``scale`` is ``1 / scale_factor`` when a scale factor is given (and not
recomputed), else ``in / out``. Per dim the work is an ``arange`` of output positions, their
source indices and weights, and ``index_select`` gathers (all traceable by Dynamo)."""

import math

import torch

_MODES = ("nearest", "linear", "bilinear")


def _tuple(v, n, name):
    if isinstance(v, (list, tuple)):
        if len(v) != n:
            raise ValueError(f"Input and {name} must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {n} and {name} of {list(v)}.")
        return list(v)
    return [v] * n


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    if mode not in _MODES:
        raise NotImplementedError(f"Rynamo's interpolate supports the modes {_MODES}, got {mode!r}")
    if mode == "nearest" and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if antialias:
        raise NotImplementedError("antialias=True is not supported")
    nd = input.dim() - 2
    if (mode == "linear" and nd != 1) or (mode == "bilinear" and nd != 2):
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                  f"{3 if mode == 'linear' else 4}D input")
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined")
    in_sizes = list(input.shape[2:])
    if size is not None:
        out_sizes = _tuple(size, nd, "size")
        scales = [None] * nd
    else:
        factors = _tuple(scale_factor, nd, "scale_factor")
        out_sizes = [int(math.floor(float(in_sizes[i]) * factors[i])) for i in range(nd)]
        scales = [None] * nd if recompute_scale_factor else [1.0 / f for f in factors]
    align = bool(align_corners)
    out = input
    for i in range(nd):
        dim = 2 + i
        n_in, n_out = in_sizes[i], out_sizes[i]
        # Source coordinates in float32, as PyTorch's CPU kernels compute them.
        dst = torch.arange(n_out, dtype=torch.float32)
        if mode == "nearest":
            scale = scales[i] if scales[i] is not None else n_in / n_out
            idx = (dst * scale).floor().clamp(max=n_in - 1).to(torch.int64)
            out = out.index_select(dim, idx)
            continue
        if align:
            src = dst * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)
        else:
            scale = scales[i] if scales[i] is not None else n_in / n_out
            src = ((dst + 0.5) * scale - 0.5).clamp(min=0.0)
        lo = src.floor().clamp(max=n_in - 1)
        w1 = (src - lo).clamp(0.0, 1.0)
        lo = lo.to(torch.int64)
        hi = (lo + 1).clamp(max=n_in - 1)
        shape = [1] * input.dim()
        shape[dim] = n_out
        w1 = w1.to(input.dtype).reshape(shape)
        out = out.index_select(dim, lo) * (1 - w1) + out.index_select(dim, hi) * w1
    return out
