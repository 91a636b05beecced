"""``torch.autograd``: reverse-mode automatic differentiation.

The engine is native (``rynamo_graph::autograd``): every registry op run with grad mode on and an
input that requires grad records a backward node. This module is PyTorch's Python surface over
it: ``backward``, ``grad``, grad-mode switches, ``Function``, anomaly mode, ``graph`` hooks,
``functional`` and ``gradcheck``.
"""

import torch
import _rynamo_autograd as _engine
from torch.autograd import graph  # noqa: F401
from torch.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: F401
from torch.autograd.grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    no_grad,
    set_grad_enabled,
)

__all__ = [
    "backward",
    "grad",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "detect_anomaly",
    "set_detect_anomaly",
]


def _as_tuple(x):
    if isinstance(x, torch.Tensor):
        return (x,)
    if x is None:
        return ()
    return tuple(x)


def _grads_tuple(grads, length, what):
    if grads is None:
        return (None,) * length
    if isinstance(grads, torch.Tensor):
        grads = (grads,)
    grads = tuple(grads)
    if len(grads) != length:
        raise RuntimeError(
            f"{what} sequence must have length {length}. Got {len(grads)}."
            if what == "grad_outputs" else
            f"got {len(grads)} tensors and {length} gradients"
        )
    out = []
    for g in grads:
        if g is None or isinstance(g, torch.Tensor):
            out.append(g)
        else:
            raise TypeError(
                "gradients can be either Tensors or None, but got " + type(g).__name__
            )
    return tuple(out)


def backward(
    tensors,
    grad_tensors=None,
    retain_graph=None,
    create_graph=False,
    grad_variables=None,
    inputs=None,
):
    """Sums the gradients of ``tensors`` into the ``.grad`` of the graph's leaves."""
    if grad_variables is not None:
        import warnings

        warnings.warn("'grad_variables' is deprecated. Use 'grad_tensors' instead.")
        if grad_tensors is None:
            grad_tensors = grad_variables
        else:
            raise RuntimeError(
                "'grad_tensors' and 'grad_variables' (deprecated) arguments both passed to "
                "backward(). Please only use 'grad_tensors'."
            )
    if inputs is not None and not isinstance(inputs, torch.Tensor) and len(inputs) == 0:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    tensors = _as_tuple(tensors)
    inputs = _as_tuple(inputs) if inputs is not None else None
    grads = _grads_tuple(grad_tensors, len(tensors), "grad_tensors")
    if retain_graph is None:
        retain_graph = create_graph
    _engine._run_backward(
        list(tensors),
        list(grads),
        bool(retain_graph),
        bool(create_graph),
        list(inputs) if inputs is not None else None,
    )


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    only_inputs=True,
    allow_unused=None,
    is_grads_batched=False,
    materialize_grads=False,
):
    """The gradients of ``outputs`` with respect to ``inputs``, as a tuple."""
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, "
            "but got: allow_unused=False."
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        # One backward pass per row of the batched grad_outputs (PyTorch vmaps instead).
        rows = [_as_tuple(g) for g in _grads_tuple(grad_outputs, len(outputs), "grad_outputs")]
        n = rows[0][0].shape[0]
        per_row = [
            grad(outputs, inputs, tuple(g[i] for (g,) in rows), retain_graph=True,
                 create_graph=create_graph, allow_unused=allow_unused,
                 materialize_grads=materialize_grads)
            for i in range(n)
        ]
        return tuple(
            None if per_row[0][j] is None else torch.stack([r[j] for r in per_row])
            for j in range(len(inputs))
        )
    grads = _grads_tuple(grad_outputs, len(outputs), "grad_outputs")
    return _engine._run_grad(
        list(outputs),
        list(grads),
        list(inputs),
        bool(retain_graph),
        bool(create_graph),
        bool(allow_unused),
        bool(materialize_grads),
    )


# Imported last: they use the names above.
from torch.autograd.function import Function, once_differentiable  # noqa: E402,F401
from torch.autograd import functional  # noqa: E402,F401
from torch.autograd.gradcheck import gradcheck, gradgradcheck  # noqa: E402,F401
