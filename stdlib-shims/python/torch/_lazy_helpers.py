"""Top-level ``torch`` functions kept out of ``torch/__init__.py`` (served lazily from there):
``typename``, ``frombuffer``, ``get_rng_state`` / ``set_rng_state``."""

import _rynamo_serialization as _native

import torch


def typename(obj):
    """``torch.FloatTensor`` for a float32 tensor; the qualified class name otherwise."""
    from torch.optim.optimizer import _typename

    return _typename(obj)


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over the bytes of ``buffer`` (an object with the buffer protocol), sharing its
    memory when the buffer is writable."""
    t = _native.frombuffer(buffer, dtype, count, offset)
    if requires_grad:
        t.requires_grad_(True)
    return t


def get_rng_state():
    """The default generator's state as a uint8 tensor (``set_rng_state`` restores it)."""
    return torch.default_generator.get_state()


def set_rng_state(new_state):
    torch.default_generator.set_state(new_state)
