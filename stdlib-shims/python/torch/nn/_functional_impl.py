"""Compositions of registry ops for the ``torch.nn.functional`` functions that have no op of
their own in the registry yet: convolution (im2col over an ``as_strided`` window view and one
batched matmul), pooling, padding, batch/group norm, the classification and regression losses
and scaled dot-product attention. ``functional.py`` uses a registry op of the same name instead
when one is registered. PyTorch's argument checks and error messages are kept."""

import math
import warnings

import torch
from torch.nn import _reduction as _Reduction


def _ntuple(v, n, name="argument"):
    if isinstance(v, (list, tuple)):
        if len(v) == 1:
            return tuple(v) * n
        if len(v) != n:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values")
        return tuple(v)
    return (v,) * n


def _prod(xs):
    out = 1
    for x in xs:
        out *= x
    return out


# === Padding ===


def pad(input, pad, mode="constant", value=None):
    """``F.pad``: ``pad`` lists (left, right) pairs starting from the last dim."""
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension "
                           f"but got padding length {len(pad)} and input of dimension {input.dim()}")
    if mode == "constant":
        return _pad_constant(input, pad, 0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    out = input
    for i in range(len(pad) // 2):
        dim = input.dim() - 1 - i
        out = _pad_indexed(out, dim, pad[2 * i], pad[2 * i + 1], mode)
    return out


def _pad_constant(input, pad, value):
    shape = list(input.shape)
    src = [slice(None)] * input.dim()
    dst = [slice(None)] * input.dim()
    for i in range(len(pad) // 2):
        dim = input.dim() - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        n = shape[dim]
        new_n = n + left + right
        if new_n < 0:
            raise RuntimeError(f"The input size {n}, plus negative padding {left} and {right} resulted in a "
                               f"negative output size, which is invalid. Check dimension {dim} of your input.")
        s0, s1 = max(0, -left), n - max(0, -right)
        d0 = max(0, left)
        src[dim] = slice(s0, max(s0, s1))
        dst[dim] = slice(d0, d0 + max(0, s1 - s0))
        shape[dim] = new_n
    out = torch.full(shape, value, dtype=input.dtype)
    if out.numel() > 0 and input.numel() > 0:
        out[tuple(dst)] = input[tuple(src)]
    return out


def _pad_indexed(x, dim, left, right, mode):
    n = x.shape[dim]
    if mode == "reflect" and (left >= n or right >= n):
        raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                           f"but got: padding ({left}, {right}) at dimension {dim} of input {list(x.shape)}")
    if mode == "circular" and (left > n or right > n):
        raise RuntimeError("Padding value causes wrapping around more than once.")
    idx = []
    for i in range(-left, n + right):
        if mode == "reflect":
            j = -i if i < 0 else i
            j = 2 * (n - 1) - j if j >= n else j
        elif mode == "replicate":
            j = min(max(i, 0), n - 1)
        else:
            j = i % n
        idx.append(j)
    key = (slice(None),) * dim + (torch.tensor(idx, dtype=torch.int64),)
    return x[key]


# === Convolution ===


def _conv(input, weight, bias, stride, padding, dilation, groups, nd):
    name = f"conv{nd}d"
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, "
                           f"but got input of size: {list(input.shape)}")
    batched = input.dim() == nd + 2
    x = input if batched else input.unsqueeze(0)
    stride = _ntuple(stride, nd, "stride")
    dilation = _ntuple(dilation, nd, "dilation")
    k = list(weight.shape[2:])
    if isinstance(padding, str):
        if padding == "valid":
            pads = [(0, 0)] * nd
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pads = []
            for d in range(nd):
                total = dilation[d] * (k[d] - 1)
                pads.append((total // 2, total - total // 2))
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        pads = [(p, p) for p in _ntuple(padding, nd, "padding")]
    channels = x.shape[1]
    if weight.shape[1] * groups != channels:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected "
                           f"input{list(x.shape)} to have {weight.shape[1] * groups} channels, "
                           f"but got {channels} channels instead")
    flat = []
    for left, right in reversed(pads):
        flat += [left, right]
    if any(flat):
        x = pad(x, flat)
    n = x.shape[0]
    spatial = list(x.shape[2:])
    out = [(spatial[d] - dilation[d] * (k[d] - 1) - 1) // stride[d] + 1 for d in range(nd)]
    if any(o <= 0 for o in out):
        raise RuntimeError(f"Calculated padded input size per channel: {tuple(spatial)}. Kernel size: "
                           f"{tuple(k)}. Kernel size can't be greater than actual input size")
    x = x.contiguous()
    st = x.stride()
    # (N, C, *out, *k): each output position's receptive field, without copying.
    windows = x.as_strided(
        [n, channels] + out + k,
        [st[0], st[1]] + [st[2 + d] * stride[d] for d in range(nd)] + [st[2 + d] * dilation[d] for d in range(nd)],
    )
    g = groups
    cg = channels // g
    o = weight.shape[0]
    cols = windows.reshape([n, g, cg] + out + k)
    perm = [0, 1] + list(range(3, 3 + nd)) + [2] + list(range(3 + nd, 3 + 2 * nd))
    cols = cols.permute(perm).reshape(n, g, _prod(out), cg * _prod(k))
    w = weight.reshape(g, o // g, cg * _prod(k))
    y = cols.matmul(w.transpose(-1, -2))  # (N, G, L, O/G)
    y = y.permute(0, 1, 3, 2).reshape([n, o] + out)
    if bias is not None:
        y = y + bias.reshape([1, o] + [1] * nd)
    return y if batched else y.squeeze(0)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2)


# === Pooling ===


def _pool_out(size, k, s, p, d, ceil_mode):
    num = size + 2 * p - d * (k - 1) - 1
    out = (num + (s - 1 if ceil_mode else 0)) // s + 1
    # The last window must start inside the input or its left padding.
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _pool_args(input, kernel_size, stride, padding, dilation, name):
    if input.dim() not in (3, 4):
        raise RuntimeError(f"{name}: Expected 3D or 4D (batch mode) tensor for input, but got: {list(input.shape)}")
    k = _ntuple(kernel_size, 2, "kernel_size")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else _ntuple(stride, 2)
    p = _ntuple(padding, 2, "padding")
    d = _ntuple(dilation, 2, "dilation")
    for i in range(2):
        if p[i] > ((k[i] - 1) * d[i] + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p[i]}, "
                               f"kernel_size={k[i]} and dilation={d[i]}")
    return k, s, p, d


def _windows(x, k, s, d, out):
    x = x.contiguous()
    st = x.stride()
    return x.as_strided(
        [x.shape[0], x.shape[1], out[0], out[1], k[0], k[1]],
        [st[0], st[1], st[2] * s[0], st[3] * s[1], st[2] * d[0], st[3] * d[1]],
    )


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    k, s, p, d = _pool_args(input, kernel_size, stride, padding, dilation, "max_pool2d")
    batched = input.dim() == 4
    x = input if batched else input.unsqueeze(0)
    h, w = x.shape[2], x.shape[3]
    out = [_pool_out(h, k[0], s[0], p[0], d[0], ceil_mode), _pool_out(w, k[1], s[1], p[1], d[1], ceil_mode)]
    if out[0] <= 0 or out[1] <= 0:
        raise RuntimeError(f"Given input size: ({x.shape[1]}x{h}x{w}). Calculated output size: "
                           f"({x.shape[1]}x{out[0]}x{out[1]}). Output size is too small")
    extra_h = max(0, (out[0] - 1) * s[0] + d[0] * (k[0] - 1) + 1 - (h + 2 * p[0]))
    extra_w = max(0, (out[1] - 1) * s[1] + d[1] * (k[1] - 1) + 1 - (w + 2 * p[1]))
    if p[0] or p[1] or extra_h or extra_w:
        fill = -math.inf if x.dtype.is_floating_point else torch.iinfo(x.dtype).min
        x = pad(x, (p[1], p[1] + extra_w, p[0], p[0] + extra_h), value=fill)
    win = _windows(x, k, s, d, out)
    values = win.amax((-2, -1))
    if not return_indices:
        return values if batched else values.squeeze(0)
    arg = win.reshape(list(win.shape[:4]) + [k[0] * k[1]]).argmax(-1)
    ki = torch.div(arg, k[1], rounding_mode="floor")
    kj = arg - ki * k[1]
    rows = torch.arange(out[0]).reshape(out[0], 1) * s[0] - p[0] + ki * d[0]
    cols = torch.arange(out[1]).reshape(1, out[1]) * s[1] - p[1] + kj * d[1]
    indices = rows * w + cols
    if not batched:
        return values.squeeze(0), indices.squeeze(0)
    return values, indices


def _avg_divisors(size, k, s, p, out, count_include_pad):
    divisors = []
    for i in range(out):
        start = i * s - p
        end = min(start + k, size + p)
        if count_include_pad:
            divisors.append(end - start)
        else:
            divisors.append(min(end, size) - max(start, 0))
    return divisors


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    k, s, p, _ = _pool_args(input, kernel_size, stride, padding, 1, "avg_pool2d")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    batched = input.dim() == 4
    x = input if batched else input.unsqueeze(0)
    h, w = x.shape[2], x.shape[3]
    out = [_pool_out(h, k[0], s[0], p[0], 1, ceil_mode), _pool_out(w, k[1], s[1], p[1], 1, ceil_mode)]
    extra_h = max(0, (out[0] - 1) * s[0] + k[0] - (h + 2 * p[0]))
    extra_w = max(0, (out[1] - 1) * s[1] + k[1] - (w + 2 * p[1]))
    if p[0] or p[1] or extra_h or extra_w:
        x = pad(x, (p[1], p[1] + extra_w, p[0], p[0] + extra_h))
    sums = _windows(x, k, s, (1, 1), out).sum((-2, -1))
    if divisor_override is not None:
        result = sums / divisor_override
    else:
        dh = _avg_divisors(h, k[0], s[0], p[0], out[0], count_include_pad)
        dw = _avg_divisors(w, k[1], s[1], p[1], out[1], count_include_pad)
        div = torch.tensor(dh, dtype=sums.dtype).reshape(out[0], 1) * torch.tensor(dw, dtype=sums.dtype)
        result = sums / div
    return result if batched else result.squeeze(0)


def _adaptive_mean(x, dim, out):
    n = x.shape[dim]
    if n % out == 0:
        shape = list(x.shape)
        shape[dim:dim + 1] = [out, n // out]
        return x.reshape(shape).mean(dim + 1)
    parts = []
    for i in range(out):
        start = (i * n) // out
        end = -((-(i + 1) * n) // out)
        parts.append(x.narrow(dim, start, end - start).mean(dim, keepdim=True))
    return torch.cat(parts, dim)


def adaptive_avg_pool2d(input, output_size):
    if input.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    oh, ow = _ntuple(output_size, 2, "output_size")
    oh = input.shape[-2] if oh is None else oh
    ow = input.shape[-1] if ow is None else ow
    x = _adaptive_mean(input, input.dim() - 2, oh)
    return _adaptive_mean(x, input.dim() - 1, ow)


def adaptive_avg_pool1d(input, output_size):
    return _adaptive_mean(input, input.dim() - 1, _ntuple(output_size, 1, "output_size")[0])


# === Normalization ===


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05):
    """Normalizes over every dim but the channel dim (1); in training, batch statistics are used
    and the running ones updated in place (the variance unbiased)."""
    c = input.shape[1]
    dims = [0] + list(range(2, input.dim()))
    shape = [1, c] + [1] * (input.dim() - 2)
    if training:
        n = input.numel() // c
        if n <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.shape}")
        mean = input.mean(dims)
        var = input.var(dims, unbiased=False)
        with torch.no_grad():
            if running_mean is not None:
                running_mean.mul_(1 - momentum).add_(mean * momentum)
            if running_var is not None:
                running_var.mul_(1 - momentum).add_(var * (momentum * n / (n - 1)))
    else:
        mean, var = running_mean, running_var
    out = (input - mean.reshape(shape)) * torch.rsqrt(var.reshape(shape) + eps)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    n, c = input.shape[0], input.shape[1]
    if c % num_groups != 0:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, but got input "
                           f"of shape {list(input.shape)} and num_groups={num_groups}")
    x = input.reshape(n, num_groups, -1)
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    out = ((x - mean) * torch.rsqrt(var + eps)).reshape(input.shape)
    shape = [1, c] + [1] * (input.dim() - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


# === Losses ===


def _legacy(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return _Reduction.legacy_get_string(size_average, reduce)
    return reduction


def _class_last(input):
    """``(N, C, d1, ...)`` -> ``(N, d1, ..., C)``; ``(C,)`` and ``(N, C)`` unchanged."""
    if input.dim() <= 2:
        return input
    return input.permute([0] + list(range(2, input.dim())) + [1])


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    reduction = _legacy(size_average, reduce, reduction)
    if input.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.dim()})")
    if input.dim() != 1 and input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size ({target.shape[0]}).")
    c = input.shape[0] if input.dim() == 1 else input.shape[1]
    x = _class_last(input)
    valid = target != ignore_index
    # NOTE: no out-of-range check on the targets: it would read data (a graph break under Dynamo);
    # an out-of-range class picks no log-probability and contributes 0.
    safe = torch.where(valid, target, 0)
    picked = torch.where(safe.unsqueeze(-1) == torch.arange(c), x, 0.0).sum(-1)
    w = valid.to(x.dtype)
    if weight is not None:
        w = weight[safe] * w
    loss = -picked * w
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / w.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    reduction = _legacy(size_average, reduce, reduction)
    class_dim = 0 if input.dim() == 1 else 1
    c = input.shape[class_dim]
    logp = torch.log_softmax(input, class_dim)
    if target.dtype.is_floating_point:
        # Class probabilities.
        if target.shape != input.shape:
            raise RuntimeError(f"Expected target size {list(input.shape)}, got {list(target.shape)}")
        if label_smoothing > 0.0:
            target = target * (1 - label_smoothing) + label_smoothing / c
        prod = logp * target
        if weight is not None:
            prod = prod * weight.reshape([c] + [1] * (input.dim() - class_dim - 1))
        loss = -prod.sum(class_dim)
        if reduction == "mean":
            return loss.sum() / (input.numel() // c)
        return _Reduction.apply(loss, reduction)
    nll = nll_loss(logp, target, weight, None, ignore_index, None, reduction)
    if label_smoothing <= 0.0:
        return nll
    ignore = target == ignore_index
    wshape = [c] + [1] * (input.dim() - class_dim - 1)
    if weight is not None:
        smooth = -(logp * weight.reshape(wshape)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    smooth = smooth.masked_fill(ignore, 0.0)
    if reduction == "mean":
        if weight is not None:
            smooth = smooth.sum() / (weight[torch.where(ignore, 0, target)] * (~ignore).to(weight.dtype)).sum()
        else:
            smooth = smooth.sum() / (~ignore).sum()
    elif reduction == "sum":
        smooth = smooth.sum()
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / c)


def _check_target_size(input, target):
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            stacklevel=3,
        )


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy(size_average, reduce, reduction)
    _check_target_size(input, target)
    diff = input - target
    return _Reduction.apply(diff * diff, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy(size_average, reduce, reduction)
    _check_target_size(input, target)
    return _Reduction.apply((input - target).abs(), reduction)


# === Attention ===


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """``softmax(q @ k^T * scale + mask) @ v``; a bool mask keeps the True positions."""
    q_len, k_len = query.shape[-2], key.shape[-2]
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    if enable_gqa and query.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        rep = query.shape[-3] // key.shape[-3]
        key = _repeat_heads(key, rep)
        value = _repeat_heads(value, rep)
    scores = query.matmul(key.transpose(-2, -1)) * scale
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
        keep = torch.arange(q_len).reshape(q_len, 1) >= torch.arange(k_len)
        scores = scores.masked_fill(keep.logical_not(), -math.inf)
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            scores = scores.masked_fill(attn_mask.logical_not(), -math.inf)
        else:
            scores = scores + attn_mask
    weights = torch.softmax(scores, -1)
    if dropout_p > 0.0:
        weights = torch.nn.functional.dropout(weights, dropout_p, True)
    return weights.matmul(value)


def _repeat_heads(x, rep):
    shape = list(x.shape)
    x = x.unsqueeze(-3).expand(shape[:-2] + [rep] + shape[-2:])
    return x.reshape(shape[:-3] + [shape[-3] * rep] + shape[-2:])
