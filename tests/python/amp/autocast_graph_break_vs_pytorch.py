"""A graph break inside a compiled CPU autocast region (issue 29 req 3) against PyTorch 2.15:
PyTorch compiles the region's two halves as two graphs and restores the autocast state in the
resume function, so ops after the break still run in bfloat16 and the state is off again after
the region (also on a second, cached call, and when the code after the break raises inside the
region); `torch._dynamo.explain` counts the graphs and the break, and a counting backend the
frames, on the `eager` and `inductor` backends. Stdout equals
`autocast_graph_break_vs_pytorch.out`, recorded with
`/tmp/pt/bin/python autocast_graph_break_vs_pytorch.py`."""
import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounterWithBackend


def region(x, w):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = x @ w
        torch._dynamo.graph_break()
        z = y @ w
        s = z.float() + 1
    return s, y.dtype, z.dtype, torch.is_autocast_enabled("cpu")


def region_print(x, w):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = torch.mm(x, w)
        print("inside, autocast on:", torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
        z = torch.mm(y.float(), w)
    return y.dtype, z.dtype, z.float() * 2


x = torch.tensor([[1.0, 0.5], [-0.25, 2.0]])
w = torch.tensor([[0.5, -1.0], [0.75, 0.25]])
for fn in (region, region_print):
    want = fn(x, w)
    for backend in ("eager", "inductor"):
        torch._dynamo.reset()
        counter = CompileCounterWithBackend(backend)
        compiled = torch.compile(fn, backend=counter)
        got = compiled(x, w)
        again = compiled(x, w)  # cache hits: the resume function's entry state is set again
        got = got if all((torch.equal(g, v) if isinstance(g, torch.Tensor) else g == v)
                         for g, v in zip(got, again)) else again
        same = all((torch.equal(g, v) and g.dtype == v.dtype) if isinstance(g, torch.Tensor) else g == v
                   for g, v in zip(got, want))
        print(f"{backend} {fn.__name__}: {[g for g in got if not isinstance(g, torch.Tensor)]}, "
              f"compiled == eager: {same}, frames: {counter.frame_count}, "
              f"autocast after: {torch.is_autocast_enabled('cpu')}")
    torch._dynamo.reset()
    e = torch._dynamo.explain(fn)(x, w)
    print(f"explain {fn.__name__}: graphs {e.graph_count}, breaks {e.graph_break_count}")


def region_raises(x, w):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = x @ w
        torch._dynamo.graph_break()
        raise ValueError(f"inside: {y.dtype}, {torch.is_autocast_enabled('cpu')}")


for backend in ("eager", "inductor"):
    torch._dynamo.reset()
    try:
        torch.compile(region_raises, backend=backend)(x, w)
    except ValueError as e:
        print(f"{backend} region_raises: {e}; autocast after: {torch.is_autocast_enabled('cpu')}")
