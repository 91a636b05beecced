"""``torch.nn.utils.stateless.functional_call``: the deprecated spelling of
``torch.func.functional_call`` (same arguments; PyTorch warns and forwards)."""

import warnings

import torch


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed "
                  "in a future version of PyTorch. Please use `torch.func.functional_call` instead which is a "
                  "drop-in replacement.",
                  FutureWarning, stacklevel=2)
    if isinstance(module, torch.nn.DataParallel):
        raise RuntimeError("The stateless API can't be used with nn.DataParallel module")
    return torch.func.functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights,
                                      strict=strict)
