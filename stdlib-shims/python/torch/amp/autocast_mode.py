"""``torch.autocast`` / ``torch.amp.autocast``: regions where ops run in a lower-precision dtype.

The state (enabled, dtype, cache flag, nesting depth) is per thread and native
(``_rynamo_autocast``); the per-op cast policies are PyTorch's CPU lists, applied where ops are
dispatched (``stdlib-shims/src/autocast.rs``) and, for ``torch`` functions written in Python that
PyTorch lists as one op, by ``torch._autocast_policy``. This class is PyTorch's, line for line in what
it checks and in the order it saves and restores the state, so nesting, ``enabled=False`` inside
an enabled region and the decorator form behave as PyTorch's."""

import functools
import warnings

import torch
from torch._autocast_state import (
    autocast_decrement_nesting,
    autocast_increment_nesting,
    clear_autocast_cache,
    get_autocast_dtype,
    is_autocast_cache_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
)

__all__ = ["autocast", "custom_bwd", "custom_fwd", "get_autocast_dtype", "is_autocast_available",
           "is_autocast_enabled"]

# The device types PyTorch accepts in a device string (its error lists them in this order).
_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
                 "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
# PyTorch's `_autocast_supported_devices` that this build has: Rynamo runs on the CPU only.
# CUDA is available to ask for, as in a PyTorch build without a GPU, where its regions are disabled.
_AVAILABLE = ("cpu", "cuda")


def is_autocast_available(device_type):
    """Whether autocast is available for ``device_type`` (PyTorch raises on an unknown type)."""
    if device_type not in _DEVICE_TYPES:
        raise RuntimeError(
            f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device string: {device_type}")
    return device_type in _AVAILABLE


class autocast:
    """``torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None)``: a context
    manager (or decorator) inside which listed ops run in ``dtype`` (bfloat16 by default on the
    CPU)."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(self.device):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{self.device}'")
        device_supported_dtypes = [torch.bfloat16, torch.float16]
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        device_name = self.device.upper()
        if enabled and self.device == "cuda":
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
            enabled = False
        elif enabled and self.fast_dtype not in device_supported_dtypes:
            error_message = (
                f"In {device_name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                f"{device_name} Autocast only supports dtypes of "
                + ", ".join(map(str, device_supported_dtypes))
                + " currently."
            )
            warnings.warn(error_message, stacklevel=2)
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        # The outermost region drops the cached weight casts, so none outlives it.
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return decorate_autocast


def _cast(value, device_type, dtype):
    """``value`` with its floating tensors on ``device_type`` cast to ``dtype`` (containers too)."""
    if isinstance(value, torch.Tensor):
        is_eligible = value.is_floating_point() and value.device.type == device_type and value.dtype is not torch.float64
        return value.to(dtype) if is_eligible else value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, dict):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        items = [_cast(v, device_type, dtype) for v in value]
        return type(value)(items) if isinstance(value, list) else tuple(items)
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """``torch.amp.custom_fwd``: decorates a custom autograd ``Function.forward`` so it runs in the
    region's state, or (``cast_inputs``) in that dtype with autocast off."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """``torch.amp.custom_bwd``: runs ``backward`` in the autocast state its forward ran in."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd
