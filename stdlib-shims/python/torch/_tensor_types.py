"""The legacy tensor types (``torch.FloatTensor``, ``torch.LongTensor``, ...): constructors of CPU
tensors of one dtype, and ``isinstance`` checks of a tensor's dtype, as in PyTorch.

``T(*sizes)`` is an uninitialized tensor of that shape, ``T(sequence)`` copies data, ``T()`` is empty,
``T(tensor)`` returns a tensor of this type sharing its data (the dtype must match)."""

import torch

_NAMES = {
    "DoubleTensor": torch.float64, "FloatTensor": torch.float32, "HalfTensor": torch.float16,
    "BFloat16Tensor": torch.bfloat16, "LongTensor": torch.int64, "IntTensor": torch.int32,
    "ShortTensor": torch.int16, "CharTensor": torch.int8, "ByteTensor": torch.uint8, "BoolTensor": torch.bool,
}


class _LegacyTensorMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, torch.Tensor) and obj.dtype == cls.dtype and obj.device.type == "cpu"

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


_CPP_NAMES = {torch.float64: "double", torch.float32: "float", torch.float16: "c10::Half",
              torch.bfloat16: "c10::BFloat16", torch.int64: "long int", torch.int32: "int", torch.int16: "short int",
              torch.int8: "signed char", torch.uint8: "unsigned char", torch.bool: "bool"}


def _options(dtype):
    return (f"TensorOptions(dtype={_CPP_NAMES[dtype]}, device=cpu, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))")


def _new(cls, *args, device=None):
    if device is not None:
        torch.device(device).__enter__().__exit__(None, None, None)
    if not args:
        return torch.empty(0, dtype=cls.dtype)
    if len(args) == 1 and isinstance(args[0], torch.Tensor):
        t = args[0]
        if t.dtype != cls.dtype:
            raise TypeError(f"expected {_options(cls.dtype)} (got {_options(t.dtype)})")
        return t
    if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        return torch.empty(args, dtype=cls.dtype)
    if len(args) == 1 and isinstance(args[0], torch.Size):
        return torch.empty(tuple(args[0]), dtype=cls.dtype)
    if len(args) == 1:
        return torch.tensor(args[0], dtype=cls.dtype)
    raise TypeError(f"new() received an invalid combination of arguments - got ({', '.join(type(a).__name__ for a in args)})")


def _make(name, dtype):
    return _LegacyTensorMeta(name, (), {"dtype": dtype, "is_cuda": False, "is_sparse": False, "__new__": _new,
                                        "__module__": "torch"})


for _name, _dtype in _NAMES.items():
    globals()[_name] = _make(_name, _dtype)
