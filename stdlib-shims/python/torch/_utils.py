"""``torch._utils``: the rebuild functions checkpoints call when unpickled (PyTorch's names and
signatures: pickles reference them by name)."""

from collections import OrderedDict

import torch


def _rebuild_tensor(storage, storage_offset, size, stride):
    # A view of the storage's flat tensor: tensors of one storage share memory, as saved.
    return storage._tensor.as_strided(tuple(size), tuple(stride), storage_offset)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    tensor = _rebuild_tensor(storage, storage_offset, size, stride)
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None):
    # v3 pairs an untyped (byte) storage with the element dtype.
    typed = torch.storage.TypedStorage(wrap_storage=storage._tensor, dtype=dtype)
    tensor = _rebuild_tensor(typed, storage_offset, size, stride)
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor


def _rebuild_parameter(data, requires_grad, backward_hooks):
    return torch.nn.Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = torch.nn.Parameter(data, requires_grad)
    for k, v in (state or {}).items():
        setattr(param, k, v)
    return param


def _get_backward_hooks():
    return OrderedDict()
