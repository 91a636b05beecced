"""``torch.accelerator``: the current accelerator. Rynamo runs on the CPU only, so there is none
(as in a CPU-only PyTorch build): ``is_available()`` is False and ``current_accelerator()`` None."""

__all__ = ["is_available", "current_accelerator", "device_count", "current_device_index", "set_device_index",
           "synchronize"]


def is_available():
    return False


def current_accelerator(check_available=False):
    return None


def device_count():
    return 0


def _no_accelerator(*args, **kwargs):
    raise RuntimeError("Accelerator device is not available (Rynamo runs on the CPU only)")


current_device_index = current_device_idx = set_device_index = set_device_idx = _no_accelerator


def synchronize(device=None):
    _no_accelerator()
