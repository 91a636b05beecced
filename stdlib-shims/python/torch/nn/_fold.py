"""``F.unfold`` (im2col), ``F.fold`` (col2im), ``F.channel_shuffle`` and the shuffles' checks, as
compositions of strided slices, so gradients come from the slicing ops' formulas.

``unfold`` of ``(N, C, H, W)`` is ``(N, C * KH * KW, L)``: row ``(c * KH + i) * KW + j`` holds the input
at ``(oh * stride + i * dilation - padding, ow * stride + j * dilation - padding)`` of every block
``l = oh * OW + ow``. ``fold`` is its adjoint: each kernel position's rows are added back at those
places, overlaps summed."""

import torch


def _pair(v, name):
    if isinstance(v, (list, tuple)):
        if len(v) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(v)}")
        return [int(v[0]), int(v[1])]
    return [int(v), int(v)]


def _blocks(in_hw, k, d, p, s):
    return [(in_hw[i] + 2 * p[i] - (d[i] * (k[i] - 1) + 1)) // s[i] + 1 for i in range(2)]


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    k, d = _pair(kernel_size, "kernel_size"), _pair(dilation, "dilation")
    p, s = _pair(padding, "padding"), _pair(stride, "stride")
    if input.dim() not in (3, 4) or any(n == 0 for n in input.shape[1:]):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    batched = input.dim() == 4
    x = input if batched else input.unsqueeze(0)
    n, c, h, w = x.shape
    oh, ow = _blocks([h, w], k, d, p, s)
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size=({k[0]}, {k[1]}), dilation=("
                           f"{d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), calculated shape of the array of sliding "
                           f"blocks as ({oh}, {ow}), but its components must be at least one.")
    x = torch.nn.functional.pad(x, [p[1], p[1], p[0], p[0]])
    cols = []
    for i in range(k[0]):
        for j in range(k[1]):
            r0, c0 = i * d[0], j * d[1]
            cols.append(x[:, :, r0:r0 + (oh - 1) * s[0] + 1:s[0], c0:c0 + (ow - 1) * s[1] + 1:s[1]])
    out = torch.stack(cols, 2).reshape(n, c * k[0] * k[1], oh * ow)
    return out if batched else out.squeeze(0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    out_hw = _pair(output_size, "output_size")
    k, d = _pair(kernel_size, "kernel_size"), _pair(dilation, "dilation")
    p, s = _pair(padding, "padding"), _pair(stride, "stride")
    if input.dim() not in (2, 3) or any(n == 0 for n in input.shape[1:]):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    batched = input.dim() == 3
    x = input if batched else input.unsqueeze(0)
    kk = k[0] * k[1]
    if x.shape[1] % kk != 0:
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={x.shape[1]} and kernel_size=({k[0]}, {k[1]}).")
    oh, ow = _blocks(out_hw, k, d, p, s)
    if x.shape[2] != oh * ow:
        raise RuntimeError(f"Given output_size=({out_hw[0]}, {out_hw[1]}), kernel_size=({k[0]}, {k[1]}), "
                           f"dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), expected "
                           f"size of input's dimension 2 to match the calculated number of sliding blocks {oh} * "
                           f"{ow} = {oh * ow}, but got input.size(2)={x.shape[2]}.")
    n, c = x.shape[0], x.shape[1] // kk
    blocks = x.reshape(n, c, k[0], k[1], oh, ow)
    out = x.new_zeros(n, c, out_hw[0] + 2 * p[0], out_hw[1] + 2 * p[1])
    for i in range(k[0]):
        for j in range(k[1]):
            r0, c0 = i * d[0], j * d[1]
            out[:, :, r0:r0 + (oh - 1) * s[0] + 1:s[0], c0:c0 + (ow - 1) * s[1] + 1:s[1]] += blocks[:, :, i, j]
    out = out[:, :, p[0]:p[0] + out_hw[0], p[1]:p[1] + out_hw[1]]
    return out if batched else out.squeeze(0)


def channel_shuffle(input, groups):
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = input.shape[1]
    if c % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    rest = list(input.shape[2:])
    x = input.reshape([input.shape[0], groups, c // groups] + rest).transpose(1, 2)
    return x.reshape(list(input.shape))


def check_pixel_shuffle(input, r):
    if input.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c = input.shape[-3]
    if c % (r * r) != 0:
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")


def check_pixel_unshuffle(input, r):
    if input.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    if input.shape[-2] % r != 0:
        raise RuntimeError("pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)="
                           f"{input.shape[-2]} is not divisible by {r}")
    if input.shape[-1] % r != 0:
        raise RuntimeError("pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)="
                           f"{input.shape[-1]} is not divisible by {r}")
