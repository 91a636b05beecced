"""``torch.cpu.amp``: the deprecated CPU spelling of ``torch.amp.autocast``."""

from .autocast_mode import autocast

__all__ = ["autocast"]
