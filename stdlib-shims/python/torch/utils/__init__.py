"""``torch.utils``: ``data`` (datasets, samplers, DataLoader), ``collect_env``, ``checkpoint``;
submodules import on first use, as ``torch.utils.data`` is reachable right after ``import torch`` in
PyTorch (``model_zoo`` is not: it needs its own import there too)."""


def __getattr__(name):
    import importlib

    if name in ("data", "collect_env", "checkpoint", "_pytree"):
        return importlib.import_module("torch.utils." + name)
    raise AttributeError(f"module 'torch.utils' has no attribute {name!r}")
