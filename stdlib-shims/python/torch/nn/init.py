"""``torch.nn.init``: in-place parameter initialisers. Random ones draw from the global generator
(or ``generator=``), so ``torch.manual_seed`` makes initialisation reproducible; the streams
differ from PyTorch's, the distributions do not."""

import math
import warnings

import torch

__all__ = [
    "calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_",
    "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_",
]


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for ``nonlinearity`` (PyTorch's table)."""
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    num_input_fmaps = tensor.shape[1]
    num_output_fmaps = tensor.shape[0]
    receptive_field_size = 1
    for s in tensor.shape[2:]:
        receptive_field_size *= s
    return num_input_fmaps * receptive_field_size, num_output_fmaps * receptive_field_size


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _fill(tensor, values):
    with torch.no_grad():
        tensor.copy_(values)
    return tensor


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fills ``tensor`` from U(a, b), drawing as PyTorch does (``Tensor.uniform_``)."""
    with torch.no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fills ``tensor`` from N(mean, std^2), drawing as PyTorch does (``Tensor.normal_``)."""
    with torch.no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fills ``tensor`` from N(mean, std^2) truncated to [a, b], drawing as PyTorch 2.15 does:
    when the interval holds more than 0.3 of the mass, normal samples with the ones outside
    redrawn; otherwise uniform candidates in [a, b] accepted against the density."""
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=2,
        )

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    with torch.no_grad():
        if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3:
            # The bounds in the tensor's dtype, so the test sees representable values.
            lo = tensor.new_tensor(a).item()
            hi = tensor.new_tensor(b).item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                outside = (result < lo) | (result > hi)
                if not bool(outside.any()):
                    break
                redrawn = torch.empty_like(result).normal_(mean, std, generator=generator)
                result = torch.where(outside, redrawn, result)
            if tensor is not result:
                tensor.copy_(result)
            return tensor
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2
        candidates = torch.empty_like(tensor)
        accept_buf = torch.empty_like(tensor)

        def log_pdf_(c):
            return c.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)

        tensor.uniform_(a, b, generator=generator)
        candidates.copy_(tensor)
        log_pdf_(candidates)
        pending = accept_buf.uniform_(generator=generator).log_().gt(candidates)
        if bool(pending.any()):
            result = tensor
            while True:
                candidates.uniform_(a, b, generator=generator)
                result = torch.where(pending, candidates, result)
                log_pdf_(candidates)
                rejected = accept_buf.uniform_(generator=generator).log_().gt(candidates)
                pending = torch.where(pending, rejected, pending)
                if not bool(pending.any()):
                    break
            tensor.copy_(result)
    return tensor


def constant_(tensor, val):
    with torch.no_grad():
        tensor.fill_(val)
    return tensor


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    with torch.no_grad():
        tensor.zero_()
    return tensor


def eye_(tensor):
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, torch.eye(tensor.shape[0], tensor.shape[1], dtype=tensor.dtype))


def dirac_(tensor, groups=1):
    """Identity-preserving conv weights: one 1 at each kernel centre, per group."""
    dimensions = tensor.dim()
    if dimensions not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    with torch.no_grad():
        tensor.zero_()
        centre = tuple(s // 2 for s in sizes[2:])
        for g in range(groups):
            for d in range(min_dim):
                tensor[(g * out_chans_per_grp + d, d) + centre] = 1
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(-bound, bound) with bound = gain * sqrt(3 / fan) (He et al.)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    # PyTorch's order of operations, so the bound rounds as PyTorch's does.
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    return normal_(tensor, 0.0, gain / math.sqrt(fan), generator)


# The deprecated spellings without the trailing underscore.
def uniform(tensor, a=0.0, b=1.0):
    warnings.warn("`nn.init.uniform` is now deprecated in favor of `nn.init.uniform_`.", FutureWarning)
    return uniform_(tensor, a, b)


def normal(tensor, mean=0.0, std=1.0):
    warnings.warn("`nn.init.normal` is now deprecated in favor of `nn.init.normal_`.", FutureWarning)
    return normal_(tensor, mean, std)


def constant(tensor, val):
    warnings.warn("`nn.init.constant` is now deprecated in favor of `nn.init.constant_`.", FutureWarning)
    return constant_(tensor, val)


def xavier_uniform(tensor, gain=1.0):
    warnings.warn("`nn.init.xavier_uniform` is now deprecated in favor of `nn.init.xavier_uniform_`.", FutureWarning)
    return xavier_uniform_(tensor, gain)


def xavier_normal(tensor, gain=1.0):
    warnings.warn("`nn.init.xavier_normal` is now deprecated in favor of `nn.init.xavier_normal_`.", FutureWarning)
    return xavier_normal_(tensor, gain)


def kaiming_uniform(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    warnings.warn("`nn.init.kaiming_uniform` is now deprecated in favor of `nn.init.kaiming_uniform_`.", FutureWarning)
    return kaiming_uniform_(tensor, a, mode, nonlinearity)


def kaiming_normal(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    warnings.warn("`nn.init.kaiming_normal` is now deprecated in favor of `nn.init.kaiming_normal_`.", FutureWarning)
    return kaiming_normal_(tensor, a, mode, nonlinearity)


def orthogonal_(tensor, gain=1, generator=None):
    """Fills ``tensor`` with a (semi-)orthogonal matrix (Saxe et al.), as PyTorch: the Q of a QR
    factorization of a normal sample flattened to ``rows x cols`` (transposed when it is wide), its
    columns' signs fixed by R's diagonal so the result is uniformly distributed, times ``gain``."""
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flat = torch.randn((rows, cols), dtype=tensor.dtype, generator=generator)
    if rows < cols:
        flat = flat.t()
    q, r = torch.linalg.qr(flat)
    q = q * torch.diag(r, 0).sign()
    if rows < cols:
        q = q.t()
    return _fill(tensor, q.reshape(tensor.shape) * gain)


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """A 2-D normal(0, std) fill with ``ceil(sparsity * rows)`` zeros per column, the rows picked by
    one ``randperm`` per column after the normal draw (PyTorch's draw order)."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    with torch.no_grad():
        tensor.normal_(0, std, generator=generator)
        for col_idx in range(cols):
            zero_indices = torch.randperm(rows, generator=generator)[:num_zeros]
            tensor[zero_indices, col_idx] = 0
    return tensor


def _deprecated(new):
    def old(*args, **kwargs):
        warnings.warn(f"`nn.init.{new.__name__[:-1]}` is now deprecated in favor of `nn.init.{new.__name__}`.",
                      FutureWarning, stacklevel=2)
        return new(*args, **kwargs)

    old.__name__ = new.__name__[:-1]
    return old


eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
