"""`functools.cached_property` read on an object made in the compiled region (issue 27
requirement 4): the function runs once, its value lands in the object's `__dict__`, the second
read is the cached object, and the object that leaves the region carries it. Graph counts are
Python 3.12+ PyTorch's (no lock in `cached_property.__get__`; see matrix_stdlib.py's `py312`)."""
import functools

import torch

from _harness import check, done, expect

calls = []


class Lazy:
    def __init__(self, v):
        self.v = v

    @functools.cached_property
    def twice(self):
        calls.append(1)
        return self.v * 2


def read_twice(x):
    o = Lazy(x)
    a = o.twice
    b = o.twice
    return a is b, a + 1, o


class Pure:
    def __init__(self, v):
        self.v = v

    @functools.cached_property
    def twice(self):
        return self.v * 2


def read_twice_values(x):
    o = Pure(x)
    a = o.twice
    return a is o.twice, a + 1, o.twice * 3


def read_after_store(x):
    o = Pure(3)
    o.twice = x
    return o.twice * 2


for backend in ("eager", "inductor"):
    calls.clear()
    torch._dynamo.reset()
    got = torch.compile(read_twice, backend=backend)(torch.ones(2))
    expect(f"{backend}: one call of the function", len(calls), 1)
    expect(f"{backend}: cached object", got[0], True)
    expect(f"{backend}: object leaves with the value", sorted(vars(got[2])), ["twice", "v"])
    expect(f"{backend}: cached value", got[2].twice.tolist(), [2.0, 2.0])
    expect(f"{backend}: function not called again", len(calls), 1)

check(read_twice_values, torch.ones(2))
check(read_after_store, torch.ones(2))
done()
