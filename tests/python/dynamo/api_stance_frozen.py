"""torch._dynamo.run (frozen mode) and every torch.compiler.set_stance stance."""
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
else:
    raise AssertionError("fail_on_recompile did not raise")
assert torch.compiler.get_stance() == "default"
opt(torch.randn(5))
assert cnt.frame_count == 2

# Unknown stances are rejected.
try:
    torch.compiler.set_stance("nonsense")
except ValueError:
    pass
else:
    raise AssertionError("bad stance accepted")
print("ok")
