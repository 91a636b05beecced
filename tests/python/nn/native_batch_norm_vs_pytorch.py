"""torch.native_batch_norm and the autograd of training-mode batch norm against PyTorch 2.15.

Training-mode batch norm is recorded as `native_batch_norm(...)[0]`: its batch mean and
`1 / sqrt(var + eps)` (outputs 1 and 2) are saved for the backward instead of being recomputed.
Checked: the three outputs (training and evaluation, f32/f64/bf16 with and without parameters),
their dtypes and shapes, which require grad, the running-stat updates, the node name, gradients
of F.batch_norm / nn.BatchNorm2d eagerly and compiled (eager, aot_eager and the default
backend), a second forward before backward, and the errors. Stdout equals PyTorch's (recorded
with /tmp/pt's python running this file); values are compared with PyTorch's in
`native_batch_norm_goldens.json` (written by `/tmp/pt/bin/python native_batch_norm_vs_pytorch.py
--record`) within rtol 1e-5 and atol 1e-6 of each tensor's largest magnitude (f32 sums run in
another order than PyTorch's).
"""
import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

GOLDENS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "native_batch_norm_goldens.json")
RECORD = "--record" in sys.argv
goldens = {} if RECORD else json.load(open(GOLDENS))


def matches(key, t, rtol=1e-5, atol=1e-6):
    """Whether `t` equals PyTorch's `key` (records it under --record). `atol` is relative to the
    tensor's largest magnitude: an f32 sum's rounding error scales with its terms, not with its
    result (a convolution's weight gradient of 0.011 next to ones of 35 is off by 1e-5)."""
    vals = t.detach().double().flatten().tolist()
    if RECORD:
        goldens[key] = vals
    want = goldens[key]
    scale = max([1.0] + [abs(w) for w in want])
    return len(vals) == len(want) and all(abs(v - w) <= atol * scale + rtol * abs(w) for v, w in zip(vals, want))


def data(shape, seed):
    """Exact f32 values (multiples of 1/8 in [-6, 6]), the same bits under both runtimes: randn
    differs from PyTorch's in the last bits, which the normalisation's cancellation magnifies."""
    n = 1
    for d in shape:
        n *= d
    k = torch.arange(n, dtype=torch.float64) * (31 + 2 * seed) + seed
    return (torch.remainder(k, 97) / 8 - 6).float().reshape(shape)


x = data((4, 3, 5, 6), 0) * 0.75 + 1
w, b = data((3,), 1), data((3,), 2)

# the three outputs, training and evaluation
for dtype in (torch.float32, torch.float64):
    for affine in (True, False):
        for training in (True, False):
            rm, rv = torch.zeros(3, dtype=dtype), torch.ones(3, dtype=dtype)
            p = (w.to(dtype), b.to(dtype)) if affine else (None, None)
            out, mean, invstd = torch.native_batch_norm(x.to(dtype), *p, rm, rv, training, 0.1, 1e-5)
            key = f"{dtype} affine={affine} training={training}"
            print(key, out.dtype, list(mean.shape), mean.dtype, list(invstd.shape), invstd.dtype,
                  matches(key + " out", out), matches(key + " mean", mean), matches(key + " invstd", invstd),
                  matches(key + " running_mean", rm), matches(key + " running_var", rv))

# reduced precision: the statistics take the parameters' dtype when given (mixed type)
for p in (None, torch.bfloat16, torch.float32):
    wp = None if p is None else w.to(p)
    outs = torch.native_batch_norm(x.bfloat16(), wp, wp, None, None, True, 0.1, 1e-5)
    print("bf16 params", p, [t.dtype for t in outs], matches(f"bf16 {p} mean", outs[1], 1e-2, 1e-2))

# only the normalised output requires grad; the statistics are not differentiable
xr = x.clone().requires_grad_()
outs = torch.native_batch_norm(xr, w, b, None, None, True, 0.1, 1e-5)
print("requires_grad", [t.requires_grad for t in outs], outs[0].grad_fn.name())
try:
    outs[1].sum().backward()
except RuntimeError as e:
    print("backward through save_mean:", e)
(outs[0] * data(x.shape, 3)).sum().backward()
print("native grads", matches("native grad x", xr.grad))

# F.batch_norm in training: the node, and its gradients eagerly and compiled
g = data(x.shape, 4)


def bn_step(x, w, b, rm, rv):
    y = F.batch_norm(x, rm, rv, w, b, True, 0.1, 1e-5)
    return (F.relu(y) * g).sum()


for label, fn in [("eager", bn_step),
                  ("compiled eager", torch.compile(bn_step, backend="eager")),
                  ("compiled aot_eager", torch.compile(bn_step, backend="aot_eager")),
                  ("compiled default", torch.compile(bn_step))]:
    for dtype in (torch.float32, torch.float64):
        xs, ws, bs = (t.to(dtype).clone().requires_grad_() for t in (x, w, b))
        rm, rv = torch.zeros(3, dtype=dtype), torch.ones(3, dtype=dtype)
        fn(xs, ws, bs, rm, rv).backward()
        print(label, dtype, "grads", matches(f"bn {dtype} grad x", xs.grad), matches(f"bn {dtype} grad w", ws.grad),
              matches(f"bn {dtype} grad b", bs.grad), "running", matches(f"bn {dtype} rm", rm),
              matches(f"bn {dtype} rv", rv))
y = F.batch_norm(x.clone().requires_grad_(), None, None, w, b, True)
print("node", y.grad_fn.name())

# a second forward (which updates the running statistics) before the first backward
torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU())
x1, x2 = data((2, 3, 6, 6), 5), data((2, 3, 6, 6), 6)
l1, l2 = net(x1).sum(), (net(x2) ** 2).sum()
l1.backward()
l2.backward()
print("two forwards", matches("two forwards conv grad", net[0].weight.grad), matches("two forwards bn grad", net[1].weight.grad),
      matches("two forwards running_mean", net[1].running_mean), net[1].num_batches_tracked.item())

# create_graph: the backward is differentiable again (the statistics recomputed as ops)
xs = x.clone().requires_grad_()
y = F.batch_norm(xs, None, None, w, b, True)
(gx,) = torch.autograd.grad((y * g).sum(), xs, create_graph=True)
(ggx,) = torch.autograd.grad((gx ** 2).sum(), xs)
print("double backward", matches("double backward", ggx, 1e-4, 1e-5))

# torch.native_batch_norm under torch.compile, one graph


@torch.compile(fullgraph=True, backend="eager")
def native(x):
    out, mean, invstd = torch.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5)
    return out * 2, mean, invstd


outs = native(x)
print("compiled native", [matches(f"compiled native {i}", t) for i, t in enumerate(outs)],
      [list(t.shape) for t in outs])

# errors
for label, call in [
    ("eval without running stats", lambda: torch.native_batch_norm(x, w, b, None, None, False, 0.1, 1e-5)),
    ("eval without running_var", lambda: torch.native_batch_norm(x, w, b, torch.zeros(3), None, False, 0.1, 1e-5)),
    ("F eval without running stats", lambda: F.batch_norm(x, None, None, w, b, False)),
    ("F 1-D input", lambda: F.batch_norm(torch.ones(3), None, None, training=True)),
    ("one value per channel", lambda: torch.native_batch_norm(torch.ones(1, 3), None, None, None, None, True, 0.1, 1e-5)[0]),
    ("F one value per channel", lambda: F.batch_norm(torch.ones(1, 3), None, None, training=True)),
    ("1-D input", lambda: torch.native_batch_norm(torch.ones(3), None, None, None, None, True, 0.1, 1e-5)),
]:
    try:
        r = call()
        print(label, "no error", r.tolist() if label == "one value per channel" else "")
    except Exception as e:
        print(label, type(e).__name__, e)

if RECORD:
    with open(GOLDENS, "w") as f:
        json.dump(goldens, f)
