"""Gradients of nn modules, losses and nn functions against goldens recorded from real PyTorch:
every parameter's and input's gradient, and the output's grad_fn name. Inputs and parameters
are written explicitly from math.sin (no RNG), so both libraries start from the same float32
values. Each case's output is reduced against a fixed non-uniform weighting so no gradient is
trivially uniform.

Record the goldens (never in CI): `/tmp/pt/bin/python nn_grads.py --record`.

Float32 gradients are compared with rtol 1e-4, atol 1e-5: the kernels sum in different orders
(f64 accumulators, blocked GEMMs), which moves the last bits of long sums."""
import json
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "nn_grads.golden.json")
RTOL, ATOL = 1e-4, 1e-5

# grad_fn names that differ from PyTorch's, with the reason (case -> rynamo's name).
NAME_DIFFERENCES = {
    # PyTorch's eval-mode native_batch_norm; rynamo records the affine map, ending in the cast
    "batchnorm1d_eval": "ToCopyBackward0",
    # PyTorch's fused binary_cross_entropy kernels; the shims write the losses with ops
    "bce": "MeanBackward0",
    "bce_with_logits": "MeanBackward0",
    "smooth_l1": "MeanBackward0",
    "huber": "MeanBackward0",
    "kl_div": "DivBackward0",
    # PyTorch divides by a C++ double (div.Scalar); rynamo by a Python number (div.Tensor)
    "cross_entropy_probs": "DivBackward0",
    # PyTorch runs the flash-attention kernel for 4-D inputs; rynamo records the math form
    "sdpa_causal": "UnsafeViewBackward0",
    "sdpa_mask": "UnsafeViewBackward0",
    # PyTorch decomposes einsum into views and bmm
    "einsum": "EinsumBackward0",
}


def vals(n, phase, scale=0.5):
    return [math.sin(i * 0.7 + phase) * scale for i in range(n)]


def tensor(shape, phase, scale=0.5, grad=True):
    n = 1
    for s in shape:
        n *= s
    t = torch.tensor(vals(n, phase, scale), dtype=torch.float32).reshape(shape)
    return t.requires_grad_() if grad else t


def set_params(module, phase):
    with torch.no_grad():
        for k, (name, p) in enumerate(module.named_parameters()):
            p.copy_(tensor(list(p.shape), phase + k, 0.4, grad=False))


def weighting(shape):
    return tensor(list(shape), 0.123, 1.0, grad=False)


def run_case(fn):
    """`fn()` -> (output, {name: leaf tensor}); backward of sum(output * weighting)."""
    out, leaves = fn()
    if out.dim() == 0:
        loss = out * 1.7
    else:
        loss = (out * weighting(out.shape)).sum()
    loss.backward()
    grads = {}
    for name, t in leaves.items():
        grads[name] = None if t.grad is None else t.grad.reshape(-1).tolist()
    return out.grad_fn.name(), grads


def module_case(module, phase, *inputs, call=None):
    set_params(module, phase)

    def fn():
        out = call(module, *inputs) if call else module(*inputs)
        leaves = {f"input{i}": x for i, x in enumerate(inputs) if x.requires_grad}
        leaves.update(dict(module.named_parameters()))
        return out, leaves

    return fn


def fn_case(f, **leaves):
    def fn():
        return f(**leaves), leaves

    return fn


def cases():
    c = {}
    c["linear"] = module_case(nn.Linear(5, 3), 1.0, tensor([4, 5], 0.1))
    c["linear_3d"] = module_case(nn.Linear(5, 2), 2.0, tensor([2, 3, 5], 0.2))
    c["conv1d"] = module_case(nn.Conv1d(4, 6, 3, stride=2, padding=1, groups=2), 3.0, tensor([2, 4, 9], 0.3))
    c["conv1d_same"] = module_case(nn.Conv1d(3, 2, 4, padding="same", bias=False), 3.5, tensor([2, 3, 7], 0.35))
    c["conv2d"] = module_case(nn.Conv2d(3, 4, 3, padding=1), 4.0, tensor([2, 3, 6, 6], 0.4))
    c["conv2d_strided"] = module_case(
        nn.Conv2d(4, 4, (2, 3), stride=2, dilation=(1, 2), groups=2, bias=False), 5.0, tensor([2, 4, 7, 9], 0.5)
    )
    c["conv2d_same"] = module_case(nn.Conv2d(2, 3, 4, padding="same"), 5.5, tensor([1, 2, 5, 6], 0.55))
    c["conv2d_unbatched"] = module_case(nn.Conv2d(2, 3, 3, stride=(1, 2)), 5.7, tensor([2, 5, 6], 0.57))
    c["layernorm"] = module_case(nn.LayerNorm(6), 6.0, tensor([3, 4, 6], 0.6))
    c["layernorm_2d"] = module_case(nn.LayerNorm((4, 6), eps=1e-3), 6.5, tensor([3, 4, 6], 0.65))
    bn = nn.BatchNorm2d(3)
    c["batchnorm2d_train"] = module_case(bn, 7.0, tensor([4, 3, 5, 5], 0.7))
    bn1 = nn.BatchNorm1d(4)
    with torch.no_grad():
        bn1.running_mean.copy_(tensor([4], 7.3, 0.3, grad=False))
        bn1.running_var.copy_(tensor([4], 7.4, 0.3, grad=False) + 1.0)
    bn1.eval()
    c["batchnorm1d_eval"] = module_case(bn1, 7.5, tensor([5, 4], 0.75))
    c["groupnorm"] = module_case(nn.GroupNorm(2, 4), 8.0, tensor([2, 4, 3, 3], 0.8))
    idx = torch.tensor([[1, 2, 3], [2, 9, 0]])
    c["embedding"] = module_case(nn.Embedding(10, 4, padding_idx=2), 9.0, idx)
    mha = nn.MultiheadAttention(8, 2, batch_first=True)
    c["multihead_attention"] = module_case(
        mha, 10.0, tensor([2, 5, 8], 1.0), call=lambda m, x: m(x, x, x)[0]
    )
    c["lstm_cell"] = module_case(
        nn.LSTMCell(4, 5), 11.0, tensor([3, 4], 1.1), tensor([3, 5], 1.15), tensor([3, 5], 1.2),
        call=lambda m, x, h, cc: m(x, (h, cc))[1] * 2 + m(x, (h, cc))[0],
    )
    c["gru_cell"] = module_case(nn.GRUCell(4, 5), 12.0, tensor([3, 4], 1.3), tensor([3, 5], 1.35))
    # losses
    logits = lambda: tensor([4, 5], 2.0, 1.5)  # noqa: E731
    target = torch.tensor([1, 0, 4, 2])
    ignored = torch.tensor([1, -100, 4, 3])
    cw = torch.tensor([0.5, 1.0, 1.5, 2.0, 0.25])
    probs = torch.softmax(tensor([4, 5], 2.5, 1.0, grad=False), 1)
    c["cross_entropy"] = fn_case(lambda x: nn.CrossEntropyLoss()(x, target), x=logits())
    c["cross_entropy_weighted"] = fn_case(lambda x: nn.CrossEntropyLoss(weight=cw, ignore_index=-100)(x, ignored), x=logits())
    c["cross_entropy_smoothing"] = fn_case(
        lambda x: nn.CrossEntropyLoss(weight=cw, label_smoothing=0.2)(x, ignored), x=logits()
    )
    c["cross_entropy_none"] = fn_case(lambda x: F.cross_entropy(x, target, reduction="none"), x=logits())
    c["cross_entropy_probs"] = fn_case(lambda x: F.cross_entropy(x, probs, label_smoothing=0.1), x=logits())
    c["cross_entropy_2d"] = fn_case(
        lambda x: F.cross_entropy(x, torch.tensor([[0, 2, 1], [1, 1, 0]]), reduction="sum"), x=tensor([2, 3, 3], 2.7)
    )
    c["nll_loss"] = fn_case(lambda x: nn.NLLLoss(weight=cw)(F.log_softmax(x, 1), ignored), x=logits())
    c["mse"] = fn_case(lambda x, y: nn.MSELoss()(x, y), x=logits(), y=tensor([4, 5], 3.0))
    c["mse_sum"] = fn_case(lambda x, y: F.mse_loss(x, y, reduction="sum"), x=logits(), y=tensor([5], 3.1))
    c["l1"] = fn_case(lambda x, y: nn.L1Loss()(x, y), x=logits(), y=tensor([4, 5], 3.2))
    c["bce"] = fn_case(lambda x: nn.BCELoss()(torch.sigmoid(x), probs), x=logits())
    c["bce_with_logits"] = fn_case(lambda x: nn.BCEWithLogitsLoss()(x, probs), x=logits())
    c["smooth_l1"] = fn_case(lambda x, y: nn.SmoothL1Loss(beta=0.5)(x, y), x=logits(), y=tensor([4, 5], 3.3))
    c["huber"] = fn_case(lambda x, y: nn.HuberLoss(delta=0.7)(x, y), x=logits(), y=tensor([4, 5], 3.4))
    c["kl_div"] = fn_case(
        lambda x: nn.KLDivLoss(reduction="batchmean")(F.log_softmax(x, 1), probs), x=logits()
    )
    # nn functions
    img = lambda p: tensor([2, 3, 6, 7], p, 1.0)  # noqa: E731
    c["max_pool2d"] = fn_case(lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True), x=img(4.1))
    c["avg_pool2d"] = fn_case(lambda x: F.avg_pool2d(x, (2, 3), 2, 1, count_include_pad=False), x=img(4.2))
    c["adaptive_avg_pool2d"] = fn_case(lambda x: F.adaptive_avg_pool2d(x, (4, 3)), x=img(4.3))
    c["pad_reflect"] = fn_case(lambda x: F.pad(x, (2, 1, 1, 2), mode="reflect"), x=img(4.4))
    c["pad_replicate"] = fn_case(lambda x: F.pad(x, (1, 2, 2, 0), mode="replicate"), x=img(4.5))
    c["pad_constant"] = fn_case(lambda x: F.pad(x, (1, -1, 2, 0), value=0.5), x=img(4.6))
    q = lambda p: tensor([1, 2, 4, 6], p, 1.0)  # noqa: E731
    c["sdpa_causal"] = fn_case(
        lambda q_, k_, v_: F.scaled_dot_product_attention(q_, k_, v_, is_causal=True), q_=q(5.1), k_=q(5.2), v_=q(5.3)
    )
    mask = torch.tensor([[True, False, True, True], [True, True, False, False], [False, True, True, True], [True, True, True, True]])
    c["sdpa_mask"] = fn_case(
        lambda q_, k_, v_: F.scaled_dot_product_attention(q_, k_, v_, attn_mask=mask, scale=0.3),
        q_=q(5.4), k_=q(5.5), v_=q(5.6),
    )
    c["einsum"] = fn_case(lambda a, b: torch.einsum("bij,bkj->bik", a, b), a=tensor([2, 3, 4], 6.1), b=tensor([2, 5, 4], 6.2))
    c["cumprod_cumsum"] = fn_case(lambda x: torch.cumprod(x, 1) + torch.cumsum(x, 0), x=tensor([3, 4], 6.3, 1.2))
    c["gather_scatter"] = fn_case(
        lambda x, s: torch.gather(x, 1, torch.tensor([[0, 2], [1, 1], [3, 0]])).sum(1, keepdim=True)
        + x.scatter_add(1, torch.tensor([[0, 2], [1, 1], [3, 0]]), s)[:, :1],
        x=tensor([3, 4], 6.4), s=tensor([3, 2], 6.5),
    )
    c["sort_topk"] = fn_case(lambda x: torch.sort(x, 1)[0][:, :2] + torch.topk(x, 2, 1)[0], x=tensor([3, 5], 6.6))
    return c


def main():
    results = {}
    for name, fn in cases().items():
        results[name] = run_case(fn)
    if "--record" in sys.argv:
        with open(GOLDEN, "w") as f:
            json.dump({k: {"grad_fn": v[0], "grads": v[1]} for k, v in results.items()}, f)
        print("recorded", len(results), "cases")
        return
    with open(GOLDEN) as f:
        golden = json.load(f)
    bad = []
    assert set(golden) == set(results), sorted(set(golden) ^ set(results))
    for name, (fn_name, grads) in results.items():
        want = golden[name]
        expect_name = NAME_DIFFERENCES.get(name, want["grad_fn"])
        if fn_name != expect_name:
            bad.append(f"{name}: grad_fn {fn_name}, PyTorch {want['grad_fn']}")
        for leaf, g in want["grads"].items():
            got = grads.get(leaf)
            if (got is None) != (g is None):
                bad.append(f"{name}.{leaf}: grad {'missing' if got is None else 'unexpected'}")
                continue
            if g is None:
                continue
            if len(got) != len(g):
                bad.append(f"{name}.{leaf}: {len(got)} elements, PyTorch {len(g)}")
                continue
            for j, (a, b) in enumerate(zip(got, g)):
                if not abs(a - b) <= ATOL + RTOL * abs(b):
                    bad.append(f"{name}.{leaf}[{j}]: rynamo {a!r} PyTorch {b!r}")
                    break
    if bad:
        print("\n".join(bad))
        sys.exit(1)
    print(f"{len(results)} cases match PyTorch's gradients")


main()
