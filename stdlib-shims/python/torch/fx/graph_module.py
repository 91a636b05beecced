"""GraphModule: a graph with generated `forward` code."""
import operator

from .graph import Graph


class GraphModule:
    """A callable graph: `gm.graph`, `gm.code`, `gm.forward`, `gm(*args)`, `print_readable()`."""

    def __init__(self, root, graph, class_name="GraphModule"):
        if not isinstance(graph, Graph):
            raise TypeError("GraphModule expects a torch.fx.Graph")
        self.graph = graph
        self._class_name = "GraphModule"
        self._fn_name = class_name if isinstance(class_name, str) else "GraphModule"
        self.meta = {}
        self.recompile()

    def recompile(self):
        """Regenerates `code` and `forward` from the graph."""
        import torch

        pc = self.graph.python_code()
        self._code = pc.src
        namespace = {"torch": torch, "operator": operator, "inf": float("inf"), "nan": float("nan")}
        namespace.update(pc.globals)
        exec(compile(pc.src, f"<eval_with_key>.{id(self) % 1000}", "exec"), namespace)
        fn = namespace["forward"]
        self.forward = fn.__get__(self, GraphModule)
        return pc

    @property
    def code(self):
        return self._code

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def print_readable(self, print_output=True, include_stride=False, include_device=False, colored=False):
        """The forward code in a class, with shapes and source lines, as PyTorch prints it."""
        params, body, _ = self.graph._python_code(annotate=True, comments=True)
        out = f"class {self._class_name}(torch.nn.Module):\n"
        out += "    def forward(self, " + ", ".join(params) + "):\n"
        for line in body:
            out += (f"        {line}" if line else "") + "\n"
        if print_output:
            print(out)
        return out

    def __repr__(self):
        return f"{self._class_name}()"

    def named_parameters(self, *a, **k):
        return iter(())

    def parameters(self, *a, **k):
        return iter(())
