"""W13 varlen_gpt: a GPT block forward over 16 sequence lengths (17 to 128), compiled with the
default settings (automatic dynamic shapes): the number of compiles and the total time of the
16 calls, compiles included (`total_s`), and the time of the same 16 calls once every length has
run (`steady_s`, the median of 3 passes): `total_s - steady_s` is what the first call at each new
length costs (tracing, compiling, per-size planning). Runs under rynamo and under real PyTorch;
prints one JSON line.

    python w13_varlen_gpt.py [--backend inductor]
"""
import argparse
import json
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch._dynamo
from torch._dynamo.testing import CompileCounterWithBackend


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.n_head = n_head
        self.n_embd = n_embd
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self, n_embd=128, n_head=4, block_size=128):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, block_size)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.fc = nn.Linear(n_embd, 4 * n_embd)
        self.proj = nn.Linear(4 * n_embd, n_embd)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.proj(F.gelu(self.fc(self.ln_2(x)), approximate="tanh"))


LENGTHS = [17 + round(i * (128 - 17) / 15) for i in range(16)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="inductor")
    args = ap.parse_args()
    torch.manual_seed(0)
    block = Block().eval()
    xs = [torch.randn(8, t, 128) for t in LENGTHS]
    cnt = CompileCounterWithBackend(args.backend)
    compiled = torch.compile(block, backend=cnt)
    worst = 0.0
    start = time.perf_counter()
    with torch.no_grad():
        for x in xs:
            y = compiled(x)
    total = time.perf_counter() - start
    steady = []
    with torch.no_grad():
        for _ in range(3):
            start = time.perf_counter()
            for x in xs:
                y = compiled(x)
            steady.append(time.perf_counter() - start)
        for x in xs:
            worst = max(worst, float((compiled(x) - block(x)).abs().max()))
    print(json.dumps({"compiles": cnt.frame_count, "total_s": total,
                      "steady_s": sorted(steady)[1], "lengths": len(LENGTHS),
                      "max_abs_diff_vs_eager": worst}))


if __name__ == "__main__":
    main()
