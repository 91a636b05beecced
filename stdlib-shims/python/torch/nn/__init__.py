"""``torch.nn``. The functional ops are here; modules (``nn.Module``, ``nn.Linear``, ...)
arrive with the ``torch.nn`` task."""

from torch.nn import functional  # noqa: F401
