"""A frame that breaks its graph runs transformed code through a replacement function, which
Rynamo makes once per user function and reuses while the function keeps its version
(interpreter/src/function_parts.rs). Each case changes what such a function is made of between
calls (defaults, keyword defaults, code, closure cells, the function object itself) or calls it
reentrantly: the compiled result must equal the eager one on every call.

The printed sums are pinned by breaks_replacement.out, recorded under PyTorch 2.15. Graph counts
are not: PyTorch turns a changed float into a graph input (`specialize_float=False`) where
Rynamo keeps floats specialised by value, so cases 2, 4 and 5 compile more graphs here."""
import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounter

x = torch.arange(6, dtype=torch.float32).reshape(2, 3) / 4
_failures = []


def check(name, opt, fn, *args):
    got, want = opt(*args), fn(*args)
    if not torch.equal(got, want):
        _failures.append(f"{name}: compiled {got.tolist()}, eager {want.tolist()}")
    return got.sum().item()


def report(name, sums):
    print(f"{name}: sums {[round(s, 4) for s in sums]}")


# 1. __defaults__ assigned between calls.
def scaled(t, k=2.0):
    a = t * k
    torch._dynamo.graph_break()
    return a + k


torch._dynamo.reset()
cnt = CompileCounter()
opt = torch.compile(scaled, backend=cnt)
sums = [check("defaults", opt, scaled, x)]
scaled.__defaults__ = (5.0,)
sums.append(check("defaults (changed)", opt, scaled, x))
sums.append(check("defaults (again)", opt, scaled, x))
report("defaults", sums)


# 2. __kwdefaults__ assigned, then mutated in place.
def shifted(t, *, k=1.0):
    a = t - k
    torch._dynamo.graph_break()
    return a * k


torch._dynamo.reset()
cnt = CompileCounter()
opt = torch.compile(shifted, backend=cnt)
sums = [check("kwdefaults", opt, shifted, x)]
shifted.__kwdefaults__ = {"k": 3.0}
sums.append(check("kwdefaults (assigned)", opt, shifted, x))
shifted.__kwdefaults__["k"] = -2.0
sums.append(check("kwdefaults (mutated)", opt, shifted, x))
report("kwdefaults", sums)


# 3. Closures of one factory (one code object), called alternately.
def make(k):
    def body(t):
        a = t + k
        torch._dynamo.graph_break()
        return a * k

    return body


torch._dynamo.reset()
cnt = CompileCounter()
f1, f2 = make(1.0), make(3.0)
o1, o2 = torch.compile(f1, backend=cnt), torch.compile(f2, backend=cnt)
sums = []
for _ in range(3):
    sums.append(check("closure 1", o1, f1, x))
    sums.append(check("closure 2", o2, f2, x))
report("alternating closures", sums)

# 4. A fresh closure on every call (the previous one freed).
torch._dynamo.reset()
cnt = CompileCounter()
sums = []
for i in range(4):
    f = make(float(i))
    sums.append(check(f"fresh closure {i}", torch.compile(f, backend=cnt), f, x))
    del f
report("fresh closures", sums)


# 5. A closure cell rebound between calls.
def make_counter():
    step = 1.0

    def body(t):
        a = t + step
        torch._dynamo.graph_break()
        return a * step

    def bump():
        nonlocal step
        step += 1.5

    return body, bump


torch._dynamo.reset()
cnt = CompileCounter()
body, bump = make_counter()
opt = torch.compile(body, backend=cnt)
sums = []
for _ in range(3):
    sums.append(check("cell", opt, body, x))
    bump()
report("rebound cell", sums)


# 6. __code__ replaced by another function's code.
def first(t):
    a = t.sin()
    torch._dynamo.graph_break()
    return a + 1


def second(t):
    a = t.cos()
    torch._dynamo.graph_break()
    return a - 1


torch._dynamo.reset()
cnt = CompileCounter()
opt = torch.compile(first, backend=cnt)
sums = [check("code", opt, first, x)]
first.__code__ = second.__code__
sums.append(check("code (replaced)", opt, first, x))
sums.append(check("code (again)", opt, first, x))
report("replaced code", sums)


# 7. Reentrant: the function calls itself after its break, so its replacement runs while an
# outer call of the same replacement is still on the stack.
def countdown(t, n):
    a = t + n
    torch._dynamo.graph_break()
    if n > 0:
        return countdown(a, n - 1) * 2
    return a


torch._dynamo.reset()
cnt = CompileCounter()
opt = torch.compile(countdown, backend=cnt)
sums = [check("reentrant", opt, countdown, x, 3), check("reentrant", opt, countdown, x, 2)]
report("reentrant", sums)

# 8. torch._dynamo.reset() between calls of the same function.
cnt = CompileCounter()
opt = torch.compile(scaled, backend=cnt)
sums = []
for _ in range(2):
    torch._dynamo.reset()
    sums.append(check("reset", opt, scaled, x))
report("reset between calls", sums)

if _failures:
    for f in _failures:
        print("FAIL", f)
    raise SystemExit(1)
print("ok")
