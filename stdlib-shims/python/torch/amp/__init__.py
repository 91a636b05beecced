"""``torch.amp``: ``GradScaler`` (loss scaling for reduced-precision training, with PyTorch's CPU
behaviour), ``autocast`` (regions where PyTorch's CPU op lists run in bfloat16 or float16) and
``custom_fwd``/``custom_bwd`` for custom autograd functions inside such regions."""

from .autocast_mode import autocast, custom_bwd, custom_fwd, get_autocast_dtype, is_autocast_available, is_autocast_enabled
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "get_autocast_dtype", "is_autocast_available",
           "is_autocast_enabled"]
