"""Compiled training of a model zoo (issue 26 requirement 8): an MLP, a CNN with BatchNorm, a GPT
block, an LSTM-cell loop and a ViT block, each trained 20 steps with `torch.compile(model)` on the
eager, aot_eager and inductor backends, against the same model trained eagerly from the same
weights: losses and final parameters equal within 1e-5 relative (float32). Every model has a
variant with a graph break inside its forward, so the backward crosses compiled and eager code."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 20
RTOL = 1e-5


class MLP(nn.Module):
    def __init__(self, brk):
        super().__init__()
        self.brk = brk
        self.l1, self.l2, self.l3 = nn.Linear(8, 32), nn.Linear(32, 32), nn.Linear(32, 4)

    def forward(self, x):
        h = F.gelu(self.l1(x))
        if self.brk:
            torch._dynamo.graph_break()
        return self.l3(torch.tanh(self.l2(h)))


class CNN(nn.Module):
    def __init__(self, brk):
        super().__init__()
        self.brk = brk
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        if self.brk:
            torch._dynamo.graph_break()
        h = F.relu(self.bn2(self.conv2(h)) + h)
        return self.fc(F.adaptive_avg_pool2d(h, 1).flatten(1))


class Block(nn.Module):
    """A pre-norm transformer block (causal for the GPT block, bidirectional for ViT)."""

    def __init__(self, d, heads, causal, brk):
        super().__init__()
        self.heads, self.causal, self.brk = heads, causal, brk
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        if self.causal:
            mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
            att = att.masked_fill(~mask, float("-inf"))
        y = (F.softmax(att, dim=-1) @ v).transpose(1, 2).contiguous().view(B, T, C)
        x = x + self.proj(y)
        if self.brk:
            torch._dynamo.graph_break()
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, brk):
        super().__init__()
        self.tok, self.pos = nn.Embedding(16, 32), nn.Embedding(8, 32)
        self.block = Block(32, 4, True, brk)
        self.ln, self.head = nn.LayerNorm(32), nn.Linear(32, 16, bias=False)

    def forward(self, idx):
        T = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(T))
        return self.head(self.ln(self.block(x)))


class LSTMLoop(nn.Module):
    def __init__(self, brk):
        super().__init__()
        self.brk = brk
        self.cell = nn.LSTMCell(6, 12)
        self.out = nn.Linear(12, 3)

    def forward(self, x):  # x: (T, B, 6)
        h = torch.zeros(x.shape[1], 12)
        c = torch.zeros(x.shape[1], 12)
        for t in range(x.shape[0]):
            h, c = self.cell(x[t], (h, c))
            if self.brk and t == 1:
                torch._dynamo.graph_break()
        return self.out(h)


class ViT(nn.Module):
    def __init__(self, brk):
        super().__init__()
        self.patch = nn.Conv2d(3, 24, 4, stride=4)
        self.cls = nn.Parameter(torch.randn(1, 1, 24) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, 5, 24) * 0.02)
        self.block = Block(24, 3, False, brk)
        self.ln, self.head = nn.LayerNorm(24), nn.Linear(24, 5)

    def forward(self, img):
        x = self.patch(img).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        return self.head(self.ln(self.block(x))[:, 0])


def data(name):
    g = torch.Generator().manual_seed(7)
    if name == "MLP":
        return torch.randn(16, 8, generator=g), torch.randn(16, 4, generator=g)
    if name == "CNN":
        return torch.randn(8, 3, 8, 8, generator=g), torch.randint(0, 4, (8,), generator=g)
    if name == "GPT":
        idx = torch.randint(0, 16, (4, 8), generator=g)
        return idx, torch.roll(idx, -1, dims=1)
    if name == "LSTMLoop":
        return torch.randn(4, 5, 6, generator=g), torch.randint(0, 3, (5,), generator=g)
    return torch.randn(16, 3, 8, 8, generator=g), torch.randint(0, 5, (16,), generator=g)


def loss_of(name, out, y):
    if name == "MLP":
        return F.mse_loss(out, y)
    if name == "GPT":
        return F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
    return F.cross_entropy(out, y)


def train(model, step_model, x, y, name):
    # SGD, not Adam: the key projection's bias gets an exactly-zero gradient (softmax ignores a
    # shift shared by all keys), and Adam would scale its rounding noise up to full steps. The
    # rate keeps every loss well above 0, where float32 losses have few significant digits.
    opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    losses, nodes = [], set()
    for _ in range(STEPS):
        opt.zero_grad(set_to_none=True)
        out = step_model(x)
        nodes.add(out.grad_fn.name())
        loss = loss_of(name, out, y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, nodes


def close(a, b):
    return abs(a - b) <= RTOL * max(abs(a), abs(b), 1e-6)


failures = []
runs = 0
for cls in (MLP, CNN, GPT, LSTMLoop, ViT):
    name = cls.__name__
    x, y = data(name)
    for brk in (False, True):
        torch.manual_seed(0)
        eager_model = cls(brk)
        want, _ = train(eager_model, eager_model, x, y, name)
        for backend in ("eager", "aot_eager", "inductor"):
            torch._dynamo.reset()
            torch.manual_seed(0)
            model = cls(brk)
            got, nodes = train(model, torch.compile(model, backend=backend), x, y, name)
            runs += 1
            tag = f"{name}{' +break' if brk else ''} on {backend}"
            # The AOT backends return outputs of one compiled autograd node per region. A graph
            # break inside `LSTMLoop`'s for loop makes Dynamo skip its `forward` frame, so it runs
            # eagerly and its output is the eager `addmm`'s (PyTorch 2.15 gives the same).
            compiled_node = "AddmmBackward0" if name == "LSTMLoop" and brk else "CompiledFunctionBackward"
            if backend != "eager" and nodes != {compiled_node}:
                failures.append(f"{tag}: outputs' grad_fn {sorted(nodes)}, not the compiled node")
            bad = [i for i, (a, b) in enumerate(zip(got, want)) if not close(a, b)]
            if bad:
                i = bad[0]
                failures.append(f"{tag}: loss at step {i} is {got[i]!r}, eager {want[i]!r}")
                continue
            for (pn, p), q in zip(model.named_parameters(), eager_model.parameters()):
                if not torch.allclose(p, q, rtol=RTOL, atol=1e-6):
                    err = (p - q).abs().max().item()
                    failures.append(f"{tag}: final {pn} differs (max abs {err:.3g})")
                    break
            if want[-1] >= want[0]:
                failures.append(f"{tag}: eager training did not reduce the loss ({want[0]} -> {want[-1]})")

print(f"compiled zoo training: {runs - len(failures)}/{runs} runs equal eager over {STEPS} steps")
if failures:
    print("\n".join(failures))
    raise SystemExit(1)
