"""Hook handles and the small helpers ``Module`` shares with containers (``_addindent``,
``_IncompatibleKeys``, ``_typename``)."""

from collections import namedtuple

import torch


class RemovableHandle:
    """What ``register_*_hook`` returns: ``handle.remove()`` unregisters the hook (also on
    leaving a ``with handle:`` block). ``extra_dict`` names dicts holding per-hook flags
    (``with_kwargs``), cleaned up with the hook."""

    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict = hooks_dict
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        if extra_dict is None:
            extra_dict = []
        elif isinstance(extra_dict, dict):
            extra_dict = [extra_dict]
        self.extra_dicts = list(extra_dict)

    def remove(self):
        if self.id in self.hooks_dict:
            del self.hooks_dict[self.id]
        for d in self.extra_dicts:
            if self.id in d:
                del d[self.id]

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, tb):
        self.remove()


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """``load_state_dict``'s result."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(s, num_spaces):
    """Indents every line of ``s`` but the first (how nested module reprs are laid out)."""
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    pad = num_spaces * " "
    return first + "\n" + "\n".join([pad + line for line in lines])


def _typename(obj):
    """``torch.typename``: ``torch.FloatTensor`` for tensors, the qualified class name else."""
    if isinstance(obj, torch.Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in ("", "builtins"):
        return qualname
    return module + "." + qualname
