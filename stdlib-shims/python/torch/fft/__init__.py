"""``torch.fft``: discrete Fourier transforms, as ATen's composites over three primitives.

The registry ops ``torch._fft_c2c``, ``torch._fft_r2c`` and ``torch._fft_c2r`` transform along
given dims with a given scale (kernels in ``rynamo_tensor::ops::fft``, through ``rustfft``); this
module resolves ``n``/``s``/``dim``/``norm`` with PyTorch's rules and messages, promotes the input
(integers to the default float, float32 to complex64, float64 to complex128), zero-pads or trims
it, and picks the primitive, as ``aten/src/ATen/native/SpectralOps.cpp`` does. Dynamo inlines
these functions, so a compiled caller captures the primitives and the pad/trim ops as nodes.
Backward formulas are the primitives' (``FftC2CBackward0``, ...). Under CPU autocast the fourteen
transforms PyTorch lists as ``fp32`` ops (``AutocastCPU``) cast their floating inputs to float32
(``torch._autocast_policy``); ``hfft2``/``ihfft2``/``hfftn``/``ihfftn`` are not listed there.
"""

import math as _math

import torch
import torch._autocast_policy as _autocast_policy

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn",
           "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift",
           "ifftshift"]

Tensor = torch.Tensor

_NAMES = {torch.float32: "Float", torch.float64: "Double", torch.float16: "Half", torch.bfloat16: "BFloat16",
          torch.complex64: "ComplexFloat", torch.complex128: "ComplexDouble", torch.int64: "Long",
          torch.int32: "Int", torch.int16: "Short", torch.int8: "Char", torch.uint8: "Byte", torch.bool: "Bool"}

# ATen's `fft_norm_mode` codes.
_NONE, _BY_ROOT_N, _BY_N = 0, 1, 2


def _norm(norm, forward):
    """ATen's ``norm_from_string``: the scale code for ``norm`` in this direction."""
    if norm is None or norm == "backward":
        return _NONE if forward else _BY_N
    if norm == "forward":
        return _BY_N if forward else _NONE
    if norm == "ortho":
        return _BY_ROOT_N
    raise RuntimeError('Invalid normalization mode: "%s"' % norm)


def _promote(x, require_complex):
    """ATen's ``promote_tensor_fft``: complex stays, integers become the default float, and only
    float32/float64 transform on the CPU."""
    d = x.dtype
    if d.is_complex:
        return x
    if not d.is_floating_point:
        d = torch.get_default_dtype()
    if d != torch.float32 and d != torch.float64:
        raise NotImplementedError("Unsupported dtype %s" % _NAMES[d])
    if require_complex:
        d = torch.complex64 if d == torch.float32 else torch.complex128
    return x if x.dtype == d else x.to(d)


def _wrap(dim, ndim):
    if ndim == 0:
        raise IndexError("Dimension specified as %d but tensor has no dimensions" % dim)
    if dim < -ndim or dim >= ndim:
        raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but got %d)"
                         % (-ndim, ndim - 1, dim))
    return dim + ndim if dim < 0 else dim


def _check_n(n):
    if n < 1:
        raise RuntimeError("Invalid number of data points (%d) specified" % n)


def _check_int(fname, name, v):
    if v is not None and (not isinstance(v, int) or isinstance(v, bool)):
        raise TypeError("%s(): argument '%s' must be int, not %s" % (fname, name, type(v).__name__))


def _no_out(out):
    if out is not None:
        raise NotImplementedError("torch.fft: out= is not supported by Rynamo")


def _resize(x, dims, sizes):
    """ATen's ``resize_fft_input``: trim each dim to its size, zero-pad it when shorter."""
    for d, n in zip(dims, sizes):
        have = x.shape[d]
        if have > n:
            x = x.narrow(d, 0, n)
        elif have < n:
            pad = list(x.shape)
            pad[d] = n - have
            x = torch.cat([x, x.new_zeros(pad)], d)
    return x


# === One-dimensional transforms ===

def _c2c(fname, x, n, dim, norm, forward):
    if not x.is_complex():
        raise RuntimeError("%s expects a complex input tensor, but got %s" % (fname, _NAMES[x.dtype]))
    d = _wrap(dim, x.dim())
    size = x.shape[d] if n is None else n
    _check_n(size)
    if n is not None:
        x = _resize(x, [d], [n])
    return torch._fft_c2c(x, [d], _norm(norm, forward), forward)


def _r2c(fname, x, n, dim, norm, forward, onesided):
    if x.is_complex():
        raise TypeError("%s expects a real input tensor, but got %s" % (fname, _NAMES[x.dtype]))
    x = _promote(x, False)
    d = _wrap(dim, x.dim())
    size = x.shape[d] if n is None else n
    _check_n(size)
    if n is not None:
        x = _resize(x, [d], [n])
    ret = torch._fft_r2c(x, [d], _norm(norm, forward), onesided)
    # The r2c primitive is a forward transform only: the inverse of real input is its conjugate.
    return ret if forward else torch.conj(ret)


def _c2r(fname, x, n, dim, norm, forward):
    x = _promote(x, True)
    d = _wrap(dim, x.dim())
    size = 2 * (x.shape[d] - 1) if n is None else n
    _check_n(size)
    if n is not None:
        x = _resize(x, [d], [size // 2 + 1])
    if forward:
        # hfft: the inverse c2r of the conjugate is the forward transform of a Hermitian signal.
        x = torch.conj(x)
    return torch._fft_c2r(x, [d], _norm(norm, forward), size)


@_autocast_policy.fp32
def fft(input, n=None, dim=-1, norm=None, *, out=None):
    _check_int("fft_fft", "n", n)
    _no_out(out)
    if input.is_complex():
        return _c2c("fft", input, n, dim, norm, True)
    return _r2c("fft", input, n, dim, norm, True, False)


@_autocast_policy.fp32
def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    _check_int("fft_ifft", "n", n)
    _no_out(out)
    if input.is_complex():
        return _c2c("ifft", input, n, dim, norm, False)
    return _r2c("ifft", input, n, dim, norm, False, False)


@_autocast_policy.fp32
def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    _check_int("fft_rfft", "n", n)
    _no_out(out)
    return _r2c("rfft", input, n, dim, norm, True, True)


@_autocast_policy.fp32
def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    _check_int("fft_irfft", "n", n)
    _no_out(out)
    return _c2r("irfft", input, n, dim, norm, False)


@_autocast_policy.fp32
def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    _check_int("fft_hfft", "n", n)
    _no_out(out)
    return _c2r("hfft", input, n, dim, norm, True)


@_autocast_policy.fp32
def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    _check_int("fft_ihfft", "n", n)
    _no_out(out)
    return _r2c("ihfft", input, n, dim, norm, False, True)


# === n-dimensional transforms ===

def _shape_and_dims(x, s, dim):
    """ATen's ``canonicalize_fft_shape_and_dim_args``: the transform dims (wrapped, unique) and
    the signal size along each (``-1`` in ``s``: the input's)."""
    ndim = x.dim()
    if isinstance(dim, int):
        dim = [dim]
    if isinstance(s, int):
        s = [s]
    dims = None
    if dim is not None:
        dims = [_wrap(d, ndim) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if dim is not None and len(dim) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError("Got shape with %d values but input tensor only has %d dimensions." % (len(s), ndim))
        if dims is None:
            dims = list(range(ndim - len(s), ndim))
        shape = [x.shape[d] if n == -1 else n for d, n in zip(dims, s)]
    elif dims is None:
        dims = list(range(ndim))
        shape = list(x.shape)
    else:
        shape = [x.shape[d] for d in dims]
    for n in shape:
        _check_n(n)
    return shape, dims


def _fftn(input, s, dim, norm, forward):
    shape, dims = _shape_and_dims(input, s, dim)
    x = _promote(input, True)
    x = _resize(x, dims, shape)
    return torch._fft_c2c(x, dims, _norm(norm, forward), forward)


@_autocast_policy.fp32
def fftn(input, s=None, dim=None, norm=None, *, out=None):
    _no_out(out)
    return _fftn(input, s, dim, norm, True)


@_autocast_policy.fp32
def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    _no_out(out)
    return _fftn(input, s, dim, norm, False)


@_autocast_policy.fp32
def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    _no_out(out)
    return _fftn(input, s, dim, norm, True)


@_autocast_policy.fp32
def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    _no_out(out)
    return _fftn(input, s, dim, norm, False)


@_autocast_policy.fp32
def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    _no_out(out)
    if input.is_complex():
        raise TypeError("rfftn expects a real-valued input tensor, but got %s" % _NAMES[input.dtype])
    shape, dims = _shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError("rfftn must transform at least one axis")
    x = _resize(_promote(input, False), dims, shape)
    return torch._fft_r2c(x, dims, _norm(norm, True), True)


def _c2r_shape_and_dims(fname, x, s, dim):
    """ATen's ``canonicalize_fft_c2r_shape_and_dim_args``: the dims, the one-sided input sizes and
    the output size of the last (Hermitian) dim."""
    shape, dims = _shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError("%s must transform at least one axis" % fname)
    if isinstance(s, int):
        s = [s]
    last = 2 * (x.shape[dims[-1]] - 1) if s is None or s[-1] == -1 else shape[-1]
    _check_n(last)
    shape[-1] = last // 2 + 1
    return shape, dims, last


@_autocast_policy.fp32
def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    _no_out(out)
    shape, dims, last = _c2r_shape_and_dims("irfftn", input, s, dim)
    x = _resize(_promote(input, True), dims, shape)
    return torch._fft_c2r(x, dims, _norm(norm, False), last)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """A forward c2c over all but the last dim, then the Hermitian last dim as a conjugated c2r."""
    _no_out(out)
    shape, dims, last = _c2r_shape_and_dims("hfftn", input, s, dim)
    x = _resize(_promote(input, True), dims, shape)
    code = _norm(norm, True)
    if len(dims) > 1:
        x = torch._fft_c2c(x, dims[:-1], code, True)
    return torch._fft_c2r(torch.conj(x), dims[-1:], code, last)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The one-sided r2c of the last dim, conjugated (the inverse direction), then an inverse c2c
    over the others."""
    _no_out(out)
    shape, dims = _shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError("ihfftn must transform at least one axis")
    x = _resize(_promote(input, False), dims, shape)
    code = _norm(norm, False)
    tmp = torch.conj(torch._fft_r2c(x, dims[-1:], code, True))
    if len(dims) == 1:
        return tmp
    return torch._fft_c2c(tmp, dims[:-1], code, False)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return hfftn(input, s, dim, norm, out=out)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return ihfftn(input, s, dim, norm, out=out)


@_autocast_policy.fp32
def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return rfftn(input, s, dim, norm, out=out)


@_autocast_policy.fp32
def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return irfftn(input, s, dim, norm, out=out)


# === Helpers ===

def _freq_dtype(dtype):
    d = torch.get_default_dtype() if dtype is None else dtype
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError("fftfreq requires a floating point or complex dtype")
    if d.is_complex:
        # ATen builds the result with `arange`, which has no complex kernel.
        raise NotImplementedError("\"arange_cpu\" not implemented for '%s'" % _NAMES[d])
    return d


def _scale(n, d):
    # C++'s `1.0 / (n * d)`: infinite for n == 0 (the result is empty then).
    return 1.0 / (n * d) if n * d != 0 else _math.inf


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=torch.strided, device=None, requires_grad=False):
    """``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n)``, as ATen: integer steps in the
    dtype, then one multiplication by ``1 / (n * d)``."""
    _no_out(out)
    dt = _freq_dtype(dtype)
    if n < 0:
        raise RuntimeError("Trying to create tensor with negative dimension %d: [%d]" % (n, n))
    r = torch.arange(n, dtype=dt, device=device)
    if n > 1:
        r = torch.cat([r[:(n + 1) // 2], torch.arange(-(n // 2), 0, dtype=dt, device=device)])
    r = r * _scale(n, d)
    return r.requires_grad_() if requires_grad else r


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=torch.strided, device=None, requires_grad=False):
    """``[0, 1, ..., n // 2] / (d * n)``."""
    _no_out(out)
    dt = _freq_dtype(dtype)
    r = torch.arange(n // 2 + 1, dtype=dt, device=device) * _scale(n, d)
    return r.requires_grad_() if requires_grad else r


def _shift(input, dim, extra):
    if dim is None:
        dims = list(range(input.dim()))
    else:
        dims = [_wrap(d, input.dim()) for d in ([dim] if isinstance(dim, int) else dim)]
    shifts = [(input.shape[d] + extra) // 2 for d in dims]
    return torch.roll(input, shifts, dims)


def fftshift(input, dim=None):
    """The zero frequency moved to the centre: ``roll`` by ``n // 2`` along each dim."""
    return _shift(input, dim, 0)


def ifftshift(input, dim=None):
    """``fftshift``'s inverse: ``roll`` by ``(n + 1) // 2``."""
    return _shift(input, dim, 1)
