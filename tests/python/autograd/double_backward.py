"""Double backward (`create_graph=True`) of the nn, indexing, scan and rearranging ops against
goldens recorded from real PyTorch in float64. For each case `y = f(*leaves)` and a grad_output
`v` that is itself a leaf, the first gradients `g = d<v, y>/d leaves` are taken with
create_graph, then `d(sum_i <g_i, u_i>)/d(leaves, v)` for fixed `u_i`: every second derivative
the formulas' own backward produces. Inputs are written from math.sin (no RNG); cumprod's has
zeros, where a masked formula loses the dependence on the zero. (PyTorch 2.15 refuses the double
backward of CPU scaled_dot_product_attention, its flash kernel's backward; rynamo's math form
differentiates twice, checked against finite differences in gradcheck_nn.rs.)

Record the goldens (never in CI): `/tmp/pt/bin/python double_backward.py --record`."""
import json
import math
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "double_backward.golden.json")
RTOL, ATOL = 1e-7, 1e-10


def tensor(shape, phase, scale=1.0, grad=True):
    n = 1
    for s in shape:
        n *= s
    vals = [math.sin(i * 0.9 + phase) * scale for i in range(n)]
    t = torch.tensor(vals, dtype=torch.float64).reshape(shape)
    return t.requires_grad_() if grad else t


def with_zeros(shape, phase):
    t = tensor(shape, phase, grad=False)
    flat = t.reshape(-1)
    flat[1] = 0.0
    flat[7] = 0.0
    flat[8] = 0.0
    return t.requires_grad_()


def cases():
    idx = torch.tensor([[0, 2, 1], [1, 1, 0]])
    target = torch.tensor([1, 0, 3, -100])
    cw = tensor([4], 9.0, grad=False).abs() + 0.3
    return {
        "conv2d": (lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1, groups=2),
                   [tensor([2, 4, 5, 5], 0.1), tensor([4, 2, 3, 3], 0.2), tensor([4], 0.3)]),
        "conv1d_dilated": (lambda x, w: F.conv1d(x, w, padding=2, dilation=2),
                           [tensor([2, 3, 7], 0.4), tensor([2, 3, 3], 0.5)]),
        "batch_norm_training": (
            lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True, eps=1e-3),
            [tensor([3, 2, 3, 2], 0.6), tensor([2], 0.7), tensor([2], 0.8)]),
        "layer_norm": (lambda x, w, b: F.layer_norm(x, (4,), w, b),
                       [tensor([3, 4], 0.9), tensor([4], 1.0), tensor([4], 1.1)]),
        "group_norm": (lambda x, w, b: F.group_norm(x, 2, w, b),
                       [tensor([2, 4, 3], 1.2), tensor([4], 1.3), tensor([4], 1.4)]),
        "max_pool2d": (lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True), [tensor([2, 2, 5, 6], 1.5)]),
        "avg_pool2d": (lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
                       [tensor([2, 2, 5, 6], 1.6)]),
        "adaptive_avg_pool2d": (lambda x: F.adaptive_avg_pool2d(x, (3, 2)), [tensor([2, 2, 7, 5], 1.7)]),
        "cross_entropy_smoothing": (
            lambda x: F.cross_entropy(x, target, weight=cw, label_smoothing=0.2),
            [tensor([4, 4], 1.8)]),
        "nll_loss_weight": (lambda x: F.nll_loss(F.log_softmax(x, 1), target, weight=cw),
                            [tensor([4, 4], 1.9)]),
        "mse_loss": (lambda x, y: F.mse_loss(x, y), [tensor([3, 4], 2.0), tensor([3, 4], 2.1)]),
        "l1_loss": (lambda x, y: F.l1_loss(x, y, reduction="sum"), [tensor([3, 4], 2.2), tensor([3, 4], 2.3)]),
        "embedding_padding": (lambda w: F.embedding(idx, w, padding_idx=1), [tensor([3, 4], 2.4)]),
        "gather": (lambda x: torch.gather(x, 1, idx), [tensor([2, 3], 2.5)]),
        "scatter_add": (lambda x, s: x.scatter_add(1, idx, s), [tensor([2, 3], 2.6), tensor([2, 3], 2.7)]),
        "index_select": (lambda x: torch.index_select(x, 0, torch.tensor([1, 1, 0])), [tensor([2, 3], 2.8)]),
        "cumprod_zeros": (lambda x: torch.cumprod(x, 1), [with_zeros([3, 4], 2.9)]),
        "cumprod": (lambda x: torch.cumprod(x, 0), [tensor([3, 4], 3.0)]),
        "cumsum": (lambda x: torch.cumsum(x, 1) ** 2, [tensor([3, 4], 3.1)]),
        "logcumsumexp": (lambda x: torch.logcumsumexp(x, 1), [tensor([3, 4], 3.2)]),
        "sort_topk": (lambda x: torch.sort(x, 1)[0] ** 2 + torch.topk(x, 4, 1)[0], [tensor([3, 4], 3.3)]),
        "cummax": (lambda x: torch.cummax(x, 0)[0] ** 3, [tensor([3, 4], 3.4)]),
        "diagonal": (lambda x: torch.diagonal(x, -1, 0, 2) ** 2, [tensor([3, 2, 4], 3.5)]),
        "rearrange": (lambda x: (x.repeat(2, 1).flip(0).roll(1, 1).tril(1) ** 2),
                      [tensor([3, 4], 3.6)]),
        "pad_reflect": (lambda x: F.pad(x, (2, 1), mode="reflect") ** 2, [tensor([2, 3, 4], 3.7)]),
        "einsum": (lambda a, b: torch.einsum("bij,bjk->bik", a, b),
                   [tensor([2, 2, 3], 3.8), tensor([2, 3, 2], 3.9)]),
    }


def run(f, leaves):
    y = f(*leaves)
    v = tensor(list(y.shape), 7.0)
    grads = torch.autograd.grad(y, leaves, v, create_graph=True, allow_unused=True)
    total = None
    for k, g in enumerate(grads):
        if g is None:
            continue
        term = (g * tensor(list(g.shape), 8.0 + k, grad=False)).sum()
        total = term if total is None else total + term
    wrt = leaves + [v]
    second = torch.autograd.grad(total, wrt, allow_unused=True)
    def flat(ts, like):
        # None (unused) and PyTorch's efficient zero tensors read as zeros
        out = []
        for t, x in zip(ts, like):
            if t is None or getattr(t, "_is_zerotensor", lambda: False)():
                t = torch.zeros(x.shape, dtype=x.dtype)
            out.append(t.detach().reshape(-1).tolist())
        return out

    return {"first": flat(grads, leaves), "second": flat(second, wrt)}


def main():
    results, failures = {}, []
    for name, (f, leaves) in cases().items():
        try:
            results[name] = run(f, leaves)
        except Exception as e:  # noqa: BLE001 - reported with the case's name
            failures.append(f"{name}: {type(e).__name__}: {e}")
    if "--record" in sys.argv:
        assert not failures, failures
        with open(GOLDEN, "w") as fh:
            json.dump(results, fh, separators=(",", ":"))
        print("recorded", len(results), "cases")
        return
    with open(GOLDEN) as fh:
        want = json.load(fh)
    for name, w in want.items():
        got = results.get(name)
        if got is None:
            continue
        for kind in ("first", "second"):
            for k, (gs, ws) in enumerate(zip(got[kind], w[kind])):
                bad = [(i, a, b) for i, (a, b) in enumerate(zip(gs, ws))
                       if abs(a - b) > ATOL + RTOL * abs(b)]
                if len(gs) != len(ws) or bad:
                    failures.append(f"{name} {kind} #{k}: {bad[:3] or 'length'}")
    if failures:
        print("\n".join(failures))
        raise SystemExit(1)
    print(len(want), "double-backward cases match PyTorch")


main()
