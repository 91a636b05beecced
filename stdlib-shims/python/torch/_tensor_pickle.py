"""Plain pickling of tensors (``pickle.dumps(t)``, ``copy.copy`` fallbacks): a tensor reduces to
``torch._utils._rebuild_tensor_v2`` over a storage that pickles as its dtype and bytes.
``torch.save`` does not come here: its pickler names storages by persistent id instead."""

from collections import OrderedDict

import _rynamo_serialization as _native

import torch


class _BytesStorage:
    """A storage pickled by value, ``(dtype name, bytes)``; ``copy.copy`` uses it directly, as a
    storage shared with the original (``_tensor``: a flat view of the whole storage)."""

    def __init__(self, tensor):
        self._tensor = _native.storage_flat(tensor)

    def __reduce__(self):
        return (_storage_from_bytes, (str(self._tensor.dtype).replace("torch.", ""),
                                      _native.storage_bytes(self._tensor)))


def _storage_from_bytes(dtype_name, data):
    from torch.storage import TypedStorage

    flat = _native.storage_from_buffer(data, getattr(torch, dtype_name))
    return TypedStorage(wrap_storage=flat)


def reduce_tensor(t):
    if isinstance(t, torch.nn.Parameter):
        data = torch.Tensor._make_subclass(torch.Tensor, t, False)
        return (torch._utils._rebuild_parameter, (data, t.requires_grad, OrderedDict()))
    args = (_BytesStorage(t), t.storage_offset(), tuple(t.shape), tuple(t.stride()), t.requires_grad, OrderedDict())
    return (torch._utils._rebuild_tensor_v2, args)
