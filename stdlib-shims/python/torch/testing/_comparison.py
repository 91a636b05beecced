"""``assert_close``: compares tensors, Python scalars and (nested) sequences and mappings of them.

Tensors must agree in shape, dtype, device and layout (strides with ``check_stride=True``), then
elementwise ``|actual - expected| <= atol + rtol * |expected|`` (NaNs equal with ``equal_nan``),
with PyTorch's default tolerances per dtype. Failures raise ``AssertionError`` with PyTorch's text:
the mismatch count, the greatest absolute and relative differences with their index, and for a
container the path of the failing item."""

import collections.abc
import math

import torch

# (rtol, atol) by dtype, PyTorch's defaults.
_TOLERANCES = {
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (1.6e-2, 1e-5),
    torch.float32: (1.3e-6, 1e-5),
    torch.float64: (1e-7, 1e-7),
    torch.complex64: (1.3e-6, 1e-5),
    torch.complex128: (1e-7, 1e-7),
}


class _Failure(Exception):
    def __init__(self, exc_type, msg, path=()):
        super().__init__(msg)
        self.exc_type = exc_type
        self.msg = msg
        self.path = path


def _tolerances(dtype, rtol, atol):
    if (rtol is None) != (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'rtol' if rtol is None else 'atol'}.")
    if rtol is not None:
        return rtol, atol
    return _TOLERANCES.get(dtype, (0.0, 0.0))


def _is_scalar(x):
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, torch.Tensor)


def _fmt(v):
    return repr(v)


def _scalar_msg(actual, expected, rtol, atol, identifier="Scalars"):
    equal = rtol == 0 and atol == 0
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    if isinstance(abs_diff, bool):
        abs_diff = int(abs_diff)
    lines = [f"{identifier} are not {'equal' if equal else 'close'}!", "",
             f"Expected {expected} but got {actual}."]
    lines.append(f"Absolute difference: {_fmt(abs_diff)}" + ("" if equal else f" (up to {atol} allowed)"))
    lines.append(f"Relative difference: {_fmt(rel_diff)}" + ("" if equal else f" (up to {rtol} allowed)"))
    return "\n".join(lines)


def _compare_scalars(actual, expected, rtol, atol, equal_nan):
    if type(actual) is not type(expected) and not (isinstance(actual, (int, float)) and isinstance(expected, (int, float))):
        raise _Failure(AssertionError, f"The values for attribute 'type' do not match: {type(actual)} != "
                                       f"{type(expected)}.")
    dtype = torch.float64 if isinstance(actual, float) or isinstance(expected, float) else torch.int64
    rtol, atol = _tolerances(dtype, rtol, atol)
    if actual == expected:
        return
    if equal_nan and isinstance(actual, float) and math.isnan(actual) and math.isnan(expected):
        return
    if abs(actual - expected) <= atol + rtol * abs(expected):
        return
    raise _Failure(AssertionError, _scalar_msg(actual, expected, rtol, atol))


def _check_attributes(actual, expected, check_device, check_dtype, check_layout, check_stride):
    def fail(attr, a, e):
        raise _Failure(AssertionError, f"The values for attribute '{attr}' do not match: {a} != {e}.")

    if actual.shape != expected.shape:
        fail("shape", actual.shape, expected.shape)
    if check_device and actual.device != expected.device:
        fail("device", actual.device, expected.device)
    if check_dtype and actual.dtype != expected.dtype:
        fail("dtype", actual.dtype, expected.dtype)
    if check_stride and actual.stride() != expected.stride():
        fail("stride()", actual.stride(), expected.stride())


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, check_layout,
                     check_stride):
    _check_attributes(actual, expected, check_device, check_dtype, check_layout, check_stride)
    dtype = actual.dtype
    if actual.dtype != expected.dtype:
        dtype = torch.promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(dtype), expected.to(dtype)
    rtol, atol = _tolerances(dtype, rtol, atol)
    actual, expected = actual.detach(), expected.detach()
    if actual.numel() == 0:
        return
    if dtype == torch.bool:
        actual, expected = actual.to(torch.int64), expected.to(torch.int64)
    elif not dtype.is_floating_point and not dtype.is_complex:
        actual, expected = actual.to(torch.int64), expected.to(torch.int64)
    matches = (actual == expected) | ((actual - expected).abs() <= atol + rtol * expected.abs())
    if equal_nan and (actual.is_floating_point() or actual.is_complex()):
        matches = matches | (actual.isnan() & expected.isnan())
    if bool(matches.all()):
        return
    if actual.dim() == 0:
        raise _Failure(AssertionError, _scalar_msg(actual.item(), expected.item(), rtol, atol))
    raise _Failure(AssertionError, _tensor_msg(actual, expected, matches, rtol, atol))


def _unravel(flat, shape):
    idx = []
    for s in reversed(shape):
        idx.append(flat % s)
        flat //= s
    return tuple(reversed(idx))


def _tensor_msg(actual, expected, matches, rtol, atol):
    equal = rtol == 0 and atol == 0
    total = matches.numel()
    mismatched = int((~matches).sum())
    lines = [f"Tensor-likes are not {'equal' if equal else 'close'}!", "",
             f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"]
    abs_diff = (actual - expected).abs()
    if actual.is_floating_point():
        rel_diff = abs_diff / expected.abs()
    else:
        rel_diff = abs_diff.to(torch.float64) / expected.abs().to(torch.float64)
    shape = list(actual.shape)
    for name, diff, tol in (("absolute", abs_diff, atol), ("relative", rel_diff, rtol)):
        flat = diff.reshape(-1)
        nan = flat.isnan()
        pos = int(nan.nonzero()[0][0]) if bool(nan.any()) else int(flat.argmax())
        value = flat[pos].item()
        line = f"Greatest {name} difference: {_fmt(value)} at index {_unravel(pos, shape)}"
        if not equal:
            line += f" (up to {tol} allowed)"
        lines.append(line)
    return "\n".join(lines)


def _compare(actual, expected, path, opts):
    if isinstance(actual, torch.Tensor) and isinstance(expected, torch.Tensor):
        return _compare_tensors(actual, expected, *opts)
    if _is_scalar(actual) and _is_scalar(expected):
        return _compare_scalars(actual, expected, opts[0], opts[1], opts[2])
    if isinstance(actual, collections.abc.Sequence) and not isinstance(actual, str) \
            and isinstance(expected, collections.abc.Sequence) and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                           path)
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare_item(a, e, path + (i,), opts)
        return
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        ka, ke = set(actual.keys()), set(expected.keys())
        if ka != ke:
            missing, extra = sorted(map(repr, ke - ka)), sorted(map(repr, ka - ke))
            raise _Failure(AssertionError, f"The keys of the mappings do not match:\nMissing keys in the actual "
                                           f"mapping: {missing}\nExtra keys in the actual mapping: {extra}", path)
        for k in expected.keys():
            _compare_item(actual[k], expected[k], path + (k,), opts)
        return
    if actual is None and expected is None:
        return
    raise _Failure(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                              f"{type(expected)}.", path)


def _compare_item(a, e, path, opts):
    try:
        _compare(a, e, path, opts)
    except _Failure as f:
        if not f.path:
            f.path = path
        raise


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    __tracebackhide__ = True
    if (rtol is None) != (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'rtol' if rtol is None else 'atol'}.")
    opts = (rtol, atol, equal_nan, check_device, check_dtype, check_layout, check_stride)
    try:
        _compare(actual, expected, (), opts)
    except _Failure as f:
        text = f.msg
        if f.path and f.exc_type is AssertionError:
            text += "\n\nThe failure occurred for item " + "".join(f"[{p!r}]" for p in f.path)
        if msg is not None and f.exc_type is AssertionError:
            text = msg(text) if callable(msg) else msg
        raise f.exc_type(text) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    import warnings

    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead.", FutureWarning, stacklevel=2)
    if not isinstance(actual, torch.Tensor):
        actual = torch.tensor(actual)
    if not isinstance(expected, torch.Tensor):
        expected = torch.tensor(expected, dtype=actual.dtype)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
