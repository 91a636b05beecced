"""Entry points: `optimize`, `optimize_assert`, `OptimizedModule`, `explain`, `reset`
(PyTorch's `torch/_dynamo/eval_frame.py`)."""
import functools
import traceback

import _rynamo_dynamo as _C

from .backends.registry import lookup_backend


def reset():
    """Clears all compile state "as if you had started a fresh process": compiled entries, resume
    functions, recorded graphs and break reasons."""
    _C.reset()


def _native_name_or_callable(backend):
    """What the native core takes: a registry name, or a Python backend callable."""
    if isinstance(backend, str):
        return lookup_backend(backend)
    if callable(backend):
        native = getattr(backend, "_rynamo_native_backend", None)
        return native if native is not None else backend
    raise TypeError(f"backend must be a string or a callable, got {type(backend).__name__}")


def _patch_torch():
    """What PyTorch's ``TorchPatcher.patch`` does to the process when a compiled wrapper is first
    made: distributions stop validating their arguments by default (validation branches on tensor
    values, a graph break per distribution)."""
    import torch.distributions

    torch.distributions.Distribution.set_default_validate_args(False)


class _OptimizeContext:
    """What `torch._dynamo.optimize(backend)` returns: apply it to a function or an `nn.Module`.
    It is not a context manager, as in PyTorch."""

    def __init__(self, backend, nopython=False, dynamic=None):
        _patch_torch()
        self._backend = _native_name_or_callable(backend)
        self._nopython = nopython
        self._dynamic = dynamic

    def __call__(self, fn):
        import torch

        module_cls = getattr(torch.nn, "Module", None)
        if module_cls is not None and isinstance(fn, module_cls):
            return OptimizedModule(fn, self)
        if not callable(fn):
            raise TypeError(f"torch.compile expects a callable or nn.Module, got {type(fn).__name__}")
        compiled = _C.compiled_function(fn, self._backend, self._nopython, self._dynamic)
        try:
            functools.update_wrapper(compiled, fn)
        except (AttributeError, TypeError):
            pass
        compiled._torchdynamo_inline = fn
        compiled._torchdynamo_orig_callable = fn
        return compiled

    def __enter__(self):
        raise RuntimeError(
            "torch._dynamo.optimize(...) is used with a context manager. Please refer to "
            "https://pytorch.org/tutorials/intermediate/torch_compile_tutorial.html to use "
            "torch._dynamo.optimize(...) as an annotation/decorator."
        )

    def __exit__(self, *exc):
        return False


def optimize(backend="inductor", *, nopython=False, guard_export_fn=None, guard_fail_fn=None, disable=False, dynamic=None, rebuild_ctx=None):
    """The older entry point of `torch.compile`: `optimize(backend)(fn)`."""
    if disable:
        return lambda fn: fn
    return _OptimizeContext(backend, nopython=nopython, dynamic=dynamic)


def optimize_assert(backend="inductor", *, hooks=None, export=False, dynamic=None, rebuild_ctx=None):
    """`optimize(backend, nopython=True)`."""
    return _OptimizeContext(backend, nopython=True, dynamic=dynamic)


def _wrap_inline(fn):
    """A function whose frame calls `fn` (PyTorch's `external_utils.wrap_inline`; the name
    `fn` shows in guards and graph input names: `L['fn']._parameters['weight']`)."""

    def inner(*args, **kwargs):
        return fn(*args, **kwargs)

    return inner


def _optimized_module_class():
    import torch

    class OptimizedModule(torch.nn.Module):
        """What `torch.compile(module)` returns: wraps the module as `_orig_mod`. As in PyTorch,
        a call runs the module's `__call__` (its hooks) eagerly and compiles the frames it
        calls: the user's `forward`, whose arguments name the guards (`'ids'`, not `args[0]`)."""

        _torchdynamo_orig_callable = None

        def __init__(self, mod, dynamo_ctx):
            super().__init__()
            self._orig_mod = mod
            self.dynamo_ctx = dynamo_ctx
            # A built-in layer's code is in a skipped file: as PyTorch does (`wrap_inline`), the
            # compiled frame is a small wrapper that calls the module, so a graph break inside
            # the layer runs the whole call eagerly instead of compiling its internals piecewise.
            # For a user module, `Module.__call__` (a skipped file) runs as is and the frames it
            # calls are compiled: `forward`, and hooks written in user files.
            inline = getattr(type(mod).forward, "__module__", "").startswith("torch.nn")
            self._compiled_call = _C.compiled_function(
                _wrap_inline(mod) if inline else mod.__call__,
                dynamo_ctx._backend, dynamo_ctx._nopython, dynamo_ctx._dynamic, not inline,
            )

        def __call__(self, *args, **kwargs):
            return self._compiled_call(*args, **kwargs)

        def forward(self, *args, **kwargs):
            return self._compiled_call(*args, **kwargs)

        def __getattr__(self, name):
            if name == "_orig_mod":
                return self._modules["_orig_mod"]
            return getattr(self._modules["_orig_mod"], name)

        def __len__(self):
            # As PyTorch's: the module's length, and for an unsized module PyTorch's TypeError,
            # which `bool()` (reading `__len__`) raises too.
            if hasattr(type(self._orig_mod), "__len__"):
                return len(self._orig_mod)
            raise TypeError(f"{type(self._orig_mod).__name__} does not support len()")

        def __repr__(self):
            inner = repr(self._orig_mod).replace("\n", "\n  ")
            return "OptimizedModule(\n  (_orig_mod): " + inner + "\n)"

    return OptimizedModule


class _LazyOptimizedModule:
    """`torch._dynamo.OptimizedModule`, created on first use (it subclasses `torch.nn.Module`)."""

    _cls = None

    def _get(self):
        if _LazyOptimizedModule._cls is None:
            _LazyOptimizedModule._cls = _optimized_module_class()
        return _LazyOptimizedModule._cls

    def __call__(self, *args, **kwargs):
        return self._get()(*args, **kwargs)

    def __instancecheck__(self, obj):
        return isinstance(obj, self._get())


OptimizedModule = _LazyOptimizedModule()


class _FrameSummary:
    """A `traceback.FrameSummary` that prints as PyTorch's explain output does."""

    def __init__(self, filename, lineno, name):
        self.filename = filename
        self.lineno = lineno
        self.name = name

    def __repr__(self):
        return f"<FrameSummary file {self.filename}, line {self.lineno} in {self.name}>"

    __str__ = __repr__


class GraphCompileReason:
    def __init__(self, reason, user_stack, graph_break=True):
        self.reason = reason
        self.user_stack = user_stack
        self.graph_break = graph_break

    def __repr__(self):
        return f"GraphCompileReason(reason={self.reason!r}, user_stack={self.user_stack!r}, graph_break={self.graph_break})"


class Guard:
    """A guard as `explain()` lists it (PyTorch's `torch._guards.Guard` printout)."""

    def __init__(self, name, source, create_fn, code):
        self.name = name
        self.source = source
        self.create_fn_name = create_fn
        self.guard_types = [create_fn]
        self.code_list = [code]

    def __str__(self):
        output = f"Name: {self.name!r}\n"
        output += f"    Source: {self.source}\n"
        output += f"    Create Function: {self.create_fn_name}\n"
        output += f"    Guard Types: {self.guard_types}\n"
        output += f"    Code List: {self.code_list}\n"
        output += "    Object Weakref: None\n"
        output += "    Guarded Class Weakref: None\n"
        return output

    __repr__ = __str__


def explain(f, *extra_args, **extra_kwargs):
    """`torch._dynamo.explain(f)(*args, **kwargs)`: compiles and runs `f` once and reports its
    graphs, graph breaks (with user stacks), ops and guards as an `ExplainOutput`."""

    def inner(*args, **kwargs):
        from .backends.debugging import ExplainOutput

        reset()
        compiled = _OptimizeContext("eager")(f)
        compiled(*args, **kwargs)
        graphs = _C.graph_records()
        breaks = _C.break_records()
        reset()
        gms = [g["graph_module"] for g in graphs]
        ops_per_graph = []
        for gm in gms:
            ops_per_graph.append([n.target for n in gm.graph.nodes if n.op == "call_function"])
        break_reasons = [
            GraphCompileReason(reason, [_FrameSummary(*frame) for frame in stack])
            for reason, stack, _code in breaks
        ]
        out_guards = []
        for g in graphs:
            for source, kind, code in g["guards"]:
                where = "global" if not source or source.startswith("G[") else "local"
                out_guards.append(Guard(source, where, kind, code))
        times = ", ".join(f"{g['name']}:{g['seconds']:.4f}s" for g in graphs)
        return ExplainOutput(
            gms,
            len(gms),
            max(len(gms) - 1, 0),
            break_reasons,
            sum(len(o) for o in ops_per_graph),
            ops_per_graph,
            out_guards,
            f"TorchDynamo compilation metrics: {times}",
        )

    if extra_args or extra_kwargs:
        import warnings

        warnings.warn(
            "explain(f, *args, **kwargs) is deprecated, use explain(f)(*args, **kwargs) instead.",
            FutureWarning,
        )
        return inner(*extra_args, **extra_kwargs)
    return inner
