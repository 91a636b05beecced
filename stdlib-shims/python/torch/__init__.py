"""Rynamo's ``torch``: the PyTorch API on Rynamo's tensor runtime.

Tensors, dtypes, devices and one function per registry op come from the native module
``torch._C``; this package adds the pure-Python parts of the namespace (grad-mode context
managers, ``finfo``/``iinfo``, ``as_tensor``, constants).
"""

import builtins as _builtins
import math as _math

from torch import _C
from torch._C import *  # noqa: F401,F403  (Tensor, dtypes, ops, tensor(), manual_seed(), ...)
from torch._C import _dispatch_count, _in_graph_count, _reset_dispatch_count  # noqa: F401

__version__ = "2.6.0+rynamo"

inf = _math.inf
nan = _math.nan
pi = _math.pi
e = _math.e
newaxis = None


class layout:
    """``torch.strided`` and kin (only strided tensors exist here)."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "torch." + self._name


class memory_format:
    """``torch.contiguous_format`` and kin."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "torch." + self._name


strided = layout("strided")
contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")


def as_tensor(data, dtype=None, device=None):
    """Shares ``data`` when it already is a tensor of the right dtype, else copies."""
    if isinstance(data, Tensor):
        if dtype is None or data.dtype is dtype:
            return data
        return data.to(dtype)
    return tensor(data, dtype=dtype, device=device)


def equal(input, other):
    """Same shape and same values."""
    return input.shape == other.shape and _builtins.bool((input == other).all())


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|input - other| <= atol + rtol * |other|``; equal values (infinities of the
    same sign included) are close, NaNs only with ``equal_nan``."""
    if not isinstance(other, Tensor):
        other = tensor(other, dtype=input.dtype)
    if input.dtype != other.dtype:
        names = {float32: "Float", float64: "Double", float16: "Half", bfloat16: "BFloat16",
                 int64: "Long", int32: "Int", int8: "Char", uint8: "Byte", bool: "Bool"}
        raise RuntimeError("%s did not match %s" % (names[input.dtype], names[other.dtype]))
    if rtol < 0 or atol < 0:
        raise ValueError(
            "rtol must be greater than or equal to zero, but got %s" % rtol
            if rtol < 0
            else "atol must be greater than or equal to zero, but got %s" % atol
        )
    close = input == other
    if not input.is_floating_point():
        diff = (input.to(float64) - other.to(float64)).abs()
        return close | (diff <= atol + rtol * other.to(float64).abs())
    if equal_nan:
        close = close | (input.isnan() & other.isnan())
    finite = input.isfinite() & other.isfinite()
    diff = (input - other).abs()
    return close | (finite & (diff <= atol + rtol * other.abs()))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of ``input`` is close to ``other`` (``isclose(...).all()``)."""
    return _builtins.bool(isclose(input, other, rtol, atol, equal_nan).all())


def is_nonzero(input):
    if input.numel() != 1:
        raise RuntimeError(
            "Boolean value of Tensor with %s values is ambiguous"
            % ("no" if input.numel() == 0 else "more than one")
        )
    return _builtins.bool(input.item())


def is_storage(obj):
    return False


_deterministic = False
_num_threads = 1


def use_deterministic_algorithms(mode, *, warn_only=False):
    global _deterministic
    _deterministic = _builtins.bool(mode)


def are_deterministic_algorithms_enabled():
    return _deterministic


def get_num_threads():
    return _num_threads


def set_num_threads(n):
    global _num_threads
    _num_threads = _builtins.int(n)


class finfo:
    """Machine limits of a floating dtype (``torch.finfo(torch.float32).eps``)."""

    # bits, eps, max, smallest normal, resolution
    _LIMITS = {
        "float16": (16, 0.0009765625, 65504.0, 6.103515625e-05, 0.001),
        "bfloat16": (16, 0.0078125, 3.3895313892515355e38, 1.1754943508222875e-38, 0.01),
        "float32": (32, 1.1920928955078125e-07, 3.4028234663852886e38, 1.1754943508222875e-38, 1e-06),
        "float64": (64, 2.220446049250313e-16, 1.7976931348623157e308, 2.2250738585072014e-308, 1e-15),
    }

    def __init__(self, type=None):
        if type is None:
            type = get_default_dtype()
        name = repr(type).replace("torch.", "")
        if name not in self._LIMITS:
            raise TypeError(
                "torch.finfo() requires a floating point input type. "
                "Use torch.iinfo to handle '%s'" % ("torch.finfo",)
            )
        bits, eps, mx, tiny, resolution = self._LIMITS[name]
        self.bits = bits
        self.eps = eps
        self.max = mx
        self.min = -mx
        self.tiny = tiny
        self.smallest_normal = tiny
        self.resolution = resolution
        self.dtype = name

    def __repr__(self):
        return (
            "finfo(resolution={:g}, min={:g}, max={:g}, eps={:g}, smallest_normal={:g}, "
            "tiny={:g}, dtype={})".format(
                self.resolution, self.min, self.max, self.eps, self.smallest_normal,
                self.tiny, self.dtype,
            )
        )


class iinfo:
    """Limits of an integer dtype (``torch.iinfo(torch.int32).max``)."""

    _BITS = {"uint8": (8, False), "int8": (8, True), "int16": (16, True),
             "int32": (32, True), "int64": (64, True)}

    def __init__(self, type):
        name = repr(type).replace("torch.", "")
        if name not in self._BITS:
            raise TypeError(
                "torch.iinfo() requires an integer input type. Use torch.finfo to handle '%s'"
                % (name,)
            )
        bits, signed = self._BITS[name]
        self.bits = bits
        self.min = -(1 << (bits - 1)) if signed else 0
        self.max = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
        self.dtype = name

    def __repr__(self):
        return "iinfo(min={:g}, max={:g}, dtype={})".format(
            _builtins.float(self.min), _builtins.float(self.max), self.dtype
        )


import _rynamo_autograd  # noqa: E402

_C._autograd = _rynamo_autograd
is_anomaly_enabled = _rynamo_autograd._is_anomaly_enabled
is_anomaly_check_nan_enabled = _rynamo_autograd._is_anomaly_check_nan_enabled
from torch.autograd.grad_mode import (  # noqa: E402
    enable_grad,
    inference_mode,
    no_grad,
    set_grad_enabled,
)
from torch import autograd, cuda, nn, return_types  # noqa: E402,F401
from torch import functional  # noqa: E402
from torch.functional import *  # noqa: E402,F401,F403
from torch._refs import (  # noqa: E402,F401
    argwhere, concat, concatenate, copysign, deg2rad, diag, float_power, fliplr, flipud, fmax,
    fmin, heaviside, logaddexp, logaddexp2, rad2deg, rot90, sgn, signbit, sinc, swapaxes,
    swapdims, take_along_dim, trace, tril_indices, triu_indices, true_divide, xlogy,
)
from torch._refs_data import (  # noqa: E402,F401
    aminmax, cross, diff, index_add, index_copy, index_fill, inner, kron, logspace,
    masked_select, nanmean, nansum, repeat_interleave, std_mean, var_mean,
)
from torch._refs_search import (  # noqa: E402,F401
    bincount, bucketize, kthvalue, median, searchsorted,
)
from torch._refs_unique import unique, unique_consecutive  # noqa: E402,F401

moveaxis = movedim


# Tensor methods of the Python-written functions, as PyTorch has them (``x.movedim(...)``). The
# Tensor type is shared by every interpreter of the process, so the methods look the function up
# by module and name at each call (``_C._install_python_methods``).
_C._install_python_methods("torch", (
    "allclose isclose equal swapaxes swapdims movedim moveaxis true_divide deg2rad rad2deg "
    "argwhere broadcast_to tensor_split hsplit vsplit dsplit fliplr flipud rot90 take_along_dim "
    "diag trace repeat_interleave masked_select index_add index_copy index_fill diff logaddexp "
    "logaddexp2 heaviside copysign fmax fmin sgn signbit xlogy float_power sinc nansum nanmean "
    "aminmax kron inner cross bincount unique unique_consecutive median kthvalue"
).split())
_C._install_python_methods("torch._refs_data", ["index_add_", "index_copy_", "index_fill_"])
_C._install_python_methods(
    "torch._tensor", ["backward", "register_hook", "register_post_accumulate_grad_hook"]
)


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None, disable=False):
    """Optimizes ``model`` (a function or ``nn.Module``) with TorchDynamo and ``backend``.

    Usable directly or as a decorator with or without arguments. ``backend`` is a name
    (``"inductor"``, the default, is Rynamo's dynasm JIT; ``"eager"`` interprets the captured
    graph) or a callable ``backend(gm, example_inputs) -> callable``. ``fullgraph=True`` makes any
    graph break an error.
    """
    if model is None:

        def fn(model):
            if model is None:
                raise RuntimeError("Model can't be None")
            return compile(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                           mode=mode, options=options, disable=disable)

        return fn
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if backend == "inductor":
        # PyTorch checks the mode and options when it builds the inductor wrapper, before
        # anything is compiled (even with disable=True).
        import torch._inductor

        torch._inductor._check_compile_args(mode, options)
    if disable:
        return model
    import torch._dynamo

    return torch._dynamo.optimize(backend=backend, nopython=fullgraph, dynamic=dynamic)(model)


def _init_logs():
    # An invalid TORCH_LOGS stops `import torch` with PyTorch's ValueError listing the valid
    # names; only a set variable costs an import.
    import os

    settings = os.environ.get("TORCH_LOGS")
    if settings is not None:
        from torch._logging._internal import parse_log_settings

        parse_log_settings(settings)


_init_logs()
del _init_logs

_LAZY_SUBMODULES = ("_dynamo", "compiler", "fx", "_logging", "func", "optim", "utils", "_inductor")


# Names served from submodules on first use (checkpoints reference `torch.FloatStorage`).
_LAZY_ATTRS = {
    "save": "torch.serialization", "load": "torch.serialization", "serialization": None, "storage": None,
    "_utils": None, "_weights_only_unpickler": None, "TypedStorage": "torch.storage",
    "UntypedStorage": "torch.storage", "typename": "torch._lazy_helpers", "frombuffer": "torch._lazy_helpers",
    "get_rng_state": "torch._lazy_helpers", "set_rng_state": "torch._lazy_helpers",
}
_LEGACY_STORAGES = ("DoubleStorage FloatStorage HalfStorage LongStorage IntStorage ShortStorage CharStorage "
                    "ByteStorage BoolStorage BFloat16Storage").split()


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``torch.func.vmap``."""
    import torch.func

    return torch.func.vmap(func, in_dims, out_dims, randomness, chunk_size=chunk_size)


def __getattr__(name):
    import importlib

    # torch._dynamo and friends import on first use, as in PyTorch.
    if name in _LAZY_SUBMODULES:
        return importlib.import_module("torch." + name)
    if name in _LAZY_ATTRS:
        module = _LAZY_ATTRS[name]
        if module is None:
            return importlib.import_module("torch." + name)
        return getattr(importlib.import_module(module), name)
    if name in _LEGACY_STORAGES:
        return importlib.import_module("torch.storage")._legacy_classes[name]
    raise AttributeError(f"module 'torch' has no attribute {name!r}")
