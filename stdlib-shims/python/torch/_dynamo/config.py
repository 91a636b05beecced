"""Dynamo settings (`torch._dynamo.config`), with PyTorch's names and defaults.

Assign to them as in PyTorch (`torch._dynamo.config.cache_size_limit = 16`). The native core reads
them when it decides something (a compile, a recompile), never on the cached-call path.
"""
import sys
import types

import _rynamo_dynamo as _C

# Aliases: the old name on the left reads and writes the new one.
_ALIASES = {
    "cache_size_limit": "recompile_limit",
    "accumulated_cache_size_limit": "accumulated_recompile_limit",
}

_DEFAULTS = {
    "recompile_limit": 8,
    "accumulated_recompile_limit": 256,
    "suppress_errors": False,
    "verbose": False,
    "capture_scalar_outputs": False,
    "capture_dynamic_output_shape_ops": False,
    "reorderable_logging_functions": set(),
    "automatic_dynamic_shapes": True,
    "assume_static_by_default": True,
    "force_parameter_static_shapes": True,
    "allow_ignore_mark_dynamic": False,
    "specialize_int": False,
    "specialize_float": True,
    "inline_inbuilt_nn_modules": True,
    "nested_graph_breaks": False,
    "error_on_graph_break": False,
    "fail_on_recompile_limit_hit": False,
    "dont_skip_tracing": False,
    "rewrite_assert_with_torch_assert": True,
    "allow_unspec_int_on_nn_module": False,
    "skip_torchrec": True,
    "optimize_ddp": True,
    "enrich_profiler_metadata": False,
    # torch.func transforms are traced through their Python implementation (always on here).
    "capture_func_transforms": True,
    "trace_autograd_ops": False,
}


class _ConfigModule(types.ModuleType):
    def __getattr__(self, name):
        name = _ALIASES.get(name, name)
        try:
            return self.__dict__["_values"][name]
        except KeyError:
            raise AttributeError(f"torch._dynamo.config has no attribute {name!r}") from None

    def __setattr__(self, name, value):
        if name.startswith("__") or name in ("_values",):
            return super().__setattr__(name, value)
        name = _ALIASES.get(name, name)
        if name not in self.__dict__["_values"]:
            raise AttributeError(f"torch._dynamo.config has no attribute {name!r}")
        self.__dict__["_values"][name] = value

    def __dir__(self):
        return sorted(list(self.__dict__["_values"]) + list(_ALIASES))

    def patch(self, arg1=None, arg2=None, **kwargs):
        """`config.patch(name, value)`, `config.patch({...})` or `config.patch(name=value)`:
        a context manager and decorator that sets values and restores them."""
        changes = dict(kwargs)
        if isinstance(arg1, dict):
            changes.update(arg1)
        elif arg1 is not None:
            changes[arg1] = arg2
        return _Patch(self, changes)

    def get_config_copy(self):
        return dict(self.__dict__["_values"])


class _Patch:
    def __init__(self, module, changes):
        self._module = module
        self._changes = changes
        self._saved = None

    def __enter__(self):
        self._saved = {k: getattr(self._module, k) for k in self._changes}
        for k, v in self._changes.items():
            setattr(self._module, k, v)
        return self

    def __exit__(self, *exc):
        for k, v in self._saved.items():
            setattr(self._module, k, v)
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with _Patch(self._module, self._changes):
                return fn(*args, **kwargs)

        return wrapper


_module = sys.modules[__name__]
_values = {k: (set(v) if isinstance(v, set) else v) for k, v in _DEFAULTS.items()}
# `RYNAMO_DYNAMIC_SHAPES=1`: every dimension starts dynamic (as `dynamic=True`), for running a
# test suite with dynamic shapes forced on.
if __import__("os").environ.get("RYNAMO_DYNAMIC_SHAPES") == "1":
    _values["assume_static_by_default"] = False
_module.__class__ = _ConfigModule
_module.__dict__["_values"] = _values
_C.register_config(_module)
