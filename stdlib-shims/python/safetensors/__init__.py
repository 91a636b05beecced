"""``safetensors`` (the Python package's API) on the ``safetensors`` crate: ``safe_open`` and
``SafetensorError`` here, the torch helpers in ``safetensors.torch``."""

import _rynamo_safetensors as _native

__all__ = ["SafetensorError", "safe_open", "serialize", "serialize_file", "deserialize"]


class SafetensorError(Exception):
    """Invalid or unreadable safetensors data (the package's ``safetensors_rust.SafetensorError``)."""


def _wrap(fn, *args):
    try:
        return fn(*args)
    except (RuntimeError, OSError) as e:
        raise SafetensorError(str(e)) from None


class _Slice:
    """``safe_open(...).get_slice(name)``: shape and dtype without reading; indexing reads."""

    def __init__(self, handle, name):
        self._handle = handle
        self._name = name

    def get_shape(self):
        return list(self._handle.info(self._name)[1])

    def get_dtype(self):
        return self._handle.info(self._name)[0]

    def __getitem__(self, index):
        return self._handle.get_tensor(self._name)[index]


class safe_open:
    """Opens a safetensors file: ``keys()``, ``metadata()``, ``get_tensor(name)`` (a tensor over
    the memory-mapped file, no copy), ``get_slice(name)``. A context manager."""

    def __init__(self, filename, framework="pt", device="cpu"):
        if framework not in ("pt", "torch", "pytorch"):
            raise SafetensorError(f"framework {framework} is not supported by Rynamo (only 'pt')")
        if str(device) != "cpu":
            raise SafetensorError(f"device {device} is not available (Rynamo runs on the CPU)")
        import os

        self._handle = _wrap(_native.open_file, os.fspath(filename))

    @classmethod
    def _from_bytes(cls, data):
        obj = cls.__new__(cls)
        obj._handle = _wrap(_native.open_bytes, bytes(data))
        return obj

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def keys(self):
        return sorted(self._handle.keys())

    def offset_keys(self):
        return self._handle.keys()

    def metadata(self):
        return self._handle.metadata()

    def get_tensor(self, name):
        try:
            return self._handle.get_tensor(name)
        except KeyError as e:
            raise SafetensorError(e.args[0]) from None

    def get_slice(self, name):
        self._handle.info(name)
        return _Slice(self._handle, name)
