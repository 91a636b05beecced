"""``make_tensor``: a tensor of random values in ``[low, high)`` (PyTorch's defaults per dtype)."""

import math

import torch


def make_tensor(*shape, dtype, device=None, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    if len(shape) == 1 and isinstance(shape[0], (list, tuple, torch.Size)):
        shape = tuple(shape[0])
    if low is not None and high is not None and low > high:
        raise ValueError(f"`low` must be less than or equal to `high`, but got {low} > {high}")
    if dtype is torch.bool:
        result = torch.randint(0, 2, shape) != 0
    elif not dtype.is_floating_point:
        lo = -9 if low is None else math.ceil(low)
        hi = 10 if high is None else math.ceil(high)
        if dtype is torch.uint8:
            lo = max(lo, 0)
        result = torch.randint(lo, hi, shape, dtype=dtype)
    else:
        lo = -9.0 if low is None else low
        hi = 9.0 if high is None else high
        result = (torch.rand(shape, dtype=torch.float64) * (hi - lo) + lo).to(dtype)
    if exclude_zero:
        tiny = 1 if not dtype.is_floating_point else torch.finfo(dtype).tiny
        result = torch.where(result == 0, torch.full_like(result, tiny), result)
    if noncontiguous and result.numel() > 1:
        result = torch.repeat_interleave(result, 2, dim=-1)[..., ::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if requires_grad:
        result.requires_grad_(True)
    return result
