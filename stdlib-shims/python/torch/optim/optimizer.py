"""``torch.optim.Optimizer``: parameter groups, per-parameter state, ``state_dict`` in PyTorch's
layout, step hooks and ``zero_grad``.

Subclasses implement ``step`` with in-place tensor ops under ``torch.no_grad()`` (PyTorch's
single-tensor path), so each update is a handful of registry ops per parameter.
"""

import functools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain

import torch
from torch.nn.modules._hooks import RemovableHandle

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]


class _RequiredParameter:
    """Marks a hyper-parameter every group must give (``lr`` of old SGD)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

_global_step_pre_hooks = OrderedDict()
_global_step_post_hooks = OrderedDict()


def register_optimizer_step_pre_hook(hook):
    """A hook ``hook(optimizer, args, kwargs)`` run before every optimizer's ``step``."""
    handle = RemovableHandle(_global_step_pre_hooks)
    _global_step_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook):
    """A hook ``hook(optimizer, args, kwargs)`` run after every optimizer's ``step``."""
    handle = RemovableHandle(_global_step_post_hooks)
    _global_step_post_hooks[handle.id] = hook
    return handle


def _use_grad_for_differentiable(func):
    """Runs ``step`` under ``no_grad`` unless the group asks for ``differentiable``."""

    @functools.wraps(func)
    def _use_grad(self, *args, **kwargs):
        prev = torch.is_grad_enabled()
        try:
            torch.set_grad_enabled(self.defaults.get("differentiable", False))
            return func(self, *args, **kwargs)
        finally:
            torch.set_grad_enabled(prev)

    return _use_grad


def _get_value(x):
    """A Python number from a step counter (a 0-d tensor or a number); while Dynamo traces, the
    counter as a float64 tensor, so the bias corrections stay in the graph instead of breaking it
    on ``item()`` (as PyTorch's ``_get_value``), computed at the precision of eager's Python floats
    (RAdam's rectification cancels ~1e-4 of its digits in float32)."""
    if torch.compiler.is_compiling():
        return x.to(torch.float64) if isinstance(x, torch.Tensor) else x
    return x.item() if isinstance(x, torch.Tensor) else x


def _addcdiv_(p, tensor1, tensor2, value):
    """``p.addcdiv_(tensor1, tensor2, value=value)``; while Dynamo traces, ``value`` may be a 0-d
    tensor (the step is one, see ``_get_value``) and is applied as ``p += tensor1 / tensor2 * value``,
    as Dynamo rewrites ``addcdiv_`` with a tensor value."""
    if isinstance(value, torch.Tensor):
        return p.add_(tensor1 / tensor2 * value)
    return p.addcdiv_(tensor1, tensor2, value=value)


def _to_scalar(x):
    """A one-element tensor hyper-parameter as a number (PyTorch accepts ``lr=torch.tensor(0.1)``)."""
    if isinstance(x, torch.Tensor) and x.numel() == 1:
        return x.item()
    return x


def _check_lr(lr):
    if isinstance(lr, torch.Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= _to_scalar(lr):
        raise ValueError(f"Invalid learning rate: {lr}")


def _check_foreach_fused(foreach, fused, differentiable):
    if fused and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    if fused and differentiable:
        raise RuntimeError("`fused` does not support `differentiable`")


# The dtypes the multi-tensor ops (`torch._fused_adam_`, ...) update; PyTorch's fused CPU kernels
# take the same four.
_MULTI_TENSOR_DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
_FUSED_DEVICES = "['mps', 'cuda', 'xpu', 'hpu', 'cpu', 'mtia', 'privateuseone']"


def _multi_tensor_split(group, params, states, state_keys):
    """Splits a group's parameters (those with gradients) into the ones its multi-tensor op
    updates and the ones the single-tensor path updates. The op runs by default and for
    ``foreach=True`` or ``fused=True`` (it is bitwise equal to the single-tensor path, so the
    choice only changes speed); ``foreach=False``, ``differentiable=True`` and a step traced by
    torch.compile (where the single-tensor ops are what Dynamo captures and the backend fuses)
    take the single-tensor path. A parameter whose gradient or state is not a dense tensor of
    its own dtype and layout also does, and so does a group listing a parameter twice.
    ``fused=True`` refuses non-float parameters with PyTorch's error."""
    fused = group.get("fused")
    if group.get("differentiable") or torch.compiler.is_compiling():
        return [], params
    if group.get("foreach") is False and not fused:
        return [], params
    if len({id(p) for p in params}) != len(params):
        # A parameter listed twice is updated twice, in order: the single-tensor path does that.
        return [], params
    fast, rest = [], []
    for p in params:
        if fused and not p.dtype.is_floating_point:
            raise RuntimeError("`fused=True` requires all the params to be floating point Tensors of "
                               f"supported devices: {_FUSED_DEVICES} but {p.dtype} and {p.device.type}")
        g = p.grad
        ok = (p.dtype in _MULTI_TENSOR_DTYPES and g.dtype == p.dtype and not g.is_sparse
              and p.is_contiguous() and g.is_contiguous() and g.shape == p.shape)
        if ok:
            st = states[p]
            for k in state_keys:
                t = st.get(k)
                if t is not None and not (t.dtype == p.dtype and t.is_contiguous() and t.shape == p.shape):
                    ok = False
        (fast if ok else rest).append(p)
    return fast, rest


_TENSOR_TYPE_NAMES = {
    "float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor", "bfloat16": "BFloat16Tensor",
    "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor", "int8": "CharTensor",
    "uint8": "ByteTensor", "bool": "BoolTensor",
}


def _typename(obj):
    """``torch.typename``: ``torch.FloatTensor`` for a float32 tensor, else the qualified class."""
    if isinstance(obj, torch.Tensor):
        return "torch." + _TENSOR_TYPE_NAMES.get(str(obj.dtype).replace("torch.", ""), "Tensor")
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("builtins", None) else module + "." + name


class Optimizer:
    """Base class of all optimizers: ``params`` is an iterable of tensors or of dicts (parameter
    groups); ``defaults`` fills each group's missing hyper-parameters."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        self._patch_step_function()
        if isinstance(params, torch.Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, "
                "but got " + _typename(params)
            )
        if isinstance(params, set):
            warnings.warn(
                "optimizer parameters need to be organized in ordered collections, but the ordering "
                "of tensors in sets will change between runs. Please use a list instead. This will "
                "be an error in a future release.",
                FutureWarning,
                stacklevel=2,
            )
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ("step_pre", "step_post", "state_dict_pre", "state_dict_post",
                     "load_state_dict_pre", "load_state_dict_post"):
            self.__dict__.setdefault(f"_optimizer_{name}_hooks", OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    def __repr__(self):
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    # --- step and its hooks ---

    def _patch_step_function(self):
        """Wraps the class's ``step`` once so that hooks run around it and ``_opt_called`` is set
        (the schedulers warn when ``scheduler.step()`` comes before the first ``optimizer.step()``)."""
        cls = self.__class__
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "hooked", False):
            cls.step = Optimizer.profile_hook_step(step)

    @staticmethod
    def profile_hook_step(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            self = args[0]
            for hook in chain(_global_step_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
                result = hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError(
                            f"{func} must return None or a tuple of (new_args, new_kwargs), but got "
                            f"{result}."
                        )
            out = func(*args, **kwargs)
            self._opt_called = True
            for hook in chain(self._optimizer_step_post_hooks.values(), _global_step_post_hooks.values()):
                hook(self, args, kwargs)
            return out

        wrapper.hooked = True
        return wrapper

    def register_step_pre_hook(self, hook):
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook):
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(self, hook, prepend=False):
        return self._register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        return self._register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        return self._register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        return self._register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    @staticmethod
    def _register(hooks, hook, prepend):
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def step(self, closure=None):
        raise NotImplementedError

    # --- state_dict ---

    def state_dict(self):
        """``{'state': {index: {...}}, 'param_groups': [{..., 'params': [index, ...]}]}``: parameters
        are numbered in group order at their first occurrence, from 0 across groups."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        mapping = {}
        start = 0

        def pack_group(group):
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            # New parameters take their index in this group (the last one when repeated).
            mapping.update({id(p): i for i, p in enumerate(group["params"], start) if id(p) not in mapping})
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        groups = [pack_group(g) for g in self.param_groups]
        state = {(mapping[id(k)] if isinstance(k, torch.Tensor) else k): v for k, v in self.state.items()}
        out = {"state": state, "param_groups": groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            result = hook(self, out)
            if result is not None:
                out = result
        return out

    @staticmethod
    def _process_value_according_to_param_policy(param, value, param_id, param_groups, key=None):
        fused = capturable = False
        for group in param_groups:
            if param_id in group["params"]:
                fused = group.get("fused", False)
                capturable = group.get("capturable", False)
                break
        if key == "step":
            return value.to(dtype=torch.float32) if (capturable or fused) else value
        if param.is_floating_point():
            return value.to(dtype=param.dtype)
        return value

    def load_state_dict(self, state_dict):
        """Loads a ``state_dict`` (a deep copy of it): saved indices map to this optimizer's
        parameters in order, floating state tensors take their parameter's dtype (``step`` keeps
        its own)."""
        state_dict = state_dict.copy()
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, param_id, key=None):
            if isinstance(value, torch.Tensor):
                return Optimizer._process_value_according_to_param_policy(
                    param, value.clone(), param_id, saved_groups, key
                )
            if isinstance(value, dict):
                return {k: cast(param, v, param_id, k) for k, v in value.items()}
            if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
                return type(value)(cast(param, v, param_id) for v in value)
            return deepcopy(value)

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v, k)
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        self.__setstate__({"state": state,
                           "param_groups": [update_group(g, ng) for g, ng in zip(groups, saved_groups)]})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    # --- gradients ---

    def _init_state(self, state, p, group):
        """Fills a parameter's empty state on its first step (optimizers with state override it)."""

    def _init_group(self, group):
        """Creates the missing state of the group's parameters that have gradients. Under
        torch.compile Dynamo runs it for real while tracing (it only creates state), so the traced
        step finds every state entry, as PyTorch's OptimizerVariable runs ``_init_group``."""
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self.state[p]
            if len(state) == 0:
                self._init_state(state, p, group)

    _init_group._rynamo_call_at_trace_time = True

    def zero_grad(self, set_to_none=True):
        """Drops every gradient (``set_to_none=True``, the default) or zeroes it in place."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    g = p.grad
                    if g.grad_fn is not None:
                        g = g.detach()
                        p.grad = g
                    else:
                        g.requires_grad_(False)
                    g.zero_()

    # --- groups ---

    def add_param_group(self, param_group):
        """Adds a group (a dict with ``params``); hyper-parameters it lacks come from ``defaults``."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, torch.Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering "
                "of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        extracted = []
        names = []
        for p in param_group["params"]:
            if isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str):
                names.append(p[0])
                extracted.append(p[1])
            else:
                extracted.append(p)
        if names:
            if len(names) != len(extracted):
                raise ValueError(
                    "all optimizer params should be with/without names. Some param names are missing"
                )
            param_group["param_names"] = names
        param_group["params"] = extracted
        for p in extracted:
            if not isinstance(p, torch.Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(p))
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization parameter {name}"
                )
            param_group.setdefault(name, default)
        ids = [id(p) for p in extracted]
        if len(set(ids)) != len(ids):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this "
                "will cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                current = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {current} to the optimizer"
                )
        if not seen.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)
