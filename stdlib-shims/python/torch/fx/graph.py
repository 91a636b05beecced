"""FX graphs: building, naming, code generation and printing."""
import builtins
import keyword
import operator
import re

from .node import Node, _fmt_arg, _target_str

# Binary and unary operators rendered infix, as FX's code generator does.
_INFIX = {
    operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
    operator.floordiv: "//", operator.mod: "%", operator.pow: "**", operator.matmul: "@",
    operator.and_: "&", operator.or_: "|", operator.xor: "^", operator.lshift: "<<",
    operator.rshift: ">>", operator.lt: "<", operator.le: "<=", operator.eq: "==",
    operator.ne: "!=", operator.gt: ">", operator.ge: ">=",
}
# In-place operators are statements, not expressions: FX emits `a += b;  iadd = a`.
_INPLACE = {
    operator.iadd: "+=", operator.isub: "-=", operator.imul: "*=", operator.itruediv: "/=",
    operator.ifloordiv: "//=", operator.imod: "%=", operator.ipow: "**=", operator.imatmul: "@=",
    operator.iand: "&=", operator.ior: "|=", operator.ixor: "^=", operator.ilshift: "<<=",
    operator.irshift: ">>=",
}
_UNARY = {operator.neg: "-", operator.pos: "+", operator.invert: "~", operator.not_: "not "}
_ILLEGAL = set(dir(builtins)) | set(keyword.kwlist) | {"torch", "operator"}


def _snake_case(s):
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", s).lower()


class Graph:
    def __init__(self):
        self._nodes = []
        self._names = set()

    @property
    def nodes(self):
        return list(self._nodes)

    def _unique(self, candidate):
        base = re.sub(r"[^0-9a-zA-Z_]+", "_", candidate) or "_"
        if base[0].isdigit():
            base = "_" + base
        if base in _ILLEGAL:
            base = base + "_1" if base + "_1" not in self._names else base
        name = base
        i = 0
        while name in self._names or name in _ILLEGAL:
            i += 1
            stem = re.sub(r"_\d+$", "", base)
            name = f"{stem}_{i}"
        self._names.add(name)
        return name

    def create_node(self, op, target, args=(), kwargs=None, name=None):
        if name is None:
            if op == "placeholder":
                name = _snake_case(target)
            elif op == "call_method":
                name = target
            elif op == "output":
                name = "output"
            else:
                name = getattr(target, "__name__", "node")
        node = Node(self, self._unique(name), op, target, args, kwargs or {})
        self._nodes.append(node)
        return node

    def placeholder(self, name, type_expr=None):
        return self.create_node("placeholder", name)

    def call_function(self, the_function, args=(), kwargs=None):
        return self.create_node("call_function", the_function, args, kwargs)

    def call_method(self, method_name, args=(), kwargs=None):
        return self.create_node("call_method", method_name, args, kwargs)

    def call_module(self, module_name, args=(), kwargs=None):
        return self.create_node("call_module", module_name, args, kwargs)

    def get_attr(self, qualified_name):
        return self.create_node("get_attr", qualified_name)

    def output(self, result):
        return self.create_node("output", "output", (result,))

    def erase_node(self, node):
        if node.users:
            raise RuntimeError(f"Tried to erase Node {node} but it still had {len(node.users)} users in the graph")
        for n in node.all_input_nodes:
            n.users.pop(node, None)
        self._nodes.remove(node)

    def lint(self):
        seen = set()
        for n in self._nodes:
            for i in n.all_input_nodes:
                if i not in seen:
                    raise RuntimeError(f"Argument '{i}' of Node '{n}' was used before it has been defined")
            seen.add(n)

    def __str__(self):
        lines = ["graph():"]
        for n in self._nodes:
            lines.append("    " + n.format_node())
        return "\n".join(lines)

    def print_tabular(self):
        """Prints the nodes as a table (opcode, name, target, args, kwargs)."""
        headers = ["opcode", "name", "target", "args", "kwargs"]
        rows = [[n.op, n.name, _target_str(n.target), _fmt_arg(n.args), _fmt_arg(n.kwargs)] for n in self._nodes]
        widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
        fmt = "  ".join("{:<%d}" % w for w in widths)
        print(fmt.format(*headers).rstrip())
        print("  ".join("-" * w for w in widths))
        for r in rows:
            print(fmt.format(*r).rstrip())

    # --- code generation -------------------------------------------------------------------

    def _python_code(self, annotate=False, comments=False):
        """The `forward` source (and the globals it refers to)."""
        globals_ = {}
        body = []
        last_use = {}
        for n in self._nodes:
            for i in n.all_input_nodes:
                last_use[i] = n
        frees = {}
        for value, user in last_use.items():
            frees.setdefault(user, []).append(value)
        params = []

        def target_expr(t):
            import torch

            name = getattr(t, "__name__", None)
            if name and getattr(torch, name, None) is t:
                return f"torch.{name}"
            if name and getattr(torch.nn.functional, name, None) is t:
                return f"torch.nn.functional.{name}"
            if name and getattr(operator, name, None) is t:
                return f"operator.{name}"
            key = f"_fx_target_{len(globals_)}"
            globals_[key] = t
            return key

        def arg_expr(a):
            if isinstance(a, Node):
                return a.name
            if isinstance(a, tuple):
                inner = ", ".join(arg_expr(x) for x in a)
                return f"({inner},)" if len(a) == 1 else f"({inner})"
            if isinstance(a, list):
                return "[" + ", ".join(arg_expr(x) for x in a) + "]"
            if isinstance(a, dict):
                return "{" + ", ".join(f"{k!r}: {arg_expr(v)}" for k, v in a.items()) + "}"
            if isinstance(a, slice):
                return f"slice({arg_expr(a.start)}, {arg_expr(a.stop)}, {arg_expr(a.step)})"
            r = repr(a)
            if r.startswith("device("):
                return f"torch.{r}"
            return r

        def call_args(node):
            parts = [arg_expr(a) for a in node.args] + [f"{k} = {arg_expr(v)}" for k, v in node.kwargs.items()]
            return ", ".join(parts)

        last_comment = None
        for n in self._nodes:
            ann = n.meta.get("type_str")
            if n.op == "placeholder":
                kind = " : torch.SymInt" if (ann or "").startswith("Sym(") else " : torch.Tensor"
                params.append(f'{n.target}: "{ann}"' if (annotate and ann) else f"{n.target}" + (kind if not annotate else ""))
                if n.name == n.target:
                    # A parameter named as its node (a size symbol `s0`) needs no rebinding.
                    continue
                line = f"{n.name} = {n.target}"
            elif n.op == "output":
                line = f"return {arg_expr(n.args[0])}"
            else:
                lhs = f'{n.name}: "{ann}"' if (annotate and ann) else n.name
                if n.op == "call_function" and n.target in _INPLACE and len(n.args) == 2 and not n.kwargs:
                    target = arg_expr(n.args[0])
                    lhs, rhs = f"{target} {_INPLACE[n.target]} {arg_expr(n.args[1])};  {lhs}", target
                elif n.op == "call_function" and n.target is operator.setitem and len(n.args) == 3:
                    # A statement too: store, then name the mutated tensor.
                    target = arg_expr(n.args[0])
                    lhs, rhs = f"{target}[{arg_expr(n.args[1])}] = {arg_expr(n.args[2])};  {lhs}", target
                elif n.op == "call_function" and n.target in _INFIX and len(n.args) == 2 and not n.kwargs:
                    rhs = f"{arg_expr(n.args[0])} {_INFIX[n.target]} {arg_expr(n.args[1])}"
                elif n.op == "call_function" and n.target in _UNARY and len(n.args) == 1:
                    rhs = f"{_UNARY[n.target]}{arg_expr(n.args[0])}"
                elif n.op == "call_function" and n.target is operator.getitem:
                    rhs = f"{arg_expr(n.args[0])}[{arg_expr(n.args[1])}]"
                elif n.op == "call_function":
                    rhs = f"{target_expr(n.target)}({call_args(n)})"
                elif n.op == "call_method":
                    self_arg, rest = n.args[0], n.args[1:]
                    parts = [arg_expr(a) for a in rest] + [f"{k} = {arg_expr(v)}" for k, v in n.kwargs.items()]
                    rhs = f"{arg_expr(self_arg)}.{n.target}({', '.join(parts)})"
                elif n.op == "get_attr":
                    rhs = f"self.{n.target}"
                else:
                    rhs = f"getattr(self, {n.target!r})({call_args(n)})"
                line = f"{lhs} = {rhs}"
            dead = frees.get(n, [])
            if dead and n.op != "output":
                line += ";  " + " = ".join(d.name for d in dead) + " = None"
            if comments and n.op not in ("placeholder", "output"):
                trace = n.meta.get("source_comment")
                if trace and trace != last_comment:
                    body.append("")
                    body.append("# " + trace)
                    last_comment = trace
            body.append(line)
        return params, body, globals_

    def python_code(self, root_module="self"):
        params, body, globals_ = self._python_code()
        src = "\n\n\ndef forward(self, " + ", ".join(params) + "):\n"
        src += "".join(f"    {line}\n" for line in body)
        return _PythonCode(src, globals_)


class _PythonCode:
    def __init__(self, src, globals_):
        self.src = src
        self.globals = globals_
