"""Seed 001: the fn -> a_fn -> aa_fn/ab_fn call tree under disable and disable(recursive=False)."""
import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounter

from _harness import check, done


def aa_fn(x):
    return x.cos() * 2


def ab_fn(x):
    return x.sin() + 1


def a_fn(x):
    return aa_fn(x) + ab_fn(x)


def b_fn(x):
    return x * 3


def fn(x):
    return a_fn(x) - b_fn(x)


x = torch.randn(8)

# Everything inlined: one graph.
check(fn, x, graphs=1)

orig_a_fn = a_fn

# recursive=True: Dynamo stops at a_fn; nothing under it is compiled. fn breaks at the call and
# its resume function (b_fn and the subtraction) is one graph.
a_fn = torch._dynamo.disable(orig_a_fn)
assert a_fn._torchdynamo_disable and a_fn._torchdynamo_orig_callable is orig_a_fn
check(fn, x, graphs=1)

# recursive=False: a_fn's own frame is skipped, but aa_fn and ab_fn are compiled as their own
# frames: graphs for aa_fn, ab_fn, and fn's resume function.
a_fn = torch._dynamo.disable(orig_a_fn, recursive=False)
check(fn, x, graphs=3)
# The original function was not modified (PyTorch #148787).
assert not hasattr(orig_a_fn, "_torchdynamo_disable")
a_fn = orig_a_fn
check(fn, x, graphs=1)

# torch.compiler.disable is the same API, with a reason and as a decorator.
@torch.compiler.disable(reason="talks to a C library")
def logged(x):
    print("logged", x.shape)
    return x + 1


def uses_logged(x):
    return logged(x.relu()) * 2


check(uses_logged, x, graphs=2)

# A disabled function called directly runs eagerly and compiles nothing.
cnt = CompileCounter()
torch._dynamo.reset()
opt_disabled = torch.compile(torch._dynamo.disable(b_fn), backend=cnt)
assert bool((opt_disabled(x) == b_fn(x)).all()) and cnt.frame_count == 0


# Two torch.compile wrappers of fn with the same backend object share fn's cache entries (and
# those of the frames under it): the second wrapper's calls are cache hits, so the frame count
# is one wrapper's (PyTorch's cache entries compare the backend, not the wrapper).
def two_wrappers(graphs):
    torch._dynamo.reset()
    cnt = CompileCounter()
    first, second = torch.compile(fn, backend=cnt), torch.compile(fn, backend=cnt)
    for opt in (first, second, first, second):
        assert bool((opt(x) == fn(x)).all())
    assert cnt.frame_count == graphs, (cnt.frame_count, graphs)
    other = CompileCounter()
    torch.compile(fn, backend=other)(x)
    assert other.frame_count == graphs, (other.frame_count, graphs)


two_wrappers(1)
a_fn = torch._dynamo.disable(orig_a_fn)
two_wrappers(1)
a_fn = torch._dynamo.disable(orig_a_fn, recursive=False)
two_wrappers(3)
a_fn = orig_a_fn

done()
