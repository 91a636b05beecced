"""``torch.special``: PyTorch's special functions. Each is the registry op of the same meaning
(``expit`` is ``sigmoid``), so eager calls, Dynamo and the JIT treat them as those ops."""
from torch import erfinv, logit, sigmoid as expit, xlogy

__all__ = ["erfinv", "expit", "logit", "xlogy"]
