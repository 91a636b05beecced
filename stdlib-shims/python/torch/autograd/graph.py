"""``torch.autograd.graph``: the backward graph's ``Node`` type and its hooks."""

import threading

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


class _Disabled(threading.local):
    message = None


_disabled = _Disabled()


class saved_tensors_hooks:
    """Tensors saved for backward inside this block are kept as ``pack_hook(tensor)`` and
    restored with ``unpack_hook(packed)`` when backward needs them (innermost pair wins)."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if _disabled.message is not None:
            raise RuntimeError(_disabled.message)
        _engine._push_saved_tensors_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args):
        _engine._pop_saved_tensors_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Saves tensors on the CPU (every tensor already is here; ``pin_memory`` is accepted)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(tensor):
            return (tensor.device, tensor.cpu())

        def unpack(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """Makes entering ``saved_tensors_hooks`` inside its block raise
    ``RuntimeError(error_message)`` (for features that cannot work with them)."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        self.prev = _disabled.message
        _disabled.message = self.error_message

    def __exit__(self, *args):
        _disabled.message = self.prev
