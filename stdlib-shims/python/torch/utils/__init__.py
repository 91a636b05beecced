"""``torch.utils``: ``data`` (datasets, samplers, DataLoader), ``collect_env``; submodules import on
first use, as ``torch.utils.data`` is reachable right after ``import torch`` in PyTorch."""


def __getattr__(name):
    import importlib

    if name in ("data", "collect_env"):
        return importlib.import_module("torch.utils." + name)
    raise AttributeError(f"module 'torch.utils' has no attribute {name!r}")
