"""``torch.cpu.amp.autocast(enabled=True, dtype=torch.bfloat16, cache_enabled=True)``: PyTorch's
deprecated alias of ``torch.amp.autocast("cpu", ...)``, with its FutureWarning."""

import warnings

import torch
from torch.amp.autocast_mode import autocast as _autocast

__all__ = ["autocast"]


class autocast(_autocast):
    """See ``torch.autocast``."""

    def __init__(self, enabled=True, dtype=torch.bfloat16, cache_enabled=True):
        warnings.warn(
            "`torch.cpu.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cpu', args...)` "
            "instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)
