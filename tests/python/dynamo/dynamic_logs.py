# env: RYNAMO_DYNAMIC_SHAPES=0
# (pins recompiles caused by size changes, so it runs with static-by-default shapes even when the
# suite is run with dynamic shapes forced on)
"""Diagnostics of dynamic shapes: `TORCH_LOGS=recompiles` names the dimension that changed,
`dynamic` logs each `create_symbol`, `guards` and `explain()` show the dynamic TENSOR_MATCH
(`size=[None, 4]`) and the shape-environment guards (`2 <= L['x'].size()[0]`, equalities of
duck-sized dimensions)."""
import re

import torch
import torch._dynamo
import torch._logging

from _harness import done, expect, fd2_text


def logged(fn):
    """The message part of each log line `fn()` writes to fd 2."""
    text = fd2_text(fn)
    return [re.sub(r"^[IVW]\d+ [\d:.]+ \d+ \S+\] ", "", line) for line in text.splitlines()]


def f(x, y):
    return x * y + 1


HERE = __file__
DEF_LINE = f.__code__.co_firstlineno


def serve():
    cf = torch.compile(f, backend="eager")
    for n in (3, 5, 8):
        cf(torch.randn(n, 4), torch.randn(n, 4))


torch._dynamo.reset()
torch._logging.set_logs(recompiles=True, dynamic=20, guards=True)
lines = logged(serve)
torch._logging.set_logs()
expect(
    "recompile reason and symbols",
    [l for l in lines if "[__guards]" not in l],
    [
        f"[0/1] [__recompiles] Recompiling function f in {HERE}:{DEF_LINE}",
        "[0/1] [__recompiles]     triggered by the following guard failure(s):",
        "[0/1] [__recompiles]     - 0/0: tensor 'x' size mismatch at index 0. expected 3, actual 5",
        "[0/1] create_symbol s0 = 5 for L['x'].size()[0] [2, int_oo]",
        "[0/1] create_symbol s1 = 5 for L['y'].size()[0] [2, int_oo]",
    ],
)
guards = [l for l in lines if l.startswith("[0/1] [__guards]")]
expect(
    "dynamic TENSOR_MATCH",
    [l.split("[__guards] ")[1] for l in guards if "L['x']" in l and ("TENSOR_MATCH" in l or "LAMBDA" in l)],
    [
        "| | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float32, device=None, requires_grad=False, size=[None, 4], stride=[4, 1])",
        "| | +- LAMBDA_GUARD: 2 <= L['x'].size()[0]",
    ],
)


# dynamic=True duck-sizes: dimensions with the same example size share a symbol, guarded equal.
def g(x):
    return x.t() + x


torch._dynamo.reset()
torch._logging.set_logs(guards=True, recompiles=True)
cg = torch.compile(g, backend="eager", dynamic=True)
lines = logged(lambda: (cg(torch.randn(3, 3)), cg(torch.randn(4, 4)), cg(torch.randn(2, 2))))
torch._logging.set_logs()
expect(
    "duck sizing guard",
    [l.split("[__guards] ")[1] for l in lines if "LAMBDA_GUARD" in l],
    ["| | +- LAMBDA_GUARD: 2 <= L['x'].size()[0]", "+- LAMBDA_GUARD: L['x'].size()[1] == L['x'].size()[0]"],
)
expect("one compile serves square inputs", [l for l in lines if "__recompiles" in l], [])

# explain() lists the shape guards of a dimension marked dynamic, with a bounded range.
x = torch.randn(6, 4)
torch._dynamo.mark_dynamic(x, 0, max=64)
out = torch._dynamo.explain(lambda x: x.relu())(x)
codes = [c for g in out.out_guards for c in (g.code_list or [])]
expect("explain range guard", [c for c in codes if "<=" in c], ["2 <= L['x'].size()[0] <= 64"])
expect("explain dynamic TENSOR_MATCH", [c for c in codes if "check_tensor" in c and "size=[None, 4]" in c] != [], True)
done()
