"""The autocast state getters as Python functions that Dynamo calls at trace time
(``_rynamo_call_at_trace_time``): traced code reads the thread's real state, which the cache entry
guards (``GLOBAL_STATE``), so ``if torch.is_autocast_enabled("cpu"):`` folds to a constant. The
setters stay the native functions of ``_rynamo_autocast``; a trace that reaches one breaks there."""

import _rynamo_autocast as _native

__all__ = ["get_autocast_dtype", "is_autocast_cache_enabled", "is_autocast_enabled"]


def is_autocast_enabled(device_type=None):
    """``torch.is_autocast_enabled(device_type=None)`` (without a device type: CUDA's, off)."""
    if device_type is None:
        return _native.is_autocast_enabled()
    return _native.is_autocast_enabled(device_type)


def get_autocast_dtype(device_type):
    """``torch.get_autocast_dtype(device_type)``."""
    return _native.get_autocast_dtype(device_type)


def is_autocast_cache_enabled():
    """``torch.is_autocast_cache_enabled()``."""
    return _native.is_autocast_cache_enabled()


for _f in (is_autocast_enabled, get_autocast_dtype, is_autocast_cache_enabled):
    _f._rynamo_call_at_trace_time = True
del _f
