"""`torch.nn` modules built inside the compiled region (issue 27 requirement 5): `nn.Sequential`
of modules built there (called, measured, indexed, appended to), and modules built with keyword
arguments that leave the region (rebuilt by calling the class again, as eager makes a new one
per call). Graph counts are real PyTorch 2.15's, except where noted."""
import torch
from torch import nn

from torch._dynamo.testing import CompileCounter

from _harness import check, done, expect


def sequential_call(x):
    seq = nn.Sequential(nn.ReLU(), nn.Softmax(dim=0))
    return seq(x), len(seq), type(seq[1]).__name__, [type(m).__name__ for m in seq]


def sequential_append(x):
    seq = nn.Sequential(nn.Tanh())
    seq.append(nn.Flatten(start_dim=0))
    return seq(x), len(seq), type(seq[-1]).__name__


def kwargs_module_leaves(x):
    flat = nn.Flatten(start_dim=0)
    return flat, flat(x)


def nested_leaves(x):
    seq = nn.Sequential(nn.Sequential(nn.Tanh(), nn.Flatten(start_dim=0)), nn.Softmax(dim=-1))
    return seq, seq(x)


def appended_leaves(x):
    seq = nn.Sequential(nn.ReLU())
    seq.append(nn.Tanh())
    return seq, x + 1


try:
    import _rynamo_dynamo  # noqa: F401 - only Rynamo has it

    RYNAMO = True
except ImportError:
    RYNAMO = False

x = torch.randn(2, 3)
check(sequential_call, x)
check(sequential_append, x)
# Modules leaving the region. Graph counts: PyTorch makes 1 each. A Sequential appended to in
# the region and then returned is no longer what its class builds: Rynamo runs that frame
# eagerly (0 graphs, same values).
for fn, want, graphs in (
    (kwargs_module_leaves, "Flatten(start_dim=0, end_dim=-1)", 1),
    (nested_leaves, "Sequential((0): Sequential((0): Tanh() (1): Flatten(start_dim=0, end_dim=-1)) (1): Softmax(dim=-1))", 1),
    (appended_leaves, "Sequential((0): ReLU() (1): Tanh())", 0 if RYNAMO else 1),
):
    for backend in ("eager", "inductor"):
        torch._dynamo.reset()
        cnt = CompileCounter()
        opt = torch.compile(fn, backend=cnt if backend == "eager" else backend)
        m1, y1 = opt(x)
        m2, _ = opt(x)
        m0, y0 = fn(x)
        flat = " ".join(repr(m1).split()).replace("( ", "(").replace(" )", ")")
        expect(f"{backend} {fn.__name__}: module", flat, want)
        expect(f"{backend} {fn.__name__}: a new module per call", (m1 is not m2, type(m1)), (True, type(m0)))
        if backend == "eager":  # the eager backend runs eager's kernels: bitwise equal
            expect(f"{backend} {fn.__name__}: value", torch.equal(y0, y1), True)
        if fn is kwargs_module_leaves:
            expect(f"{backend}: keyword argument kept", (m1.start_dim, m1.end_dim), (0, -1))
        if backend == "eager":
            expect(f"{fn.__name__}: graphs", cnt.frame_count, graphs)
done()
