"""A LLaMA-style block: RMSNorm, rotary position embeddings (rotate-half with chunk and cat),
causal scaled_dot_product_attention, a SwiGLU feed-forward. Config in a dataclass."""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Args:
    dim: int = 128
    n_heads: int = 4
    hidden: int = 344
    seq: int = 64


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def rope(seq, head_dim):
    inv = 1.0 / (10000 ** (torch.arange(0, head_dim, 2).float() / head_dim))
    freqs = torch.outer(torch.arange(seq).float(), inv)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


class Block(nn.Module):
    def __init__(self, a: Args):
        super().__init__()
        self.a = a
        self.attn_norm = nn.RMSNorm(a.dim, eps=1e-6)
        self.wqkv = nn.Linear(a.dim, 3 * a.dim, bias=False)
        self.wo = nn.Linear(a.dim, a.dim, bias=False)
        self.ffn_norm = nn.RMSNorm(a.dim, eps=1e-6)
        self.w1 = nn.Linear(a.dim, a.hidden, bias=False)
        self.w3 = nn.Linear(a.dim, a.hidden, bias=False)
        self.w2 = nn.Linear(a.hidden, a.dim, bias=False)
        cos, sin = rope(a.seq, a.dim // a.n_heads)
        self.register_buffer("cos", cos)
        self.register_buffer("sin", sin)

    def forward(self, x):
        b, t, d = x.shape
        hd = d // self.a.n_heads
        q, k, v = self.wqkv(self.attn_norm(x)).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.a.n_heads, hd).transpose(1, 2) for z in (q, k, v))
        q = q * self.cos + rotate_half(q) * self.sin
        k = k * self.cos + rotate_half(k) * self.sin
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.wo(y.transpose(1, 2).reshape(b, t, d))
        h = self.ffn_norm(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


def build(small=False):
    a = Args(dim=16, n_heads=2, hidden=24, seq=4) if small else Args()
    return Block(a).eval(), (torch.randn(2 if small else 8, a.seq, a.dim),)


def main():
    from _suite import check_model

    check_model(build, "llama_block")


if __name__ == "__main__":
    main()
