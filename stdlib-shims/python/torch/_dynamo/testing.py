"""Test helpers with PyTorch's counting rules (`torch/_dynamo/testing.py`)."""
import torch

from .backends.registry import lookup_backend


class CompileCounter:
    """A backend that counts: `frame_count` graphs compiled, `op_count` nodes whose op contains
    "call". Runs the graph with `gm.forward`."""

    def __init__(self):
        self.frame_count = 0
        self.op_count = 0

    def __call__(self, gm, example_inputs):
        self.frame_count += 1
        for node in gm.graph.nodes:
            if "call" in node.op:
                self.op_count += 1
        return gm.forward

    def clear(self):
        self.frame_count = 0
        self.op_count = 0


class CompileCounterWithBackend:
    """Counts like `CompileCounter`, then compiles with another backend."""

    def __init__(self, backend):
        self.frame_count = 0
        self.op_count = 0
        self.backend = backend
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.frame_count += 1
        for node in gm.graph.nodes:
            if "call" in node.op:
                self.op_count += 1
        self.graphs.append(gm)
        backend = lookup_backend(self.backend)
        if isinstance(backend, str):
            # A native backend: the eager interpreter's result equals running the graph module.
            return gm.forward
        return backend(gm, example_inputs)

    def clear(self):
        self.frame_count = 0
        self.op_count = 0
        self.graphs = []


class EagerAndRecordGraphs:
    """Records every graph module and runs it eagerly."""

    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return gm.forward


def same(ref, res, tol=1e-4, equal_nan=False):
    """Whether two results (tensors, numbers, or nested lists/tuples/dicts of them) match."""
    if isinstance(ref, (list, tuple)):
        return isinstance(res, (list, tuple)) and len(ref) == len(res) and all(
            same(a, b, tol, equal_nan) for a, b in zip(ref, res)
        )
    if isinstance(ref, dict):
        return isinstance(res, dict) and set(ref) == set(res) and all(same(ref[k], res[k], tol, equal_nan) for k in ref)
    if isinstance(ref, torch.Tensor):
        if not isinstance(res, torch.Tensor) or ref.shape != res.shape or ref.dtype != res.dtype:
            return False
        if ref.dtype.is_floating_point:
            return bool(torch.allclose(ref, res, rtol=tol, atol=tol, equal_nan=equal_nan))
        return bool(torch.equal(ref, res))
    if isinstance(ref, float):
        return abs(ref - res) <= tol * max(1.0, abs(ref))
    return ref == res


def normalize_gm(text):
    """The readable graph without trailing spaces (for comparisons)."""
    return "\n".join(line.rstrip() for line in text.splitlines())
