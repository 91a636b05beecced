"""PyTorch's CPU autocast policies for ``torch`` functions that Rynamo writes in Python but PyTorch
lists as one op in ``AutocastCPU`` (``conv_transpose2d``, ``smooth_l1_loss``, ``cdist``, ...).

Registry ops get their policy where they are dispatched (``stdlib-shims/src/autocast.rs``). A
function written in Python over registry ops would instead see autocast once per inner op, with
a different result dtype (``smooth_l1_loss`` of bfloat16 inputs would stay bfloat16, PyTorch's is
float32). The decorators here do what PyTorch's autocast kernel does: cast the floating tensor
arguments (not float64) to the policy's dtype, then run the body with autocast off, so its inner
ops are not cast again. Outside autocast they call the function directly."""

import functools

import torch

from torch._autocast_state import get_autocast_dtype, is_autocast_enabled, set_autocast_enabled


def _eligible(x):
    return isinstance(x, torch.Tensor) and x.is_floating_point() and x.dtype is not torch.float64


def _tensors(args, kwargs):
    for v in (*args, *kwargs.values()):
        if isinstance(v, (list, tuple)):
            yield from (t for t in v if _eligible(t))
        elif _eligible(v):
            yield v


def _cast(v, dtype):
    if _eligible(v):
        return v if v.dtype is dtype else v.to(dtype)
    if isinstance(v, (list, tuple)) and any(_eligible(t) for t in v):
        return type(v)(_cast(t, dtype) for t in v)
    return v


def _apply(policy):
    def decorate(fn):
        @functools.wraps(fn)
        def autocast_cpu(*args, **kwargs):
            if not is_autocast_enabled("cpu"):
                return fn(*args, **kwargs)
            lower = get_autocast_dtype("cpu")
            if policy == "lower_precision_fp":
                dtype = lower
            elif policy == "fp32":
                dtype = torch.float32
            else:
                dtype = lower
                for t in _tensors(args, kwargs):
                    dtype = torch.promote_types(dtype, t.dtype)
            args = tuple(_cast(a, dtype) for a in args)
            kwargs = {k: _cast(v, dtype) for k, v in kwargs.items()}
            set_autocast_enabled("cpu", False)
            try:
                return fn(*args, **kwargs)
            finally:
                set_autocast_enabled("cpu", True)

        return autocast_cpu

    return decorate


lower_precision_fp = _apply("lower_precision_fp")
fp32 = _apply("fp32")
promote = _apply("promote")
