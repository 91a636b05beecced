"""Programs whose FX view under dynamic shapes is compared with PyTorch 2.15's
(`fx_dynamic_views.py`, recorded by `_fx_dynamic_record.py`): the graph a user backend receives
(`print_readable()`), its `example_inputs`, and what the backend's callable is called with."""
import os
import re

import torch
import torch._dynamo

# The source comments name this file; recorded without its directory (machine-specific).
_HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _kind(v):
    if isinstance(v, torch.Tensor):
        return list(v.shape)
    if isinstance(v, torch.SymInt):
        # The hint, read without `int()` (which would specialise the symbol).
        return ["SymInt", v.node.hint]
    return [type(v).__name__, v]


def run_case(fn, calls, dynamic=None, mark=None):
    """Compiles `fn` with a recording backend and calls it on each argument tuple. Returns the
    record (graphs, example inputs, each call's arguments to the compiled callable, whether each
    result equals eager)."""
    torch._dynamo.reset()
    rec = {"graphs": [], "examples": [], "calls": [], "equal": []}

    def backend(gm, example_inputs):
        rec["graphs"].append(gm.print_readable(print_output=False).replace(_HERE, ""))
        rec["examples"].append([_kind(e) for e in example_inputs])
        forward = gm.forward

        def compiled(*args):
            rec["calls"].append([_kind(a) for a in args])
            return forward(*args)

        return compiled

    opt = torch.compile(fn, backend=backend, dynamic=dynamic)
    for args in calls:
        if mark is not None:
            mark(args)
        got, want = opt(*args), fn(*args)
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        rec["equal"].append(
            len(got) == len(want)
            and all(g.shape == w.shape and torch.allclose(g, w, atol=1e-5) for g, w in zip(got, want))
        )
    return rec


def sum_and_size(x, y):
    return x.sum(1) * 2 + y.size(0), x.view(-1)


def reshape_product(x):
    return x.reshape(x.size(0) * x.size(1), -1).relu()


def matmul_rows(x, w):
    return (x @ w).sum(0)


def cat_rows(x, y):
    return torch.cat([x, y]) * 3


def scaled_by_int(x, n):
    return x * n + x.size(0)


def duck_sized(x, y):
    return x.t() + y, y * y.size(0)


def flatten_transpose(x):
    b, t, c = x.shape
    return x.view(b * t, c).t() + 1


def square_rows(x):
    b, t, _ = x.shape
    return x.reshape(b, t * t) * 2


def _mark_rows(args):
    torch._dynamo.mark_dynamic(args[0], 0)


def cases():
    """name -> (function, calls, dynamic, mark). Inputs are made with a fixed seed."""
    torch.manual_seed(0)
    r = torch.randn
    return {
        "dynamic_true": (sum_and_size, [(r(4, 3), r(5)), (r(6, 7), r(9)), (r(3, 5), r(2))], True, None),
        "reshape_product": (reshape_product, [(r(4, 3, 2),), (r(5, 6, 2),), (r(2, 3, 2),)], True, None),
        "mark_dynamic": (matmul_rows, [(r(4, 3), r(3, 5)), (r(6, 3), r(3, 5)), (r(9, 3), r(3, 5))], None, _mark_rows),
        "automatic": (cat_rows, [(r(4, 3), r(2, 3)), (r(5, 3), r(2, 3)), (r(7, 3), r(2, 3))], None, None),
        "automatic_int": (scaled_by_int, [(r(4, 3), 2), (r(5, 3), 3), (r(7, 3), 4)], None, None),
        "duck_sized": (duck_sized, [(r(4, 3), r(4)), (r(6, 5), r(6)), (r(3, 2), r(3))], True, None),
        "square": (square_rows, [(r(2, 3, 3),), (r(4, 5, 5),), (r(3, 2, 2),)], True, None),
        "flatten": (flatten_transpose, [(r(2, 3, 4),), (r(3, 5, 4),), (r(4, 2, 6),)], True, None),
    }


def record_all():
    return {name: run_case(fn, calls, dynamic, mark) for name, (fn, calls, dynamic, mark) in cases().items()}


def normalise_symbols(text):
    """Size symbols renamed `s0`, `s1`, ... in order of first appearance (PyTorch names them by
    a hash of their source, Rynamo by creation order)."""
    names = {}
    return re.sub(r"\bs\d+\b", lambda m: names.setdefault(m.group(0), f"s{len(names)}"), text)
