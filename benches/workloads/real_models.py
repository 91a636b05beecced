"""M1-M4 of benchmarks.md: real-model forwards (eval, no grad) in the shapes of the models of the
performance issue, written for this harness as PyTorch users write models (nn.Module classes,
a config dataclass, ModuleList loops, torch.nn.functional), plus E1, the eager per-op
microbenchmark. The same file runs under Rynamo and under real PyTorch, so both time the same code.

Inputs and weights are deterministic functions of their shapes (no RNG: Rynamo's generator is not
PyTorch's), so the outputs of the two implementations are compared against each other as well as
compiled against eager.
"""
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


def det(*shape, scale=1.0, seed=0):
    """A deterministic float32 tensor in [-scale, scale): a multiplicative hash of the flat index
    in integer arithmetic (exact in every implementation), spread over the range."""
    n = math.prod(shape)
    h = (torch.arange(n, dtype=torch.int64) * 40503 + seed * 7919) % 65521
    return ((h.to(torch.float32) / 65521.0 * 2.0 - 1.0) * scale).reshape(shape)


def det_init_(module):
    """Overwrites every parameter with a deterministic tensor scaled like PyTorch's default fan-in
    initialisation, and BatchNorm's running statistics with a variance in [1, 1.5) and a mean
    near 0, so both implementations run identical models (in eval mode)."""
    with torch.no_grad():
        for i, (name, p) in enumerate(module.named_parameters()):
            fan_in = math.prod(p.shape[1:]) if p.dim() > 1 else p.shape[0]
            p.copy_(det(*p.shape, scale=1.0 / math.sqrt(fan_in), seed=i + 1))
        for i, (name, b) in enumerate(module.named_buffers()):
            # Only BatchNorm's statistics: other buffers (a causal mask) are part of the model.
            if name.endswith("running_var"):
                b.copy_(1.0 + det(*b.shape, scale=0.5, seed=i + 101).abs())
            elif name.endswith("running_mean"):
                b.copy_(det(*b.shape, scale=0.1, seed=i + 101))
    return module.eval()


# ----- M1: a GPT (nanoGPT's shape: pre-LN blocks, causal self-attention, tied lm head) -----


@dataclass
class GPTConfig:
    vocab_size: int = 65  # a character-level vocabulary
    block_size: int = 32
    n_layer: int = 2
    n_head: int = 4
    n_embd: int = 64


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.n_head = cfg.n_head
        self.qkv = nn.Linear(cfg.n_embd, 3 * cfg.n_embd)
        self.proj = nn.Linear(cfg.n_embd, cfg.n_embd)
        mask = torch.tril(torch.ones(cfg.block_size, cfg.block_size))
        self.register_buffer("mask", mask.view(1, 1, cfg.block_size, cfg.block_size))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q = q.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)
        k = k.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)
        v = v.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.proj(y)


class MLP(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc = nn.Linear(dim, hidden)
        self.out = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.out(F.gelu(self.fc(x)))


class GPTBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ln_1 = nn.LayerNorm(cfg.n_embd)
        self.attn = CausalSelfAttention(cfg)
        self.ln_2 = nn.LayerNorm(cfg.n_embd)
        self.mlp = MLP(cfg.n_embd, 4 * cfg.n_embd)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.wte = nn.Embedding(cfg.vocab_size, cfg.n_embd)
        self.wpe = nn.Embedding(cfg.block_size, cfg.n_embd)
        self.blocks = nn.ModuleList([GPTBlock(cfg) for _ in range(cfg.n_layer)])
        self.ln_f = nn.LayerNorm(cfg.n_embd)

    def forward(self, idx):
        t = idx.shape[1]
        pos = torch.arange(0, t, dtype=torch.long)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.blocks:
            x = block(x)
        # The lm head shares the token embedding (weight tying).
        return self.ln_f(x) @ self.wte.weight.t()


def gpt_inputs(t):
    cfg = GPTConfig()
    model = det_init_(GPT(cfg))
    idx = (torch.arange(4 * cfg.block_size) * 7 % cfg.vocab_size).reshape(4, cfg.block_size)
    return (model, idx)


# ----- M2: a ViT (patch embedding by reshapes, pre-LN encoder, class token) -----


class ViTAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.to_qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.to_out = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, d = x.shape
        qkv = self.to_qkv(x).reshape(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        att = (q @ k.transpose(-1, -2) * self.scale).softmax(dim=-1)
        return self.to_out((att @ v).transpose(1, 2).reshape(b, n, d))


class ViTLayer(nn.Module):
    def __init__(self, dim, heads, mlp_dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = ViTAttention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, mlp_dim), nn.GELU(), nn.Linear(mlp_dim, dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.ff(self.norm2(x))


class ViT(nn.Module):
    def __init__(self, image=32, patch=4, channels=3, dim=64, depth=2, heads=4, mlp_dim=128, classes=10):
        super().__init__()
        self.patch = patch
        n = (image // patch) ** 2
        self.patch_norm = nn.LayerNorm(channels * patch * patch)
        self.to_embedding = nn.Linear(channels * patch * patch, dim)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embedding = nn.Parameter(torch.zeros(1, n + 1, dim))
        self.layers = nn.ModuleList([ViTLayer(dim, heads, mlp_dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, img):
        b, c, h, w = img.shape
        p = self.patch
        # b c (h p1) (w p2) -> b (h w) (p1 p2 c), as einops' Rearrange writes it.
        x = img.reshape(b, c, h // p, p, w // p, p).permute(0, 2, 4, 3, 5, 1).reshape(b, (h // p) * (w // p), p * p * c)
        x = self.to_embedding(self.patch_norm(x))
        x = torch.cat([self.cls_token.expand(b, -1, -1), x], dim=1) + self.pos_embedding
        for layer in self.layers:
            x = layer(x)
        return self.head(self.norm(x[:, 0]))


def vit_inputs(t):
    return (det_init_(ViT()), det(4, 3, 32, 32))


# ----- M3: a ResNet-18-style CNN (BasicBlocks [2, 2, 2, 2], BatchNorm in eval) -----


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(y)) + identity)


class ResNet18(nn.Module):
    def __init__(self, classes=1000, widths=(64, 128, 256, 512)):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, widths[0], 7, 2, 3, bias=False), nn.BatchNorm2d(widths[0]), nn.ReLU(), nn.MaxPool2d(3, 2, 1)
        )
        blocks, cin = [], widths[0]
        for i, w in enumerate(widths):
            stride = 1 if i == 0 else 2
            blocks += [BasicBlock(cin, w, stride), BasicBlock(w, w, 1)]
            cin = w
        self.blocks = nn.ModuleList(blocks)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(widths[-1], classes)

    def forward(self, x):
        x = self.stem(x)
        for block in self.blocks:
            x = block(x)
        return self.fc(torch.flatten(self.pool(x), 1))


def resnet_inputs(t):
    return (det_init_(ResNet18()), det(1, 3, 64, 64))


# ----- M4: a U-Net (double convs, max-pool down, bilinear up with skip concatenation) -----


class DoubleConv(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(cin, cout, 3, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
            nn.Conv2d(cout, cout, 3, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        )

    def forward(self, x):
        return self.net(x)


class Up(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = DoubleConv(cin, cout)

    def forward(self, x, skip):
        x = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)
        return self.conv(torch.cat([skip, x], dim=1))


class UNet(nn.Module):
    def __init__(self, channels=3, classes=2, base=16):
        super().__init__()
        self.inc = DoubleConv(channels, base)
        self.down1 = DoubleConv(base, 2 * base)
        self.down2 = DoubleConv(2 * base, 4 * base)
        self.down3 = DoubleConv(4 * base, 4 * base)
        self.up1 = Up(8 * base, 2 * base)
        self.up2 = Up(4 * base, base)
        self.up3 = Up(2 * base, base)
        self.outc = nn.Conv2d(base, classes, 1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(F.max_pool2d(x1, 2))
        x3 = self.down2(F.max_pool2d(x2, 2))
        x4 = self.down3(F.max_pool2d(x3, 2))
        y = self.up1(x4, x3)
        y = self.up2(y, x2)
        y = self.up3(y, x1)
        return self.outc(y)


def unet_inputs(t):
    return (det_init_(UNet()), det(1, 3, 64, 64))


# ----- E1: eager dispatch overhead, 1,000 tiny ops per call -----

EAGER_OPS_PER_CALL = 1000


def eager_tiny_ops(x, y):
    """1,000 tensor ops on 16-element tensors: what one op costs in eager mode (the Python call
    into the op, the allocation of its result, the result's wrapper), not the arithmetic."""
    z = x
    for _ in range(EAGER_OPS_PER_CALL // 5):
        z = z + y
        z = z * 0.5
        z = z.sin()
        z = z - y
        z = torch.relu(z)
    return z


def eager_inputs(t):
    return (det(16), det(16, seed=1))
