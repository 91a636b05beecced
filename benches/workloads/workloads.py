"""The workload functions W1-W8 of benchmarks.md, written against `torch` as a user would, and the
registry of every workload `driver.py` serves (M1-M4 and E1 are in real_models.py): how to make
its callable and inputs (float32), and how many calls make one timed sample (tiny workloads are
timed over many calls so that the clock's resolution does not matter)."""
import torch

import real_models


def pointwise_chain(x):  # W1
    return (((x.sin() * 1.5 + x.cos()).relu() - 0.25).sigmoid()) * x


def softmax_rows(x):  # W2
    e = (x - x.amax(-1, keepdim=True)).exp()
    return e / e.sum(-1, keepdim=True)


def layernorm_gelu(x, w, b):  # W3
    mean = x.mean(-1, keepdim=True)
    xc = x - mean
    var = (xc * xc).mean(-1, keepdim=True)
    y = xc * torch.rsqrt(var + 1e-5) * w + b
    return 0.5 * y * (1.0 + torch.tanh(0.7978845608028654 * (y + 0.044715 * y * y * y)))


def mlp(x, w1, b1, w2, b2):  # W4
    return torch.relu(x @ w1 + b1) @ w2 + b2


def tiny_overhead(x):  # W5: 30 chained elementwise ops
    y = x
    for _ in range(6):
        y = y + 1
        y = y * 2
        y = y - 3
        y = y.sin()
        y = y.cos()
    return y


def graph_break(x):  # W6
    a = x.sin() + 1
    torch._dynamo.graph_break()
    return a.cos() * 2


def hundred_ops(x):  # W7: 100 elementwise ops
    y = x
    for _ in range(20):
        y = y * 1.01
        y = y + 0.5
        y = y.sin()
        y = y - 0.25
        y = y.relu()
    return y


def attention(q, k, v):  # W8
    return torch.softmax(q @ k.transpose(-1, -2) / 8, dim=-1) @ v


def _fn(fn, make_args):
    """A workload whose timed callable is `fn` itself."""
    return lambda t: (fn, make_args(t))


def _model(make_inputs):
    """A model workload: the timed callable is the module (`torch.compile(model)`, as users write
    it), called on the input."""

    def make(t):
        model, x = make_inputs(t)
        return model, (x,)

    return make


# id: (make(torch) -> (callable, args), calls per timed sample, eager only, ops per call).
# `ops per call` > 0 marks a per-op figure (E1); eager-only workloads are not compiled.
WORKLOADS = {
    "W1": (_fn(pointwise_chain, lambda t: (t.randn(4_194_304),)), 1, False, 0),
    "W2": (_fn(softmax_rows, lambda t: (t.randn(4096, 1024),)), 1, False, 0),
    "W3": (_fn(layernorm_gelu, lambda t: (t.randn(4096, 1024), t.randn(1024), t.randn(1024))), 1, False, 0),
    "W4": (
        _fn(
            mlp,
            lambda t: (
                t.randn(256, 1024),
                t.randn(1024, 4096) * 0.03,
                t.randn(4096),
                t.randn(4096, 1024) * 0.03,
                t.randn(1024),
            ),
        ),
        1,
        False,
        0,
    ),
    "W5": (_fn(tiny_overhead, lambda t: (t.randn(16),)), 500, False, 0),
    "W6": (_fn(graph_break, lambda t: (t.randn(1024),)), 500, False, 0),
    "W8": (_fn(attention, lambda t: (t.randn(8, 256, 64), t.randn(8, 256, 64), t.randn(8, 256, 64))), 1, False, 0),
    "M1": (_model(real_models.gpt_inputs), 20, False, 0),
    "M2": (_model(real_models.vit_inputs), 20, False, 0),
    "M3": (_model(real_models.resnet_inputs), 2, False, 0),
    "M4": (_model(real_models.unet_inputs), 2, False, 0),
    "E1": (_fn(real_models.eager_tiny_ops, real_models.eager_inputs), 5, True, real_models.EAGER_OPS_PER_CALL),
}

# Workloads whose inputs and weights are deterministic (no RNG), so that Rynamo's and PyTorch's
# outputs can be compared with each other.
DETERMINISTIC = ("M1", "M2", "M3", "M4", "E1")
