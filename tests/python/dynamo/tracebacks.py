"""Exceptions raised in compiled code show the user's frames: the same function names, lines and
source text as in eager, never resume-function or generated-code frames."""
import traceback

import torch
import torch._dynamo


def helper(y):
    return y.reshape(7)


def after_break(x):
    y = x * 2
    print("break")
    z = helper(y)
    return z


def at_break(x):
    y = x + 1
    # The unsupported call itself raises.
    int("not a number")
    return y


def two_breaks(x):
    y = x * 2
    print("first")
    y = y + 1
    print("second")
    return helper(y)


def in_graph_op(x):
    y = x.sin()
    return y.reshape(7)


def in_no_grad(x):
    with torch.no_grad():
        y = x * 2
        print("inside")
        return helper(y)


def frames(fn, *args):
    try:
        fn(*args)
    except Exception as e:
        tb = traceback.extract_tb(e.__traceback__)
        # From the user's function inward (drop this helper's own frame).
        return type(e), str(e), [(f.name, f.lineno, f.line) for f in tb[1:]]
    raise AssertionError(f"{fn.__name__} did not raise")


failures = []
for fn in (after_break, at_break, two_breaks, in_graph_op, in_no_grad):
    x = torch.ones(6)
    eager = frames(fn, x)
    for backend in ("eager", "inductor"):
        torch._dynamo.reset()
        compiled = frames(torch.compile(fn, backend=backend), x)
        # Twice: the second call runs the cached code.
        again = frames(torch.compile(fn, backend=backend), x)
        for got in (compiled, again):
            if got != eager:
                failures.append(f"{fn.__name__} [{backend}]:\n  eager    {eager}\n  compiled {got}")
        names = [n for n, _, _ in compiled[2]]
        assert not any("torch_dynamo_resume" in n or "__compiled_fn" in n for n in names), names

for f in failures:
    print("FAIL", f)
if failures:
    raise SystemExit(1)
print("ok")
