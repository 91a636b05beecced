"""The forward pre-hooks of the deprecated ``weight_norm``/``spectral_norm``: one per parameter
name, found by type and name, removed with the parameter restored."""


def refuse_second(module, hook_cls, name, what):
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, hook_cls) and hook.name == name:
            raise RuntimeError(f"Cannot register two {what} hooks on the same parameter {name}")


def remove(module, hook_cls, name, what):
    """Runs the ``hook_cls`` hook's ``remove`` for parameter ``name`` and unregisters it."""
    for k, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, hook_cls) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"{what} of '{name}' not found in {module}")
