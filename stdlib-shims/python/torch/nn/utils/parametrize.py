"""``torch.nn.utils.parametrize``: a module's parameter or buffer replaced by a function of stored
tensors. The module's class is swapped for a subclass ``Parametrized<Name>`` whose property of that
name runs the parametrizations; the stored tensors live in ``module.parametrizations[name]`` as
``original`` (or ``original0, original1, ...`` when ``right_inverse`` returns several), so state
dicts carry PyTorch's keys."""

import collections
import contextlib

import torch
from torch.nn.modules.container import ModuleDict, ModuleList
from torch.nn.parameter import Parameter

__all__ = ["ParametrizationList", "cached", "is_parametrized", "register_parametrization",
           "remove_parametrizations", "transfer_parametrizations_and_params", "type_before_parametrizations"]

_cache_enabled = 0
_cache = {}


@contextlib.contextmanager
def cached():
    """Inside the block, each parametrized tensor is computed once and reused."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _register_parameter_or_buffer(module, name, x):
    if isinstance(x, Parameter):
        module.register_parameter(name, x)
    else:
        module.register_buffer(name, x)


def _set_in_place(dest, src):
    """``dest`` takes ``src``'s values (PyTorch swaps the storage with ``set_``; same shape needed here)."""
    if dest.shape != src.shape or dest.dtype != src.dtype:
        raise ValueError(f"right_inverse returned a {src.dtype} tensor of shape {tuple(src.shape)} for a "
                         f"{dest.dtype} tensor of shape {tuple(dest.shape)}; Rynamo keeps the original tensor and "
                         "needs the same shape and dtype")
    with torch.no_grad():
        dest.copy_(src)


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the original tensor(s)."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        new = original
        with torch.no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, torch.Tensor) and not isinstance(new, collections.abc.Sequence):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        self.is_tensor = isinstance(new, torch.Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(f"When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}")
            _set_in_place(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, torch.Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                                     f"Got element {i} of the sequence with type {type(originali).__name__}.")
                if isinstance(original, Parameter):
                    originali = Parameter(originali, original.requires_grad)
                originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)

    def right_inverse(self, value):
        """Stores the tensor(s) whose parametrization gives ``value`` (``module.weight = value``)."""
        with torch.no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
            if self.is_tensor:
                if not isinstance(value, torch.Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                _set_in_place(self.original, value)
            else:
                if len(value) != self.ntensors:
                    raise ValueError(f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                                     f"Got a sequence of length {len(value)}")
                for i, tensor in enumerate(value):
                    _set_in_place(getattr(self, f"original{i}"), tensor)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _inject_new_class(module):
    cls = module.__class__
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {})


def _inject_property(module, tensor_name):
    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            key = (id(self), tensor_name)
            if key not in _cache:
                _cache[key] = parametrization()
            return _cache[key]
        return parametrization()

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def is_parametrized(module, tensor_name=None):
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def type_before_parametrizations(module):
    return module.__class__.__bases__[0] if is_parametrized(module) else type(module)


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, torch.Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
            if x.dtype != y.dtype:
                raise ValueError(f"Registering a parametrization may not change the dtype of the tensor, unless the "
                                 f"`unsafe` flag is enabled.\nunparametrized dtype: {y.dtype}\n"
                                 f"parametrized dtype: {x.dtype}")
            if x.shape != y.shape:
                raise ValueError(f"Registering a parametrization may not change the shape of the tensor, unless the "
                                 f"`unsafe` flag is enabled.\nunparametrized shape: {y.shape}\n"
                                 f"parametrized shape: {x.shape}")
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with "
                         f"name '{tensor_name}'")
    return module


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with torch.no_grad():
                t = getattr(module, tensor_name)
            _set_in_place(original, t)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized "
                             "in terms of a sequence of tensors.")
        with torch.no_grad():
            t = getattr(module, tensor_name)
        original0 = parametrizations.original0
        original = Parameter(t.detach(), original0.requires_grad) if isinstance(original0, Parameter) else t.detach()
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Copies the parametrizations (and their originals) of ``from_module`` onto ``to_module``."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for param_func in from_module.parametrizations[name]:
            register_parametrization(to_module, name, param_func)
        with torch.no_grad():
            source = from_module.parametrizations[name]
            target = to_module.parametrizations[name]
            if source.is_tensor:
                _set_in_place(target.original, source.original)
            else:
                for i in range(source.ntensors):
                    _set_in_place(getattr(target, f"original{i}"), getattr(source, f"original{i}"))
    return to_module
