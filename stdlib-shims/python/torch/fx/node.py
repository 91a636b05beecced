"""FX nodes."""


class Node:
    """One node: `op` is placeholder, get_attr, call_function, call_method, call_module or output."""

    def __init__(self, graph, name, op, target, args, kwargs):
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self.args = tuple(args)
        self.kwargs = dict(kwargs)
        self.meta = {}
        self.users = {}
        self.type = None
        for n in self.all_input_nodes:
            n.users[self] = None

    @property
    def all_input_nodes(self):
        found = []

        def visit(a):
            if isinstance(a, Node):
                if a not in found:
                    found.append(a)
            elif isinstance(a, (list, tuple)):
                for x in a:
                    visit(x)
            elif isinstance(a, dict):
                for x in a.values():
                    visit(x)
            elif isinstance(a, slice):
                # `y[:b]` with a symbolic `b`: the slice's bounds are uses too, or the code
                # generator frees the size node before this use (as PyTorch's `map_aggregate`).
                visit((a.start, a.stop, a.step))

        visit(self.args)
        visit(self.kwargs)
        return found

    def format_node(self):
        if self.op == "placeholder":
            return f"%{self.name} : [num_users={len(self.users)}] = placeholder[target={self.target}]"
        if self.op == "output":
            return f"return {_fmt_arg(self.args[0])}"
        return (
            f"%{self.name} : [num_users={len(self.users)}] = {self.op}[target={_target_str(self.target)}]"
            f"(args = {_fmt_arg(self.args)}, kwargs = {_fmt_arg(self.kwargs)})"
        )

    def __repr__(self):
        return self.name

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        return self is other


def _target_str(target):
    if isinstance(target, str):
        return target
    name = getattr(target, "__name__", None) or repr(target)
    module = getattr(target, "__module__", None)
    if module in ("_operator", "operator"):
        return f"operator.{name}"
    return f"{module}.{name}" if module else name


def _fmt_arg(a):
    if isinstance(a, Node):
        return f"%{a.name}"
    if isinstance(a, tuple):
        inner = ", ".join(_fmt_arg(x) for x in a)
        return f"({inner},)" if len(a) == 1 else f"({inner})"
    if isinstance(a, list):
        return "[" + ", ".join(_fmt_arg(x) for x in a) + "]"
    if isinstance(a, dict):
        return "{" + ", ".join(f"{k}: {_fmt_arg(v)}" for k, v in a.items()) + "}"
    if isinstance(a, slice):
        return f"slice({_fmt_arg(a.start)}, {_fmt_arg(a.stop)}, {_fmt_arg(a.step)})"
    return repr(a)
