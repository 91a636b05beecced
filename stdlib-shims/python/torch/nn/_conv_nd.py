"""``F.conv3d`` and ``F.conv_transpose1d/2d/3d`` as compositions of the registry's 2-D (and 1-D)
convolutions, so their gradients come from those ops' formulas and Dynamo traces them as the ops.

``conv3d``: the depth windows become channels. Sample ``n``'s output depth ``od`` reads input depths
``od * stride + k * dilation`` for ``k < kernel_depth``; stacking those ``kernel_depth`` strided slices
next to the channels gives ``(N * OD, C * KD, H, W)``, and a ``conv2d`` with the weight reshaped to
``(O, C / groups * KD, KH, KW)`` (channels stay group-major, so ``groups`` carries over) computes every
output depth at once.

``conv_transpose``: the transposed convolution is the gradient of a convolution with respect to its
input, which equals a stride-1 convolution of the input with ``stride - 1`` zeros inserted between
elements, padded by ``dilation * (kernel - 1) - padding`` (plus ``output_padding`` after; negative
pads crop), with the kernel flipped and its in/out channels swapped within each group."""

import torch
from torch.nn import _layout
import torch._autocast_policy as _autocast_policy

def _long_only(dtype):
    """Bool and the integer dtypes other than Long, which ATen's transposed and dilated kernels
    refuse. Tested through the dtype's attributes: Dynamo traces those, not a dict lookup."""
    return not dtype.is_floating_point and not dtype.is_complex and dtype != torch.int64


def _aten_name(dtype):
    from torch._refs import _DTYPE_NAMES
    return _DTYPE_NAMES[dtype]


def _cpp_name(dtype):
    from torch._tensor_types import _CPP_NAMES
    complex_names = {torch.complex64: "c10::complex<float>", torch.complex128: "c10::complex<double>"}
    return _CPP_NAMES.get(dtype) or complex_names[dtype]


_DIM_NAMES = {1: ["height", "width"], 2: ["height", "width"], 3: ["depth", "height", "width"]}


def _tuple(v, n):
    if isinstance(v, (list, tuple)):
        return [int(x) for x in v] if len(v) != 1 else [int(v[0])] * n
    return [int(v)] * n


def _check_input_dim(input, nd, name):
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got input "
                           f"of size: {list(input.shape)}")


def _conv2d_or_1d(nd, x, w, bias, stride, padding, dilation, groups):
    if nd == 1:
        return torch.nn.functional.conv1d(x, w, bias, stride, padding, dilation, groups)
    if nd == 2:
        return torch.nn.functional.conv2d(x, w, bias, stride, padding, dilation, groups)
    return conv3d(x, w, bias, stride, padding, dilation, groups)


@_autocast_policy.lower_precision_fp
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    if bias is not None and bias.dtype != input.dtype:
        # ATen compares the bias's dtype before any shape.
        raise RuntimeError(f"Input type ({_cpp_name(input.dtype)}) and bias type ({_cpp_name(bias.dtype)}) should "
                           "be the same")
    _check_input_dim(input, 3, "conv3d")
    if weight.dim() != 5:
        raise RuntimeError(f"weight should have at least three dimensions, got {weight.dim()}D weight of size "
                           f"{list(weight.shape)}" if weight.dim() < 3 else
                           f"Expected 5-dimensional weight for 5-dimensional input {list(input.shape)}, but got "
                           f"{weight.dim()}-dimensional weight of size {list(weight.shape)} instead")
    batched = input.dim() == 5
    x = input if batched else input.unsqueeze(0)
    stride, dilation = _tuple(stride, 3), _tuple(dilation, 3)
    o, cg, kd, kh, kw = weight.shape
    ksize = [kd, kh, kw]
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"Invalid padding string '{padding}', should be one of ['valid', 'same']")
        if padding == "same" and any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        pads = [0] * 6
        if padding == "same":
            for i in range(3):
                total = dilation[i] * (ksize[i] - 1)
                j = 2 - i
                pads[2 * j], pads[2 * j + 1] = total // 2, total - total // 2
        x = torch.nn.functional.pad(x, pads)
        pad_lo = [0, 0, 0]
    else:
        pad_lo = _tuple(padding, 3)
    n, c = x.shape[0], x.shape[1]
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if o % groups != 0:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{list(weight.shape)}] instead")
    if c != cg * groups:
        shown = list(input.shape) if batched else [1] + list(input.shape)
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input{shown} to "
                           f"have {cg * groups} channels, but got {c} channels instead")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != o):
        raise RuntimeError(f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional with {o} "
                           f"elements, but got bias of size {list(bias.shape)} instead")
    padded = [x.shape[2 + i] + 2 * pad_lo[i] for i in range(3)]
    eff = [dilation[i] * (ksize[i] - 1) + 1 for i in range(3)]
    if any(padded[i] < eff[i] for i in range(3)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(str(p) for p in padded)}). "
                           f"Kernel size: ({' x '.join(str(k) for k in eff)}). Kernel size can't be greater than "
                           "actual input size")
    dilated = any(d != 1 for d in dilation)
    if _long_only(input.dtype) and (input.dtype == torch.bool or dilated):
        # ATen's 3-D kernel computes every integer dtype but not Bool; its dilated one, shared with
        # 2-D, Long only. The conv2d below would see no depth dilation, so the check is here.
        kernel = "slow_conv_dilated<>" if dilated else "compute_columns3d"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_aten_name(input.dtype)}'")
    if pad_lo[0] > 0:
        x = torch.nn.functional.pad(x, [0, 0, 0, 0, pad_lo[0], pad_lo[0]])
    od = (padded[0] - eff[0]) // stride[0] + 1
    span = (od - 1) * stride[0] + 1
    # (N, C, OD, KD, H, W): depth window k of every output depth, a strided slice of the input.
    windows = torch.stack([x[:, :, k * dilation[0]:k * dilation[0] + span:stride[0]] for k in range(kd)], 3)
    h, w = x.shape[3], x.shape[4]
    planes = windows.permute(0, 2, 1, 3, 4, 5).reshape(n * od, c * kd, h, w)
    out = torch.nn.functional.conv2d(planes, weight.reshape(o, cg * kd, kh, kw), bias, stride[1:], pad_lo[1:],
                                     dilation[1:], groups)
    out = out.reshape(n, od, o, out.shape[2], out.shape[3]).permute(0, 2, 1, 3, 4)
    out = out.contiguous(memory_format=_layout.conv_format(input, weight))
    return out if batched else out.squeeze(0)


def _dilate(x, dim, s):
    """Inserts ``s - 1`` zeros between the elements of ``x`` along ``dim``."""
    if s == 1:
        return x
    n = x.shape[dim]
    zshape = list(x.shape)
    zshape.insert(dim + 1, s - 1)
    spread = torch.cat([x.unsqueeze(dim + 1), x.new_zeros(zshape)], dim + 1).flatten(dim, dim + 1)
    return spread.narrow(dim, 0, (n - 1) * s + 1)


def _conv_transpose(nd, input, weight, bias, stride, padding, output_padding, groups, dilation):
    name = f"conv_transpose{nd}d"
    _check_input_dim(input, nd, name)
    if isinstance(padding, str):
        raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
    batched = input.dim() == nd + 2
    x = input if batched else input.unsqueeze(0)
    stride, padding = _tuple(stride, nd), _tuple(padding, nd)
    output_padding, dilation = _tuple(output_padding, nd), _tuple(dilation, nd)
    if weight.dim() != nd + 2:
        raise RuntimeError(f"Expected {nd + 2}-dimensional weight for {nd + 2}-dimensional input "
                           f"{list(x.shape)}, but got {weight.dim()}-dimensional weight of size "
                           f"{list(weight.shape)} instead")
    cin, og = weight.shape[0], weight.shape[1]
    ksize = list(weight.shape[2:])
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if cin % groups != 0:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{list(weight.shape)}] instead")
    if x.shape[1] != cin:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected input"
                           f"{list(x.shape)} to have {cin} channels, but got {x.shape[1]} channels instead")
    cout = og * groups
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != cout):
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected bias to be "
                           f"1-dimensional with {cout} elements, but got bias of size {list(bias.shape)} instead")
    if any(output_padding[i] >= stride[i] and output_padding[i] >= dilation[i] for i in range(nd)):
        names = _DIM_NAMES[nd]
        # ATen runs 1-D through its 2-D kernel, whose height dim has size 1.
        ops, sts, dls = output_padding, stride, dilation
        if nd == 1:
            ops, sts, dls = [0] + ops, [1] + sts, [1] + dls
        parts = [f"output_padding_{n}: {v}" for n, v in zip(names, ops)]
        parts += [f"stride_{n}: {v}" for n, v in zip(names, sts)]
        parts += [f"dilation_{n}: {v}" for n, v in zip(names, dls)]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got " + " ".join(parts))
    in_sizes = list(x.shape[2:])
    out_sizes = [(in_sizes[i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (ksize[i] - 1) + output_padding[i]
                 + 1 for i in range(nd)]
    if any(s < 1 for s in out_sizes):
        shown_in, shown_out = in_sizes, out_sizes
        if nd == 1:
            shown_in, shown_out = [1] + in_sizes, [1] + out_sizes
        raise RuntimeError(f"Given input size per channel: ({' x '.join(str(v) for v in shown_in)}). Calculated output "
                           f"size per channel: ({' x '.join(str(v) for v in shown_out)}). Output size is too small")
    if _long_only(input.dtype):
        # The check follows the shape checks and precedes the dtype comparison with the weight.
        kernel = "slow_conv_transpose3d_out_cpu" if nd == 3 else "slow_conv_transpose2d_out_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_aten_name(input.dtype)}'")
    pads = []
    for i in range(nd):
        x = _dilate(x, 2 + i, stride[i])
        lo = dilation[i] * (ksize[i] - 1) - padding[i]
        pads = [lo, lo + output_padding[i]] + pads
    x = torch.nn.functional.pad(x, pads)
    # (Cin, Cout/g, *k) -> (Cout, Cin/g, *k), flipped: the convolution whose input gradient this is.
    w = weight.reshape([groups, cin // groups, og] + ksize).transpose(1, 2).reshape([cout, cin // groups] + ksize)
    w = w.flip(list(range(2, 2 + nd)))
    # ATen's 1-D/2-D transposed kernel adds the bias in place after the product, so a bias of
    # another dtype is cast as `add_` casts (an int64 output takes an int32 bias, refuses a float
    # one); its 3-D kernel, like the convolutions, requires the input's dtype.
    late_bias = nd < 3 and bias is not None and bias.dtype != input.dtype
    if nd == 3 and bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {_aten_name(input.dtype)} but found {_aten_name(bias.dtype)}")
    out = _conv2d_or_1d(nd, x, w, None if late_bias else bias, 1, 0, dilation, groups)
    if late_bias:
        out = out.add_(bias.reshape([cout] + [1] * nd))
    return out if batched else out.squeeze(0)


@_autocast_policy.lower_precision_fp
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(1, input, weight, bias, stride, padding, output_padding, groups, dilation)


@_autocast_policy.lower_precision_fp
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(2, input, weight, bias, stride, padding, output_padding, groups, dilation)


@_autocast_policy.lower_precision_fp
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(3, input, weight, bias, stride, padding, output_padding, groups, dilation)
