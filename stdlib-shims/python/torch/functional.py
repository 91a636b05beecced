"""``torch.functional``: shape helpers written over registry ops, as in PyTorch's module of
that name (and ``torch._refs`` for the decompositions).

Dynamo inlines these functions (calls from user code into ``torch`` are traced), so a compiled
caller captures the registry ops they run, not a graph break. Every check reads only shapes,
dtypes and Python arguments, which Dynamo guards; none reads tensor data.
"""

import builtins as _builtins
import warnings as _warnings

import torch

__all__ = [
    "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_tensors", "broadcast_to",
    "column_stack", "dsplit", "dstack", "hsplit", "hstack", "meshgrid", "movedim",
    "row_stack", "tensor_split", "vsplit", "vstack",
]


def _wrap_dim(dim, ndim):
    """A dim in ``[-ndim, ndim)`` (a 0-d tensor accepts -1 and 0), PyTorch's IndexError else."""
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if dim < lo or dim > hi:
        raise IndexError(
            "Dimension out of range (expected to be in range of [%d, %d], but got %d)" % (lo, hi, dim)
        )
    return dim + ndim if dim < 0 and ndim > 0 else (0 if dim < 0 else dim)


def _broadcast_shape(shapes):
    """The shape every one of ``shapes`` broadcasts to, with the message PyTorch's
    ``infer_size`` raises."""
    out = []
    for shape in shapes:
        shape = list(shape)
        if len(shape) > len(out):
            out = [1] * (len(shape) - len(out)) + out
        pad = [1] * (len(out) - len(shape)) + shape
        for i in range(len(out)):
            a, b = out[i], pad[i]
            if a != b and a != 1 and b != 1:
                raise RuntimeError(
                    "The size of tensor a (%d) must match the size of tensor b (%d) at "
                    "non-singleton dimension %d" % (a, b, i)
                )
            out[i] = b if a == 1 else a
    return out


def broadcast_to(input, size, *more):
    """``input`` expanded to ``size`` (a view); ``x.broadcast_to(2, 3)`` takes the sizes
    unpacked, as PyTorch's int-list arguments do."""
    return input.expand((size,) + more if more else size)


def broadcast_tensors(*tensors):
    """Views of ``tensors`` expanded to their common broadcast shape."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    shape = _broadcast_shape([t.shape for t in tensors])
    return tuple(t.expand(shape) for t in tensors)


def _atleast(tensors, name, fix):
    if len(tensors) == 1:
        tensors = tensors[0]
        if isinstance(tensors, torch.Tensor):
            return fix(tensors)
        return tuple(fix(t) for t in tensors)
    return tuple(fix(t) for t in tensors)


def atleast_1d(*tensors):
    """0-d tensors as shape ``(1,)``; others unchanged."""
    return _atleast(tensors, "atleast_1d", lambda t: t.reshape(1) if t.dim() == 0 else t)


def _to_2d(t):
    if t.dim() == 0:
        return t.reshape(1, 1)
    return t.unsqueeze(0) if t.dim() == 1 else t


def atleast_2d(*tensors):
    """0-d tensors as ``(1, 1)``, 1-d ones as ``(1, n)``; others unchanged."""
    return _atleast(tensors, "atleast_2d", _to_2d)


def _to_3d(t):
    if t.dim() == 0:
        return t.reshape(1, 1, 1)
    if t.dim() == 1:
        return t.reshape(1, t.shape[0], 1)
    return t.unsqueeze(-1) if t.dim() == 2 else t


def atleast_3d(*tensors):
    """0-d as ``(1, 1, 1)``, ``(n,)`` as ``(1, n, 1)``, ``(m, n)`` as ``(m, n, 1)``."""
    return _atleast(tensors, "atleast_3d", _to_3d)


def _nonempty(tensors, name):
    if len(tensors) == 0:
        raise RuntimeError("%s expects a non-empty TensorList" % name)


def hstack(tensors):
    """Concatenation along dim 1, or dim 0 for 1-d tensors (after ``atleast_1d``)."""
    _nonempty(tensors, "hstack")
    ts = [atleast_1d(t) for t in tensors]
    return torch.cat(ts, 0 if ts[0].dim() == 1 else 1)


def vstack(tensors):
    """Concatenation along dim 0 after ``atleast_2d``."""
    _nonempty(tensors, "vstack")
    return torch.cat([_to_2d(t) for t in tensors], 0)


row_stack = vstack


def dstack(tensors):
    """Concatenation along dim 2 after ``atleast_3d``."""
    _nonempty(tensors, "dstack")
    return torch.cat([_to_3d(t) for t in tensors], 2)


def column_stack(tensors):
    """0-d and 1-d tensors become columns ``(n, 1)``; then concatenation along dim 1."""
    _nonempty(tensors, "column_stack")
    cols = [t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in tensors]
    return torch.cat(cols, 1)


_meshgrid_warned = False


def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 0-d/1-d tensors. ``indexing='ij'`` (the default, with PyTorch's
    one-time warning when it is not given) or ``'xy'`` (the first two output dims swapped)."""
    global _meshgrid_warned
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    if indexing is None:
        if not _meshgrid_warned:
            _meshgrid_warned = True
            _warnings.warn(
                "torch.meshgrid: in an upcoming release, it will be required to pass the "
                "indexing argument.",
                UserWarning,
            )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise ValueError(
            "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: %s" % indexing
        )
    if len(tensors) == 0:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for i, t in enumerate(tensors):
        if t.dim() > 1:
            raise RuntimeError(
                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: %r" % (t,)
            )
        if t.dtype != tensors[0].dtype:
            raise RuntimeError(
                "torch.meshgrid: Expected all tensors in the tensor list to have the same dtype"
            )
    ts = list(tensors)
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    sizes = [t.numel() for t in ts]
    grids = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = -1
        grids.append(t.reshape(view).expand(sizes))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def movedim(input, source, destination):
    """``input`` with the dims ``source`` moved to positions ``destination`` (a view); the
    other dims keep their order."""
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            "movedim: Invalid source or destination dims: source (%s dims) should contain the "
            "same number of dims as destination (%s dims)" % (src, dst)
        )
    n = input.dim()
    src_n = [_wrap_dim(d, n) for d in src]
    dst_n = [_wrap_dim(d, n) for d in dst]
    for name, dims, given in (("source", src_n, src), ("destination", dst_n, dst)):
        if len(set(dims)) != len(dims):
            raise RuntimeError("movedim: repeated dim in `%s` (%s)" % (name, given))
    perm = [-1] * n
    for s, d in zip(src_n, dst_n):
        perm[d] = s
    rest = iter(d for d in range(n) if d not in src_n)
    perm = [p if p != -1 else next(rest) for p in perm]
    return input.permute(perm)


def tensor_split(input, indices_or_sections, dim=0):
    """Views of ``input`` split into ``n`` nearly equal parts along ``dim`` (the first
    ``size % n`` one longer), or at the given indices."""
    if input.dim() == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    d = _wrap_dim(dim, input.dim())
    size = input.shape[d]
    ios = indices_or_sections
    if isinstance(ios, torch.Tensor):
        if ios.dtype != torch.int64:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to have dtype of long, but got %s"
                % (ios.dtype,)
            )
        if ios.dim() > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                "one-dimensional tensor, but got a tensor with %d dims" % ios.dim()
            )
        ios = ios.item() if ios.dim() == 0 else ios.tolist()
    if isinstance(ios, int):
        if ios <= 0:
            raise RuntimeError("number of sections must be larger than 0, got %d" % ios)
        base, extra = divmod(size, ios)
        bounds, start = [], 0
        for i in range(ios):
            length = base + (1 if i < extra else 0)
            bounds.append((start, length))
            start += length
    else:
        bounds, start = [], 0
        for idx in list(ios) + [size]:
            idx = _builtins.min(_builtins.max(idx + size if idx < 0 else idx, 0), size)
            bounds.append((start, _builtins.max(idx - start, 0)))
            start = _builtins.max(start, idx)
    return tuple(input.narrow(d, s, n) for s, n in bounds)


def _split_at(input, ios, dim, name, min_dims):
    if input.dim() < min_dims:
        raise RuntimeError(
            "torch.%s requires a tensor with at least %d dimension, but got a tensor with %d "
            "dimensions!" % (name, min_dims, input.dim())
        )
    if isinstance(ios, int):
        size = input.shape[dim]
        if ios == 0 or size % ios != 0:
            raise RuntimeError(
                "torch.%s attempted to split along dimension %d, but the size of the dimension %d "
                "is not divisible by the split_size %d!" % (name, dim, size, ios)
            )
    return tensor_split(input, ios, dim)


def hsplit(input, indices_or_sections):
    """``tensor_split`` along dim 1 (dim 0 for 1-d tensors); an int must divide evenly."""
    return _split_at(input, indices_or_sections, 0 if input.dim() == 1 else 1, "hsplit", 1)


def vsplit(input, indices_or_sections):
    """``tensor_split`` along dim 0 of a tensor with at least 2 dims."""
    return _split_at(input, indices_or_sections, 0, "vsplit", 2)


def dsplit(input, indices_or_sections):
    """``tensor_split`` along dim 2 of a tensor with at least 3 dims."""
    return _split_at(input, indices_or_sections, 2, "dsplit", 3)

