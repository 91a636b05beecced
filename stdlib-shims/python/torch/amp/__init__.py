"""``torch.amp``: ``GradScaler`` (loss scaling for reduced-precision training, with PyTorch's CPU
behaviour) and ``autocast``, of which only the disabled form exists yet: ``autocast(...,
enabled=False)`` is a no-op context manager, an enabled one raises ``NotImplementedError`` rather
than silently computing in full precision."""

from .autocast_mode import autocast, get_autocast_dtype, is_autocast_available, is_autocast_enabled
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "get_autocast_dtype", "is_autocast_available", "is_autocast_enabled"]
