"""`torch.fx`: the graph representation backends receive (the subset Dynamo's graphs use:
`Graph`, `Node`, `GraphModule`, with PyTorch's code generation and printing)."""
from .graph import Graph
from .graph_module import GraphModule
from .node import Node

__all__ = ["Graph", "GraphModule", "Node"]
