"""Regression tests for the findings of the project fuzzer (issue 30 requirement 5,
`scripts/fuzz`), each its minimized program; compiled results must equal eager's, and eager's
PyTorch's (the signs of zero below were checked on PyTorch 2.15)."""
import torch
import torch._dynamo

from _harness import check, done, expect


# --- a copy_ into an input before a later read (seed 1, program 561): the default backend ran
# the user's `x1.copy_(x0)` as if it were a trailing write-back, and the kernel computing
# `v1 + 1` read x1 after it, so v1 was x0 * x0 ------------------------------------------------
def copy_then_read(x0, x1):
    v1 = x1 * x0
    x1.copy_(x0)
    return v1 + 1


def copy_broadcast_into_input(x0, x1):
    v1 = x0 * 2
    x0.copy_(x1[0, 0])
    return v1 * 2


def copy_then_masked_fill(x0, x1):
    d = {"p": x1, "q": x0}
    v1 = d["p"] * d["q"]
    x1.copy_(x0)
    return v1.masked_fill(v1 > 1, 2)


def copy_last(x0, x1):
    v1 = x1 * x0
    x1.copy_(x0)
    return v1


args = (torch.tensor([[2.0, -3.0, 0.5]]), torch.arange(36.0).reshape(4, 3, 3) - 9)
for fn in [copy_then_read, copy_broadcast_into_input, copy_then_masked_fill, copy_last]:
    check(fn, *args)
    for backend in ["inductor", "eager"]:
        torch._dynamo.reset()
        a, b = args[0].clone(), args[1].clone()
        got = torch.compile(fn, backend=backend)(a, b)
        a2, b2 = args[0].clone(), args[1].clone()
        want = fn(a2, b2)
        expect(f"{fn.__name__} ({backend})", (got.tolist(), a.tolist(), b.tolist()), (want.tolist(), a2.tolist(), b2.tolist()))


# --- a one-element tensor times its own 0-dim view (seed 2, program 5076): the default backend's
# fuser composed index maps through the 0-dim tensor, lost the kernel's domain and panicked
# ("index out of bounds" in index_map.rs) ----------------------------------------------------
for dt in [torch.bool, torch.float32, torch.int64]:
    x = torch.tensor([3]).to(dt)
    for name, fn in [("x * x.squeeze(0)", lambda x: x * x.squeeze(0)), ("x.squeeze(0) + x", lambda x: x.squeeze(0) + x),
                     ("x * x.reshape(())", lambda x: x * x.reshape(())), ("x[0] * x", lambda x: x[0] * x)]:
        for backend in ["inductor", "eager"]:
            torch._dynamo.reset()
            got = torch.compile(fn, backend=backend)(x)
            expect(f"{name} {dt} ({backend})", (got.tolist(), got.dtype), (fn(x).tolist(), fn(x).dtype))


# --- the sign of zero in eager tanh, relu and clamp (seed 1, programs 7 and 369: the default
# backend kept -0.0, eager lost it; PyTorch keeps it) -----------------------------------------
x = torch.tensor([-0.0, 0.0, -1.0, 2.0, float("nan")])
long = torch.tensor([-0.0, 0.0] * 16)  # the vectorised loops
signs = lambda t: [bool(s) for s in t.signbit()]  # noqa: E731
expect("tanh(-0.0)", signs(torch.tanh(x)), [True, False, True, False, False])
expect("tanh(-0.0) float64", signs(torch.tanh(x.double())), [True, False, True, False, False])
expect("relu(-0.0)", signs(torch.relu(x)), [True, False, False, False, False])
expect("clamp(-0.0, min=0)", signs(torch.clamp(x, min=0)), [True, False, False, False, False])
expect("clamp(-0.0, 0, 1)", signs(x.clamp(0, 1)), [True, False, False, False, False])
expect("clamp(-0.0, -1, 0)", signs(x.clamp(-1, 0)), [True, False, True, False, False])
expect("clamp(0.0, max=-0.0)", signs(torch.tensor([0.0]).clamp(max=-0.0)), [False])
expect("vectorised", [signs(f(long))[:2] for f in (torch.tanh, torch.relu, lambda t: t.clamp(min=0))], [[True, False]] * 3)
expect("clamp keeps NaN", torch.clamp(x, min=0).isnan().tolist(), [False, False, False, False, True])
expect("clamp with a NaN bound", torch.clamp(torch.tensor([1.0]), min=torch.tensor([float("nan")])).isnan().tolist(), [True])
# (maximum/minimum of -0.0 and 0.0 are not checked: PyTorch's sign there differs between its
# vectorised and scalar loops.)

# Finding 4 (seed 17, program 16): a dead op that raises. PyTorch's `eager` backend runs the graph
# as traced, so an integer fmod by zero raises as in eager; aot_eager and inductor eliminate the
# dead node and return (checked on PyTorch 2.15).
def dead_fmod(x0, x1):
    v1 = x0.nan_to_num()
    torch.fmod(x0, v1)
    return x0, x1


def outcome(fn):
    try:
        fn(torch.tensor([0, 2]), torch.ones(2))
        return "returned"
    except RuntimeError as e:
        return "raised " + str(e)


expect("dead fmod eager", outcome(dead_fmod), "raised ZeroDivisionError")
for backend, want in (("eager", "raised ZeroDivisionError"), ("aot_eager", "returned"), ("inductor", "returned")):
    torch._dynamo.reset()
    expect("dead fmod on " + backend, outcome(torch.compile(dead_fmod, backend=backend)), want)

# Finding 5 (seed 17, program 6550): two identical expressions returned from one graph are two
# tensors, not one (common-subexpression elimination merged them, so an in-place write through
# one after the graph changed the other).
def twins(x):
    v1 = x * 2
    v2 = x * 2
    if v2.sum() > 0:  # a graph break on data
        v1.clamp_(-1, 1)
    return v1, v2


for backend in ("eager", "inductor"):
    torch._dynamo.reset()
    a, b = torch.compile(twins, backend=backend)(torch.tensor(True))
    expect("twins on " + backend, (a.tolist(), b.tolist(), a is b), (1, 2, False))

done()
