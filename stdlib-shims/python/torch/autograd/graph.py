"""``torch.autograd.graph``: the backward graph's ``Node`` type and its hooks."""

import _rynamo_autograd as _engine

Node = _engine.Node


class RemovableHandle:
    """Removes the hook it was returned for (``torch.utils.hooks.RemovableHandle``)."""

    _next_id = 0

    def __init__(self, remove):
        self._remove = remove
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self):
        if self._remove is not None:
            self._remove()
            self._remove = None

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.remove()


def _register_hook(self, fn):
    """``fn(grad_inputs, grad_outputs) -> tuple | None``, run after the node."""
    hid = self._register_hook(fn)
    return RemovableHandle(lambda: self._remove_hook(hid))


def _register_prehook(self, fn):
    """``fn(grad_outputs) -> tuple | None``, run before the node."""
    hid = self._register_prehook(fn)
    return RemovableHandle(lambda: self._remove_hook(hid))


Node.register_hook = _register_hook
Node.register_prehook = _register_prehook


def _tensor_register_hook(tensor, hook):
    hid = _engine._register_tensor_hook(tensor, hook)
    return RemovableHandle(lambda: _engine._remove_tensor_hook(tensor, hid))


def _tensor_register_post_accumulate_grad_hook(tensor, hook):
    hid = _engine._register_post_accumulate_grad_hook(tensor, hook)
    return RemovableHandle(lambda: _engine._remove_tensor_hook(tensor, hid))
