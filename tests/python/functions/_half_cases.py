"""bfloat16/float16 cases of `half_vs_pytorch.py` (shared with `_gen_half_goldens.py`): layers and ops
in reduced precision from fixed inputs, and a small conv/norm/attention model cast with `.to(dtype)`."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.norm = nn.GroupNorm(2, 4)
        self.attn = nn.MultiheadAttention(4, 2, batch_first=True)
        self.ln = nn.LayerNorm(4)
        self.head = nn.Linear(4, 5)

    def forward(self, x):
        y = F.gelu(self.norm(self.conv(x)))
        seq = y.flatten(2).transpose(1, 2)
        seq = seq + self.attn(seq, seq, seq, need_weights=False)[0]
        return self.head(self.ln(seq)).softmax(-1)


def tiny(dt):
    torch.manual_seed(0)
    m = Tiny()
    with torch.no_grad():
        for k, p in enumerate(m.parameters()):
            p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (1 + 0.1 * k))
    return m.to(dt).eval()


def cases(dt):
    x = torch.linspace(-2, 2, 2 * 3 * 8 * 8).reshape(2, 3, 8, 8).to(dt)
    v = torch.linspace(-1, 1, 24).reshape(4, 6).to(dt)
    w = torch.linspace(-0.5, 0.7, 30).reshape(5, 6).to(dt)
    k = torch.linspace(-0.3, 0.3, 4 * 3 * 3 * 3).reshape(4, 3, 3, 3).to(dt)
    return {
        "linear": lambda: F.linear(v, w, w[:, 0]), "matmul": lambda: v @ v.t(),
        "bmm": lambda: torch.bmm(v[None], v.t()[None]), "conv2d": lambda: F.conv2d(x, k, padding=1),
        "conv_transpose2d": lambda: F.conv_transpose2d(x, k[:3, :2], stride=2),
        "layer_norm": lambda: F.layer_norm(v, (6,), w[0], w[1]), "group_norm": lambda: F.group_norm(x, 3),
        "batch_norm": lambda: F.batch_norm(x, None, None, training=True), "instance_norm": lambda: F.instance_norm(x),
        "rms_norm": lambda: F.rms_norm(v, (6,), w[2]), "softmax": lambda: F.softmax(v, -1),
        "log_softmax": lambda: F.log_softmax(v, -1), "gelu": lambda: F.gelu(v), "silu": lambda: F.silu(v),
        "tanh": lambda: v.tanh(), "exp": lambda: v.exp(), "erf": lambda: v.erf(),
        "sdpa": lambda: F.scaled_dot_product_attention(v[None, None], v[None, None], v[None, None], is_causal=True),
        "embedding": lambda: F.embedding(torch.tensor([0, 2]), v), "max_pool2d": lambda: F.max_pool2d(x, 2),
        "avg_pool2d": lambda: F.avg_pool2d(x, 2), "adaptive_avg_pool2d": lambda: F.adaptive_avg_pool2d(x, 3),
        "bilinear": lambda: F.interpolate(x, scale_factor=2, mode="bilinear"),
        "nearest": lambda: F.interpolate(x, scale_factor=2), "cross_entropy": lambda: F.cross_entropy(v, torch.tensor([0, 1, 2, 3])),
        "sum": lambda: v.sum(), "mean": lambda: v.mean(-1), "var": lambda: v.var(-1), "cumsum": lambda: v.cumsum(-1),
        "sort": lambda: v.sort(-1)[0], "topk": lambda: v.topk(2)[0],
        "reflect_pad": lambda: F.pad(x, (1, 1, 1, 1), mode="reflect"), "pow": lambda: v.pow(2),
        "rsqrt": lambda: (v.abs() + 1).rsqrt(), "where": lambda: torch.where(v > 0, v, 0.0),
        "einsum": lambda: torch.einsum("ij,kj->ik", v, v), "clamp": lambda: v.clamp(-0.5, 0.5),
        "lstm": lambda: _lstm(dt, v), "tiny_model": lambda: tiny(dt)(x),
    }


def _lstm(dt, v):
    m = nn.LSTM(6, 3)
    with torch.no_grad():
        for k, p in enumerate(m.parameters()):
            p.copy_(torch.linspace(-0.4, 0.4, p.numel()).reshape(p.shape) * (1 - 0.1 * k))
    return m.to(dt)(v[None])[0]
