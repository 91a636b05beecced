# env: RYNAMO_DYNAMIC_SHAPES=0
# (pins compile counts of the automatic and dynamic=True modes, so it runs with static-by-default
# shapes even when the suite is run with dynamic shapes forced on)
"""SymInt trackers: sizes read in traced Python (`x.size()`, `x.shape[0]`, `len(x)`, `numel()`)
stay symbolic through arithmetic, op arguments (view, reshape, arange, new_zeros, narrow,
slicing) and branches (a shape guard), so one entry serves every size. Compile counts are
pinned to PyTorch's (`dynamic_symint_pt.json`, recorded by `_symint_record.py` under real
PyTorch); every compiled result is compared with eager, on the eager backend and on the dynasm
JIT (`inductor`). A GPT block over 16 sequence lengths compiles at most twice."""
import json
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch._dynamo
from torch._dynamo.testing import CompileCounterWithBackend

from _harness import done, expect
from _symint_cases import MODES, SEQUENCES, functions, run

HERE = os.path.dirname(os.path.abspath(__file__))
PT = json.load(open(os.path.join(HERE, "dynamic_symint_pt.json")))["counts"]

failures = []


def compare(label, want, got):
    ok = len(want) == len(got) and all(
        w.shape == g.shape and torch.allclose(w, g, equal_nan=True, atol=1e-5, rtol=1e-5) for w, g in zip(want, got)
    )
    if not ok:
        failures.append(f"{label}: compiled {got} != eager {want}")


for backend in ("eager", "inductor"):
    for name, fn in functions().items():
        for mode in MODES:
            for seq_name, seq in SEQUENCES.items():
                key = f"{name}/{mode}/{seq_name}"
                expect(f"{backend} {key} compiles", run(fn, mode, seq, backend, compare), PT[key])


# Soundness: a branch taken on a size holds only while its relation does; crossing it
# recompiles (never the other branch's result).
def threshold(x):
    T = x.size(0)
    if T * 2 > 10:
        return x[: T - 1] * 2
    return x[1:] + 1


for backend in ("eager", "inductor"):
    torch._dynamo.reset()
    cnt = CompileCounterWithBackend(backend)
    opt = torch.compile(threshold, backend=cnt, dynamic=True)
    for n in (7, 9, 4, 5, 8, 3, 6):
        x = torch.randn(n, 3)
        compare(f"threshold {backend} n={n}", [threshold(x)], [opt(x)])
    # 7 and 9 take `T * 2 > 10`; 4 fails that guard and compiles the other branch (guarded
    # `T * 2 <= 10`); 5, 3 reuse it; 8, 6 reuse the first.
    expect(f"threshold {backend} compiles", cnt.frame_count, 2)


# The relation is a shape guard in the guard tree, shown by explain() (PyTorch prints the same
# guard simplified to a range, `6 <= L['x'].size()[0]`).
torch._dynamo.reset()
x = torch.randn(7, 3)
torch._dynamo.mark_dynamic(x, 0)
ex = torch._dynamo.explain(threshold)(x)
expect(
    "threshold shape guards",
    [c for g in ex.out_guards for c in g.code_list if "size()" in c],
    ["2 <= L['x'].size()[0]", "L['x'].size()[0] * 2 > 10"],
)


# Sizes that leave the graph as Python values (the result, a live local across a graph break,
# an attribute store) are specialised: every size gets its own values, never the traced ones.
class Holder:
    pass


holder = Holder()


def returns_sizes(x):
    holder.rows = x.size(0) - 1
    return x * 2, x.shape, x.size(0) + 1


def across_break(x):
    n = x.size(0) * 2
    torch._dynamo.graph_break()
    return x * n


for backend in ("eager", "inductor"):
    for fn in (returns_sizes, across_break):
        torch._dynamo.reset()
        opt = torch.compile(fn, backend=backend)
        for n in (3, 5, 8, 6):
            x = torch.randn(n, 2)
            want, got = fn(x), opt(x)
            if fn is returns_sizes:
                expect(f"{fn.__name__} {backend} n={n} sizes", (type(got[1]), got[1], got[2], holder.rows), (torch.Size, want[1], want[2], n - 1))
                want, got = want[0], got[0]
            compare(f"{fn.__name__} {backend} n={n}", [want], [got])


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.n_head = n_head
        self.n_embd = n_embd
        mask = torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size)
        self.register_buffer("bias", mask)

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
    def __init__(self, n_embd=32, n_head=4, block_size=128):
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
for backend in ("eager", "inductor"):
    torch._dynamo.reset()
    torch.manual_seed(0)
    block = Block().eval()
    cnt = CompileCounterWithBackend(backend)
    opt = torch.compile(block, backend=cnt)
    with torch.no_grad():
        for t in LENGTHS:
            x = torch.randn(2, t, 32)
            compare(f"gpt block {backend} T={t}", [block(x)], [opt(x)])
    expect(f"gpt block {backend} compiles at most twice", cnt.frame_count <= 2, True)

# A nanoGPT-style model forward: `b, t = idx.size()`, an assert on `t` (a shape guard),
# `torch.arange(0, t)`: 2 compiles over 5 lengths, as PyTorch 2.15.
class TinyGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(50, 16)
        self.wpe = nn.Embedding(64, 16)
        self.head = nn.Linear(16, 50)
        self.block_size = 64

    def forward(self, idx):
        b, t = idx.size()
        assert t <= self.block_size, f"Cannot forward sequence of length {t}"
        pos = torch.arange(0, t, dtype=torch.long)
        x = self.wte(idx) + self.wpe(pos)
        return self.head(x[:, [-1], :])


tiny = TinyGPT()
for backend in ("eager", "inductor"):
    torch._dynamo.reset()
    cnt = CompileCounterWithBackend(backend)
    opt = torch.compile(tiny, backend=cnt)
    for t in (5, 9, 13, 30, 64):
        idx = torch.randint(0, 50, (2, t))
        compare(f"tiny gpt {backend} t={t}", [tiny(idx)], [opt(idx)])
    expect(f"tiny gpt {backend} compiles", cnt.frame_count, 2)

expect("results equal eager", failures, [])
done()
