"""Seed 004: nonstrict_trace under fullgraph=True, as a decorator and as a wrapper inside the
compiled region."""
import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounter


def get_magic_num():
    torch._dynamo.graph_break()
    return torch.tensor([42])


@torch.compile(fullgraph=True)
def func(x):
    n = get_magic_num()
    return x + n


try:
    func(torch.rand(10))
except torch._dynamo.exc.Unsupported as e:
    msg = str(e)
    assert msg.startswith("Call to `torch._dynamo.graph_break()`"), msg
    assert "from user code:" in msg and "api_nonstrict.py" in msg, msg
else:
    raise AssertionError("fullgraph=True did not raise on a graph break")


@torch._dynamo.nonstrict_trace
def get_magic_num_nonstrict():
    torch._dynamo.graph_break()
    return torch.tensor([42])


cnt = CompileCounter()


def func2(x):
    n = get_magic_num_nonstrict()
    return x + n


opt2 = torch.compile(func2, fullgraph=True, backend=cnt)
x = torch.rand(10)
assert bool((opt2(x) == x + 42).all())
assert cnt.frame_count == 1


def func3(x):
    n = torch._dynamo.nonstrict_trace(get_magic_num)()
    return x + n


torch._dynamo.reset()
cnt = CompileCounter()
opt3 = torch.compile(func3, fullgraph=True, backend=cnt)
assert bool((opt3(x) == x + 42).all())
assert cnt.frame_count == 1


# Tensor arguments flow through: the ops inside are traced into the graph.
@torch._dynamo.nonstrict_trace
def scale_and_shift(t, k):
    torch._dynamo.graph_break()
    return t * k + 1, {"k": k}


def func4(x):
    y, info = scale_and_shift(x.sin(), 3)
    return y.cos(), info["k"]


torch._dynamo.reset()
cnt = CompileCounter()
opt4 = torch.compile(func4, fullgraph=True, backend=cnt)
got, k = opt4(x)
exp, k2 = func4(x)
assert k == k2 == 3 and bool((got == exp).all()), (got, exp)
assert cnt.frame_count == 1 and cnt.op_count >= 4, cnt.op_count
print("ok")
