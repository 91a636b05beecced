"""``torch._utils``: the rebuild functions checkpoints call when unpickled (PyTorch's names and
signatures: pickles reference them by name)."""

from collections import OrderedDict

import torch


def _check_set_storage(flat, storage_offset, size, stride):
    # PyTorch rebuilds with `Tensor.set_` over a storage that cannot grow; a checkpoint whose
    # tensor reaches past its storage (corrupt or malicious) gets set_'s errors, in its order
    # (issue 30). The bytes are computed exactly, as PyTorch's overflow-checked int64 maths.
    if len(size) != len(stride):
        raise RuntimeError(f"unequal size length ({len(size)}) and stride length ({len(stride)})")
    if storage_offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")
    numel = 1
    for n in size:
        numel *= n
    if any(n < 0 for n in size) or numel >= 2**63:
        raise RuntimeError("numel: integer multiplication overflow")
    if numel == 0:
        return
    itemsize = flat.element_size()
    extent = 1 + sum((n - 1) * st for n, st in zip(size, stride))
    nbytes = (storage_offset + extent) * itemsize
    if any(st < 0 for st in stride) or nbytes >= 2**63:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    if nbytes > flat.numel() * itemsize:
        raise RuntimeError("Trying to resize storage that is not resizable")


def _rebuild_tensor(storage, storage_offset, size, stride):
    # A view of the storage's flat tensor: tensors of one storage share memory, as saved.
    size, stride = tuple(size), tuple(stride)
    _check_set_storage(storage._tensor, storage_offset, size, stride)
    return storage._tensor.as_strided(size, stride, storage_offset)


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
