"""TorchDynamo on Rynamo: the Python surface of the frame-hook JIT.

The machinery is native (`_rynamo_dynamo`, the Rust Dynamo core); this package holds the APIs
PyTorch users call, with PyTorch's names and semantics.
"""
from . import config, exc, utils
from .backends.registry import list_backends, lookup_backend, register_backend
from .decorators import (
    allow_in_graph,
    assume_constant_result,
    disable,
    disallow_in_graph,
    dont_skip_tracing,
    error_on_graph_break,
    forbid_in_graph,
    graph_break,
    is_compiling,
    mark_dynamic,
    mark_static,
    maybe_mark_dynamic,
    nonstrict_trace,
    run,
    set_stance,
    skip,
    substitute_in_graph,
)
from .eval_frame import OptimizedModule, explain, optimize, optimize_assert, reset

import _rynamo_dynamo as _C


def load_plugin(path):
    """Loads a backend plugin (a shared library built against Rynamo's plugin ABI) and returns its
    backend name, for `torch.compile(backend=name)`."""
    return _C.load_plugin(str(path))

__all__ = [
    "allow_in_graph",
    "assume_constant_result",
    "config",
    "disable",
    "disallow_in_graph",
    "dont_skip_tracing",
    "error_on_graph_break",
    "exc",
    "explain",
    "forbid_in_graph",
    "graph_break",
    "is_compiling",
    "list_backends",
    "load_plugin",
    "lookup_backend",
    "mark_dynamic",
    "mark_static",
    "maybe_mark_dynamic",
    "nonstrict_trace",
    "optimize",
    "optimize_assert",
    "OptimizedModule",
    "register_backend",
    "reset",
    "run",
    "set_stance",
    "skip",
    "substitute_in_graph",
]
