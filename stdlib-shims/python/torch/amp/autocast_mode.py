"""``torch.autocast`` / ``torch.amp.autocast``. Rynamo has no autocast dispatch yet (PyTorch's per-op
lower-precision / fp32 / promote lists): the disabled form runs the block unchanged, the enabled
form raises ``NotImplementedError``."""

import functools

import torch

_DEFAULT_DTYPES = {"cpu": torch.bfloat16, "cuda": torch.float16}


def is_autocast_available(device_type):
    return device_type == "cpu"


def is_autocast_enabled(device_type=None):
    return False


def get_autocast_dtype(device_type):
    return _DEFAULT_DTYPES.get(device_type, torch.float16)


class autocast:
    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = device_type
        self.fast_dtype = dtype if dtype is not None else get_autocast_dtype(device_type)
        self._enabled = enabled
        if enabled:
            raise NotImplementedError(
                f"torch.autocast(device_type={device_type!r}, dtype={self.fast_dtype}) is not supported by Rynamo "
                "yet (no autocast dispatch); use enabled=False or cast the model and inputs explicitly")

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return wrapper
