"""einops through Dynamo (issue 27 requirement 5): PyTorch makes einops register its ops as
`allow_in_graph` the first time a trace reaches einops (`trace_rules.add_module_init_func`), so
`repeat`/`rearrange` are single graph nodes and the trace never guards on einops' backend cache.
With the real einops 0.8.2 (not in CI), `f` below made 2 graphs in Rynamo (the trace through the
first call guarded on einops' empty `_loaded_backends`, so the second call recompiled) and makes
1 now, as PyTorch 2.15. CI runs a stand-in with einops' registration structure (`_standin/einops`),
which checks the init path and values but does not reproduce that recompile.

Also: an allow_in_graph function given an expanded (stride-0) intermediate and returning a view
of it; the node's recorded layout must be the real call's (the probe ran on a contiguous
stand-in and recorded the wrong strides: a debug-build panic, `host_call: stride of dim 0
differs from meta`, with real einops and with `h` below)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "_standin"))

import einops  # noqa: E402
import torch  # noqa: E402
import torch._dynamo  # noqa: E402
from torch._dynamo.testing import CompileCounter  # noqa: E402


def f(x):
    y = einops.repeat(x, "h w -> h w c", c=3)
    z = einops.rearrange(y, "h w c -> c (h w)")
    return z.sum(1) + 1, y


x = torch.arange(6.0).reshape(2, 3)
want = f(x)
torch._dynamo.reset()
cnt = CompileCounter()
g = torch.compile(f, backend=cnt)
for _ in range(3):
    got = g(x)
    assert all(torch.equal(a, b) for a, b in zip(got, want)), (got, want)
    assert got[1].stride() == want[1].stride(), (got[1].stride(), want[1].stride())
assert cnt.frame_count == 1, cnt.frame_count
assert cnt.op_count >= 2, cnt.op_count

# The registration ran once, before the first trace: the ops are allow_in_graph.
assert einops._core._type2backend, "the backend was made by the init"


def view_of_expanded(a):
    return a.transpose(0, 1)


torch._dynamo.allow_in_graph(view_of_expanded)


def h(x):
    e = x.unsqueeze(0).expand(4, 3)
    return view_of_expanded(e) * 2


v = torch.arange(3.0)
torch._dynamo.reset()
# The native eager backend runs the graph through the registry, which checks each node's
# output against its recorded meta (the FX code of a Python backend would not).
out = torch.compile(h, backend="eager", fullgraph=True)(v)
assert torch.equal(out, h(v)), out
torch._dynamo.reset()
got = torch.compile(f, backend="eager", fullgraph=True)(x)
assert all(torch.equal(a, b) for a, b in zip(got, want)), got
print("ok")
