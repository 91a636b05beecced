"""``nn.Parameter``: a tensor that a ``Module`` registers as a parameter when assigned."""

import torch


class Parameter(torch.Tensor):
    """A ``torch.Tensor`` subclass sharing ``data``'s storage, with ``requires_grad=True`` by
    default. Ops on parameters return plain tensors, as in PyTorch."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = torch.empty(0)
        if requires_grad and not (data.is_floating_point() or data.is_complex()):
            # `_make_subclass`'s wording (capitalised), not `requires_grad_`'s.
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        return torch.Tensor._make_subclass(cls, data, requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, proto):
        return (_rebuild_parameter, (self.data, self.requires_grad))


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


class Buffer(torch.Tensor):
    """``nn.Buffer``: marks a tensor as a buffer when assigned to a ``Module`` attribute
    (``persistent=False`` keeps it out of ``state_dict``). Assignment stores a plain tensor."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = torch.empty(0)
        t = torch.Tensor._make_subclass(cls, data, data.requires_grad)
        t.persistent = persistent
        return t


class _UninitializedMixin:
    """A parameter or buffer whose shape is not known yet: an empty tensor until ``materialize``
    gives it a shape (fresh, uninitialised memory, in place, so references to it stay valid) and
    turns it into ``cls_to_become``."""

    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        if dtype is None:
            dtype = self.dtype
        self.data = torch.empty(shape, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    def __repr__(self):
        return f"<{type(self).__name__}>"


class UninitializedParameter(_UninitializedMixin, Parameter):
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return torch.Tensor._make_subclass(cls, torch.empty(0, dtype=dtype), requires_grad)


class UninitializedBuffer(_UninitializedMixin, torch.Tensor):
    cls_to_become = torch.Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        t = torch.Tensor._make_subclass(cls, torch.empty(0, dtype=dtype), requires_grad)
        t.persistent = persistent
        return t


def is_lazy(param):
    return isinstance(param, _UninitializedMixin)
