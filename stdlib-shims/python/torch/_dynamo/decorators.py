"""Fine-grained tracing control, with PyTorch's semantics (`torch/_dynamo/decorators.py`)."""
import functools

import _rynamo_dynamo as _C

from . import config
from .exc import IncorrectUsage


def disable(fn=None, recursive=True, *, reason=None):
    """Runs `fn` without Dynamo.

    recursive=True: Dynamo is off for `fn` and everything it calls. recursive=False: a wrapper
    whose own frame is skipped, while the functions it calls are still compiled; the original
    function is never modified. Called from a compiled region, either is a graph break.
    """
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason)
    if recursive:
        wrapper = _C.disabled_function(fn)
        try:
            functools.update_wrapper(wrapper, fn)
        except (AttributeError, TypeError):
            pass
    else:

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            # fn's own frame runs without Dynamo; the functions it calls are still compiled.
            return _C.call_skipping_frame(fn, args, kwargs)

        _C.skip_code(wrapper.__code__)
    wrapper._torchdynamo_disable = True
    wrapper._torchdynamo_disable_recursive = recursive
    wrapper._torchdynamo_orig_callable = fn
    wrapper._torchdynamo_disable_reason = reason
    return wrapper


def skip(fn=None):
    """Older form of `disable(recursive=False)`."""
    if fn is None:
        return skip
    return disable(fn, recursive=False)


class RunOnlyContext:
    """Run-only ("frozen") mode as a context manager or decorator: cached compiled code runs when
    its guards pass, and nothing new is compiled (a miss runs eagerly)."""

    def __enter__(self):
        _C.enter_run_only()
        return self

    def __exit__(self, *exc):
        _C.exit_run_only()
        return False

    def __call__(self, fn):
        wrapper = _C.run_only_function(fn)
        try:
            functools.update_wrapper(wrapper, fn)
        except (AttributeError, TypeError):
            pass
        return wrapper


def _innermost_fn(fn):
    # A compiled or disabled function's original, so `run(compiled_fn)` does not compile.
    while callable(getattr(fn, "_torchdynamo_orig_callable", None)):
        fn = fn._torchdynamo_orig_callable
    return fn


def run(fn=None):
    """Don't do any dynamic compiles, just use prior optimizations (frozen mode)."""
    if fn is not None:
        return RunOnlyContext()(_innermost_fn(fn))
    return RunOnlyContext()


def graph_break(msg=""):
    """Forces a graph break here: the code before and after compiles into separate graphs."""


graph_break._rynamo_graph_break = True


def is_compiling():
    """True while Dynamo traces the calling code, False when it runs eagerly."""
    return False


is_compiling._rynamo_is_compiling = True


def _callables(fn):
    if isinstance(fn, (list, tuple)):
        return list(fn)
    return [fn]


_allowed = {}


def allow_in_graph(fn):
    """Puts calls to `fn` into the graph as one opaque node instead of tracing into it.

    Accepts a callable, or a list or tuple of callables. On an op that is already allowed (a
    `torch.*` op), it undoes `disallow_in_graph`.
    """
    if isinstance(fn, (list, tuple)):
        return [allow_in_graph(x) for x in fn]
    if not callable(fn):
        raise TypeError(f"allow_in_graph expects a callable, got {type(fn).__name__}")
    if _C.is_op_function(fn):
        _C.allow_op(fn)
        return fn
    _allowed[id(fn)] = fn
    fn._rynamo_allow_in_graph = True
    return fn


def disallow_in_graph(fn):
    """Makes Dynamo break the graph at every call of an op it would otherwise put in the graph
    (such as `torch.sub`), and run it eagerly."""
    if isinstance(fn, (list, tuple)):
        return [disallow_in_graph(x) for x in fn]
    if id(fn) in _allowed:
        del _allowed[id(fn)]
        try:
            del fn._rynamo_allow_in_graph
        except AttributeError:
            pass
        return fn
    if not _C.disallow_op(fn):
        raise IncorrectUsage(
            "disallow_in_graph is expected to be used on an already allowed callable (like torch.* ops). "
            "Allowed callables means callables that TorchDynamo puts as-is in the extracted graph."
        )
    return fn


def nonstrict_trace(traceable_fn):
    """Traces `traceable_fn` non-strictly into the graph even where Dynamo would break inside it."""
    if not callable(traceable_fn):
        raise TypeError(f"nonstrict_trace expects a callable, got {type(traceable_fn).__name__}")

    @functools.wraps(traceable_fn)
    def wrapped(*args, **kwargs):
        return traceable_fn(*args, **kwargs)

    wrapped._rynamo_nonstrict_trace = True
    wrapped._torchdynamo_orig_callable = traceable_fn
    return wrapped


# Called inside a compiled region, the decorator itself runs at trace time.
nonstrict_trace._rynamo_call_at_trace_time = True


def assume_constant_result(fn):
    """Dynamo calls `fn` while tracing and bakes its result into the graph as a constant."""
    fn._dynamo_marked_constant = True
    return fn


def forbid_in_graph(fn):
    """Tracing a call to `fn` is an error (not a graph break)."""
    if isinstance(fn, (list, tuple)):
        return [forbid_in_graph(x) for x in fn]
    fn._dynamo_forbidden = True
    return fn


_substitutes = {}


def substitute_in_graph(original_fn, *, can_constant_fold_through=False, skip_signature_check=False):
    """Registers a Python polyfill that Dynamo traces in place of `original_fn` (usually a native
    function) when inlining; eager calls still run `original_fn`."""

    def register(polyfill):
        if id(original_fn) in _substitutes:
            raise ValueError(f"Duplicate polyfilled object {original_fn}")
        if not skip_signature_check:
            import inspect

            try:
                a = inspect.signature(original_fn)
                b = inspect.signature(polyfill)
            except (TypeError, ValueError):
                a = b = None
            if a is not None and b is not None and a != b:
                star = any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in list(a.parameters.values()) + list(b.parameters.values()))
                if not star:
                    raise TypeError(f"Signature mismatch between {original_fn} and {polyfill}: {a} != {b}")
        _substitutes[id(original_fn)] = polyfill
        polyfill._rynamo_substitutes = original_fn
        polyfill.__torch_dynamo_original__ = original_fn
        polyfill.__torch_dynamo_polyfill__ = polyfill
        polyfill.__torch_dynamo_can_constant_fold_through__ = can_constant_fold_through
        return polyfill

    return register


class _ErrorOnGraphBreak:
    # Traced inside a compiled region, Dynamo models the block itself (switching the setting for
    # the trace) instead of breaking the graph at the `with`.
    _rynamo_error_on_graph_break = True

    def __init__(self, value):
        self.value = value
        self.prev = None

    def __enter__(self):
        self.prev = config.error_on_graph_break
        config.error_on_graph_break = self.value

    def __exit__(self, *exc):
        config.error_on_graph_break = self.prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with _ErrorOnGraphBreak(self.value):
                return fn(*args, **kwargs)

        return wrapper


def error_on_graph_break(value):
    """Context manager and decorator: graph breaks inside raise (`fullgraph=True` wins)."""
    return _ErrorOnGraphBreak(value)


def dont_skip_tracing(fn=None):
    """Traces into functions Dynamo would skip (Rynamo skips none of the user's functions)."""
    if fn is None:
        return dont_skip_tracing
    return fn


_STANCES = ("default", "force_eager", "eager_on_recompile", "fail_on_recompile", "eager_then_compile", "aot_eager_then_compile")


class _Stance:
    def __init__(self, stance, force_backend=None):
        if stance not in _STANCES:
            raise ValueError(f"invalid stance {stance!r}; choose one of {', '.join(_STANCES)}")
        if force_backend is not None and stance != "default":
            raise RuntimeError("non-default stance cannot have force_backend set")
        self.stance = stance
        self.prev = _C.set_stance(stance)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _C.set_stance(self.prev)
        return False

    def __call__(self, fn):
        stance = self.stance
        _C.set_stance(self.prev)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            prev = _C.set_stance(stance)
            try:
                return fn(*args, **kwargs)
            finally:
                _C.set_stance(prev)

        # Calling it from a compiled region would switch the stance mid-region: forbidden, as
        # `set_stance` itself.
        wrapper._dynamo_forbidden = True
        return wrapper


def set_stance(stance="default", *, skip_guard_eval_unsafe=False, force_backend=None):
    """Changes how `torch.compile` behaves: a function call, a context manager or a decorator.

    Stances: "default", "force_eager" (nothing is compiled or run compiled), "eager_on_recompile"
    (cached code runs; anything new runs eagerly), "fail_on_recompile" (a recompile raises).
    """
    return _Stance(stance, force_backend)


def _dims(index):
    return list(index) if isinstance(index, (list, tuple)) else [index]


def _add_dims(t, attr, index):
    dims = set(getattr(t, attr, set()))
    dims.update(_dims(index))
    setattr(t, attr, dims)


def mark_dynamic(t, index, *, min=None, max=None):
    """Marks dimension(s) `index` of `t` dynamic from the first compile, within `[min, max]`.
    A trace that specialises such a dimension (reads its size as a constant) raises
    `ConstraintViolationError`; use `maybe_mark_dynamic` where specialising is acceptable."""
    if isinstance(index, (list, tuple)):
        if min is not None or max is not None:
            raise AssertionError("Cannot use min/max with a list of indices")
        for i in index:
            mark_dynamic(t, i)
        return
    _add_dims(t, "_dynamo_dynamic_indices", index)
    ranges = set(getattr(t, "_dynamo_dynamic_range", set()))
    ranges = {r for r in ranges if r[0] != index}
    ranges.add((index, min, max))
    t._dynamo_dynamic_range = ranges


def maybe_mark_dynamic(t, index):
    """Marks dimension(s) `index` of `t` dynamic; specialising them is not an error."""
    _add_dims(t, "_dynamo_weak_dynamic_indices", index)


def mark_unbacked(t, index, strict=False, specialize_on=None):
    """Marks dimension(s) `index` of `t` dynamic without a size hint in PyTorch; here they are
    dynamic like `mark_dynamic`'s, and specialising them raises the same error."""
    _add_dims(t, "_dynamo_unbacked_indices", index)


def mark_static(t, index=None):
    """Keeps dimension(s) `index` of `t` (all of them when `index` is None) static, whatever
    `dynamic=` says. Applied to an `nn.Module` class, marks it static as in PyTorch."""
    if isinstance(t, type):
        t._dynamo_marked_static = True
        return t
    if index is None:
        index = list(range(t.dim()))
    _add_dims(t, "_dynamo_static_indices", index)


forbid_in_graph(mark_dynamic)
forbid_in_graph(maybe_mark_dynamic)
forbid_in_graph(mark_unbacked)
# Tracing a stance change is an error (PyTorch's `set_stance._dynamo_forbidden`); called from a
# frame that runs eagerly inside a compiled region, `_C.set_stance` raises instead.
forbid_in_graph(set_stance)


def _allow_in_graph_einops():
    """PyTorch's init for einops, run the first time a traced call reaches an einops function:
    einops registers its ops as `allow_in_graph` when its torch backend is first made, so make
    it now, before the trace reads einops' backend cache (tracing that first registration would
    guard on the cache being empty and recompile on the next call)."""
    import einops
    import torch

    if hasattr(einops, "einops") and hasattr(einops.einops, "get_backend"):
        einops.rearrange(torch.empty(1), "i -> i")
    try:
        from einops._torch_specific import _ops_were_registered_in_torchdynamo  # noqa: F401
    except ImportError:
        # einops <= 0.6.1 does not register its ops itself.
        for name in ("rearrange", "reduce", "repeat", "einsum", "pack", "unpack"):
            if hasattr(einops, name):
                allow_in_graph(getattr(einops, name))


# Root module name -> init functions run once, when a traced call first reaches that module's
# functions (PyTorch's `trace_rules.add_module_init_func`; the module is never imported eagerly).
_lazy_module_init = {"einops": [_allow_in_graph_einops]}


def _init_lazy_module(root):
    """Runs (once) the init functions registered for the root module `root`."""
    for fn in _lazy_module_init.pop(root, ()):
        fn()
