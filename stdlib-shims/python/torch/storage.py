"""Storages as checkpoints name them: ``torch.FloatStorage`` and kin (PyTorch's legacy typed
storage classes, which the pickle of every checkpoint references), ``TypedStorage`` and
``UntypedStorage``. A storage here is a 1-D tensor over all the bytes of a runtime storage, so
tensors rebuilt from it (``_utils._rebuild_tensor_v2``) share its memory, as in PyTorch."""

import torch

__all__ = ["TypedStorage", "UntypedStorage"]


class TypedStorage:
    """``_tensor`` is a flat tensor of ``dtype`` spanning the whole storage."""

    is_sparse = False

    def __init__(self, *args, wrap_storage=None, dtype=None, device=None, _internal=False):
        if wrap_storage is not None:
            self._tensor = wrap_storage if dtype is None else wrap_storage.view(dtype)
        else:
            dtype = dtype if dtype is not None else getattr(type(self), "dtype", torch.get_default_dtype())
            size = args[0] if args and isinstance(args[0], int) else 0
            if args and not isinstance(args[0], int):
                self._tensor = torch.tensor(list(args[0]), dtype=dtype)
            else:
                self._tensor = torch.zeros(size, dtype=dtype)

    @property
    def dtype(self):
        return self._tensor.dtype

    @property
    def device(self):
        return self._tensor.device

    def size(self):
        return self._tensor.numel()

    _size = size

    def __len__(self):
        return self._tensor.numel()

    def nbytes(self):
        return self._tensor.numel() * self._tensor.element_size()

    def element_size(self):
        return self._tensor.element_size()

    def data_ptr(self):
        """The address of the storage's first byte (a tensor's ``data_ptr()`` minus its offset)."""
        return self._tensor.data_ptr()

    def tolist(self):
        return self._tensor.tolist()

    def cpu(self):
        return self

    def __getitem__(self, i):
        return self._tensor[i].item()

    def __repr__(self):
        values = "\n".join(" " + str(v) for v in self.tolist())
        return f"{values}\n[{type(self).__module__}.{type(self).__name__}(dtype={self.dtype}, device=cpu) of size {len(self)}]"

    def _untyped_storage(self):
        return UntypedStorage(wrap_storage=self._tensor)


class UntypedStorage(TypedStorage):
    """Bytes (``uint8`` elements)."""

    dtype = torch.uint8

    def __init__(self, *args, wrap_storage=None, **kwargs):
        if wrap_storage is not None:
            self._tensor = wrap_storage
        else:
            super().__init__(*args, dtype=torch.uint8)


class _LegacyStorage(TypedStorage):
    """Base of ``torch.FloatStorage`` and kin: a typed storage of the class's dtype."""

    def __init__(self, *args, wrap_storage=None, **kwargs):
        super().__init__(*args, wrap_storage=wrap_storage, dtype=type(self).dtype)


_STORAGE_NAMES = {
    "float64": "DoubleStorage", "float32": "FloatStorage", "float16": "HalfStorage", "int64": "LongStorage",
    "int32": "IntStorage", "int16": "ShortStorage", "int8": "CharStorage", "uint8": "ByteStorage",
    "bool": "BoolStorage", "bfloat16": "BFloat16Storage", "complex64": "ComplexFloatStorage",
    "complex128": "ComplexDoubleStorage",
}

# The classes live in `torch` (checkpoints reference `torch.FloatStorage`).
_legacy_classes = {}
for _name, _cls_name in _STORAGE_NAMES.items():
    _cls = type(_cls_name, (_LegacyStorage,), {"dtype": getattr(torch, _name), "__module__": "torch"})
    _legacy_classes[_cls_name] = _cls
del _name, _cls_name, _cls


def _dtype_to_storage_type_map():
    return {getattr(torch, k): v for k, v in _STORAGE_NAMES.items()}


def storage_class_for(dtype):
    """The legacy class PyTorch writes for ``dtype`` (``torch.FloatStorage`` for float32)."""
    return _legacy_classes[_STORAGE_NAMES[str(dtype).replace("torch.", "")]]


def untyped_storage(tensor):
    """``Tensor.untyped_storage()``: the bytes of the whole storage under ``tensor``, shared."""
    import _rynamo_serialization as _native
    return UntypedStorage(wrap_storage=_native.storage_flat(tensor).view(torch.uint8))
