"""Forward + backward of the ops whose backward formulas are kernels or decompositions (conv,
pools, norms, losses, embedding, attention), float32, in the shapes of a small training step.
Runs under rynamo or PyTorch; prints one JSON object: workload -> median ms per
forward+backward, and per forward alone. Driven by backward_compare.py, which alternates
processes and prints ratios. Inputs come from math.sin, the same in both."""
import json
import math
import sys
import time

import torch
import torch.nn.functional as F


def tensor(shape, phase, grad=False):
    n = 1
    for s in shape:
        n *= s
    # cheap deterministic values: a sine table repeated
    base = torch.tensor([math.sin(i * 0.37 + phase) for i in range(4096)], dtype=torch.float32)
    t = base.repeat(n // 4096 + 1)[:n].reshape(shape).contiguous()
    return t.requires_grad_() if grad else t


def workloads():
    w = {}
    x = tensor([32, 16, 32, 32], 0.1, True)
    k = tensor([32, 16, 3, 3], 0.2, True)
    b = tensor([32], 0.3, True)
    w["conv2d 32x16x32x32 k3"] = (lambda: F.conv2d(x, k, b, padding=1), [x, k, b])
    x2 = tensor([32, 32, 16, 16], 0.4, True)
    k2 = tensor([64, 16, 3, 3], 0.5, True)
    w["conv2d s2 groups2"] = (lambda: F.conv2d(x2, k2, None, stride=2, padding=1, groups=2), [x2, k2])
    p = tensor([32, 32, 32, 32], 0.6, True)
    w["max_pool2d 2x2"] = (lambda: F.max_pool2d(p, 2), [p])
    w["avg_pool2d 3 s2 p1"] = (lambda: F.avg_pool2d(p, 3, 2, 1), [p])
    w["adaptive_avg_pool2d 1"] = (lambda: F.adaptive_avg_pool2d(p, 1), [p])
    bw = tensor([32], 0.7, True)
    bb = tensor([32], 0.8, True)
    rm, rv = torch.zeros(32), torch.ones(32)
    w["batch_norm train"] = (lambda: F.batch_norm(p, rm, rv, bw, bb, training=True), [p, bw, bb])
    ln = tensor([4096, 512], 0.9, True)
    lw = tensor([512], 1.0, True)
    lb = tensor([512], 1.1, True)
    w["layer_norm 4096x512"] = (lambda: F.layer_norm(ln, (512,), lw, lb), [ln, lw, lb])
    logits = tensor([4096, 1000], 1.2, True)
    target = torch.arange(4096) % 1000
    w["cross_entropy 4096x1000"] = (lambda: F.cross_entropy(logits, target), [logits])
    table = tensor([10000, 256], 1.3, True)
    idx = (torch.arange(64 * 128) * 7919 % 10000).reshape(64, 128)
    w["embedding 64x128 of 10000x256"] = (lambda: F.embedding(idx, table), [table])
    q = tensor([8, 4, 128, 64], 1.4, True)
    kk = tensor([8, 4, 128, 64], 1.5, True)
    v = tensor([8, 4, 128, 64], 1.6, True)
    w["sdpa causal 8x4x128x64"] = (lambda: F.scaled_dot_product_attention(q, kk, v, is_causal=True), [q, kk, v])
    xm = tensor([256, 1024], 1.7)
    w1 = tensor([1024, 1024], 1.8, True)
    b1 = tensor([1024], 1.9, True)
    w2 = tensor([10, 1024], 2.0, True)
    ym = tensor([256, 10], 2.1)
    w["mlp step 256x1024x1024x10 mse"] = (
        lambda: F.mse_loss(F.linear(F.relu(F.linear(xm, w1, b1)), w2), ym),
        [w1, b1, w2],
    )
    return w


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def bench(fn, leaves, reps):
    out = fn()
    g = torch.ones_like(out) if out.dim() else None
    for _ in range(2):
        out = fn()
        out.backward(g)
    for t in leaves:
        t.grad = None
    both, fwd = [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        t1 = time.perf_counter()
        out.backward(g)
        t2 = time.perf_counter()
        for t in leaves:
            t.grad = None
        fwd.append((t1 - t0) * 1e3)
        both.append((t2 - t0) * 1e3)
    return median(both), median(fwd)


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    only = sys.argv[2] if len(sys.argv) > 2 else None
    res = {}
    for name, (fn, leaves) in workloads().items():
        if only and only not in name:
            continue
        res[name] = bench(fn, leaves, reps)
    print(json.dumps(res))


main()
