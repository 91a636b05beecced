"""``torch.utils.checkpoint``: ``checkpoint`` and ``checkpoint_sequential`` with PyTorch 2.15's values,
gradients and warnings, without the memory saving. Checkpointing frees a segment's activations and
recomputes them in backward; recomputing gives the same values, so running the segment once and
keeping its activations gives the same results (the saving is the missing part). What differs
between PyTorch's two variants is kept: the reentrant one (``use_reentrant=True``, the default with a
warning) runs the segment without recording history when no input requires grad, so its result does
not require grad and the segment's parameters get none ("None of the inputs have requires_grad=True.
Gradients will be None")."""

import functools
import warnings

import torch

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "noop_context_fn"]


class CheckpointError(RuntimeError):
    pass


def noop_context_fn():
    import contextlib

    return contextlib.nullcontext(), contextlib.nullcontext()


def _default_reentrant(use_reentrant, stacklevel):
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In a future "
            "release, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default behavior, you can pass "
            "use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
            stacklevel=stacklevel)
        return True
    return use_reentrant


def _run(function, args, kwargs, use_reentrant, context_fn, debug, respect_saved_tensors_hooks):
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False or respect_saved_tensors_hooks is not None:
            raise ValueError("Passing `context_fn`, `debug`, or `respect_saved_tensors_hooks` is only supported "
                             "when use_reentrant=False.")
        if torch.is_grad_enabled() and not any(isinstance(a, torch.Tensor) and a.requires_grad for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None")
            with torch.no_grad():
                return function(*args)
        return function(*args)
    forward_ctx, _ = context_fn()
    with forward_ctx:
        return function(*args, **kwargs)


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn, determinism_check="default",
               debug=False, early_stop=True, preserve_rng_state=True, respect_saved_tensors_hooks=None, **kwargs):
    if function is None and not args:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
        # `checkpoint(use_reentrant=False)` as a decorator factory.
        return lambda fn: functools.wraps(fn)(
            lambda *a, **k: checkpoint(fn, *a, use_reentrant=use_reentrant, context_fn=context_fn, debug=debug,
                                       respect_saved_tensors_hooks=respect_saved_tensors_hooks, **k))
    use_reentrant = _default_reentrant(use_reentrant, 3)
    return _run(function, args, kwargs, use_reentrant, context_fn, debug, respect_saved_tensors_hooks)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Runs ``functions`` (a list or ``nn.Sequential``) in ``segments`` checkpointed chunks, the last one
    plainly, as PyTorch does."""
    use_reentrant = _default_reentrant(use_reentrant, 3)
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if isinstance(functions, torch.nn.Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
