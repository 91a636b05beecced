"""A compiled frame that raises after Python side effects: the exception reaches the caller once,
with the side effects before it applied once and none of those after it, as in eager. Stores
that can run code or fail when replayed after the graph (a property, `__slots__`, a custom
`__setattr__`, deleting a missing attribute) and exceptions whose constructor rejects its
arguments happen in Python at their place (a graph break there), not after the graph."""
import _rynamo_dynamo as _C
import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounter

from _harness import done, expect

LOG = []


class ReadOnly:
    @property
    def x(self):
        return 1


class Slotted:
    __slots__ = ("a",)


class Plain:
    pass


class Doubling:
    def __init__(self):
        self._v = 0

    @property
    def v(self):
        return self._v

    @v.setter
    def v(self, value):
        LOG.append("setter")
        self._v = value * 2


class Logged:
    def __setattr__(self, name, value):
        LOG.append(f"set {name}")
        object.__setattr__(self, name, value)


RO, SL, PL, DB, LG = ReadOnly(), Slotted(), Plain(), Doubling(), Logged()


def store_read_only_property(t):
    LOG.append("before")
    RO.x = t
    LOG.append("after")
    return t + 1


def store_missing_slot(t):
    LOG.append("before")
    SL.b = t
    LOG.append("after")
    return t + 1


def delete_missing_attribute(t):
    LOG.append("before")
    del PL.missing
    LOG.append("after")
    return t + 1


def bad_exception_arguments(t):
    LOG.append("before")
    e = UnicodeDecodeError("x")
    LOG.append("after")
    return t + 1, e


def store_through_setter(t):
    LOG.append("before")
    DB.v = 3
    LOG.append(DB.v)
    return t + DB.v


def store_through_custom_setattr(t):
    LOG.append("before")
    LG.y = 5
    LOG.append("after")
    return t + LG.y


def outcome(fn, t):
    """What a call leaves: the result or the exception (type and message), and the log."""
    LOG.clear()
    try:
        r = fn(t)
        r = r[0] if isinstance(r, tuple) else r
        res = ("returned", r.tolist())
    except Exception as e:  # the exception itself is what is compared
        res = ("raised", type(e).__name__, str(e))
    return res, list(LOG)


def check(fn, breaks):
    torch._dynamo.reset()
    cnt = CompileCounter()
    opt = torch.compile(fn, backend=cnt)
    for i in range(2):
        want = outcome(fn, torch.ones(2))
        got = outcome(opt, torch.ones(2))
        expect(f"{fn.__name__} call {i}", got, want)
    seen = [r.splitlines()[0] for r, _s, _c in _C.break_records()]
    expect(f"{fn.__name__} graph breaks", len(seen), breaks)


for fn in (store_read_only_property, store_missing_slot, delete_missing_attribute, bad_exception_arguments):
    check(fn, breaks=1)
check(store_through_setter, breaks=1)
# The store runs in Python; its `__setattr__` frame is compiled in turn and breaks at
# `object.__setattr__`.
check(store_through_custom_setattr, breaks=2)

# A store into an existing slot and the deletion of an attribute that is there stay in the graph.
SL2, PL2 = Slotted(), Plain()


def store_slot_and_delete(t):
    LOG.append("before")
    SL2.a = 2
    PL2.gone = 1
    del PL2.gone
    return t + SL2.a


check(store_slot_and_delete, breaks=0)


# An exception from the compiled graph itself (here a backend's callable) goes to the caller as
# it is; the frame does not run again eagerly. The side effects replay after the graph, as in
# Dynamo's generated code, so none happened.
def failing_backend(gm, example_inputs):
    def run(*args):
        raise RuntimeError("backend boom")

    return run


def effects_then_graph(t):
    LOG.append("before")
    return t.sin()


torch._dynamo.reset()
expect(
    "graph raising at run time",
    outcome(torch.compile(effects_then_graph, backend=failing_backend), torch.ones(2)),
    (("raised", "RuntimeError", "backend boom"), []),
)
done()
