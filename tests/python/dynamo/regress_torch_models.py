"""Issue 27 requirement 5 on model code: Rynamo's own torch.nn layers compile with PyTorch 2.15's
graph counts (a built-in layer runs under a wrapper frame, so a break inside it, such as the
causal-mask check's `bool()` of a tensor, runs the whole call eagerly, as in PyTorch), and the
nanoGPT/minGPT idioms (`torch.arange(T, device=x.device)`, `x[:, [-1], :]`, factory keywords)
trace in one graph. Results equal eager; counts are PyTorch's (this file runs under PyTorch too)."""
import math

import torch
import torch._dynamo
import torch.nn as nn
import torch.nn.functional as F
from torch._dynamo.testing import CompileCounter

from _harness import done, expect, same

torch.manual_seed(0)
X = torch.randn(2, 5, 8)
MASK = nn.Transformer.generate_square_subsequent_mask(5)
PAD = torch.tensor([[False] * 5, [False] * 3 + [True] * 2])


def layer():
    return nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)


CASES = [
    # (name, module, args, kwargs, PyTorch's graph count)
    ("encoder_layer", layer(), (X,), {}, 1),
    ("encoder_with_mask", nn.TransformerEncoder(layer(), num_layers=2), (X,), {"mask": MASK}, 0),
    ("encoder_causal", nn.TransformerEncoder(layer(), num_layers=2), (X,), {"mask": MASK, "is_causal": True}, 1),
    ("encoder_padding", nn.TransformerEncoder(layer(), num_layers=2), (X,), {"src_key_padding_mask": PAD}, 1),
    (
        "decoder_with_mask",
        nn.TransformerDecoder(
            nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True),
            num_layers=2,
        ),
        (X, X),
        {"tgt_mask": MASK},
        0,
    ),
    ("attention", nn.MultiheadAttention(8, 2, batch_first=True), (X, X, X), {"need_weights": False, "attn_mask": MASK}, 1),
]

for name, module, args, kwargs, graphs in CASES:
    for mode in ("train", "eval"):
        getattr(module, mode)()
        torch._dynamo.reset()
        cnt = CompileCounter()
        got = torch.compile(module, backend=cnt)(*args, **kwargs)
        want = module(*args, **kwargs)
        expect(f"{name} ({mode}) result", same(want, got), True)
        expect(f"{name} ({mode}) graphs", cnt.frame_count, graphs)


class CausalSelfAttention(nn.Module):
    """nanoGPT/minGPT's attention: a registered causal mask sliced to T, masked_fill, softmax."""

    def __init__(self, n_embd=16, n_head=2, block_size=8):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.n_head = n_head
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class TinyGPT(nn.Module):
    def __init__(self, vocab=20, n_embd=16, block_size=8):
        super().__init__()
        self.wte = nn.Embedding(vocab, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.attn = CausalSelfAttention(n_embd, 2, block_size)
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab, bias=False)

    def forward(self, idx, targets=None):
        device = idx.device
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=device)
        x = self.wte(idx) + self.wpe(pos)
        x = self.ln_f(x + self.attn(x))
        if targets is not None:
            logits = self.lm_head(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        else:
            logits = self.lm_head(x[:, [-1], :])
            loss = None
        return logits, loss


torch.manual_seed(0)
gpt = TinyGPT()
gpt.eval()
idx = torch.randint(0, 20, (2, 6))
targets = torch.randint(0, 20, (2, 6))
for tgt in (None, targets):
    torch._dynamo.reset()
    cnt = CompileCounter()
    got = torch.compile(gpt, backend=cnt, fullgraph=True)(idx, tgt)
    expect(f"tiny GPT (targets={tgt is not None}) result", same(gpt(idx, tgt), got), True)
    expect(f"tiny GPT (targets={tgt is not None}) graphs", cnt.frame_count, 1)

done()
