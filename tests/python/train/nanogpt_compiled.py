"""Issue 26's done-criterion: a nanoGPT-style training script (GPT model, AdamW with nanoGPT's
weight-decay groups, cosine learning-rate schedule with warm-up, gradient clipping,
`model = torch.compile(model)`) trains on Rynamo with the same loss curve as eager Rynamo.
The model is written here in nanoGPT's shape; nothing is imported from nanoGPT."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, dropout):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.n_head = n_head
        self.dropout = dropout

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self, n_embd):
        super().__init__()
        self.c_fc = nn.Linear(n_embd, 4 * n_embd)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * n_embd, n_embd)

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, 0.0)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = MLP(n_embd)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size=96, block_size=32, n_layer=2, n_head=4, n_embd=64):
        super().__init__()
        self.block_size = block_size
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(vocab_size, n_embd),
            wpe=nn.Embedding(block_size, n_embd),
            h=nn.ModuleList([Block(n_embd, n_head) for _ in range(n_layer)]),
            ln_f=nn.LayerNorm(n_embd),
        ))
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying, as nanoGPT
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)

    def configure_optimizers(self, weight_decay, learning_rate, betas):
        params = {n: p for n, p in self.named_parameters() if p.requires_grad}
        decay = [p for n, p in params.items() if p.dim() >= 2]
        nodecay = [p for n, p in params.items() if p.dim() < 2]
        groups = [{"params": decay, "weight_decay": weight_decay},
                  {"params": nodecay, "weight_decay": 0.0}]
        return torch.optim.AdamW(groups, lr=learning_rate, betas=betas)


def get_lr(it, warmup=5, max_iters=30, lr=1e-2, min_lr=1e-3):
    if it < warmup:
        return lr * (it + 1) / (warmup + 1)
    ratio = (it - warmup) / (max_iters - warmup)
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (lr - min_lr)


def train(compiled, iters=30, backend="inductor"):
    torch.manual_seed(1337)
    model = GPT()
    opt = model.configure_optimizers(0.1, 1e-2, (0.9, 0.95))
    if compiled:
        model = torch.compile(model, backend=backend)
    gen = torch.Generator().manual_seed(0)
    data = (torch.arange(2000) * 5 + torch.arange(2000) // 97) % 96  # learnable: next = current + 5 (mod 96), mostly
    losses = []
    for it in range(iters):
        for g in opt.param_groups:
            g["lr"] = get_lr(it)
        ix = torch.randint(len(data) - 33, (8,), generator=gen)
        x = torch.stack([data[i:i + 32] for i in ix])
        y = torch.stack([data[i + 1:i + 33] for i in ix])
        loss = model(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(loss.item())
    return losses


eager = train(False)
compiled = train(True)
worst = max(abs(a - b) / abs(a) for a, b in zip(eager, compiled))
print(f"eager loss {eager[0]:.4f} -> {eager[-1]:.4f}; compiled {compiled[0]:.4f} -> {compiled[-1]:.4f}")
assert eager[-1] < eager[0] - 0.3, "the model did not learn"
assert worst < 1e-4, f"compiled training diverges from eager: max relative loss difference {worst}"
print(f"30 steps: compiled training follows eager within {worst:.1e} (relative)")

# The backward is compiled too, not left to eager autograd: an aot_autograd backend sees a forward
# and a backward graph (cross_entropy and SDPA are differentiated through their decompositions).
from torch._dynamo.backends.common import aot_autograd

seen = {"fw": 0, "bw": 0}


def counting(kind):
    def compiler(gm, example_inputs):
        seen[kind] += 1
        return gm.forward
    return compiler


counted = train(True, iters=3, backend=aot_autograd(fw_compiler=counting("fw"), bw_compiler=counting("bw")))
assert seen["fw"] >= 1 and seen["bw"] >= 1, seen
assert max(abs(a - b) / abs(a) for a, b in zip(eager[:3], counted)) < 1e-4
print("aot_autograd: forward and backward graphs compiled")
