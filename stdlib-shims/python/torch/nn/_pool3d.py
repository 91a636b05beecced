"""3-D max and average pooling, power-average (LP) pooling, and max unpooling.

A box window is separable: the max (or mean) over a ``kd x kh x kw`` box is the max (mean) over
depth of the 2-D pools of each depth slice. So the 3-D pools are the native 2-D pool over
``(H, W)`` with the depth folded into channels, then the same pool over ``(D, 1)``. Per-dim sizes,
padding, dilation and ``ceil_mode`` are independent, and an average's divisor (with or without the
padding counted) is a product of per-dim counts, so the result is ATen's. Indices compose: the
depth pool picks the first depth holding the maximum and the slice pool the first ``(h, w)`` in it,
ATen's row-major first maximum.

Under CPU autocast ``max_pool3d`` (values only), ``avg_pool3d`` and the unpools are PyTorch's
``fp32`` ops: ``torch._autocast_policy`` casts their inputs."""

import torch
import torch._autocast_policy as _autocast_policy
from torch.nn import _layout


def _triple(v, name):
    if isinstance(v, (list, tuple)):
        if len(v) == 1:
            return (int(v[0]),) * 3
        if len(v) != 3:
            raise RuntimeError(f"{name} must either be a single int, or a tuple of three ints")
        return tuple(int(x) for x in v)
    return (int(v),) * 3


def _prepare(input):
    if input.dim() not in (4, 5) or input.numel() == 0:
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    batched = input.dim() == 5
    x = input if batched else input.unsqueeze(0)
    return x, batched


def _pool_format(input):
    return _layout.suggested(input) if input.dim() == 5 else torch.contiguous_format


def _pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, name, pool2d):
    """``pool2d(x, k, s, p, d)`` applied over (H, W) then over (D, 1): the (N, C, D', H', W') result
    and the two stages' outputs (for indices)."""
    x, batched = _prepare(input)
    k = _triple(kernel_size, "kernel_size")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else _triple(stride, "stride")
    p = _triple(padding, "padding")
    d = _triple(dilation, "dilation")
    n, c, depth, h, w = x.shape
    slices = pool2d(x.reshape(n * c, depth, h, w), k[1:], s[1:], p[1:], d[1:])
    hw = slices[0] if isinstance(slices, tuple) else slices
    oh, ow = hw.shape[-2:]
    deep = pool2d(hw.reshape(n * c, 1, depth, oh * ow), (k[0], 1), (s[0], 1), (p[0], 0), (d[0], 1))
    out = deep[0] if isinstance(deep, tuple) else deep
    # ATen's pools write their input's suggested layout (channels-last-3d stays so).
    result = out.reshape(n, c, out.shape[2], oh, ow).contiguous(memory_format=_pool_format(input))
    return (result if batched else result.squeeze(0)), batched, slices, deep, (h, w, oh, ow)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    def pool2d(t, k, s, p, d):
        return torch.nn.functional.max_pool2d(t, k, s, p, d, ceil_mode, True)

    out, batched, (_, idx_hw), (_, idx_d), (h, w, oh, ow) = _pool3d(
        input, kernel_size, stride, padding, dilation, ceil_mode, "max_pool3d", pool2d)
    depth_pick = torch.div(idx_d.squeeze(1), oh * ow, rounding_mode="floor")  # (N*C, D', H'W')
    in_slice = idx_hw.reshape(idx_hw.shape[0], idx_hw.shape[1], oh * ow).gather(1, depth_pick)
    idx = (depth_pick * (h * w) + in_slice).reshape(out.shape if batched else (1,) + tuple(out.shape))
    idx = idx.contiguous(memory_format=_pool_format(input))
    return out, (idx if batched else idx.squeeze(0))


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if return_indices:
        # ATen's `max_pool3d_with_indices` has no autocast policy (the values-only `max_pool3d` is fp32).
        return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _max_pool3d_values(input, kernel_size, stride, padding, dilation, ceil_mode)


@_autocast_policy.fp32
def _max_pool3d_values(input, kernel_size, stride, padding, dilation, ceil_mode):
    def pool2d(t, k, s, p, d):
        return torch.nn.functional.max_pool2d(t, k, s, p, d, ceil_mode)

    return _pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, "max_pool3d", pool2d)[0]


@_autocast_policy.fp32
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")

    def pool2d(t, k, s, p, d):
        # With an override both stages sum (divisor 1) and the total is divided once at the end.
        return torch.nn.functional.avg_pool2d(t, k, s, p, ceil_mode, count_include_pad,
                                              1 if divisor_override is not None else None)

    out = _pool3d(input, kernel_size, stride, padding, 1, ceil_mode, "avg_pool3d", pool2d)[0]
    return out if divisor_override is None else out / divisor_override


def _lp_finish(out, norm_type, window):
    return (torch.sign(out) * torch.relu(torch.abs(out))).mul(window).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    out = torch.nn.functional.avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    k = kernel_size[0] if isinstance(kernel_size, (list, tuple)) else kernel_size
    return _lp_finish(out, norm_type, k)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    kh, kw = kernel_size if isinstance(kernel_size, (list, tuple)) else (kernel_size, kernel_size)
    out = torch.nn.functional.avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_finish(out, norm_type, kh * kw)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    kd, kh, kw = _triple(kernel_size, "kernel_size")
    out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_finish(out, norm_type, kd * kh * kw)


def _unpool(input, indices, nd, kernel_size, stride, padding, output_size):
    """Scatters each pooled value back to the position its index names in a zero tensor."""
    def per_dim(v):
        if isinstance(v, (list, tuple)):
            return [int(x) for x in v] if len(v) == nd else [int(v[0])] * nd
        return [int(v)] * nd

    k = per_dim(kernel_size)
    s = k if stride is None else per_dim(stride)
    p = per_dim(padding)
    spatial_in = list(input.shape[-nd:])
    default = [(spatial_in[i] - 1) * s[i] - 2 * p[i] + k[i] for i in range(nd)]
    if output_size is None:
        out_sizes = default
    else:
        out_sizes = [int(v) for v in output_size]
        if len(out_sizes) == nd + 2:
            out_sizes = out_sizes[2:]
        elif len(out_sizes) == nd + 1 and input.dim() == nd + 1:
            out_sizes = out_sizes[1:]
        if len(out_sizes) != nd:
            raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} elements, but it has a "
                             f"length of '{len(output_size)}'")
        for i in range(nd):
            lo, hi = default[i] - s[i], default[i] + s[i]
            if not lo < out_sizes[i] < hi:
                raise ValueError(f'invalid output_size "{out_sizes}" (dim {i} must be between {lo} and {hi})')
    if indices.shape != input.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) "
                           f"but got indices tensor with shape: {list(indices.shape)}")
    lead = list(input.shape[:-nd])
    plane = 1
    for v in out_sizes:
        plane *= v
    flat_idx = indices.reshape(lead + [-1])
    invalid = flat_idx[(flat_idx < 0) | (flat_idx >= plane)]
    if invalid.numel():
        bad = int(invalid[0])  # the first in memory order, as ATen's loop reports it
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(str(v) for v in out_sizes)})")
    out = torch.zeros(lead + [plane], dtype=input.dtype)
    out = out.scatter(len(lead), flat_idx, input.reshape(lead + [-1]))
    return out.reshape(lead + out_sizes)


# ATen's max_unpool1d is max_unpool2d over an unsqueezed input: fp32 under CPU autocast too.
@_autocast_policy.fp32
def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _unpool(input, indices, 1, kernel_size, stride, padding, output_size)


@_autocast_policy.fp32
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _unpool(input, indices, 2, kernel_size, stride, padding, output_size)


@_autocast_policy.fp32
def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _unpool(input, indices, 3, kernel_size, stride, padding, output_size)
