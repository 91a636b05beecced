"""``torch.nn``: ``Module``, ``Parameter``, the layers, ``functional`` and ``init``.

``Module`` lives in ``torch/nn/modules/module.py`` as in PyTorch; Dynamo reads its
``_parameters``/``_buffers``/``_modules`` dicts, its ``_forward_hooks``/``_forward_pre_hooks``
and ``torch.nn.modules.module._global_hooks_active``.
"""

from torch.nn.parameter import Buffer, Parameter  # noqa: F401
from torch.nn import functional, init  # noqa: F401
from torch.nn.modules import *  # noqa: F401,F403
from torch.nn.modules import Module  # noqa: F401
from torch.nn import modules  # noqa: F401
from torch.nn import utils  # noqa: F401
from torch.nn import parallel  # noqa: F401
from torch.nn.parallel import DataParallel  # noqa: F401
