"""The ``torch.*`` forms of neural-network functions (issue 29), with ATen's signatures, which
differ from ``torch.nn.functional``'s: losses take an ``int`` reduction (0 none, 1 mean, 2 sum),
``torch.embedding`` takes the weight first, ``torch.batch_norm`` orders the running statistics
after the affine parameters and ends with ``cudnn_enabled``, the dropouts take ``train``
positionally. Each one calls the ``torch.nn.functional`` function, so the registry op, autograd
and Dynamo's inlining are the same as through ``F``.

Also a few tensor utilities PyTorch has in the ``torch`` namespace: ``isin``, ``take``, ``gcd``,
``lcm``, ``rsub``, ``range``, ``ger``, ``fill``, ``zero_``, ``split_with_sizes``, ``is_signed``,
``unravel_index``, and the float32 matmul precision setting.

``torch.nn.functional`` is reached through ``torch.nn`` at call time, not imported here: this
module loads with ``import torch``, and importing ``torch.nn`` then would double the start-up
cost of every program (``torch.nn`` loads on first use)."""

import warnings as _warnings

import torch
from torch._refs_stats import _dtype_name as _dtype_title

def _reduction(r):
    # ATen's apply_loss_reduction: 1 is mean, 2 is sum, and any other value leaves the loss
    # unreduced.
    return {1: "mean", 2: "sum"}.get(r, "none")


# === Dropout, embedding, normalization ===

def dropout(input, p, train):
    return torch.nn.functional.dropout(input, p, train)


def dropout_(input, p, train):
    return torch.nn.functional.dropout(input, p, train, True)


def feature_dropout(input, p, train):
    # ATen's feature noise has shape (N, C, 1, ...) of the input as given (no unbatched case).
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return torch.nn.functional._feature_dropout(input, p, train, False, input.dim())


def feature_dropout_(input, p, train):
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return torch.nn.functional._feature_dropout(input, p, train, True, input.dim())


def alpha_dropout(input, p, train):
    return torch.nn.functional.alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train):
    return torch.nn.functional.alpha_dropout(input, p, train, True)


def feature_alpha_dropout(input, p, train):
    return torch.nn.functional.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p, train):
    return torch.nn.functional.feature_alpha_dropout(input, p, train, True)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    return torch.nn.functional.embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    return torch.nn.functional.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    return torch.nn.functional.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                                             momentum, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return torch.nn.functional.rms_norm(input, normalized_shape, weight, eps)


# === Convolution, pooling, padding ===

def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return torch.nn.functional.conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return torch.nn.functional.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return torch.nn.functional.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return torch.nn.functional.conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return torch.nn.functional.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return torch.nn.functional.max_pool3d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return torch.nn.functional.avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad)


def adaptive_avg_pool1d(input, output_size):
    return torch.nn.functional.adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input, output_size):
    return torch.nn.functional.adaptive_max_pool1d(input, output_size, return_indices=True)


def constant_pad_nd(input, pad, value=0):
    return torch.nn.functional.pad(input, pad, "constant", value)


def pixel_shuffle(input, upscale_factor):
    return torch.nn.functional.pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    return torch.nn.functional.pixel_unshuffle(input, downscale_factor)


def channel_shuffle(input, groups):
    return torch.nn.functional.channel_shuffle(input, groups)


# === Activations ===

def celu(input, alpha=1.0):
    return torch.nn.functional.celu(input, alpha)


def celu_(input, alpha=1.0):
    return torch.nn.functional.celu(input, alpha, True)


def selu(input):
    return torch.nn.functional.selu(input)


def selu_(input):
    return torch.nn.functional.selu(input, True)


def threshold(input, threshold, value):
    return torch.nn.functional.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    return torch.nn.functional.threshold(input, threshold, value, True)


def prelu(input, weight):
    return torch.nn.functional.prelu(input, weight)


def hardshrink(input, lambd=0.5):
    return torch.nn.functional.hardshrink(input, lambd)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return torch.nn._stochastic.rrelu(input, lower, upper, training, False, generator)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return torch.nn._stochastic.rrelu(input, lower, upper, training, True, generator)


# === Distances and losses ===

def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    return torch.nn.functional.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return torch.nn.functional.pairwise_distance(x1, x2, p, eps, keepdim)


def pdist(input, p=2):
    return torch.nn.functional.pdist(input, p)


def bilinear(input1, input2, weight, bias=None):
    return torch.nn.functional.bilinear(input1, input2, weight, bias)


def kl_div(input, target, reduction=1, *, log_target=False):
    # ATen's kl_div: an int reduction, and 1 is the plain element mean, without the warning
    # `F.kl_div` gives for 'mean'.
    loss = torch.nn.functional.kl_div(input, target, reduction="none", log_target=log_target)
    if reduction == 1:
        return loss.mean()
    if reduction == 2:
        return loss.sum()
    return loss


def hinge_embedding_loss(input, target, margin=1.0, reduction=1):
    return torch.nn.functional.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    return torch.nn.functional.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, reduction=1):
    return torch.nn.functional.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                                   reduction=_reduction(reduction))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    return torch.nn.functional.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return torch.nn.functional.poisson_nll_loss(input, target, log_input, full, eps=eps,
                                                reduction=_reduction(reduction))


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=1):
    return torch.nn.functional.binary_cross_entropy_with_logits(input, target, weight, reduction=_reduction(reduction),
                                              pos_weight=pos_weight)


# === Tensor utilities ===

def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element of ``elements`` occurs in ``test_elements`` (either may be a scalar)."""
    if not isinstance(elements, torch.Tensor) and not isinstance(test_elements, torch.Tensor):
        raise TypeError("isin() received an invalid combination of arguments - got (int, int)")
    if not isinstance(elements, torch.Tensor):
        elements = torch.tensor(elements, dtype=test_elements.dtype)
        found = isin(elements, test_elements, assume_unique=assume_unique, invert=invert)
        return found
    test = test_elements if isinstance(test_elements, torch.Tensor) else torch.tensor(test_elements)
    common = torch.result_type(elements, test)
    flat = test.reshape(-1).to(common)
    if flat.numel() == 0:
        found = torch.zeros(elements.shape, dtype=torch.bool)
    else:
        # One comparison per (element, test value); a sort-based search would be O(n log n), but
        # this keeps NaN semantics (never found) and every dtype without a sorted path.
        found = (elements.to(common).unsqueeze(-1) == flat).any(-1)
    return ~found if invert else found


def take(input, index):
    """``input`` read as if flattened, at ``index`` (the result has ``index``'s shape)."""
    if index.dtype != torch.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_dtype_title(index.dtype)}")
    n = input.numel()
    if index.numel() > 0 and n == 0:
        raise IndexError("take(): tried to take from an empty tensor")
    if index.numel() > 0:
        lo, hi = int(index.min()), int(index.max())
        if lo < -n or hi >= n:
            bad = lo if lo < -n else hi
            raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return input.reshape(-1)[index]


def _check_integral(name, *tensors):
    for t in tensors:
        if t.dtype.is_floating_point or t.dtype.is_complex or t.dtype == torch.bool:
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{_dtype_title(t.dtype)}\'')


def gcd(input, other):
    """Elementwise greatest common divisor (Euclid's algorithm on the broadcast tensors)."""
    other = other if isinstance(other, torch.Tensor) else torch.tensor(other, dtype=input.dtype)
    _check_integral("gcd", input, other)
    a, b = torch.broadcast_tensors(input.abs(), other.abs())
    dtype = torch.result_type(input, other)
    a, b = a.to(dtype).clone(), b.to(dtype).clone()
    while bool((b != 0).any()):
        nonzero = b != 0
        r = torch.where(nonzero, a % torch.where(nonzero, b, torch.ones_like(b)), torch.zeros_like(a))
        a, b = torch.where(nonzero, b, a), r
    return a


def gcd_(input, other):
    return input.copy_(gcd(input, other))


def lcm(input, other):
    """Elementwise least common multiple; 0 where either operand is 0, as PyTorch."""
    other = other if isinstance(other, torch.Tensor) else torch.tensor(other, dtype=input.dtype)
    _check_integral("lcm", input, other)
    g = gcd(input, other)
    safe = torch.where(g == 0, torch.ones_like(g), g)
    return torch.where(g == 0, torch.zeros_like(g), (input // safe * other).abs())


def lcm_(input, other):
    return input.copy_(lcm(input, other))


def rsub(input, other, alpha=1):
    """``other - alpha * input``; a number ``other`` promotes as a scalar (a 0-dim tensor does too)."""
    if not isinstance(other, torch.Tensor):
        other = torch.tensor(other)
    return torch.sub(other, input, alpha=alpha)


def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The deprecated inclusive ``range``: ``start, start + step, ..., <= end`` (default float dtype)."""
    _warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                   "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values "
                   "in [start, end).", UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    n = int((end - start) / step) + 1
    dtype = dtype or torch.get_default_dtype()
    t = (torch.arange(n, dtype=torch.float64) * step + start).to(dtype)
    if requires_grad:
        t.requires_grad_()
    return t


def ger(input, vec2):
    return torch.outer(input, vec2)


def fill(input, value):
    if isinstance(value, torch.Tensor):
        if value.dim() != 0:
            raise RuntimeError("fill only supports 0-dimension value tensor but got tensor with "
                               f"{value.dim()} dimensions.")
        return value.to(input.dtype).expand(input.shape).clone()
    return torch.full_like(input, value)


def zero_(input):
    return input.zero_()


def split_with_sizes(input, split_sizes, dim=0):
    if sum(split_sizes) != input.shape[dim]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {input.shape[dim]} (input tensor's "
                           f"size at dimension {dim}), but got split_sizes={list(split_sizes)}")
    return torch.split(input, list(split_sizes), dim)


def is_signed(input):
    return input.is_signed()


def unravel_index(indices, shape):
    """The coordinates of flat ``indices`` in a tensor of ``shape`` (a tuple of int64 tensors)."""
    if isinstance(shape, int):
        shape = (shape,)
    indices = torch.as_tensor(indices)
    if indices.dtype.is_floating_point or indices.dtype.is_complex or indices.dtype == torch.bool:
        raise TypeError("expected 'indices' to be integer dtype, but got " + str(indices.dtype))
    for s in shape:
        if s < 0:
            raise ValueError("'shape' cannot have negative values, but got " + str(tuple(shape)))
    # Floor division and modulo per dimension, as ATen: an index past either end wraps around.
    flat = indices.to(torch.int64)
    coords = []
    for s in reversed(shape):
        coords.append(flat % s if s else flat * 0)
        flat = flat // s if s else flat
    return tuple(reversed(coords))


_MATMUL_PRECISION = ["highest"]


def set_float32_matmul_precision(precision):
    """Recorded only: Rynamo's float32 matmuls always run in full float32 (``"highest"``), which is
    what ``"high"``/``"medium"`` permit too (they allow, not require, TF32/bfloat16 passes)."""
    if precision not in ("highest", "high", "medium"):
        _warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                       "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _MATMUL_PRECISION[0] = precision


def get_float32_matmul_precision():
    return _MATMUL_PRECISION[0]
