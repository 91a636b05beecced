"""``torch.nn.functional``: every registry op flagged ``NN_FUNCTIONAL``, bound natively
(``inplace=`` is accepted where PyTorch has it)."""

from torch._C import _nn as _ops

globals().update(_ops)
del _ops
