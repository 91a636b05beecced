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
