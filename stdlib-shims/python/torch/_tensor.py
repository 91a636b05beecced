"""Tensor methods written in Python, as in PyTorch's ``torch/_tensor.py``: the autograd entry
points. Installed on ``torch.Tensor`` by ``torch/__init__.py``."""

import torch


def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Computes the gradient of this tensor with respect to the graph's leaves."""
    torch.autograd.backward(
        self, gradient, retain_graph, create_graph, inputs=inputs
    )


def register_hook(self, hook):
    """Registers ``hook(grad) -> Tensor | None`` on this tensor's gradient."""
    if not self.requires_grad:
        raise RuntimeError(
            "cannot register a hook on a tensor that doesn't require gradient"
        )
    from torch.autograd.graph import _tensor_register_hook

    return _tensor_register_hook(self, hook)


def register_post_accumulate_grad_hook(self, hook):
    """Registers ``hook(tensor)`` to run after this leaf's ``.grad`` is accumulated."""
    if not self.requires_grad:
        raise RuntimeError(
            "cannot register a hook on a tensor that doesn't require gradient"
        )
    if self.grad_fn is not None:
        raise RuntimeError(
            "post accumulate grad hooks cannot be registered on non-leaf tensors"
        )
    from torch.autograd.graph import _tensor_register_post_accumulate_grad_hook

    return _tensor_register_post_accumulate_grad_hook(self, hook)


# The in-place view methods: `x` itself takes the layout of the out-of-place view (PyTorch's
# `unsqueeze_`, `t_`, ... change the tensor's metadata, never its data).
def unsqueeze_(self, dim):
    return self._set_view_(self.unsqueeze(dim))


def squeeze_(self, dim=None):
    return self._set_view_(self.squeeze() if dim is None else self.squeeze(dim))


def t_(self):
    return self._set_view_(self.t())


def transpose_(self, dim0, dim1):
    return self._set_view_(self.transpose(dim0, dim1))


def swapdims_(self, dim0, dim1):
    return self._set_view_(self.transpose(dim0, dim1))


def swapaxes_(self, axis0, axis1):
    return self._set_view_(self.transpose(axis0, axis1))


def as_strided_(self, size, stride, storage_offset=None):
    return self._set_view_(self.as_strided(size, stride, storage_offset))



def unfold(self, dimension, size, step):
    """Every `size`-long slice of `dimension`, `step` apart, as a new last dimension: a view over
    the same storage (``as_strided``), with PyTorch's checks."""
    nd = self.dim()
    if nd == 0:
        # A 0-d tensor unfolds as one element along a virtual dimension.
        if dimension not in (0, -1):
            raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], but got {dimension})")
        if size > 1:
            raise RuntimeError(f"maximum size for tensor at dimension 0 is 1 but size is {size}")
        if step <= 0:
            raise RuntimeError(f"step is {step} but must be > 0")
        return self.as_strided([size], [1])
    if not -nd <= dimension < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dimension})")
    d = dimension % nd
    length = self.shape[d]
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    shape = list(self.shape)
    strides = list(self.stride())
    shape[d] = (length - size) // step + 1
    shape.append(size)
    strides.append(strides[d])
    strides[d] = strides[d] * step
    return self.as_strided(shape, strides)


_NEW_SIGNATURES = """ * (*, torch.device device = None)
 * (torch.Storage storage)
 * (Tensor other)
 * (tuple of ints size, *, torch.device device = None)
 * (object data, *, torch.device device = None)
"""


def _new_bad_args(args, kwargs):
    got = ", ".join([type(a).__name__ for a in args] + [f"{k}={type(v).__module__}.{type(v).__name__}"
                                                        for k, v in kwargs.items()])
    return TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     + _NEW_SIGNATURES)


def new(self, *args, **kwargs):
    """The legacy constructor: ``x.new(2, 3)`` (uninitialised sizes), ``x.new(torch.Size)``,
    ``x.new([data])`` (a list or tuple is data), ``x.new(other)`` (an alias of ``other``, which
    must have ``x``'s dtype) and ``x.new()`` (empty); always ``x``'s dtype."""
    if any(k != "device" for k in kwargs):
        raise _new_bad_args(args, kwargs)
    if kwargs.get("device") is not None and torch.device(kwargs["device"]).type != "cpu":
        raise RuntimeError(f"new(): expected a cpu device, but got {kwargs['device']}")
    if not args:
        return torch.empty(0, dtype=self.dtype)
    if all(isinstance(a, int) and not isinstance(a, bool) for a in args) or (
            len(args) == 1 and isinstance(args[0], torch.Size)):
        return torch.empty(*args, dtype=self.dtype)
    if len(args) != 1:
        raise _new_bad_args(args, kwargs)
    data = args[0]
    if isinstance(data, torch.Tensor):
        if data.dtype != self.dtype:
            raise TypeError(f"expected {self.dtype} (got {data.dtype})")
        return data.view_as(data)  # an alias sharing storage (and autograd history), not `data` itself
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if not isinstance(data, (list, tuple)):
        raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
    return torch.tensor(data, dtype=self.dtype)
