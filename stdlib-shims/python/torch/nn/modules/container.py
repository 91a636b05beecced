"""``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList``, ``ParameterDict``.

Children are kept in ``_modules`` under the keys ``"0"``, ``"1"``, ... (``Sequential``,
``ModuleList``), which is what their ``state_dict`` keys and reprs show."""

import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping

import torch
from torch.nn.modules._hooks import _addindent, _typename
from torch.nn.modules.module import Module
from torch.nn.parameter import Parameter


def _abs_index(idx, size):
    idx = operator.index(idx)
    if not (-size <= idx < size):
        raise IndexError(f"index {idx} is out of range")
    return idx + size if idx < 0 else idx


class Sequential(Module):
    """Runs its children in order, each on the previous one's output."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_abs_index(idx, len(self._modules))]

    def __setitem__(self, idx, module):
        key = list(self._modules.keys())[_abs_index(idx, len(self._modules))]
        setattr(self, key, module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, list(self._modules.keys())[_abs_index(idx, len(self._modules))])
        # Keep the numbering contiguous.
        values = list(self._modules.values())
        self._modules = {str(i): m for i, m in enumerate(values)}

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(
                f"add operator supports only objects of Sequential class, but {type(other)} is given."
            )
        ret = Sequential()
        for layer in self:
            ret.append(layer)
        for layer in other:
            ret.append(layer)
        return ret

    def __iadd__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(
                f"add operator supports only objects of Sequential class, but {type(other)} is given."
            )
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(i + offset), module)
        return self

    def __mul__(self, other):
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        combined = Sequential()
        offset = 0
        for _ in range(other):
            for module in self:
                combined.add_module(str(offset), module)
                offset += 1
        return combined

    __rmul__ = __mul__

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not (-n <= index <= n):
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def extend(self, sequential):
        for layer in sequential:
            self.append(layer)
        return self

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules, registered as children; it has no ``forward``."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[str(_abs_index(idx, len(self._modules)))]

    def __setitem__(self, idx, module):
        setattr(self, str(_abs_index(idx, len(self._modules))), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(_abs_index(idx, len(self._modules))))
        values = list(self._modules.values())
        self._modules = {str(i): m for i, m in enumerate(values)}

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        combined = ModuleList()
        for i, module in enumerate(list(self) + list(other)):
            combined.add_module(str(i), module)
        return combined

    def __repr__(self):
        # Runs of identical children print once: `(0-2): 3 x Linear(...)`.
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        blocks = []  # [start, end, repr]
        for i, r in enumerate(reprs):
            if blocks and blocks[-1][2] == r:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, r])
        lines = []
        for start, end, r in blocks:
            if start == end:
                line = f"({start}): {r}"
            else:
                line = f"({start}-{end}): {end - start + 1} x {r}"
            lines.append(_addindent(line, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def insert(self, index, module):
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def extend(self, modules):
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got " + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self


class ModuleDict(Module):
    """An insertion-ordered dict of modules, registered as children."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleDict.update should be called with an iterable of key/value pairs, but got "
                + type(modules).__name__
            )
        if isinstance(modules, (OrderedDict, ModuleDict, Mapping)):
            for key, module in modules.items():
                self[key] = module
            return
        for j, m in enumerate(modules):
            if not isinstance(m, Iterable):
                raise TypeError(
                    "ModuleDict update sequence element #" + str(j) + " should be Iterable; is" + type(m).__name__
                )
            if not len(m) == 2:
                raise ValueError(
                    "ModuleDict update sequence element #" + str(j) + " has length " + str(len(m)) + "; 2 is required"
                )
            self[m[0]] = m[1]


def _param_line(key, p, dtype_name):
    """One line of ``ParameterList``/``ParameterDict``'s repr. PyTorch names the dtype
    (``torch.float32``) in the list and the tensor type (``torch.FloatTensor``) in the dict."""
    if isinstance(p, torch.Tensor):
        size = "x".join(str(s) for s in p.size())
        kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
        return f"  ({key}): {kind} containing: [{dtype_name(p)} of size {size}]"
    return f"  ({key}): Object of type: {type(p).__name__}"


class ParameterList(Module):
    """A list of parameters (plain tensors are wrapped in ``Parameter``)."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__([self[i] for i in range(self._size)[idx]])
        return getattr(self, str(_abs_index(idx, self._size)))

    def __setitem__(self, idx, param):
        idx = _abs_index(idx, self._size)
        if isinstance(param, torch.Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, str(idx), param)

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter([self[i] for i in range(self._size)])

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def append(self, value):
        new_idx = self._size
        self._size += 1
        self[new_idx] = value
        return self

    def extend(self, values):
        if not isinstance(values, Iterable) or isinstance(values, torch.Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got " + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join([_param_line(k, p, lambda t: t.dtype) for k, p in enumerate(self)])

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An insertion-ordered dict of parameters (plain tensors are wrapped in ``Parameter``)."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return getattr(self, key)

    def __setitem__(self, key, value):
        self._keys[key] = None
        if isinstance(value, torch.Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, key, value)

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return [(k, self[k]) for k in self._keys]

    def values(self):
        return [self[k] for k in self._keys]

    def get(self, key, default=None):
        return self[key] if key in self else default

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def clear(self):
        for k in list(self._keys):
            del self[k]

    def update(self, parameters):
        if isinstance(parameters, (Mapping, ParameterDict)):
            for key, value in parameters.items():
                self[key] = value
        else:
            for key, value in parameters:
                self[key] = value

    def extra_repr(self):
        return "\n".join([_param_line(k, p, _typename) for k, p in self.items()])

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")
