"""``F.interpolate`` in every mode (``nearest``, ``nearest-exact``, ``linear``, ``bilinear``,
``trilinear``, ``bicubic``, ``area``, and ``antialias=True`` for ``bilinear``/``bicubic``/``lanczos``),
one spatial dim at a time.

``linear``, ``bilinear`` (without antialiasing) and ``trilinear`` on floats run ATen's native ops,
``upsample_linear1d``, ``upsample_bilinear2d`` and ``upsample_trilinear3d``.
Every mode but ``area`` is separable: along one dim, output ``i`` is a weighted sum of a few input
"taps". Each tap is an ``index_select`` along the dim times a per-output weight, so the work is
gathers and pointwise ops that Dynamo traces and autograd differentiates. ``area`` is the adaptive
average pool of the output size, as in PyTorch.

Source coordinates and weights follow ATen's CPU kernels, in float32 as they compute them:
- ``nearest``: ``min(floor(i * scale), in - 1)``; ``nearest-exact``: ``floor((i + 0.5) * scale)``;
- linear modes: ``(i + 0.5) * scale - 0.5`` clamped at 0 (``i * (in - 1) / (out - 1)`` with
  ``align_corners``), taps at ``floor`` and the next index;
- ``bicubic``: the same coordinate unclamped, four taps around it (indices clamped to the edge)
  with Keys' cubic convolution weights, ``A = -0.75``;
- antialiased: the filter (triangle, Keys with ``A = -0.5``, Lanczos-3) stretched by the scale
  when downsampling, over the window ``[center - support, center + support)``, weights normalized.
``scale`` is ``1 / scale_factor`` when a scale factor is given (and not recomputed), else
``in / out``."""

import math

import torch
from torch._C import _nn as _native
from torch.nn import _layout

# ATen's native kernels for the linear modes (``rynamo_tensor::ops::upsample*``): one op instead of
# the taps' decomposition, PyTorch's results bit for bit where its kernel's summation order is theirs.
_upsample_bilinear2d = _native["upsample_bilinear2d"]
_upsample_linear1d = _native["upsample_linear1d"]
_upsample_trilinear3d = _native["upsample_trilinear3d"]

_ALL_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
# The linear modes by spatial rank (`_LINEAR_MODES.index(mode) + 1`). A tuple, not a dict: Dynamo
# wraps this module's globals unguarded (the torch namespace is trusted) and traces tuple
# lookups, while a subscripted module-level dict broke the graph of every interpolate call.
_LINEAR_MODES = ("linear", "bilinear", "trilinear")


def _is_integer(x):
    return isinstance(x, int) or (isinstance(x, torch.Tensor) and not x.is_floating_point() and x.dim() == 0)


def _scale(n_in, n_out, given, align):
    """ATen's ``area_pixel_compute_scale``."""
    if align:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / given if given is not None and given > 0 else n_in / n_out


def _f32(v):
    return torch.tensor(v, dtype=torch.float32)


def _nearest_taps(n_in, n_out, given, exact):
    scale = _f32(1.0 / given if given is not None and given > 0 else n_in / n_out)
    dst = torch.arange(n_out, dtype=torch.float32)
    src = ((dst + 0.5) * scale) if exact else dst * scale
    return [(src.floor().clamp(max=n_in - 1).to(torch.int64), None)]


def _linear_taps(n_in, n_out, given, align):
    scale = _f32(_scale(n_in, n_out, given, align))
    dst = torch.arange(n_out, dtype=torch.float32)
    src = dst * scale if align else ((dst + 0.5) * scale - 0.5).clamp(min=0.0)
    lo = src.floor().clamp(max=n_in - 1)
    w1 = src - lo
    lo = lo.to(torch.int64)
    hi = (lo + 1).clamp(max=n_in - 1)
    return [(lo, 1.0 - w1), (hi, w1)]


def _cubic_weights(t, a):
    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)]


def _cubic_taps(n_in, n_out, given, align):
    scale = _f32(_scale(n_in, n_out, given, align))
    dst = torch.arange(n_out, dtype=torch.float32)
    src = dst * scale if align else (dst + 0.5) * scale - 0.5
    idx = src.floor().clamp(max=n_in - 1)
    t = (src - idx).clamp(0.0, 1.0)
    idx = idx.to(torch.int64)
    ws = _cubic_weights(t, -0.75)
    return [((idx + (k - 1)).clamp(0, n_in - 1), ws[k]) for k in range(4)]


def _aa_filter(mode):
    if mode == "bilinear":
        return 1.0, lambda x: max(0.0, 1.0 - abs(x))
    if mode == "bicubic":
        def cubic(x, a=-0.5):
            x = abs(x)
            if x < 1.0:
                return ((a + 2) * x - (a + 3)) * x * x + 1
            if x < 2.0:
                return (((x - 5) * x + 8) * x - 4) * a
            return 0.0
        return 2.0, cubic

    def lanczos(x, a=3.0):
        if x == 0.0:
            return 1.0
        if -a < x < a:
            px = math.pi * x
            return a * math.sin(px) * math.sin(px / a) / (px * px)
        return 0.0
    return 3.0, lanczos


def _aa_taps(mode, n_in, n_out, given, align):
    """The antialiased filter's window and normalized weights per output (ATen's ``_aa`` kernels)."""
    half, filt = _aa_filter(mode)
    scale = _scale(n_in, n_out, given, align)
    support = half * scale if scale >= 1.0 else half
    invscale = 1.0 / scale if scale >= 1.0 else 1.0
    starts, weights = [], []
    for i in range(n_out):
        # With align_corners only the scale changes ((in - 1) / (out - 1)); the center does not.
        center = scale * (i + 0.5)
        xmin = max(int(center - support + 0.5), 0)
        xsize = min(int(center + support + 0.5), n_in) - xmin
        w = [filt((j + xmin - center + 0.5) * invscale) for j in range(xsize)]
        total = sum(w)
        if total != 0.0:
            w = [v / total for v in w]
        starts.append(xmin)
        weights.append(w)
    width = max(len(w) for w in weights)
    taps = []
    for k in range(width):
        idx = torch.tensor([min(s + k, n_in - 1) for s in starts], dtype=torch.int64)
        wk = torch.tensor([w[k] if k < len(w) else 0.0 for w in weights], dtype=torch.float32)
        taps.append((idx, wk))
    return taps


def _apply(x, dim, taps):
    if len(taps) == 1 and taps[0][1] is None:
        return x.index_select(dim, taps[0][0])
    shape = [1] * x.dim()
    shape[dim] = taps[0][0].shape[0]
    out = None
    for idx, w in taps:
        term = x.index_select(dim, idx) * w.to(x.dtype).reshape(shape)
        out = term if out is None else out + term
    return out


def _check_mode(input, mode, antialias, align_corners):
    nd = input.dim() - 2
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    if mode in _LINEAR_MODES and nd in (1, 2, 3) and _LINEAR_MODES.index(mode) + 1 != nd:
        want = _LINEAR_MODES.index(mode) + 3
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {want}D input")
    ok = (mode in ("nearest", "nearest-exact", "area") and nd in (1, 2, 3)) or mode in _LINEAR_MODES \
        or (mode in ("bicubic", "lanczos") and nd == 2)
    if not ok:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for "
                                  f"the modes: {_ALL_MODES} (got {mode})")
    if mode == "lanczos":
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    nd = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != nd:
                raise ValueError("Input and output must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {list(input.shape[2:])} and output size of {size}. "
                                 "Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                                 "(o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
                                f"int], but got size with types {[type(x) for x in size]}")
            out_sizes = [int(v) for v in size]
        else:
            out_sizes = [int(size)] * nd
        scales = [None] * nd
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != nd:
                raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {list(input.shape[2:])} and scale_factor of shape "
                                 f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                                 "scale_factor in (s1, s2, ...,sK) format.")
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * nd
        out_sizes = [int(math.floor(float(input.shape[2 + i]) * scales[i])) for i in range(nd)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor:
        scales = [None] * nd
    _check_mode(input, mode, antialias, align_corners)
    if mode == "area":
        fn = (torch.nn.functional.adaptive_avg_pool1d, torch.nn.functional.adaptive_avg_pool2d,
              torch.nn.functional.adaptive_avg_pool3d)[nd - 1]
        return fn(input, out_sizes if nd > 1 else out_sizes[0])
    if mode == "bilinear" and not antialias and input.is_floating_point():
        return _upsample_bilinear2d(input, out_sizes, align_corners, scales[0], scales[1])
    if mode == "linear" and input.is_floating_point():
        return _upsample_linear1d(input, out_sizes, align_corners, scales[0])
    if mode == "trilinear" and input.is_floating_point():
        return _upsample_trilinear3d(input, out_sizes, align_corners, scales[0], scales[1], scales[2])
    in_sizes = list(input.shape[2:])
    out = input
    for i in range(nd):
        n_in, n_out = in_sizes[i], out_sizes[i]
        if n_out <= 0:
            raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({', '.join(str(v) for v in in_sizes)}) "
                               f"and output ({', '.join(str(v) for v in out_sizes)})")
        if mode in ("nearest", "nearest-exact"):
            taps = _nearest_taps(n_in, n_out, scales[i], mode == "nearest-exact")
        elif antialias:
            taps = _aa_taps(mode, n_in, n_out, scales[i], align_corners)
        elif mode == "bicubic":
            taps = _cubic_taps(n_in, n_out, scales[i], align_corners)
        else:
            taps = _linear_taps(n_in, n_out, scales[i], align_corners)
        out = _apply(out, 2 + i, taps)
    # ATen's upsampling kernels write their input's suggested layout.
    fmt = _layout.suggested(input)
    return out if fmt is torch.contiguous_format else out.contiguous(memory_format=fmt)
