"""`torch._dynamo.utils.counters` as PyTorch 2.15 fills them (values recorded under /tmp/pt with
the same programs): per compiled graph `stats.unique_graphs` += 1 and `stats.calls_captured` +=
its calls; per graph break `graph_break[reason]` += 1; `torch._dynamo.reset()` keeps them."""
import torch
import torch._dynamo
from torch._dynamo.utils import counters


def two_ops(x):
    return torch.sin(x) + 1


counters.clear()
torch._dynamo.reset()
g = torch.compile(two_ops, backend="eager")
g(torch.ones(2))
g(torch.ones(2))  # a cache hit: nothing more is counted
assert dict(counters["stats"]) == {"calls_captured": 2, "unique_graphs": 1}, dict(counters["stats"])
torch._dynamo.reset()
assert dict(counters["stats"]) == {"calls_captured": 2, "unique_graphs": 1}, "reset() keeps counters"


def with_break(x):
    y = x + 1
    print("counted break")
    return y * 2


counters.clear()
torch._dynamo.reset()
h = torch.compile(with_break, backend="eager")
h(torch.ones(2))
h(torch.ones(2))
assert dict(counters["stats"]) == {"calls_captured": 2, "unique_graphs": 2}, dict(counters["stats"])
reasons = dict(counters["graph_break"])
assert len(reasons) == 1 and list(reasons.values()) == [1], reasons
assert next(iter(reasons)).startswith("Failed to trace builtin operator"), reasons
print("ok")
