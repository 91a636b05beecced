"""torch.utils.checkpoint: checkpoint and checkpoint_sequential give PyTorch's values and gradients
(reentrant and not, inputs requiring grad or not: the reentrant variant then warns and leaves the
segment's parameters without gradients), its warnings and argument errors, eagerly and compiled
with the eager backend; torch.cuda's memory queries on a machine without CUDA. The .out is PyTorch
2.15's output."""
import warnings

import torch
import torch.nn as nn
import torch.utils.checkpoint as cp


def caught(call):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = call()
    return out, [str(m.message)[:60] for m in w]


def grads(model):
    return [None if p.grad is None else round(p.grad.sum().item(), 4) for p in model.parameters()]


torch.manual_seed(0)
block = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 3), nn.Sigmoid(), nn.Linear(3, 2))
x = torch.randn(5, 4)
for reentrant in (None, True, False):
    for needs in (False, True):
        block.zero_grad(set_to_none=True)
        xi = x.clone().requires_grad_(needs)
        out, ws = caught(lambda: cp.checkpoint(block, xi, use_reentrant=reentrant))
        print("checkpoint", reentrant, needs, round(out.sum().item(), 4), out.requires_grad, ws)
        if out.requires_grad:
            out.sum().backward()
        print("  grads", grads(block), None if xi.grad is None else round(xi.grad.sum().item(), 4))

for segments in (1, 2, 3):
    block.zero_grad(set_to_none=True)
    out, ws = caught(lambda: cp.checkpoint_sequential(block, segments, x.requires_grad_(), use_reentrant=False))
    out.sum().backward()
    print("sequential", segments, round(out.sum().item(), 4), grads(block), ws)
x = x.detach()


def f(a, b, scale=1.0):
    return (a * b).sum() * scale


a, b = torch.randn(3, requires_grad=True), torch.randn(3)
print("kwargs non-reentrant", round(cp.checkpoint(f, a, b, use_reentrant=False, scale=2.0).item(), 4))
for label, call in [("kwargs reentrant", lambda: cp.checkpoint(f, a, b, use_reentrant=True, scale=2.0)),
                    ("debug reentrant", lambda: cp.checkpoint(f, a, b, use_reentrant=True, debug=True))]:
    try:
        call()
    except ValueError as e:
        print(label, "ValueError", e)

for backend in ("eager",):
    torch._dynamo.reset()
    block.zero_grad(set_to_none=True)
    g = torch.compile(lambda t: cp.checkpoint(block, t, use_reentrant=False).sum(), backend=backend)
    y = g(x.clone().requires_grad_())
    y.backward()
    print("compiled", backend, round(y.item(), 4), grads(block))

print("cuda", torch.cuda.empty_cache(), torch.cuda.memory_allocated(), torch.cuda.memory_reserved(),
      torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved())
