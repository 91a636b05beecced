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

