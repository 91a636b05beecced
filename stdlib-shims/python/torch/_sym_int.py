"""`torch.SymInt` as a backend sees it in `example_inputs`: a size symbol of a dynamic graph
(`s0`) holding the size of the example the graph was traced with.

Rynamo's symbolic sizes live in the tracer (Rust); a backend only receives these for the
graph's `Sym(s0)` placeholders and is later called with plain ints in their places. So the
object carries its name and hint and behaves as that int: arithmetic and comparisons give plain
ints and bools (PyTorch's give further SymInts/SymBools whose guards the backend cannot add to
Rynamo's guard set anyway).
"""


class SymNode:
    """`SymInt.node`: the symbol's expression (its name) and hint."""

    def __init__(self, expr, hint):
        self.expr = expr
        self.hint = hint

    def has_hint(self):
        return True

    def __repr__(self):
        return self.expr


class SymInt:
    """A size symbol with its example value (`int(s)`)."""

    def __init__(self, expr, hint):
        self.node = SymNode(expr, int(hint))

    def __int__(self):
        return self.node.hint

    def __index__(self):
        return self.node.hint

    def __float__(self):
        return float(self.node.hint)

    def __repr__(self):
        return self.node.expr

    __str__ = __repr__

    def __hash__(self):
        return hash(self.node.hint)

    def __bool__(self):
        return self.node.hint != 0

    def hint(self):
        return self.node.hint

    def has_hint(self):
        return True


def sym_float(a):
    """`torch.sym_float(a)`: `float(a)`; FX graphs call it on a SymInt placeholder (PyTorch's
    `sym_float = torch.sym_float(l_n_)`), which is called with the plain int."""
    return float(a)


def sym_int(a):
    """`torch.sym_int(a)`: `int(a)` (toward zero), as FX graphs of `int(n / 2)` call it."""
    return int(a)


def _sym_sqrt(a):
    """`torch._sym_sqrt(a)`: `math.sqrt(a)`, as FX graphs of `math.sqrt(n / 2)` call it."""
    import math

    return math.sqrt(a)


def sym_max(a, b):
    """`torch.sym_max(a, b)` of ints (FX graphs of `max(n, 2)` call it with plain ints)."""
    return max(a, b)


def sym_min(a, b):
    """`torch.sym_min(a, b)` of ints."""
    return min(a, b)


def _binary(op):
    def forward(self, other):
        return op(self.node.hint, int(other) if isinstance(other, SymInt) else other)

    def reflected(self, other):
        return op(int(other) if isinstance(other, SymInt) else other, self.node.hint)

    return forward, reflected


def _install():
    import operator

    for name in ("add", "sub", "mul", "floordiv", "mod", "truediv", "pow", "and", "or", "xor",
                 "lshift", "rshift"):
        op = getattr(operator, name + "_" if name in ("and", "or") else name)
        fwd, refl = _binary(op)
        setattr(SymInt, f"__{name}__", fwd)
        setattr(SymInt, f"__r{name}__", refl)
    for name in ("eq", "ne", "lt", "le", "gt", "ge"):
        setattr(SymInt, f"__{name}__", _binary(getattr(operator, name))[0])
    SymInt.__neg__ = lambda self: -self.node.hint
    SymInt.__pos__ = lambda self: self.node.hint
    SymInt.__abs__ = lambda self: abs(self.node.hint)


_install()
