"""disallow_in_graph(torch.sub) breaks at every torch.sub; allow_in_graph puts a function Dynamo
cannot trace into the graph as one opaque call."""
import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounterWithBackend, EagerAndRecordGraphs

from _harness import check, done


def uses_sub(x):
    a = x.sin()
    b = torch.sub(a, 1)
    return b.cos()


x = torch.randn(6)
check(uses_sub, x, graphs=1)
torch._dynamo.disallow_in_graph(torch.sub)
check(uses_sub, x, graphs=2)
torch._dynamo.allow_in_graph(torch.sub)
check(uses_sub, x, graphs=1)

# disallow_in_graph on something that is not an allowed op: PyTorch's error.
def not_an_op(x):
    return x

try:
    torch._dynamo.disallow_in_graph(not_an_op)
except Exception as e:
    assert type(e).__name__ == "IncorrectUsage", type(e)
    assert "disallow_in_graph is expected to be used on an already allowed callable" in str(e)
else:
    raise AssertionError("disallow_in_graph accepted a plain function")


def untraceable(t, k):
    print("side effect Dynamo cannot trace", k)
    return t * k, t + k


torch._dynamo.allow_in_graph(untraceable)


def calls_untraceable(x):
    a, b = untraceable(x.sin(), 3)
    return a.cos() + b


check(calls_untraceable, x, graphs=1)
rec = EagerAndRecordGraphs()
torch._dynamo.reset()
opt = torch.compile(calls_untraceable, backend=CompileCounterWithBackend(rec))
opt(x)
targets = [n.target for n in rec.graphs[0].graph.nodes if n.op == "call_function"]
assert untraceable in targets, targets
# One opaque node: the print inside did not break the graph and is not traced into.
assert sum(1 for t in targets if t is untraceable) == 1

# allow_in_graph takes a list too.
def f1(t):
    return t + 1


def f2(t):
    return t * 2


torch._dynamo.allow_in_graph([f1, f2])


def both(x):
    return f2(f1(x))


check(both, x, graphs=1)
done()
