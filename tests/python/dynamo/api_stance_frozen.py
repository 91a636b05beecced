# env: RYNAMO_DYNAMIC_SHAPES=0
# (pins recompiles caused by size changes, so it runs with static-by-default shapes even when the
# suite is run with dynamic shapes forced on)
"""torch._dynamo.run (frozen mode) and every torch.compiler.set_stance stance."""
import re

import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounter


def f(x):
    return x.sin() * 2


def eq(a, b):
    return a.shape == b.shape and bool((a == b).all())


x3, x4 = torch.randn(3), torch.randn(4)

# Frozen mode: prior compiles are reused, nothing new is compiled, results stay right.
torch._dynamo.reset()
cnt = CompileCounter()
opt = torch.compile(f, backend=cnt)
opt(x3)
assert cnt.frame_count == 1
frozen = torch._dynamo.run(f)
assert eq(frozen(x3), f(x3)) and cnt.frame_count == 1
assert eq(frozen(x4), f(x4)) and cnt.frame_count == 1  # a miss runs eagerly

# force_eager: nothing is compiled.
torch._dynamo.reset()
cnt = CompileCounter()
opt = torch.compile(f, backend=cnt)
torch.compiler.set_stance("force_eager")
assert eq(opt(x3), f(x3)) and cnt.frame_count == 0
torch.compiler.set_stance("default")
assert eq(opt(x3), f(x3)) and cnt.frame_count == 1

# eager_on_recompile, as a context manager: the cached entry runs; a new shape runs eagerly.
with torch.compiler.set_stance("eager_on_recompile"):
    assert eq(opt(x3), f(x3)) and eq(opt(x4), f(x4))
assert cnt.frame_count == 1

# fail_on_recompile, as a decorator: a recompile raises.
@torch.compiler.set_stance("fail_on_recompile")
def call_strict(t):
    return opt(t)


assert eq(call_strict(x3), f(x3))
try:
    call_strict(torch.randn(5))
except RuntimeError as e:
    assert "Detected recompile when torch.compile stance is 'fail_on_recompile'" in str(e), str(e)
    # PyTorch's layout: each cache entry's failure under its compile id.
    assert re.search(
        r"\n    triggered by the following guard failure\(s\):\n    - \d+/0: tensor 'x' size mismatch", str(e)
    ), str(e)
else:
    raise AssertionError("fail_on_recompile did not raise")
assert torch.compiler.get_stance() == "default"
opt(torch.randn(5))
assert cnt.frame_count == 2

# set_stance is forbidden inside a compiled region. Traced, it is an AssertionError (PyTorch's
# forbid_in_graph), as are the stance's decorator wrappers; nothing is switched, so later
# compiles still happen.
def sets_stance(x):
    torch.compiler.set_stance("force_eager")
    return x + 1


def sets_stance_in_with(x):
    with torch._dynamo.set_stance("force_eager"):
        return x + 1


@torch.compiler.set_stance("force_eager")
def stance_decorated(x):
    return x + 1


def calls_stance_decorated(x):
    return stance_decorated(x)


for fn in (sets_stance, sets_stance_in_with, calls_stance_decorated):
    try:
        torch.compile(fn, backend="eager")(x3)
    except AssertionError as e:
        assert str(e).startswith("Attempt to trace forbidden callable"), str(e)
    else:
        raise AssertionError(f"{fn.__name__}: set_stance was traced")
    assert torch.compiler.get_stance() == "default", torch.compiler.get_stance()
torch._dynamo.reset()
cnt = CompileCounter()
assert eq(torch.compile(f, backend=cnt)(x3), f(x3)) and cnt.frame_count == 1


# In a frame Dynamo skips (it runs eagerly, still inside the compiled region) the call itself
# raises, as PyTorch's `_set_stance`.
def skipped_then_sets_stance(x):
    for _ in range(1):
        torch._dynamo.graph_break()  # a break in a loop: the frame runs eagerly
    torch.compiler.set_stance("force_eager")
    return x + 1


try:
    torch.compile(skipped_then_sets_stance, backend="eager")(x3)
except RuntimeError as e:
    assert str(e) == "attempted to set_stance in a torch.compile region", str(e)
else:
    raise AssertionError("set_stance in a skipped frame did not raise")
assert torch.compiler.get_stance() == "default"


# torch._dynamo.run(): with no function, a RunOnlyContext usable as a context manager and as a
# decorator. Run-only mode runs any cached entry whose guards pass, whichever backend compiled
# it, and compiles nothing.
def marks(x):
    if torch._dynamo.is_compiling():
        return x + 1
    return x + 2


torch._dynamo.reset()
cnt = CompileCounter()
assert eq(torch.compile(marks, backend=cnt)(x3), x3 + 1)
ctx = torch._dynamo.run()
assert type(ctx).__name__ == "RunOnlyContext", type(ctx)
with torch._dynamo.run():
    assert eq(marks(x3), x3 + 1)  # the cached entry
    assert eq(marks(x4), x4 + 2)  # a miss runs eagerly
assert eq(torch._dynamo.run()(marks)(x3), x3 + 1)
assert eq(torch._dynamo.run(marks)(x3), x3 + 1)
assert cnt.frame_count == 1
assert eq(marks(x3), x3 + 2)  # outside the block, plain calls are not compiled

# Unknown stances are rejected.
try:
    torch.compiler.set_stance("nonsense")
except ValueError:
    pass
else:
    raise AssertionError("bad stance accepted")
print("ok")
