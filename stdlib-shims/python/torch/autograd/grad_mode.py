"""Grad-mode context managers, usable as decorators (``@torch.no_grad()`` and
``@torch.no_grad``), as in ``torch/autograd/grad_mode.py``."""

import functools

from torch import _C


class _DecoratorContextManager:
    """A context manager that also decorates functions: each call runs inside a fresh copy."""

    def __call__(self, orig_func):
        @functools.wraps(orig_func)
        def decorate_context(*args, **kwargs):
            with self.clone():
                return orig_func(*args, **kwargs)

        return decorate_context

    def clone(self):
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Allows the decorator form without parentheses (``@torch.no_grad``)."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Disables grad mode in its block."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, exc_type, exc_value, traceback):
        _C._set_grad_enabled(self.prev)


class enable_grad(_NoParamDecoratorContextManager):
    """Enables grad mode in its block."""

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(True)

    def __exit__(self, exc_type, exc_value, traceback):
        _C._set_grad_enabled(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """Sets grad mode on construction; as a context manager, restores it on exit."""

    def __init__(self, mode):
        self.prev = _C.is_grad_enabled()
        self.mode = bool(mode)
        _C._set_grad_enabled(self.mode)

    def __call__(self, orig_func):
        _C._set_grad_enabled(self.prev)
        return super().__call__(orig_func)

    def __enter__(self):
        _C._set_grad_enabled(self.mode)

    def __exit__(self, exc_type, exc_value, traceback):
        _C._set_grad_enabled(self.prev)

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Inference mode: grad mode off, and ``torch.is_inference_mode_enabled()`` on."""

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)

    def __init__(self, mode=True):
        self.mode = mode

    def __enter__(self):
        self.prev = (_C.is_inference_mode_enabled(), _C.is_grad_enabled())
        _C._set_inference_mode(self.mode)
        if self.mode:
            _C._set_grad_enabled(False)

    def __exit__(self, exc_type, exc_value, traceback):
        _C._set_inference_mode(self.prev[0])
        _C._set_grad_enabled(self.prev[1])

    def clone(self):
        return self.__class__(self.mode)
