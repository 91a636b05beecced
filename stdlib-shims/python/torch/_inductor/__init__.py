"""`torch._inductor`: the option surface of PyTorch's default backend. Rynamo's default backend
is the dynasm JIT, which has no tuning knobs, so valid modes and options are accepted and have
no effect, as PyTorch's CUDA-only options have none on a CPU; invalid ones are refused with
PyTorch's errors (`torch.compile(mode=..., options=...)`)."""

_MODE_OPTIONS = {
    "default": {},
    "lite": {},
    "reduce-overhead": {"triton.cudagraphs": True},
    "max-autotune-no-cudagraphs": {"max_autotune": True, "coordinate_descent_tuning": True},
    "max-autotune": {"max_autotune": True, "triton.cudagraphs": True, "coordinate_descent_tuning": True},
}


def list_mode_options(mode=None, dynamic=None):
    """The options each `torch.compile` mode sets (all modes when `mode` is None)."""
    try:
        return dict(_MODE_OPTIONS[mode]) if mode else {k: dict(v) for k, v in _MODE_OPTIONS.items()}
    except KeyError as e:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODE_OPTIONS.keys())}") from e


def list_options():
    """Every option name `torch.compile(options=...)` accepts."""
    from torch._inductor._options_data import OPTIONS

    return [name for name, _, _ in OPTIONS]


_TYPES = {"bool": bool, "int": int, "float": float, "str": str, "list": list, "dict": dict, "tuple": tuple, "NoneType": type(None)}


def _check_options(options):
    """Validates `options` as PyTorch's `_TorchCompileInductorWrapper.apply_options` does."""
    if not options:
        return {}
    from torch._inductor._options_data import OPTIONS

    known = {name: (checked, current) for name, checked, current in OPTIONS}
    applied = {}
    for key, val in options.items():
        attr_name = key.replace("-", "_")
        if attr_name not in known:
            raise RuntimeError(f"Unexpected optimization option {key}, known options are {[n for n, _, _ in OPTIONS]}")
        checked, current = known[attr_name]
        if checked is not None and not isinstance(val, _TYPES[checked]):
            raise RuntimeError(f"Unexpected type of attr {key}, got {type(val).__name__} should be {current}")
        applied[attr_name] = val
    return applied


def _check_compile_args(mode, options):
    """`torch.compile(backend="inductor", mode=, options=)`: the mode's options, then `options`,
    checked as PyTorch checks them when the wrapper is built."""
    config = {}
    if mode and mode != "default":
        config.update(_check_options(list_mode_options(mode)))
    config.update(_check_options(options))
    return config
