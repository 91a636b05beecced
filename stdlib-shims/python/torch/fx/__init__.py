"""`torch.fx`: the graph representation backends receive (the subset Dynamo's graphs use:
`Graph`, `Node`, `GraphModule`, with PyTorch's code generation and printing)."""
from .graph import Graph
from .graph_module import GraphModule
from .node import Node

__all__ = ["Graph", "GraphModule", "Node"]


def wrap(fn_or_name):
    """Marks a module-level function as a leaf for `torch.fx.symbolic_trace`. Rynamo has no
    symbolic tracer of its own (Dynamo builds the graphs), so outside it this changes nothing, as
    in PyTorch: the function is returned as it is."""
    if not (callable(fn_or_name) or isinstance(fn_or_name, str)):
        raise RuntimeError("Unsupported type for global function! Must be either a callable or string name")
    return fn_or_name


__all__.append("wrap")
