"""Rynamo's ``torch``: the PyTorch API on Rynamo's tensor runtime.

Tensors, dtypes, devices and one function per registry op come from the native module
``torch._C``; this package adds the pure-Python parts of the namespace (grad-mode context
managers, ``finfo``/``iinfo``, ``as_tensor``, constants).
"""

import builtins as _builtins
import math as _math

from torch import _C
from torch._C import *  # noqa: F401,F403  (Tensor, dtypes, ops, tensor(), manual_seed(), ...)


def _export_private_ops():
    # `import *` skips names with a leading underscore; registry functions such as
    # `torch._linalg_svd` are torch attributes in PyTorch too.
    import torch._C as _c
    for _name in dir(_c):
        _obj = getattr(_c, _name)
        if _name.startswith("_") and not _name.startswith("__") and type(_obj).__name__ == "_OpFunction":
            globals().setdefault(_name, _obj)


_export_private_ops()
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
channels_last_3d = memory_format("channels_last_3d")


def _check(cond, message=None):
    """Raises RuntimeError unless `cond` is true (PyTorch's `torch._check`; compiled graphs use it
    for the sizes a trace assumed)."""
    if not cond:
        if message is None:
            text = ("Expected cond to be True, but got False. (Could this error message be improved? "
                    "If so, please report an enhancement request to PyTorch.)")
        else:
            text = str(message())
        raise RuntimeError(text)


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
        from torch._refs import _DTYPE_NAMES
        raise RuntimeError("%s did not match %s" % (_DTYPE_NAMES[input.dtype], _DTYPE_NAMES[other.dtype]))
    if rtol < 0 or atol < 0:
        raise ValueError(
            "rtol must be greater than or equal to zero, but got %s" % rtol
            if rtol < 0
            else "atol must be greater than or equal to zero, but got %s" % atol
        )
    close = input == other
    if not input.is_floating_point() and not input.is_complex():
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
_interop_threads = None


def use_deterministic_algorithms(mode, *, warn_only=False):
    global _deterministic
    _deterministic = _builtins.bool(mode)


def are_deterministic_algorithms_enabled():
    return _deterministic


def get_num_threads():
    """Threads the kernels run on (intra-op): the machine's cores unless set."""
    return _C._get_num_threads()


def set_num_threads(n):
    """Sets how many threads the kernels use (the caller and the workers together)."""
    if not isinstance(n, _builtins.int) or isinstance(n, _builtins.bool) or n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _C._set_num_threads(n)


def get_num_interop_threads():
    """Inter-op threads. Rynamo runs independent ops one after another on the calling thread, so
    this is only the value PyTorch would report (the machine's cores unless set)."""
    import os

    return _interop_threads if _interop_threads is not None else (os.cpu_count() or 1)


def set_num_interop_threads(n):
    global _interop_threads
    if not isinstance(n, _builtins.int) or isinstance(n, _builtins.bool) or n <= 0:
        raise RuntimeError("Expected positive number of threads")
    if _interop_threads is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called")
    _interop_threads = n


def is_complex(input):
    if not isinstance(input, Tensor):
        raise TypeError(f"is_complex(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.is_complex()


def get_device_module(device=None):
    """The module of a device type: ``torch.cpu`` for the CPU (and by default), ``torch.cuda``, ..."""
    import importlib

    if isinstance(device, _C.device):
        name = device.type
    elif isinstance(device, _builtins.str):
        name = _C.device(device).type
    elif device is None:
        name = "cpu"
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    try:
        return importlib.import_module("torch." + name)
    except ImportError:
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered as 'torch.{name}'.") \
            from None


def get_default_device():
    return device("cpu")


def set_default_device(dev):
    """Only the CPU exists: another device fails as PyTorch's CPU-only build does."""
    if dev is None:
        return
    device(dev).__enter__()


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
from torch import autograd, cuda, return_types, special  # noqa: E402,F401
from torch import jit  # noqa: E402,F401
from torch import functional  # noqa: E402
from torch.functional import *  # noqa: E402,F401,F403
from torch._refs import (  # noqa: E402,F401
    argwhere, concat, concatenate, copysign, deg2rad, diag, float_power, fliplr, flipud, fmax,
    fmin, heaviside, logaddexp, logaddexp2, rad2deg, rot90, sgn, signbit, sinc, swapaxes,
    swapdims, take_along_dim, trace, tril_indices, triu_indices, true_divide,
)
from torch._refs_data import (  # noqa: E402,F401
    aminmax, cross, diff, index_add, index_copy, index_fill, inner, kron, logspace,
    masked_select, nanmean, nansum, repeat_interleave, std_mean, var_mean,
)
from torch._refs_search import (  # noqa: E402,F401
    bincount, bucketize, kthvalue, median, searchsorted,
)
from torch._refs_unique import unique, unique_consecutive  # noqa: E402,F401
from torch._refs_compose import (  # noqa: E402,F401
    absolute, addbmm, addmv, addr, arccos, arcsin, arctan, block_diag, cartesian_prod, cdist, chain_matmul,
    combinations, cumulative_trapezoid, diag_embed, diagflat, diagonal_scatter, dist, divide, fix, greater,
    greater_equal, histc, index_put, is_same_size, isreal, ldexp, less, less_equal, msort, multiply, narrow_copy,
    negative, not_equal, positive, ravel, renorm, select_scatter, slice_scatter, subtract, tensordot, trapezoid, trapz, vander,
    vdot,
)
from torch import _refs_compose  # noqa: E402
from torch._refs_special_ops import (  # noqa: E402,F401
    arccosh, arccosh_, arcsinh, arcsinh_, arctanh, arctanh_, frexp, mvlgamma,
)
from torch import _refs_special_ops  # noqa: E402
from torch._refs_nn_forms import (  # noqa: E402,F401
    adaptive_avg_pool1d, adaptive_max_pool1d, alpha_dropout, alpha_dropout_, avg_pool1d, batch_norm, bilinear,
    binary_cross_entropy_with_logits, celu, celu_, channel_shuffle, constant_pad_nd, conv3d, conv_transpose1d,
    conv_transpose2d, conv_transpose3d, cosine_embedding_loss, cosine_similarity, dropout, dropout_, embedding,
    feature_alpha_dropout, feature_alpha_dropout_, feature_dropout, feature_dropout_, fill, gcd, gcd_, ger,
    get_float32_matmul_precision, hardshrink, hinge_embedding_loss, instance_norm, is_signed, isin,
    kl_div, lcm, lcm_, margin_ranking_loss, max_pool1d, max_pool3d, pairwise_distance, pdist, pixel_shuffle,
    pixel_unshuffle, poisson_nll_loss, prelu, rms_norm, rrelu, rrelu_, rsub, selu, selu_,
    set_float32_matmul_precision, split_with_sizes, take, threshold, threshold_, triplet_margin_loss,
    unravel_index, zero_,
)
from torch import _refs_nn_forms  # noqa: E402
from torch import _tensor_inplace  # noqa: E402
from torch._tensor_inplace import is_conj, is_neg, resolve_conj, resolve_neg  # noqa: E402,F401
from torch._sym_int import SymInt, _sym_sqrt, sym_float, sym_int, sym_max, sym_min  # noqa: E402,F401
from torch._refs_stats import corrcoef, cov, nanmedian, nanquantile, quantile  # noqa: E402,F401
from torch import _refs_stats  # noqa: E402
import torch._autocast_policy as _autocast_policy  # noqa: E402
from torch._einsum_autocast import einsum  # noqa: E402,F811  (pairwise under autocast, as ATen's)
from torch import _foreach as _foreach_ops  # noqa: E402

_foreach_ops.install(globals())

moveaxis = movedim
arctan2 = atan2


# Tensor methods of the Python-written functions, as PyTorch has them (``x.movedim(...)``). The
# Tensor type is shared by every interpreter of the process, so the methods look the function up
# by module and name at each call (``_C._install_python_methods``).
_C._install_python_methods("torch", (
    "allclose isclose equal swapaxes swapdims movedim moveaxis true_divide deg2rad rad2deg "
    "argwhere broadcast_to tensor_split hsplit vsplit dsplit fliplr flipud rot90 take_along_dim "
    "diag trace repeat_interleave masked_select index_add index_copy index_fill diff logaddexp "
    "logaddexp2 heaviside copysign fmax fmin sgn signbit float_power sinc nansum nanmean "
    "aminmax kron inner cross bincount unique unique_consecutive median kthvalue"
).split())
_C._install_python_methods("torch._refs_data", ["index_add_", "index_copy_", "index_fill_"])
_C._install_python_methods("torch._refs_compose", _refs_compose.METHODS)
_C._install_python_methods("torch._refs_special_ops", _refs_special_ops.METHODS)
_C._install_python_methods("torch._refs_stats", _refs_stats.METHODS)
_C._install_python_methods("torch._tensor_inplace", _tensor_inplace.METHODS)
_C._install_python_methods("torch.storage", ["untyped_storage"])
_C._install_python_methods("torch._stft", ["stft"])
_C._install_python_methods("torch", ["det", "inverse", "slogdet", "logdet", "matrix_power"])
_C._install_python_methods(
    "torch._tensor", ["backward", "register_hook", "register_post_accumulate_grad_hook", "unfold", "new"]
)
# The in-place view methods (``x.unsqueeze_(0)``): Python over the out-of-place views.
_C._install_python_methods(
    "torch._tensor", "unsqueeze_ squeeze_ t_ transpose_ swapdims_ swapaxes_ as_strided_".split()
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

_LAZY_SUBMODULES = ("nn", "_dynamo", "compiler", "fx", "_logging", "func", "optim", "utils", "backends", "testing",
                    "version", "__config__", "cpu", "amp", "linalg", "special", "fft", "accelerator", "_inductor",
                    "distributed", "distributions", "hub")


# Names served from submodules on first use (checkpoints reference `torch.FloatStorage`).
_LAZY_ATTRS = {
    # `range` through the hook: bound eagerly it would shadow the builtin for the rest of this file.
    "range": "torch._refs_nn_forms",
    "save": "torch.serialization", "load": "torch.serialization", "serialization": None, "storage": None,
    "_utils": None, "_weights_only_unpickler": None, "TypedStorage": "torch.storage",
    "UntypedStorage": "torch.storage", "typename": "torch._lazy_helpers", "frombuffer": "torch._lazy_helpers", "normal": "torch._normal",
    "norm_except_dim": "torch.nn.utils.weight_norm", "_weight_norm": "torch.nn.utils.weight_norm",
    "get_rng_state": "torch._lazy_helpers", "set_rng_state": "torch._lazy_helpers",
    "autocast": "torch.amp", "is_autocast_enabled": "torch._autocast_state", "get_autocast_dtype": "torch._autocast_state",
    "set_autocast_enabled": "torch._autocast_state", "set_autocast_dtype": "torch._autocast_state",
    "is_autocast_cache_enabled": "torch._autocast_state", "set_autocast_cache_enabled": "torch._autocast_state",
    "clear_autocast_cache": "torch._autocast_state", "autocast_increment_nesting": "torch._autocast_state",
    "autocast_decrement_nesting": "torch._autocast_state",
    "is_autocast_cpu_enabled": "torch.amp._legacy", "set_autocast_cpu_enabled": "torch.amp._legacy",
    "get_autocast_cpu_dtype": "torch.amp._legacy", "set_autocast_cpu_dtype": "torch.amp._legacy",
    "hann_window": "torch._windows", "hamming_window": "torch._windows", "blackman_window": "torch._windows",
    "bartlett_window": "torch._windows", "kaiser_window": "torch._windows", "_assert": "torch._windows",
    "stft": "torch._stft",
}
_LEGACY_STORAGES = ("DoubleStorage FloatStorage HalfStorage LongStorage IntStorage ShortStorage CharStorage "
                    "ByteStorage BoolStorage BFloat16Storage ComplexFloatStorage ComplexDoubleStorage").split()


_LEGACY_TENSOR_TYPES = ("DoubleTensor FloatTensor HalfTensor BFloat16Tensor LongTensor IntTensor ShortTensor "
                        "CharTensor ByteTensor BoolTensor").split()


def _linalg():
    import torch.linalg

    return torch.linalg


def det(input):
    return _linalg().det(input)


@_autocast_policy.fp32
def inverse(input, *, out=None):
    return _linalg().inv(input)


def slogdet(input):
    return _linalg().slogdet(input)


def logdet(input):
    sign, logabs = _linalg().slogdet(input)
    return _C.where(sign < 0, nan, logabs)


def matrix_power(input, n):
    return _linalg().matrix_power(input, n)


# `polar`, `view_as_complex`, `view_as_real`, `complex`: registry ops (rules/complex.rs).


def set_default_tensor_type(t):
    """Deprecated: sets the default dtype from a legacy tensor type (``torch.DoubleTensor``)."""
    import warnings

    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning, stacklevel=2)
    if isinstance(t, _builtins.str):
        t = getattr(__import__("torch"), t.split(".")[-1]) if t.startswith("torch.") else None
        if t is None:
            raise TypeError("invalid type")
    if not _builtins.getattr(t, "dtype", None) or not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    set_default_dtype(t.dtype)


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
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value  # later reads skip this hook (and Dynamo sees a plain global)
        return value
    if name in _LEGACY_TENSOR_TYPES:
        return getattr(importlib.import_module("torch._tensor_types"), name)
    if name in _LEGACY_STORAGES:
        return importlib.import_module("torch.storage")._legacy_classes[name]
    raise AttributeError(f"module 'torch' has no attribute {name!r}")
