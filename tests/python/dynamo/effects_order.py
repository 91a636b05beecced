"""Values a compiled frame returns (or hands to its resume function at a graph break) are read
before its side effects are applied, as Dynamo's generated code does (`codegen_suffix`: the
stack, then the mutations): a global or attribute read before the frame reassigned or deleted it
keeps the value it had when read. Mutable values (lists) are read from their source after the
graph, so they show the order; immutable ones are constants of the trace."""
import torch
import torch._dynamo

from _harness import done, expect

T = [1, 2]
U = [1]


class Box:
    pass


B = Box()


def returns_global_read_before_store(x):
    global T
    old = T
    T = [3, 4]
    return x + 1, old, T


def hands_global_read_before_store_to_resume(x):
    global U
    old = U
    U = [2]
    y = x * 2
    torch._dynamo.graph_break()
    return y + 1, old, U


def returns_attribute_read_before_delete(x):
    v = B.a
    del B.a
    B.b = v
    return x - 1, v


def reset():
    global T, U
    T, U = [1, 2], [1]
    B.a = [5]
    B.__dict__.pop("b", None)


for fn in (
    returns_global_read_before_store,
    hands_global_read_before_store_to_resume,
    returns_attribute_read_before_delete,
):
    torch._dynamo.reset()
    opt = torch.compile(fn, backend="eager")
    for i in range(2):
        reset()
        want = fn(torch.ones(2))
        want_state = (T, U, dict(B.__dict__))
        reset()
        got = opt(torch.ones(2))
        expect(f"{fn.__name__} call {i}: state", (T, U, dict(B.__dict__)), want_state)
        expect(f"{fn.__name__} call {i}: non-tensor results", got[1:], want[1:])
        expect(f"{fn.__name__} call {i}: tensor", got[0].tolist(), want[0].tolist())
done()
