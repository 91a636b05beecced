"""``torch.nn.utils.skip_init``: build a module without running its parameter initialisation.

PyTorch builds it on the meta device and then allocates uninitialised memory (``to_empty``), so
the values are unspecified. Rynamo has no meta device for modules: it builds the module on the
requested device with its usual initialisation, which is one of the allowed outcomes, and keeps
PyTorch's check that the class accepts ``device=``."""

import torch


def skip_init(module_cls, *args, **kwargs):
    if not issubclass(module_cls, torch.nn.Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    import inspect  # here, not at module import: every `import torch` would pay for importing `inspect`

    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = final_device
    return module_cls(*args, **kwargs)
