"""The autocast state functions as Python functions that Dynamo calls at trace time
(``_rynamo_call_at_trace_time``). Traced code reads the thread's real state, which the cache entry
guards (``GLOBAL_STATE``), so ``if torch.is_autocast_enabled("cpu"):`` folds to a constant; the
setters switch that state while the trace runs through an ``autocast`` region, so the region's ops
are traced with its casts, and Dynamo restores the state when the trace ends
(``interpreter/src/dynamo/autocast.rs``, ``TraceScope``)."""

import _rynamo_autocast as _native

__all__ = ["autocast_decrement_nesting", "autocast_increment_nesting", "clear_autocast_cache", "get_autocast_dtype",
           "is_autocast_cache_enabled", "is_autocast_enabled", "set_autocast_cache_enabled", "set_autocast_dtype",
           "set_autocast_enabled"]


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


def set_autocast_enabled(device_type, enabled):
    """``torch.set_autocast_enabled(device_type, enabled)``."""
    _native.set_autocast_enabled(device_type, enabled)


def set_autocast_dtype(device_type, dtype):
    """``torch.set_autocast_dtype(device_type, dtype)``."""
    _native.set_autocast_dtype(device_type, dtype)


def set_autocast_cache_enabled(enabled):
    """``torch.set_autocast_cache_enabled(enabled)``."""
    _native.set_autocast_cache_enabled(enabled)


def autocast_increment_nesting():
    """``torch.autocast_increment_nesting()``: the new depth."""
    return _native.autocast_increment_nesting()


def autocast_decrement_nesting():
    """``torch.autocast_decrement_nesting()``: the new depth."""
    return _native.autocast_decrement_nesting()


def clear_autocast_cache():
    """``torch.clear_autocast_cache()``."""
    _native.clear_autocast_cache()


for _f in (is_autocast_enabled, get_autocast_dtype, is_autocast_cache_enabled, set_autocast_enabled,
           set_autocast_dtype, set_autocast_cache_enabled, autocast_increment_nesting, autocast_decrement_nesting,
           clear_autocast_cache):
    _f._rynamo_call_at_trace_time = True
del _f
