"""``torch.nn.functional``.

Every registry op flagged ``NN_FUNCTIONAL`` is bound natively (``relu``, ``gelu``, ``linear``,
``layer_norm``, ``conv2d``, ``pad``, ``batch_norm``, ``group_norm``, ``cross_entropy``,
``nll_loss``, ``mse_loss``, ``scaled_dot_product_attention``, ...; ``inplace=`` is accepted where
PyTorch has it). The Python functions here are PyTorch's argument adapters (``stride=None``,
``output_size`` with ``None``, ``return_indices``, implicit softmax dims, ...) and the
compositions that have no op of their own.

These functions are plain Python on purpose: Dynamo inlines them when compiled code calls them.
"""

import math as _math
import warnings as _warnings

import torch
import torch._autocast_policy as _autocast_policy
from torch._C import _nn as _native
from torch.nn import _attention
from torch.nn import _conv_nd
from torch.nn import _fold
from torch.nn import _pool_nd
from torch.nn import _pool3d
from torch.nn import _margin_losses
from torch.nn import _embedding_bag
from torch.nn import _interpolate
from torch.nn import _reduction as _Reduction
from torch.nn import _stochastic

globals().update(_native)

conv3d = _conv_nd.conv3d
conv_transpose1d = _conv_nd.conv_transpose1d
conv_transpose2d = _conv_nd.conv_transpose2d
conv_transpose3d = _conv_nd.conv_transpose3d

# === Softmax ===

_softmax = _native["softmax"]
_log_softmax = _native["log_softmax"]


def _get_softmax_dim(name, ndim, stacklevel):
    """PyTorch's implicit dim (deprecated there, with the same warning)."""
    _warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return _softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _log_softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    return _softmax(-input, dim, dtype)


# === Pooling ===

_max_pool2d = _native["max_pool2d"]
_max_pool2d_with_indices = _native["max_pool2d_with_indices"]
_avg_pool2d = _native["avg_pool2d"]
_adaptive_avg_pool2d = _native["adaptive_avg_pool2d"]


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if stride is None:
        stride = []
    if return_indices:
        return _max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    if stride is None:
        stride = []
    return _max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The 2-D pooling over a height-1 view of ``(N, C, L)`` or ``(C, L)``."""
    stride = kernel_size if stride is None else stride
    out = max_pool2d(
        input.unsqueeze(-2), (1, _single(kernel_size)), (1, _single(stride)), (0, _single(padding)),
        (1, _single(dilation)), ceil_mode, return_indices,
    )
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    if stride is None:
        stride = []
    return _avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    stride = kernel_size if stride is None else stride
    out = _avg_pool2d(
        input.unsqueeze(-2), (1, _single(kernel_size)), (1, _single(stride)), (0, _single(padding)),
        ceil_mode, count_include_pad,
    )
    return out.squeeze(-2)


def adaptive_avg_pool2d(input, output_size):
    """``output_size`` is an int or a pair whose ``None`` entries keep the input's size."""
    if isinstance(output_size, (list, tuple)) and len(output_size) == 1:
        # The schema's int[2] as an FX graph spells a single size.
        output_size = output_size[0]
    if isinstance(output_size, (list, tuple)):
        oh = input.shape[-2] if output_size[0] is None else output_size[0]
        ow = input.shape[-1] if output_size[1] is None else output_size[1]
        output_size = (oh, ow)
    return _adaptive_avg_pool2d(input, output_size)


def adaptive_avg_pool1d(input, output_size):
    return _adaptive_avg_pool2d(input.unsqueeze(-2), (1, _single(output_size))).squeeze(-2)


@_autocast_policy.fp32
def adaptive_avg_pool3d(input, output_size):
    return _pool_nd.adaptive_avg_pool(input, output_size, 3, "adaptive_avg_pool3d")


def adaptive_max_pool1d(input, output_size, return_indices=False):
    return _pool_nd.adaptive_max_pool(input, output_size, 1, return_indices, "adaptive_max_pool1d")


def adaptive_max_pool2d(input, output_size, return_indices=False):
    return _pool_nd.adaptive_max_pool(input, output_size, 2, return_indices, "adaptive_max_pool2d")


@_autocast_policy.fp32
def adaptive_max_pool3d(input, output_size, return_indices=False):
    return _pool_nd.adaptive_max_pool(input, output_size, 3, return_indices, "adaptive_max_pool3d")


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _pool_nd.adaptive_max_pool(input, output_size, 1, True, "adaptive_max_pool1d")


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _pool_nd.adaptive_max_pool(input, output_size, 2, True, "adaptive_max_pool2d")


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _pool_nd.adaptive_max_pool(input, output_size, 3, True, "adaptive_max_pool3d")


@_autocast_policy.fp32
def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    return _pool_nd.fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices,
                                        _random_samples, 2)


@_autocast_policy.fp32
def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    return _pool_nd.fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices,
                                        _random_samples, 3)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return _pool_nd.fractional_max_pool(input, kernel_size, output_size, output_ratio, True, _random_samples, 2)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return _pool_nd.fractional_max_pool(input, kernel_size, output_size, output_ratio, True, _random_samples, 3)


def _single(v):
    if isinstance(v, (tuple, list)):
        return v[0]
    return v


# === Normalization ===

_batch_norm = _native["batch_norm"]


def _verify_spatial_size(size):
    prod = 1
    for d in list(size)[2:]:
        prod *= d
    if prod == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {list(size)}")


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-05):
    """Normalizes each (sample, channel) plane over its spatial dims. With running statistics and
    ``use_input_stats``, they move toward the batch average of the per-instance mean and unbiased
    variance, as ATen's ``instance_norm`` (a batch norm over ``(1, N * C, ...)``) updates them."""
    if not use_input_stats:
        return _batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    _verify_spatial_size(input.shape)
    dims = list(range(2, input.dim()))
    mean = input.mean(dims, keepdim=True)
    var = input.var(dims, unbiased=False, keepdim=True)
    if running_mean is not None or running_var is not None:
        n = input.numel() // (input.shape[0] * input.shape[1])
        with torch.no_grad():
            if running_mean is not None:
                batch_mean = mean.detach().reshape(input.shape[0], input.shape[1]).mean(0)
                running_mean.mul_(1 - momentum).add_(batch_mean.to(running_mean.dtype) * momentum)
            if running_var is not None:
                unbiased = var.detach().reshape(input.shape[0], input.shape[1]) * (n / max(n - 1, 1))
                running_var.mul_(1 - momentum).add_(unbiased.mean(0).to(running_var.dtype) * momentum)
    out = (input - mean) * torch.rsqrt(var + eps)
    shape = [1, input.shape[1]] + [1] * (input.dim() - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """``input / (k + alpha / size * sum of squares over ``size`` neighbouring channels) ** beta``,
    the window zero-padded ``size // 2`` before and ``(size - 1) // 2`` after, as PyTorch's."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    sq = input.mul(input)
    channels = input.shape[1]
    pads = [0, 0] * (dim - 2) + [size // 2, (size - 1) // 2]
    sq = pad(sq, pads)
    div = sq.narrow(1, 0, channels)
    for i in range(1, size):
        div = div + sq.narrow(1, i, channels)
    div = (div / size).mul(alpha).add(k).pow(beta)
    return input / div


def _machine_eps(dtype):
    """``torch.finfo(dtype).eps`` as constants (Dynamo folds the comparisons; it does not trace
    ``finfo``)."""
    if dtype == torch.float64:
        return 2.220446049250313e-16
    if dtype == torch.float16:
        return 0.0009765625
    if dtype == torch.bfloat16:
        return 0.0078125
    return 1.1920928955078125e-07


def rms_norm(input, normalized_shape, weight=None, eps=None):
    dims = list(range(-len(normalized_shape), 0))
    # As ATen: float16/bfloat16 inputs are normalized in float32 (with float32's epsilon by default)
    # and the result cast back once.
    x = input.float() if input.dtype in (torch.float16, torch.bfloat16) else input
    if eps is None:
        eps = _machine_eps(x.dtype)
    out = x * torch.rsqrt((x * x).mean(dims, keepdim=True) + eps)
    if weight is not None:
        out = out * weight
    return out.to(input.dtype) if out.dtype != input.dtype else out


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input / max(||input||_p, eps)`` along ``dim``."""
    if p == 2:
        norm = (input * input).sum(dim, keepdim=True).sqrt()
    elif p == 1:
        norm = input.abs().sum(dim, keepdim=True)
    elif p == _math.inf:
        norm = input.abs().amax(dim, keepdim=True)
    else:
        norm = input.abs().pow(p).sum(dim, keepdim=True).pow(1.0 / p)
    result = input / norm.clamp(min=eps)
    if out is not None:
        out.copy_(result)
        return out
    return result


# === Activations that are compositions or need PyTorch's arguments ===


def _inplace_apply(input, fn, inplace):
    """``fn(input)``, or, when ``inplace``, its result written into ``input`` (returned). While
    autograd records ``input``, ``fn`` reads a copy: its backward needs the values the write
    overwrites (PyTorch's in-place formulas keep the original too), so ``nn.Hardswish(inplace=True)``
    and kin train as in PyTorch instead of raising at ``backward()``."""
    if not inplace:
        return fn(input)
    if torch.is_grad_enabled() and input.requires_grad:
        return input.copy_(fn(input.clone()))
    return input.copy_(fn(input))


def threshold(input, threshold, value, inplace=False):
    return _inplace_apply(input, lambda t: torch.where(t > threshold, t, value), inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if inplace:
        return input.clamp_(min_val, max_val)
    return input.clamp(min_val, max_val)


def hardsigmoid(input, inplace=False):
    return _inplace_apply(input, lambda t: (t + 3.0).clamp(0.0, 6.0) / 6.0, inplace)


def hardswish(input, inplace=False):
    return _inplace_apply(input, lambda t: t * (t + 3.0).clamp(0.0, 6.0) / 6.0, inplace)


def selu(input, inplace=False):
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return _inplace_apply(input, lambda t: scale * torch.where(t > 0, t, alpha * torch.expm1(t)), inplace)


def celu(input, alpha=1.0, inplace=False):
    return _inplace_apply(input, lambda t: torch.where(t > 0, t, alpha * torch.expm1(t / alpha)), inplace)


def logsigmoid(input):
    # log(sigmoid(x)) = -softplus(-x): stable for large |x| (softplus is linear past its threshold),
    # and softplus's derivative gives 1 - sigmoid(x) everywhere, 0.5 at 0. (The composition
    # min(x, 0) - log1p(exp(-|x|)) has PyTorch's values but a gradient of 1 at exactly 0, where the
    # kinks of min and abs meet.)
    return -softplus(-input)


def softsign(input):
    return input / (input.abs() + 1)


def tanhshrink(input):
    return input - torch.tanh(input)


def softshrink(input, lambd=0.5):
    # `input * 0` in the dead zone: PyTorch's kernel keeps the sign of zero there (-0. for x < 0).
    return torch.where(input > lambd, input - lambd, torch.where(input < -lambd, input + lambd, input * 0))


def hardshrink(input, lambd=0.5):
    return torch.where(input.abs() > lambd, input, 0.0)


def glu(input, dim=-1):
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    a, b = input.chunk(2, dim)
    return a * torch.sigmoid(b)


@_autocast_policy.lower_precision_fp
def prelu(input, weight):
    if weight.numel() != 1 and input.dim() >= 2:
        weight = weight.reshape([1, -1] + [1] * (input.dim() - 2))
    return torch.where(input >= 0, input, weight * input)


# === Dropout ===

_dropout = _native["dropout"]


def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes each element with probability ``p`` and scales the rest by ``1 / (1 - p)``. Outside
    training (or with ``p == 0``) the input itself is returned, as in PyTorch."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if inplace:
        return input.copy_(_dropout(input, p, training))
    return _dropout(input, p, training)



def _feature_dropout(input, p, training, inplace, batched_dim):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    batched = input.dim() == batched_dim
    shape = list(input.shape[:2] if batched else input.shape[:1]) + [1] * (input.dim() - (2 if batched else 1))
    if p == 1.0:
        mask = torch.zeros(shape, dtype=input.dtype)
    else:
        # ATen's noise: bernoulli_(1 - p) per (N, C) channel, then div_(1 - p): a seed gives
        # PyTorch's channels.
        mask = torch.empty(shape, dtype=input.dtype).bernoulli_(1 - p).div_(1 - p)
    out = input * mask
    if inplace:
        return input.copy_(out)
    return out


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 4)


def dropout3d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 5)


# === Sparse ===

_embedding = _native["embedding"]


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """Rows of ``weight`` picked by the indices in ``input``. With ``max_norm``, the picked rows
    whose ``norm_type`` norm exceeds it are first rescaled in place, as in PyTorch."""
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.shape[0]:
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.shape[0]:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.shape[0] + padding_idx
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    return _embedding(input, weight, padding_idx)


def _embedding_renorm_(weight, input, max_norm, norm_type):
    """Rescales in place the rows of ``weight`` that ``input`` picks and whose ``norm_type``
    norm exceeds ``max_norm`` (PyTorch's ``embedding_renorm_``), without reading data on the
    host, so that it stays in one graph under torch.compile."""
    with torch.no_grad():
        n = weight.shape[0]
        picked = (input.reshape(-1, 1) == torch.arange(n)).any(0).unsqueeze(1)
        norms = weight.abs().pow(norm_type).sum(1, keepdim=True).pow(1.0 / norm_type)
        scale = max_norm / (norms + 1e-7)
        weight.copy_(torch.where(picked & (norms > max_norm), weight * scale, weight))


def one_hot(tensor, num_classes=-1):
    """``(..., num_classes)`` int64 indicators of ``tensor``'s class indices."""
    if tensor.dtype != torch.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(tensor.max().item()) + 1
    # The range checks read the data: eager only (under torch.compile PyTorch skips them too,
    # and they would break the graph).
    if tensor.numel() > 0 and not torch.compiler.is_compiling():
        if bool((tensor < 0).any()):
            raise RuntimeError("Class values must be non-negative.")
        if bool((tensor >= num_classes).any()):
            raise RuntimeError("Class values must be smaller than num_classes.")
    return (tensor.unsqueeze(-1) == torch.arange(num_classes)).to(torch.int64)


# === Bilinear ===


def bilinear(input1, input2, weight, bias=None):
    """``y[..., o] = input1[..., i] weight[o, i, j] input2[..., j] + bias[o]``, with ATen's checks
    in its order (dtypes, ranks, batch dims, the two feature sizes, the bias)."""
    tensors = [("input1", input1), ("input2", input2), ("weight", weight)]
    if bias is not None:
        tensors.append(("bias", bias))
    if any(t.dtype != input1.dtype for _, t in tensors):
        from torch._tensor_types import _CPP_NAMES
        got = ", ".join(f"{name}: {_CPP_NAMES.get(t.dtype, t.dtype)}" for name, t in tensors)
        raise RuntimeError(f"All tensors must have the same dtype, got {got}")
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got "
                               f"{input1.shape[i]} and {input2.shape[i]}")
    for name, x, k in (("input1", input1, 1), ("input2", input2, 2)):
        if x.shape[-1] != weight.shape[k]:
            raise RuntimeError(f"bilinear(): {name} size does not match weight size: got {x.shape[-1]} but "
                               f"expected {weight.shape[k]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but "
                           f"expected {weight.shape[0]}")
    # (..., in1) x (out, in1, in2) x (..., in2) -> (..., out)
    left = input1.unsqueeze(-2).unsqueeze(-2).matmul(weight)  # (..., out, 1, in2)
    out = left.matmul(input2.unsqueeze(-2).unsqueeze(-1)).squeeze(-1).squeeze(-1)
    return out if bias is None else out + bias


# === Distances ===


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    diff = (x1 - x2 + eps).abs()
    if p == 2:
        return (diff * diff).sum(-1, keepdim=keepdim).sqrt()
    return diff.pow(p).sum(-1, keepdim=keepdim).pow(1.0 / p)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    n1 = (x1 * x1).sum(dim).sqrt().clamp(min=eps)
    n2 = (x2 * x2).sum(dim).sqrt().clamp(min=eps)
    return (x1 * x2).sum(dim) / (n1 * n2)


# === Losses ===

@_autocast_policy.fp32
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    diff = (input - target).abs()
    if beta == 0.0:
        loss = diff
    else:
        loss = torch.where(diff < beta, 0.5 * diff * diff / beta, diff - 0.5 * beta)
    return _Reduction.apply(loss, reduction)


@_autocast_policy.fp32
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    diff = (input - target).abs()
    loss = torch.where(diff < delta, 0.5 * diff * diff, delta * (diff - 0.5 * delta))
    if weight is not None:
        loss = loss * weight
    return _Reduction.apply(loss, reduction)


@_autocast_policy.fp32
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) "
            "is deprecated. Please ensure they have the same size."
        )
    # PyTorch clamps the logs at -100 so that 0 * log(0) stays finite.
    log_p = torch.clamp(torch.log(input), min=-100)
    log_1mp = torch.clamp(torch.log(1 - input), min=-100)
    loss = -(target * log_p + (1 - target) * log_1mp)
    if weight is not None:
        loss = loss * weight
    return _Reduction.apply(loss, reduction)


@_autocast_policy.fp32
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    # log(1 + exp(-x)) computed stably; pos_weight scales the positive term.
    log_sig_neg = torch.clamp(-input, min=0) + torch.log1p(torch.exp(-input.abs()))
    if pos_weight is not None:
        log_weight = (pos_weight - 1) * target + 1
        loss = (1 - target) * input + log_weight * log_sig_neg
    else:
        loss = (1 - target) * input + log_sig_neg
    if weight is not None:
        loss = loss * weight
    return _Reduction.apply(loss, reduction)


@_autocast_policy.fp32
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    if log_target:
        loss = torch.exp(target) * (target - input)
    else:
        loss = torch.where(target > 0, target * (torch.log(target) - input), 0.0)
    if reduction == "batchmean":
        if input.dim() == 0:
            return loss.sum()
        return loss.sum() / input.shape[0]
    return _Reduction.apply(loss, reduction)


@_autocast_policy.fp32
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    return _Reduction.apply(torch.log1p(torch.exp(-target * input)), reduction)


@_autocast_policy.fp32
def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    cos = cosine_similarity(input1, input2, dim=-1, eps=1e-12)
    loss = torch.where(target == 1, 1 - cos, torch.clamp(cos - margin, min=0))
    return _Reduction.apply(loss, reduction)


# === Attention ===

multi_head_attention_forward = _attention.multi_head_attention_forward
_canonical_mask = _attention._canonical_mask
_none_or_dtype = _attention._none_or_dtype


# === Vision ===

interpolate = _interpolate.interpolate


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    _warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)



def pixel_shuffle(input, upscale_factor):
    r = upscale_factor
    _fold.check_pixel_shuffle(input, r)
    *batch, c, h, w = input.shape
    oc = c // (r * r)
    x = input.reshape(list(batch) + [oc, r, r, h, w])
    nb = len(batch)
    x = x.permute(list(range(nb)) + [nb, nb + 3, nb + 1, nb + 4, nb + 2])
    return x.reshape(list(batch) + [oc, h * r, w * r])


def pixel_unshuffle(input, downscale_factor):
    r = downscale_factor
    _fold.check_pixel_unshuffle(input, r)
    *batch, c, h, w = input.shape
    nb = len(batch)
    x = input.reshape(list(batch) + [c, h // r, r, w // r, r])
    x = x.permute(list(range(nb)) + [nb, nb + 2, nb + 4, nb + 1, nb + 3])
    return x.reshape(list(batch) + [c * r * r, h // r, w // r])


unfold = _fold.unfold
fold = _fold.fold
channel_shuffle = _fold.channel_shuffle
native_channel_shuffle = _fold.channel_shuffle


# === 3-D, power-average and un-pooling; ranking, margin and likelihood losses ===

max_pool3d = _pool3d.max_pool3d
max_pool3d_with_indices = _pool3d.max_pool3d_with_indices
avg_pool3d = _pool3d.avg_pool3d
lp_pool1d = _pool3d.lp_pool1d
lp_pool2d = _pool3d.lp_pool2d
lp_pool3d = _pool3d.lp_pool3d
max_unpool1d = _pool3d.max_unpool1d
max_unpool2d = _pool3d.max_unpool2d
max_unpool3d = _pool3d.max_unpool3d
margin_ranking_loss = _margin_losses.margin_ranking_loss
hinge_embedding_loss = _margin_losses.hinge_embedding_loss
multilabel_soft_margin_loss = _margin_losses.multilabel_soft_margin_loss
multi_margin_loss = _margin_losses.multi_margin_loss
multilabel_margin_loss = _margin_losses.multilabel_margin_loss
triplet_margin_loss = _margin_losses.triplet_margin_loss
triplet_margin_with_distance_loss = _margin_losses.triplet_margin_with_distance_loss
poisson_nll_loss = _margin_losses.poisson_nll_loss
gaussian_nll_loss = _margin_losses.gaussian_nll_loss
embedding_bag = _embedding_bag.embedding_bag


# === Random activations (RNG order as PyTorch's: see _stochastic.py) ===

alpha_dropout = _stochastic.alpha_dropout
feature_alpha_dropout = _stochastic.feature_alpha_dropout
rrelu = _stochastic.rrelu
rrelu_ = _stochastic.rrelu_
gumbel_softmax = _stochastic.gumbel_softmax


# === In-place forms (PyTorch's ``F.elu_`` etc.) ===

_threshold_fn = threshold


def threshold_(input, threshold, value):
    return _threshold_fn(input, threshold, value, True)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, True)


def elu_(input, alpha=1.0):
    return elu(input, alpha, True)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, True)


def selu_(input):
    return selu(input, True)


def celu_(input, alpha=1.0):
    return celu(input, alpha, True)


def upsample_nearest(input, size=None, scale_factor=None):
    _warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                   stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    _warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                   stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def pdist(input, p=2):
    """Distances between the rows of an ``(N, M)`` input, pairs ``i < j`` in row-major order."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    i, j = torch.triu_indices(n, n, 1)
    diff = input[i] - input[j]
    if p == float("inf"):
        # ATen's pdist backward gives every coordinate tied for the maximum the full gradient
        # (vector_norm's splits it among ties): the max's value, with sign(diff) on the ties.
        mag = diff.abs()
        top = mag.amax(1, keepdim=True)
        ties = (mag == top).detach()
        return top.squeeze(1).detach() + ((mag - mag.detach()) * ties).sum(1)
    return torch.linalg.vector_norm(diff, p, dim=1)
