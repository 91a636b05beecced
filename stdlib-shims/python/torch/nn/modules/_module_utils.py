"""The free functions behind ``Module``'s registration checks, ``load_state_dict`` and ``to``
(kept out of ``module.py`` so that it holds the class and the global hooks only)."""

import torch
from torch.nn.modules._hooks import _IncompatibleKeys, _typename
from torch.nn.parameter import Parameter


def _check_name(kind, name, module):
    """The checks `register_buffer`/`register_parameter` share."""
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
    if "." in name:
        raise KeyError(f"{kind} name can't contain \".\"")
    if name == "":
        raise KeyError(f"{kind} name can't be empty string \"\"")


def _remove_from(name, *dicts_or_sets):
    for d in dicts_or_sets:
        if name in d:
            if isinstance(d, dict):
                del d[name]
            else:
                d.discard(name)


def _copy_into(module, name, param, key, value, assign, error_msgs):
    """Loads one state-dict entry into ``param`` (``module.<name>``), recording errors."""
    if not isinstance(value, torch.Tensor):
        error_msgs.append(
            f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like object '
            f"from checkpoint but received {type(value)}"
        )
        return
    if len(param.shape) == 0 and len(value.shape) == 1:
        value = value[0]
    if value.shape != param.shape:
        error_msgs.append(
            f"size mismatch for {key}: copying a param with shape {value.shape} from checkpoint, "
            f"the shape in current model is {param.shape}."
        )
        return
    if assign:
        if isinstance(param, Parameter):
            if not isinstance(value, Parameter):
                value = Parameter(value, requires_grad=param.requires_grad)
            module._parameters[name] = value
        else:
            module._buffers[name] = value
        return
    try:
        with torch.no_grad():
            param.copy_(value)
    except Exception as ex:
        error_msgs.append(
            f'While copying the parameter named "{key}", whose dimensions in the model are {param.size()} '
            f"and whose dimensions in the checkpoint are {value.size()}, an exception occurred : {ex.args}."
        )


def _load_recursive(module, state_dict, prefix, metadata, strict, assign, missing, unexpected, errors):
    local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
    if assign:
        local_metadata["assign_to_params_buffers"] = True
    module._load_from_state_dict(state_dict, prefix, local_metadata, True, missing, unexpected, errors)
    for name, child in module._modules.items():
        if child is not None:
            child_prefix = prefix + name + "."
            child_state = {k: v for k, v in state_dict.items() if k.startswith(child_prefix)}
            _load_recursive(child, child_state, child_prefix, metadata, strict, assign, missing, unexpected, errors)
    incompatible = _IncompatibleKeys(missing, unexpected)
    for hook in module._load_state_dict_post_hooks.values():
        hook(module, incompatible)


def _parse_to(args, kwargs):
    """``(device, dtype, non_blocking)`` from ``Module.to``'s overloads: ``to(device, dtype)``,
    ``to(dtype)``, ``to(tensor)``, and the keywords ``device=``, ``dtype=``, ``non_blocking=``."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    kwargs.pop("memory_format", None)
    kwargs.pop("copy", None)
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments - got unexpected keyword {next(iter(kwargs))!r}")
    rest = list(args)
    if rest and isinstance(rest[0], torch.Tensor):
        t = rest.pop(0)
        device, dtype = t.device, t.dtype
    elif rest and isinstance(rest[0], torch.dtype):
        dtype = rest.pop(0)
    elif rest and (isinstance(rest[0], (str, int, torch.device)) and not isinstance(rest[0], bool)):
        device = torch.device(rest.pop(0))
        if rest and isinstance(rest[0], torch.dtype):
            dtype = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        non_blocking = rest.pop(0)
    if rest:
        raise TypeError(f"to() received an invalid combination of arguments - got {tuple(args)!r}")
    if isinstance(device, (str, int)):
        device = torch.device(device)
    return device, dtype, non_blocking
