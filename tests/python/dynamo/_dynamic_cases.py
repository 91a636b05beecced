"""Cases of `dynamic_shapes.py`, shared with `_dynamic_record.py`, which runs them under real
PyTorch (`python _dynamic_record.py > dynamic_shapes_pt.json`) to record the compile counts the
test pins. Each case: a function, the input sizes of successive calls, and how inputs are made."""
import torch


def elementwise(x):
    return (x.sin() + 1) * 2


def reducer(x):
    return x.sum(0) + x.mean()


def two_inputs(x, y):
    return x * y + x


def broadcast(x, b):
    return torch.relu(x + b)


def matmul_softmax(x, w):
    return torch.softmax(x @ w, dim=-1)


def slice_head(x):
    return x[:3] * 2


def inner_slice(x):
    return x[1:-1].cumsum(0)


def view_literal(x):
    return x.view(-1, 2).sum(1)


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 8)
        self.fc2 = torch.nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(torch.nn.functional.gelu(self.fc1(x)))


SEQUENCES = {
    "b23423": [2, 3, 4, 2, 3],
    "with01": [3, 1, 4, 0, 5, 6],
    "grow": [5, 6, 7, 8, 9, 10, 11, 12, 13, 14],
}

MODES = {"static": False, "auto": None, "true": True}


def inputs(name, n, gen):
    """The arguments of case `name` for size `n`."""
    r = lambda *s: torch.randn(*s, generator=gen)
    if name == "two_inputs":
        return (r(n, 3), r(n, 3))
    if name == "broadcast":
        return (r(n, 4), r(1, 4))
    if name == "matmul_softmax":
        return (r(n, 4), r(4, 5))
    if name == "view_literal":
        return (r(n, 4),)
    return (r(n, 4),)


def functions():
    torch.manual_seed(0)
    return {
        "elementwise": elementwise,
        "reducer": reducer,
        "two_inputs": two_inputs,
        "broadcast": broadcast,
        "matmul_softmax": matmul_softmax,
        "slice_head": slice_head,
        "inner_slice": inner_slice,
        "view_literal": view_literal,
        "mlp": Mlp(),
    }


def count(fn, name, mode, seq, backend_factory, compare):
    """Compiles `fn` with a counting backend in `mode` and calls it on each size of `seq`;
    `compare(expected, got)` checks every result. Returns the number of compiles."""
    import torch._dynamo
    from torch._dynamo.testing import CompileCounterWithBackend

    torch._dynamo.reset()
    cnt = CompileCounterWithBackend(backend_factory())
    opt = torch.compile(fn, backend=cnt, dynamic=MODES[mode])
    gen = torch.Generator().manual_seed(1)
    for n in seq:
        args = inputs(name, n, gen)
        compare(f"{name}/{mode}/{n}", fn(*args), opt(*args))
    return cnt.frame_count
