"""``torch.cpu``: the device module of the CPU (what ``torch.get_device_module("cpu")`` returns)."""

import contextlib

import torch

__all__ = ["is_available", "device_count", "current_device", "set_device", "synchronize", "is_initialized",
           "current_stream", "stream", "Stream", "Event", "StreamContext"]


def is_available():
    return True


def is_initialized():
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def set_device(device):
    pass


def synchronize(device=None):
    """Kernels finish before an op returns: nothing to wait for."""


class Stream:
    """The CPU has one implicit stream."""

    def __init__(self, priority=-1):
        pass

    def wait_stream(self, stream):
        pass

    def synchronize(self):
        pass


class Event:
    def query(self):
        return True

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass


_default_stream = Stream()


def current_stream(device=None):
    return _default_stream


class StreamContext(contextlib.AbstractContextManager):
    def __init__(self, stream):
        self.stream = stream

    def __exit__(self, *args):
        return None


def stream(stream):
    return StreamContext(stream)


def _is_avx2_supported():
    return torch.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512")


def _is_avx512_supported():
    return torch.backends.cpu.get_cpu_capability() == "AVX512"


def __getattr__(name):
    # `torch.cpu.amp` imports on first use (it needs `torch.amp`, which needs this module).
    if name == "amp":
        import importlib

        return importlib.import_module("torch.cpu.amp")
    raise AttributeError(f"module 'torch.cpu' has no attribute {name!r}")
