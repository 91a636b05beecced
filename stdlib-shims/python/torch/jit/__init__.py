"""`torch.jit` as model code meets it outside TorchScript: the annotations and decorators that
models apply for scripting (`ignore`, `unused`, `export`, `Final`, `is_scripting`, ...) behave as
they do in PyTorch's eager mode, where they leave the Python code as written. TorchScript itself
(`script`, `trace`, `save`, `load`) is not implemented: those raise and point to torch.compile."""
import typing
import warnings

Final = typing.Final


def ignore(drop=False, **kwargs):
    """Leaves the function to Python (which, outside TorchScript, is where it already runs)."""
    if callable(drop):
        return drop
    if drop:
        warnings.warn(
            "ignore(True) has been deprecated. TorchScript will now drop the function call on "
            f"compilation. Use torch.jit.unused now. {kwargs}",
            category=FutureWarning,
            stacklevel=2,
        )
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


def interface(obj):
    return obj


def script_if_tracing(fn):
    return fn


def is_scripting():
    """False: code runs as Python, never as TorchScript."""
    return False


def is_tracing():
    """False: `torch.jit.trace` is not implemented, so nothing is ever being traced."""
    return False


def annotate(the_type, the_value):
    return the_value


class Attribute(typing.NamedTuple):
    """`torch.jit.Attribute(value, type)`: outside TorchScript, the pair as a named tuple."""

    value: typing.Any
    type: typing.Any


def _unsupported(name):
    def fail(*args, **kwargs):
        raise NotImplementedError(
            f"torch.jit.{name}: TorchScript is not supported by Rynamo; "
            "use torch.compile (or run the module as Python)"
        )

    fail.__name__ = name
    return fail


script = _unsupported("script")
trace = _unsupported("trace")
trace_module = _unsupported("trace_module")
save = _unsupported("save")
load = _unsupported("load")
freeze = _unsupported("freeze")
optimize_for_inference = _unsupported("optimize_for_inference")
