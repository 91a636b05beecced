"""Functions made inside compiled code and handed back to Python are rebuilt after the graph: they
must be the functions `def` would have made (qualified name, defaults, keyword-only defaults,
annotations, docstring, module), so reprs, error messages and introspection match eager; the same
attributes read while tracing are what the real function would answer."""
import functools

import _rynamo_dynamo as _C
import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounter

from _harness import done, expect


def attributes(fn):
    return (
        fn.__name__,
        fn.__qualname__,
        fn.__module__,
        fn.__doc__,
        fn.__defaults__,
        fn.__kwdefaults__,
        fn.__annotations__,
    )


def compare(make, *args):
    """Rebuilt functions from a whole-graph compile must match the eager ones."""
    torch._dynamo.reset()
    cnt = CompileCounter()
    eager = make(torch.ones(1), *args)[1:]
    compiled = torch.compile(make, backend=cnt, fullgraph=True)(torch.ones(1), *args)[1:]
    name = make.__name__
    expect(f"{name}: graphs", cnt.frame_count, 1)
    for i, (e, c) in enumerate(zip(eager, compiled)):
        expect(f"{name}[{i}] attributes", attributes(c), attributes(e))
    return eager, compiled


def annotated(x):
    def g(a: int, b=2, *, k: float = 1.0) -> int:
        "adds"
        return a + b

    return x + 1, g


def annotations_over_a_local(x):
    # The annotations read a local of the compiled frame: `__annotate__` closes over its cell.
    T = int

    def g(a: T) -> T:
        return a

    return x + 1, g


def lambda_and_nested(x):
    def outer():
        def inner(p, q):
            return p + q

        return inner

    return x + 1, lambda v=3: v, outer


compare(annotated)
compare(annotations_over_a_local)
(_, e_outer), (_, c_outer) = compare(lambda_and_nested)
expect("nested qualname", c_outer().__qualname__, e_outer().__qualname__)


# A call with a missing argument names the function by its qualified name.
def missing_argument(fn):
    try:
        fn()
    except TypeError as e:
        return str(e)
    return "no error"


eager_g, compiled_g = compare(annotated)
expect("error message", missing_argument(compiled_g[0]), missing_argument(eager_g[0]))
expect(
    "error message names f.<locals>.g",
    missing_argument(compiled_g[0]).startswith("annotated.<locals>.g()"),
    True,
)


# `functools.wraps` on a rebuilt function copies its metadata (it runs eagerly after a break).
def wrapped(x):
    def g(a: int) -> int:
        "doc"
        return a

    @functools.wraps(g)
    def w(*args, **kwargs):
        return g(*args, **kwargs)

    return x + 1, g, w


# The same attributes read while tracing (not rebuilt: folded to constants in the graph's
# frame) match eager and need no graph break: `__qualname__` is `f.<locals>.g`, not `g`.
def reads_attributes(x):
    def g(a, b=2):
        "doc of g"
        return a + b

    h = lambda: 0  # noqa: E731
    return x + 1, g.__name__, g.__qualname__, g.__module__, g.__doc__, g.__defaults__, h.__qualname__, h.__doc__


torch._dynamo.reset()
cnt = CompileCounter()
got = torch.compile(reads_attributes, backend=cnt)(torch.ones(1))[1:]
expect("attributes read while tracing", got, reads_attributes(torch.ones(1))[1:])
expect("attributes read while tracing: graphs", cnt.frame_count, 1)
expect("attributes read while tracing: breaks", [r.splitlines()[0] for r, _s, _c in _C.break_records()], [])

e = wrapped(torch.ones(1))
c = torch.compile(wrapped, backend="eager")(torch.ones(1))
expect("wraps qualname", c[2].__qualname__, e[2].__qualname__)
expect("wraps annotations", c[2].__annotations__, e[2].__annotations__)
expect("wraps __wrapped__", c[2].__wrapped__ is c[1], True)
done()
